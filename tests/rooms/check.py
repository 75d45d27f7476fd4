#!/usr/bin/env python3
"""The rooms of src/ and what each may include (ARCHITECTURE.md, "Rooms").

Usage: check.py ROOT. Reads every src/<room>/*.{h,cpp} under ROOT and every
`#include "..."` in it, prints what it checked, then one line per breach,
each starting "BREACH", and exits 1 if there is any:
  - an include of a room on the same level (a sibling) or a higher one;
  - a cycle between rooms, or between files;
  - an include of a file that is not under src/ (paths start at src/), but
    that a unit test (*_test.cpp) may include tests/support/ (the Makefile
    puts it on the path of tests only);
  - a directory of src/ that the room table does not name;
  - a non-test file of MAX_LINES lines or more that ALLOW_LONG does not name.
Unit tests obey the room rule as product code does: a test lives in the
lowest room that holds everything it uses.
"""

import os
import re
import sys

# Lowest first. A room may include itself and any room on a lower level;
# rooms on one level are siblings and include neither each other.
LEVELS = [
    ["util"],  # no room: strings, sizes, durations, files, Result
    ["kernel", "cgroup"],  # the kernel's vocabulary; cgroup and memcg files
    ["trace"],  # lines of a trace to Records
    ["profile", "ring"],  # the YAML profile; the binary ring buffer and trace.dat to Records
    ["bind", "tracefs"],  # Records to incidents; the tracing session
    ["output", "metrics"],  # incidents to text, JSON, journal, the report; to Prometheus
    ["cli"],  # options and main, which wire every room together
]

MAX_LINES = 600

# Non-test files allowed MAX_LINES lines or more: path from ROOT, and why.
ALLOW_LONG = {}

INCLUDE = re.compile(r'^\s*#\s*include\s*"([^"]+)"')


def level_of(room):
    for level, rooms in enumerate(LEVELS):
        if room in rooms:
            return level
    return None


def cycles(graph):
    """The strongly connected components of more than one node, or with a
    self-edge (Tarjan), each sorted."""
    index, low, on_stack, stack, found = {}, {}, set(), [], []

    def visit(node):
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for to in sorted(graph.get(node, ())):
            if to not in index:
                visit(to)
                low[node] = min(low[node], low[to])
            elif to in on_stack:
                low[node] = min(low[node], index[to])
        if low[node] == index[node]:
            component = []
            while True:
                top = stack.pop()
                on_stack.discard(top)
                component.append(top)
                if top == node:
                    break
            if len(component) > 1 or node in graph.get(node, ()):
                found.append(sorted(component))

    sys.setrecursionlimit(10000)
    for node in sorted(graph):
        if node not in index:
            visit(node)
    return sorted(found)


def main(root):
    src = os.path.join(root, "src")
    support = os.path.join(root, "tests", "support")
    breaches = []
    files = []
    for directory, _, names in os.walk(src):
        for name in names:
            if name.endswith((".h", ".cpp")):
                files.append(os.path.relpath(os.path.join(directory, name), src))
    files.sort()

    file_graph = {}
    room_graph = {}
    includes = 0
    support_includes = 0
    largest = (0, "")
    for path in files:
        room = path.split(os.sep)[0] if os.sep in path else ""
        test = path.endswith("_test.cpp")
        if level_of(room) is None:
            breaches.append(f"src/{path}: room '{room}' is not in the room table")
            continue
        with open(os.path.join(src, path), encoding="utf-8", errors="replace") as f:
            lines = f.read().split("\n")
        count = len(lines) - (lines[-1] == "")
        if not test:
            largest = max(largest, (count, path))
            if count >= MAX_LINES and f"src/{path}" not in ALLOW_LONG:
                breaches.append(
                    f"src/{path}: {count} lines, not under {MAX_LINES} "
                    "(split it by job, or name it in ALLOW_LONG with why)"
                )
        file_graph.setdefault(path, set())
        for number, line in enumerate(lines, 1):
            match = INCLUDE.match(line)
            if not match:
                continue
            target = match.group(1)
            where = f"src/{path}:{number}"
            if os.path.isfile(os.path.join(src, target)):
                includes += 1
                file_graph[path].add(os.path.normpath(target))
                to = target.split("/")[0] if "/" in target else ""
                to_level = level_of(to)
                if to == room:
                    continue
                room_graph.setdefault(room, set()).add(to)
                if to_level is None:
                    breaches.append(f'{where}: includes "{target}", in no room of the table')
                elif to_level == level_of(room):
                    breaches.append(
                        f'{where}: {room} includes its sibling {to} ("{target}"); '
                        "siblings include neither each other"
                    )
                elif to_level > level_of(room):
                    breaches.append(f'{where}: {room} includes {to}, a higher room ("{target}")')
            elif os.path.isfile(os.path.join(support, target)):
                if test:
                    support_includes += 1
                else:
                    breaches.append(
                        f'{where}: includes "{target}" from tests/support, which is for '
                        "unit tests only"
                    )
            else:
                breaches.append(f'{where}: includes "{target}", no such file under src/')

    for component in cycles(room_graph):
        breaches.append("cycle between rooms: " + " <-> ".join(component))
    for component in cycles(file_graph):
        breaches.append("include cycle between files: " + " <-> ".join(component))

    print(f"checked {len(files)} files under src/ with {includes} includes of src/ "
          f"and {support_includes} of tests/support (unit tests)")
    print("rooms, lowest first (a room includes itself and lower levels):")
    for level, rooms in enumerate(LEVELS):
        for room in rooms:
            uses = " ".join(sorted(room_graph.get(room, ()))) or "-"
            print(f"  {level} {room:8} includes: {uses}")
    print(f"largest non-test file: src/{largest[1]}, {largest[0]} lines "
          f"(each under {MAX_LINES} but {len(ALLOW_LONG)} allowed longer)")
    for breach in breaches:
        print("BREACH " + breach)
    return 1 if breaches else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else "."))

#!/usr/bin/env python3
"""Does a replay of a raw run's trace.dat print what the run printed?

    same_output.py [--late N] LIVE REPLAY

LIVE and REPLAY are two outputs (trace lines, JSON Lines or a --report
file) of the same records. They must have the same lines but for one
thing: a task the live run could not name when it printed it (its pid gone
from /proc and not yet in saved_cmdlines) shows as `<...>` there, and the
replay names it from the saved_cmdlines the trace.dat keeps. So a live
line may differ from its replay line only where it has `<...>` and the
replay a comm, the columns around it padded to fit; the comm must be the
same for every such line of the pid. Prints one line: "same" or "same but
N lines of unnamed tasks (PID=COMM ...)", exit 0; or "first difference:
line N: ...", exit 1.

--late N: the live run said it handed on N records after a newer one
("trace_pipe_raw: ... N older than one given before": a record committed
later than the merge could wait for), where the replay reads the file in
time order. With N > 0 the lines may come in another order, each line
still once: "same lines, K in another order (the run handed on N records
late)", exit 0.
"""
import collections
import re
import sys

UNNAMED = "<...>"
COMM = r"([^\s\"|]{1,16}?)"


def pattern(line):
    """A regex the replay's line must match: `<...>` a comm, blanks any."""
    parts = []
    for i, piece in enumerate(line.split(UNNAMED)):
        if i:
            parts.append(COMM)
        parts.append(r"\s*".join(re.escape(word) for word in re.split(r"\s+", piece)))
    return re.compile("".join(parts))


def pids_after(line):
    """The pid after each `<...>` of LINE ("<...>-1084", or JSON's
    "comm":"<...>" after "pid":1084), None where none shows."""
    pids = []
    for m in re.finditer(re.escape(UNNAMED), line):
        after = re.match(r"-(\d+)", line[m.end():])
        before = re.search(r'"pid":(\d+),"comm":"$', line[:m.start()])
        pids.append(int(after[1]) if after else int(before[1]) if before else None)
    return pids


def same_lines(live, replay):
    """Whether LIVE and REPLAY hold the same lines in any order, a live
    `<...>` line matching one replay line with a comm there."""
    rest = collections.Counter(replay)
    unmatched = []
    for line in live:
        if rest[line] > 0:
            rest[line] -= 1
        else:
            unmatched.append(line)
    leftover = list(rest.elements())
    for line in unmatched:
        if UNNAMED not in line:
            return False
        wanted = pattern(line)
        for i, candidate in enumerate(leftover):
            if wanted.fullmatch(candidate):
                del leftover[i]
                break
        else:
            return False
    return not leftover


def main(argv):
    late = 0
    if len(argv) == 5 and argv[1] == "--late" and argv[2].isdigit():
        late = int(argv[2])
        argv = argv[:1] + argv[3:]
    if len(argv) != 3:
        print("usage: same_output.py [--late N] LIVE REPLAY", file=sys.stderr)
        return 2
    with open(argv[1], encoding="utf-8", errors="replace") as f:
        live = f.read().splitlines()
    with open(argv[2], encoding="utf-8", errors="replace") as f:
        replay = f.read().splitlines()
    verdict = compare(live, replay)
    if verdict is None:
        return 0
    if late > 0 and same_lines(live, replay):
        moved = sum(1 for a, b in zip(live, replay)
                    if a != b and not (UNNAMED in a and pattern(a).fullmatch(b)))
        print(f"same lines, {moved} in another order (the run handed on {late} records late)")
        return 0
    print(verdict)
    return 1


def compare(live, replay):
    """None when REPLAY prints what LIVE did (and says so), else the first
    difference."""
    named = {}
    unnamed_lines = 0
    for n, (a, b) in enumerate(zip(live, replay), start=1):
        if a == b:
            continue
        m = pattern(a).fullmatch(b) if UNNAMED in a else None
        comms = list(m.groups()) if m else []
        pids = pids_after(a)
        ok = m is not None and all(c != UNNAMED for c in comms)
        for pid, comm in zip(pids, comms):
            if pid is not None and named.setdefault(pid, comm) != comm:
                ok = False
        if not ok:
            return f"first difference: line {n}: {a[:160]!r} against {b[:160]!r}"
        unnamed_lines += 1
    if len(live) != len(replay):
        return f"first difference: {len(live)} lines against {len(replay)}"
    if unnamed_lines:
        tasks = " ".join(f"{pid}={comm}" for pid, comm in sorted(named.items()))
        print(f"same but {unnamed_lines} lines of unnamed tasks ({tasks})")
    else:
        print("same")
    return None


if __name__ == "__main__":
    sys.exit(main(sys.argv))

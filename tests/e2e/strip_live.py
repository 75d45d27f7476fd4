#!/usr/bin/env python3
"""Prints allocwatch's output or stall report without what only the live
run can know, so that a replay of its trace.dat can be compared with it: a
trace.dat keeps no cgroups (DESIGN.md, "Which container stalled": any
replay but of a text --save file has none) and no run record's kernel.

    strip_live.py FILE

JSON Lines: the run, cgroup and memcg records go, and the cgroup,
container_id and pod_uid keys of the others. Text: the report's sections
"stalls by memory cgroup" and "memory limits of the cgroups ..." go, and
what a replay says of them instead ("no stalls by cgroup: ..."); every other
line stays as it is.
"""
import json
import sys

LIVE_RECORDS = ("run", "cgroup", "memcg")
LIVE_KEYS = ("cgroup", "container_id", "pod_uid")
LIVE_SECTIONS = ("allocwatch: stalls by memory cgroup", "allocwatch: memory limits of the cgroups",
                 "allocwatch: no stalls by cgroup")


def main():
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    with open(sys.argv[1], encoding="utf-8", errors="replace") as f:
        lines = f.read().splitlines()
    skipping = False
    for line in lines:
        if line.startswith("{"):
            record = json.loads(line)
            if record.get("type") in LIVE_RECORDS:
                continue
            for key in LIVE_KEYS:
                record.pop(key, None)
            print(json.dumps(record, separators=(",", ":"), ensure_ascii=False))
            continue
        if not line.startswith("  "):
            skipping = line.startswith(LIVE_SECTIONS)
        if not skipping:
            print(line)


if __name__ == "__main__":
    main()

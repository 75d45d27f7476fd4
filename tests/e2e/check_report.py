#!/usr/bin/env python3
"""The VM test's check of the stall report: allocwatch's stderr (with the
report, text mode, not a terminal) against the raw graph-mode trace the same
run saved, with no allocwatch code.

    check_report.py THRESHOLD_US RAW ERR

From RAW it takes every function_graph return `} /* f */` whose duration is
at least the threshold, and checks, printing one "ok ..." or "FAIL ..." line
each (exit 1 if any failed):
  - ERR holds the report's stall table;
  - it has direct reclaim rows (try_to_free_pages) and memcg reclaim rows
    (try_to_free_mem_cgroup_pages);
  - for those two functions, one row per task (by pid) with exactly the
    count, total and max of that task's returns in RAW (milliseconds with
    three decimals, truncated), and no row RAW does not account for;
  - the latency histogram of each of the two kinds counts all their stalls.
"""
import re
import sys
from collections import defaultdict
from decimal import Decimal

# The two kinds the VM test must show, by the function that makes each.
KINDS = {"try_to_free_pages": "direct reclaim", "try_to_free_mem_cgroup_pages": "memcg reclaim"}
RETURN = re.compile(r"^\s*\d+\.\d+ \|\s*\d+\)\s*.*-(\d+)\s*\|\s*[+!#*@$]?\s*([\d.]+) us\s*\|\s*"
                    r"} /\* (\w+) \*/\s*$")

failures = 0


def result(ok, text):
    global failures
    print(("ok " if ok else "FAIL ") + text)
    failures += 0 if ok else 1


def ms(ns):
    return f"{ns // 1_000_000}.{ns // 1000 % 1000:03d}"


def main():
    if len(sys.argv) != 4:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    threshold_ns = int(Decimal(sys.argv[1]) * 1000)
    raw = defaultdict(list)  # (kind, pid) -> durations in ns
    with open(sys.argv[2], encoding="utf-8", errors="replace") as f:
        for line in f:
            m = RETURN.match(line)
            if m and m.group(3) in KINDS:
                duration = int(Decimal(m.group(2)) * 1000)
                if duration >= threshold_ns:
                    raw[(KINDS[m.group(3)], int(m.group(1)))].append(duration)

    with open(sys.argv[3], encoding="utf-8", errors="replace") as f:
        err = f.read().splitlines()
    rows = {}
    histograms = {}
    table = False
    for i, line in enumerate(err):
        if line.startswith("allocwatch: stalls of "):
            table = True
            continue
        if table:
            if line.startswith("  TASK "):
                continue
            if not line.startswith("  ") or line.startswith("  ..."):
                table = False
            else:
                cells = re.split(r"\s{2,}", line.strip())
                if len(cells) == 7:
                    task, kind, span, count, total, most, _ = cells
                    pid = int(task.rsplit("-", 1)[1]) if task != "(other tasks)" else -1
                    rows[(kind, pid)] = (span, int(count), total, most)
        m = re.match(r"^allocwatch: latency of (.*) stalls \((\d+)\), usecs:$", line)
        if m:
            histogram = 0
            for bar in err[i + 1:]:
                b = re.match(r"^  \[\S+, \S+\)\s+(\d+) \|", bar)
                if not b:
                    break
                histogram += int(b.group(1))
            histograms[m.group(1)] = (int(m.group(2)), histogram)

    result(bool(rows), f"the stall report is on stderr ({len(rows)} task rows)")
    for function, kind in KINDS.items():
        want = {pid: d for (k, pid), d in raw.items() if k == kind}
        have = {pid: r for (k, pid), r in rows.items() if k == kind}
        result(bool(have), f"{kind} rows present ({len(have)} tasks; {len(want)} in the raw trace)")
        wrong = []
        for pid in sorted(set(want) | set(have)):
            d = want.get(pid)
            r = have.get(pid)
            expected = (function, len(d), ms(sum(d)), ms(max(d))) if d else None
            if r != expected:
                wrong.append(f"pid {pid}: report {r}, raw trace {expected}")
        result(not wrong, f"{kind} rows equal the raw trace's {function} returns"
               + (": " + "; ".join(wrong[:3]) if wrong else ""))
        stalls = sum(len(d) for d in want.values())
        h = histograms.get(kind)
        result(h == (stalls, stalls),
               f"{kind} histogram counts its {stalls} stalls (report: {h})")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()

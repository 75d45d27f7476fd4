#!/usr/bin/env python3
"""The VM test's check of the stall report: the report a graph-mode run wrote
with --report (and on its stderr) against the raw trace the same run saved,
with no allocwatch code.

    check_report.py [--no-scan-events WHY] THRESHOLD_US RAW REPORT [ERR]

REPORT is the --report file, ERR the run's stderr (text mode, not a
terminal: the whole report). From RAW it takes every function_graph return
`} /* f */` whose duration is at least the threshold, and the reclaim
tracepoints (`/* mm_vmscan_...: ... */`) of each task, and checks, printing
one "ok ..." or "FAIL ..." line each (exit 1 if any failed):
  - REPORT holds the report's stall table; ERR, if given, holds the same
    report, line for line;
  - it has direct reclaim rows (try_to_free_pages) and memcg reclaim rows
    (try_to_free_mem_cgroup_pages);
  - for those two functions, one row per task (by pid) with exactly the
    count, total and max of that task's returns in RAW (milliseconds with
    three decimals, rounded), and no row RAW does not account for;
  - the latency histogram and the order table of each of the two kinds
    count all their stalls (one count per stall: a stall whose begin line
    was not claimed has the order `?`);
  - the "what slow reclaim got" row of each of the two kinds has the count,
    total, pages scanned and pages reclaimed that RAW gives: every return
    over threshold, the nr_scanned of the mm_vmscan_lru_shrink_inactive
    lines and the nr_reclaimed of the kind's end lines in that interval
    (DESIGN.md's binding rule: the slow reclaim call or a slow call inside it
    claims them); and direct reclaim scanned and reclaimed pages.
--no-scan-events says that this kernel prints no mm_vmscan_lru_shrink_inactive
in this run, and why (MGLRU before Linux 6.7): then RAW must have none, and
direct reclaim must have reclaimed pages, not scanned any.
The last line, "summary: ...", is for the VM test's table.
"""
import re
import sys
from collections import defaultdict
from decimal import Decimal

# The two kinds the VM test must show, by the function that makes each, with
# the begin and end tracepoints of that kind of reclaim.
KINDS = {
    "try_to_free_pages": ("direct reclaim", "mm_vmscan_direct_reclaim"),
    "try_to_free_mem_cgroup_pages": ("memcg reclaim", "mm_vmscan_memcg_reclaim"),
}
LRU_SCAN = "mm_vmscan_lru_shrink_inactive"
MICRO = 1000
# abstime | cpu) comm-pid | duration | body (graph mode, funcgraph-abstime and
# -proc on, as allocwatch sets them). A return may carry a value (retval).
LINE = re.compile(r"^\s*(\d+)\.(\d{6}) \|\s*\d+\)\s*.*?-(\d+)\s*\|([^|]*)\|\s*(.*?)\s*$")
RETURN = re.compile(r"^} /\* (\w+)\b.*\*/$")
DURATION = re.compile(r"^\s*[+!#*@$]?\s*([\d.]+) us\s*$")
EVENT = re.compile(r"^/\* (\w+): (.*)\*/$")
FIELD = re.compile(r"\b(nr_scanned|nr_reclaimed)=(\d+)")

failures = 0


def result(ok, text):
    global failures
    print(("ok " if ok else "FAIL ") + text)
    failures += 0 if ok else 1


def ms(ns):
    us = (ns + 500) // 1000  # rounded to the microsecond, half up
    return f"{us // 1000}.{us % 1000:03d}"


class Raw:
    """What RAW says of the two kinds: per (kind, pid) the durations of the
    slow returns, and per kind the reclaim totals."""

    def __init__(self, path, threshold_ns):
        self.stalls = defaultdict(list)  # (kind, pid) -> durations in ns
        # kind -> [count, total_ns, pages scanned, pages reclaimed]
        self.reclaim = defaultdict(lambda: [0, 0, 0, 0])
        self.scan_lines = 0
        events = defaultdict(list)  # pid -> [(ts_ns, event, fields)], unclaimed
        with open(path, encoding="utf-8", errors="replace") as f:
            for line in f:
                m = LINE.match(line)
                if not m:
                    continue
                ts = int(m.group(1)) * 1_000_000_000 + int(m.group(2)) * MICRO
                pid, body = int(m.group(3)), m.group(5)
                e = EVENT.match(body)
                if e:
                    self.scan_lines += e.group(1) == LRU_SCAN
                    if e.group(1) == LRU_SCAN or any(e.group(1).startswith(p) for _, p in KINDS.values()):
                        events[pid].append((ts, e.group(1), dict(FIELD.findall(e.group(2)))))
                    continue
                r = RETURN.match(body)
                d = DURATION.match(m.group(4))
                if not r or not d or r.group(1) not in KINDS:
                    continue
                duration = int(Decimal(d.group(1)) * MICRO)
                if duration < threshold_ns:
                    continue
                kind, prefix = KINDS[r.group(1)]
                self.stalls[(kind, pid)].append(duration)
                start = ts - duration - MICRO
                inside = [ev for ev in events[pid] if start <= ev[0] <= ts]
                events[pid] = [ev for ev in events[pid] if ev[0] > ts]
                totals = self.reclaim[kind]
                totals[0] += 1
                totals[1] += duration
                totals[2] += sum(int(f.get("nr_scanned", 0)) for _, n, f in inside if n == LRU_SCAN)
                totals[3] += sum(int(f.get("nr_reclaimed", 0)) for _, n, f in inside
                                 if n == prefix + "_end")


def totals_text(row):
    """A reclaim row (count, total ms, pages scanned, pages reclaimed)."""
    if row is None:
        return "no row"
    return f"{row[0]} stalls, {row[1]} ms, {row[2]} pages scanned, {row[3]} reclaimed"


def report_lines(text):
    """The report's lines: from its first heading to the last histogram bar."""
    lines = text.splitlines()
    first = next((i for i, l in enumerate(lines)
                  if l.startswith(("allocwatch: stalls of ", "allocwatch: no stall of "))), None)
    if first is None:
        return []
    last = first
    for i in range(first, len(lines)):
        # A table's rows, or the heading of the next table (it ends with a
        # colon; the run's counts after the report do not).
        if lines[i].startswith("  ") or re.match(r"^allocwatch: [^0-9].*:$", lines[i]):
            last = i
        else:
            break
    return lines[first:last + 1]


def sections(lines):
    """heading -> the indented lines under it."""
    out, heading = {}, None
    for line in lines:
        if line.startswith("  "):
            if heading is not None:
                out[heading].append(line)
        else:
            heading = line
            out[heading] = []
    return out


def cells(line):
    return re.split(r"\s{2,}", line.strip())


def main():
    args = sys.argv[1:]
    no_scan_events = None
    if args[:1] == ["--no-scan-events"] and len(args) > 1:
        no_scan_events, args = args[1], args[2:]
    if len(args) not in (3, 4):
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    threshold_ns = int(Decimal(args[0]) * MICRO)
    raw = Raw(args[1], threshold_ns)
    try:
        with open(args[2], encoding="utf-8", errors="replace") as f:
            report = report_lines(f.read())
    except OSError as e:
        report = []
        result(False, f"the --report file can be read ({e.strerror})")
    if len(args) == 4:
        try:
            with open(args[3], encoding="utf-8", errors="replace") as f:
                on_stderr = report_lines(f.read())
        except OSError:
            on_stderr = []
        result(bool(report) and on_stderr == report,
               f"stderr holds the same report as the --report file ({len(on_stderr)} and "
               f"{len(report)} lines)")

    parts = sections(report)
    rows = {}
    table = next((v for k, v in parts.items() if k.startswith("allocwatch: stalls of ")), [])
    for line in table:
        c = cells(line)
        if len(c) == 7 and c[0] != "TASK":
            task, kind, span, count, total, most, _ = c
            pid = int(task.rsplit("-", 1)[1]) if task != "(other tasks)" else -1
            rows[(kind, pid, span)] = (int(count), total, most)
    histograms = {}
    for heading, bars in parts.items():
        m = re.match(r"^allocwatch: latency of (.*) stalls \((\d+)\), usecs:$", heading)
        if m:
            counted = sum(int(b.group(1)) for b in
                          (re.match(r"^  \[\S+, \S+\)\s+(\d+) \|", bar) for bar in bars) if b)
            histograms[m.group(1)] = (int(m.group(2)), counted)
    orders = defaultdict(int)
    by_order = next((v for k, v in parts.items()
                     if k.startswith("allocwatch: reclaim and compaction stalls by order")), [])
    for line in by_order:
        c = cells(line)
        if len(c) == 6 and c[0] != "KIND":
            orders[c[0]] += int(c[3])
    reclaim = {}
    got = next((v for k, v in parts.items() if k.startswith("allocwatch: what slow reclaim got")), [])
    for line in got:
        c = cells(line)
        if len(c) == 7 and c[0] != "KIND":
            reclaim[c[0]] = (int(c[1]), c[2], int(c[3]), int(c[4]))

    result(bool(rows), f"the stall report is in the --report file ({len(rows)} task rows)")
    summary = []
    for function, (kind, _) in KINDS.items():
        want = {pid: d for (k, pid), d in raw.stalls.items() if k == kind}
        have = {pid: r for (k, pid, span), r in rows.items() if k == kind and span == function}
        others = sorted({span for (k, _, span) in rows if k == kind and span != function})
        result(bool(have), f"{kind} rows present ({len(have)} tasks; the raw trace has {len(want)})")
        wrong = []
        for pid in sorted(set(want) | set(have)):
            d = want.get(pid)
            r = have.get(pid)
            expected = (len(d), ms(sum(d)), ms(max(d))) if d else None
            if r != expected:
                wrong.append(f"pid {pid}: report {r}, raw trace {expected}")
        if others:
            wrong.append(f"rows of spans other than {function}: {', '.join(others)}")
        result(not wrong, f"{kind} rows equal the raw trace's {function} returns"
               + (": " + "; ".join(wrong[:3]) if wrong else ""))
        stalls = sum(len(d) for d in want.values())
        h = histograms.get(kind)
        result(h == (stalls, stalls),
               f"{kind} histogram counts its {stalls} stalls (report: {h})")
        result(orders.get(kind, 0) == stalls,
               f"{kind} order rows count its {stalls} stalls (report: {orders.get(kind, 0)})")
        t = raw.reclaim.get(kind, [0, 0, 0, 0])
        expected = (t[0], ms(t[1]), t[2], t[3]) if t[0] else None
        r = reclaim.get(kind)
        result(r == expected,
               f"{kind} in what slow reclaim got is the raw trace's: {totals_text(expected)}"
               + ("" if r == expected else f"; the report: {totals_text(r)}"))
        if kind == "direct reclaim":
            scanned, reclaimed = (r[2], r[3]) if r else (0, 0)
            if no_scan_events is None:
                result(scanned > 0 and reclaimed > 0,
                       f"direct reclaim scanned and reclaimed pages ({scanned} scanned, "
                       f"{reclaimed} reclaimed)")
            else:
                result(raw.scan_lines == 0,
                       f"no {LRU_SCAN} in the raw trace ({raw.scan_lines}): {no_scan_events}")
                result(reclaimed > 0, f"direct reclaim reclaimed pages ({reclaimed}; "
                       f"{scanned} scanned, none printed: {no_scan_events})")
        summary.append(f"{kind.split()[0]} {stalls} ({len(want)} task{'' if len(want) == 1 else 's'}"
                       + (f"; {t[2]} scanned, {t[3]} reclaimed" if t[0] else "") + ")")
    print("summary: " + ", ".join(summary))
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""The VM test's check of a run against a trace.dat, as trace-cmd report
reads it, with no allocwatch code: the run's own --save file, or a file
trace-cmd recorded that allocwatch -i replayed.

    check_dat.py [--events] [--buffer NAME] PROFILE THRESHOLD_US DAT OUTPUT [REPORT]

OUTPUT is allocwatch's stdout, text or JSON Lines (then it holds the stall
report's records too); REPORT the --report file; --events: the run was in
events mode (graph mode otherwise); --buffer: the run read DAT's instance
NAME (the top level otherwise). The spans are DAT's by the binding rule
with exact ns (tests/e2e/dat_spans.py); OUTPUT is matched to DAT's records
(tests/e2e/run_output.py), the report's tables read by
tests/e2e/report_tables.py. Checks, each printing one "ok ..." or
"FAIL ..." line (exit 1 if any failed, 2 if DAT cannot be read):
  - OUTPUT has no line but trace lines, LOST lines and shrinker totals (text),
    or JSON records;
  - every span and tracepoint OUTPUT prints is a record of DAT, printed once,
    with its pid, cpu, time and fields as trace-cmd prints them (text: µs as
    the kernel prints them, a return's duration digits exact to the ns they
    show; JSON: start_ns, end_ns and ts_ns exact); no return under the
    threshold is printed; every span over it is, its own lines all;
  - every tracepoint OUTPUT prints with a span is of its pid and inside its
    [start, end]; every record the profile lets a span claim, of its pid
    and inside it, is printed;
  - the shrinker totals (text lines, JSON records) equal the sums over DAT's
    complete pairs, per shrinker and per instance;
  - the report: per task, kind and span (stall rows, or background rows for
    the profile's background tasks), the count, total and max DAT gives
    (REPORT: ms rounded to 3 decimals; JSON: total_ns and max_ns exact); for
    each kind, its histogram, its order rows and (for reclaim) its reclaim
    row count the same stalls as its stall rows (JSON: with the same
    total_ns); each reclaim row's pages scanned and reclaimed are the
    nr_scanned of mm_vmscan_lru_shrink_inactive and the nr_reclaimed of the
    *reclaim_end events its stalls claim; what each task's slow reclaim and
    compaction got counts its stalls (its orders each once) with its own
    such pages, and every task with reclaim stalls has it.
A task's name is not checked (a live run names it as saved_cmdlines did
when it read its records; the trace.dat keeps the last name): the tasks
printed under other names are listed. The last line, "summary: ...", is for
the VM test's table.
"""
import sys
from collections import Counter, defaultdict

from dat_spans import Dat, Profile
from report_tables import report_from_json, report_from_text
from run_output import Output
from tracedat import DatError, number

MICRO = 1000
LRU_SCAN = "mm_vmscan_lru_shrink_inactive"

failures = 0


def result(ok, text):
    global failures
    print(("ok " if ok else "FAIL ") + text)
    failures += 0 if ok else 1


def first(items):
    return f", first: {items[0]}" if items else ""


def ms(ns):
    """Rounded milliseconds with 3 decimals, as the report prints them."""
    us = (ns + 500) // MICRO
    return f"{us // 1000}.{us % 1000:03d}"


def note_comms(dat, out):
    saved = {r.pid: r.comm[:7] for r in dat.records}
    renamed = sorted(f"{pid} {'/'.join(sorted(names))} ({saved.get(pid)} in the trace.dat)"
                     for pid, names in out.comms.items()
                     if {n[:7] for n in names} != {saved.get(pid)})
    print(f"output: {len(renamed)} tasks printed under a name the trace.dat does not keep"
          + (": " + ", ".join(renamed[:5]) if renamed else ""))


def check_spans(dat, out, threshold_ns, mode):
    result(not out.other, f"every line of the output is a trace line, a LOST line, a shrinker total "
           f"or a JSON record ({len(out.other)} other{first(out.other)})")
    result(not out.unmatched, f"every span and tracepoint the output prints is a record of the "
           f"trace.dat, printed once ({len(out.unmatched)} not{first(out.unmatched)})")
    under = [s.records[0] for s in out.spans if s.records and s.records[0].name == "funcgraph_exit"
             and s.records[0].duration < threshold_ns]
    result(not under, f"no return under the threshold is printed "
           f"({len(under)}{first([f'{r.comm}-{r.pid} {r.func} at {r.rettime}' for r in under])})")
    # A graph run has slow returns to show, an events run slow pairs.
    for what, spans, needed in (("returns", dat.returns(), mode == "graph"),
                                ("pairs", dat.pairs(), mode == "events")):
        missing = [s for s in spans if any(r.index not in out.used for r in s.records)]
        result(not missing and (bool(spans) or not needed),
               f"all {len(spans)} {what} over the threshold in the trace.dat print their own lines "
               f"({len(missing)} missing{first([f'{s.comm}-{s.pid} {s.name} at {s.end}' for s in missing])})")
    outside, printed = [], 0
    for span in out.spans:
        if span.records is None:
            continue
        pid, start, end = span.window()
        for rec, text in span.events:
            printed += 1
            if rec is not None and not (rec.pid == pid and start <= rec.ts <= end):
                outside.append(text)
    result(not out.stray and not outside,
           f"each of the {printed} tracepoints printed with a span is of its pid and inside its "
           f"[start, end] ({len(outside)} not{first(outside)}; {len(out.stray)} printed with no "
           f"span{first(out.stray)})")
    unprinted, claimable = [], set()
    for span in dat.spans:
        for e in dat.inside(span):
            if e.name in span.bound and e.index not in claimable:
                claimable.add(e.index)
                if e.index not in out.used:
                    unprinted.append(f"{e.comm}-{e.pid} {e.name} at {e.ts} in {span.name}")
    result(not unprinted, f"all {len(claimable)} records the profile lets a span claim, of its pid "
           f"and inside it, are printed ({len(unprinted)} not{first(unprinted)})")


def totals_of(out):
    """OUTPUT's shrinker totals: (name, instance or None, total_ns, max_ns,
    calls or None, as printed), from the text lines (ms with 6 decimals: ns)
    or the JSON shrinker records."""
    if not out.json:
        return [(t.group(1), t.group(2), int(t.group(3)) * 1_000_000 + int(t.group(4)),
                 int(t.group(5)) * 1_000_000 + int(t.group(6)),
                 int(t.group(7)) if t.group(7) else None, t.group(0)) for t in out.totals]
    totals = []
    for r in out.records:
        if r.get("type") == "shrinker":
            totals.append((r["symbol"], None, r["total_ns"], r["max_ns"], r["calls"], str(r)[:120]))
            totals += [(r["symbol"], i["instance"], i["total_ns"], i["max_ns"], i["calls"],
                        f"{r['symbol']}[{i['instance']}]") for i in r.get("instances", [])]
    return totals


def check_totals(dat, out):
    totals, wrong, seen = totals_of(out), [], set()
    for name, instance, total, most, calls, text in totals:
        key = (name, instance) if instance else name
        seen.add(key)
        d = dat.totals.get(key)
        if not d or (total, most) != (sum(d), max(d)) or calls not in (None, len(d)):
            wrong.append(f"{text}: the trace.dat gives "
                         + (f"{sum(d)} ns, max {max(d)} ns, {len(d)} calls" if d else "no pair"))
    wrong += [f"{k} has no total" for k in dat.totals if isinstance(k, str) and k not in seen]
    result((bool(totals) or not dat.totals) and not wrong,
           f"{len(totals)} shrinker totals equal the trace.dat's pairs ({len(wrong)} wrong{first(wrong)})")


def reclaims(dat):
    """The kinds of the trace.dat's reclaim spans."""
    return {span.kind for span in dat.spans if span.reclaim}


def background(profile, span):
    return span.comm.startswith(profile.background)


def expected_rows(dat, profile):
    """(table, pid, kind, span) -> durations; table: stall or background.
    A shrinker's span is "NAME[INSTANCE]", and "NAME" for all its instances."""
    rows = defaultdict(list)
    for span in dat.spans:
        if span.kind is not None:
            for name in span.report_names:
                table = "background" if background(profile, span) else "stall"
                rows[(table, span.pid, span.kind, name)].append(span.duration)
    return rows


def check_report(dat, profile, rows, counts, totals, exact):
    """The report's task rows against the trace.dat; its other tables against
    its stall rows. Returns the stall rows' count per kind."""
    want = expected_rows(dat, profile)
    wrong = []
    for key, have in sorted(rows.items(), key=str):
        d = want.get(key)
        expected = None if not d else (len(d), sum(d), max(d)) if exact else \
            (len(d), ms(sum(d)), ms(max(d)))
        if have != expected:
            wrong.append(f"{key}: the report {have}, the trace.dat {expected}")
    # Every task and kind of the trace.dat has its rows, by one name or the other.
    shown = {(t, pid, kind) for (t, pid, kind, _) in rows}
    absent = sorted({(t, pid, kind) for (t, pid, kind, _) in want} - shown, key=str)
    result(bool(rows) and not wrong and not absent,
           f"the report's {len(rows)} task rows are the trace.dat's spans "
           f"({len(wrong)} wrong{first(wrong)}; {len(absent)} tasks and kinds with no row{first(absent)})")
    stall_counts, stall_totals = defaultdict(int), defaultdict(int)
    for (table, _, kind, _), have in rows.items():
        if table == "stall":
            stall_counts[kind] += have[0]
            stall_totals[kind] += have[1] if exact else 0
    differ = []
    for kind, n in sorted(stall_counts.items()):
        # Every kind has a histogram; a reclaim kind an order and a reclaim
        # row; any other kind with an order row counts there the same.
        for table in ("histogram", "order", "reclaim"):
            in_table = counts[table].get(kind)
            if in_table is None:
                if table == "histogram" or kind in reclaims(dat):
                    differ.append(f"{kind}: no {table} row")
            elif in_table != n:
                differ.append(f"{kind}: {table} {in_table}, stall rows {n}")
            elif table in totals and totals[table][kind] != stall_totals[kind]:
                differ.append(f"{kind}: {table} total_ns {totals[table][kind]}, "
                              f"stall rows {stall_totals[kind]}")
    for table in ("histogram", "order", "reclaim"):
        differ += [f"{kind}: {table} rows and no stall row"
                   for kind, n in counts[table].items() if n and kind not in stall_counts]
    result(bool(stall_counts) and not differ,
           f"the histograms, the order table and the reclaim table count the stall rows' stalls "
           f"of each kind ({', '.join(f'{k} {n}' for k, n in sorted(stall_counts.items()))})"
           + (": " + "; ".join(differ[:3]) if differ else ""))
    return stall_counts


def reclaim_pages(dat, profile):
    """(pid, kind) -> [pages scanned, pages reclaimed] inside the slow
    reclaims of tasks that are not background: nr_scanned of
    mm_vmscan_lru_shrink_inactive, nr_reclaimed of the *reclaim_end events
    the span claims."""
    want = defaultdict(lambda: [0, 0])
    for span in dat.spans:
        if not span.reclaim or background(profile, span):
            continue
        for e in dat.inside(span):
            if e.name == LRU_SCAN:
                want[(span.pid, span.kind)][0] += number(e.raw.get("nr_scanned", "0"))
            elif e.name.endswith("reclaim_end") and e.name in span.bound:
                want[(span.pid, span.kind)][1] += number(e.raw.get("nr_reclaimed", "0"))
    return want


def check_pages(dat, profile, pages):
    """The reclaim table's pages, per kind, against the trace.dat's."""
    want = defaultdict(lambda: [0, 0])
    for (_, kind), (scanned, reclaimed) in reclaim_pages(dat, profile).items():
        want[kind][0] += scanned
        want[kind][1] += reclaimed
    wrong = [f"{kind}: the report {have}, the trace.dat {tuple(want[kind])}"
             for kind, have in sorted(pages.items()) if have != tuple(want[kind])]
    result(bool(pages) and not wrong,
           f"the pages scanned and reclaimed of each reclaim row are the trace.dat's "
           f"({', '.join(f'{k} {tuple(want[k])}' for k in sorted(pages))}){': ' + '; '.join(wrong) if wrong else ''}")


def check_task_yield(dat, profile, rows, tasks):
    """What each task's slow reclaim and compaction got: its count is its
    task rows', its orders count each stall once, its pages are the
    trace.dat's; every task with reclaim stalls has its row."""
    counted = defaultdict(int)
    for (_, pid, kind, _), have in rows.items():
        counted[(pid, kind)] += have[0]
    want = reclaim_pages(dat, profile)
    wrong = []
    for key, task in sorted(tasks.items(), key=str):
        if task["count"] != counted.get(key):
            wrong.append(f"{key}: {task['count']} stalls, its task rows {counted.get(key)}")
        if task["orders"] is not None and task["orders"] != task["count"]:
            wrong.append(f"{key}: its orders count {task['orders']} of {task['count']} stalls")
        if task["pages"] is not None and task["pages"] != tuple(want[key]):
            wrong.append(f"{key}: pages {task['pages']}, the trace.dat {tuple(want[key])}")
    missing = sorted({(pid, kind) for (table, pid, kind, _) in rows
                      if table == "stall" and kind in reclaims(dat)} - set(tasks), key=str)
    result(bool(tasks) and not wrong and not missing,
           f"what each of {len(tasks)} tasks' slow reclaim and compaction got counts its stalls, "
           f"once in its orders, with the trace.dat's pages ({len(wrong)} wrong{first(wrong)}; "
           f"{len(missing)} tasks with reclaim stalls and no row{first(missing)})")


def check_tables(dat, profile, tables, totals=None):
    rows, counts, pages, tasks = tables
    stalls = check_report(dat, profile, rows, counts, totals or {}, exact=totals is not None)
    check_pages(dat, profile, pages)
    check_task_yield(dat, profile, rows, tasks)
    return stalls


def main():
    args = sys.argv[1:]
    mode, buffer = "graph", ""
    if args[:1] == ["--events"]:
        mode, args = "events", args[1:]
    if args[:1] == ["--buffer"] and len(args) > 1:
        buffer, args = args[1], args[2:]
    if len(args) not in (4, 5):
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    profile = Profile(args[0])
    threshold_ns = round(float(args[1]) * MICRO)
    try:
        dat = Dat(args[2], threshold_ns, profile, mode, buffer)
    except DatError as e:
        print(f"check_dat.py: {e}", file=sys.stderr)
        sys.exit(2)
    print(f"trace.dat: {len(dat.records)} records ({len(dat.unread)} other lines), "
          f"{len(dat.returns())} returns and {len(dat.pairs())} pairs over the threshold")
    for name, n in sorted(Counter(s.name for s in dat.returns()).items()):
        print(f"trace.dat: {n} returns over the threshold: {name}")
    for name, n in sorted(Counter(s.shrinker for s in dat.pairs() if s.shrinker).items()):
        print(f"trace.dat: {n} shrink pairs over the threshold: {name}")
    out = Output(args[3], dat, profile, mode)
    note_comms(dat, out)
    check_spans(dat, out, threshold_ns, mode)
    check_totals(dat, out)
    stalls = {}
    if out.json:
        rows, counts, totals, pages, tasks = report_from_json(out.records)
        stalls = check_tables(dat, profile, (rows, counts, pages, tasks), totals)
    if len(args) == 5:
        try:
            tables = report_from_text(args[4])
        except OSError as e:
            tables = ({}, {"histogram": {}, "order": {}, "reclaim": {}}, {}, {})
            result(False, f"the --report file can be read ({e.strerror})")
        stalls = check_tables(dat, profile, tables)
    print("summary: " + ", ".join(f"{k} {n}" for k, n in sorted(stalls.items())))
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()

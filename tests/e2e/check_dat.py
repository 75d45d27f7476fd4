#!/usr/bin/env python3
"""The VM test's check of a graph-mode run against a trace.dat, as trace-cmd
report reads it (tests/e2e/tracedat.py), with no allocwatch code: the run's
own --save file, or a file trace-cmd recorded that allocwatch -i replayed.

    check_dat.py PROFILE THRESHOLD_US DAT OUTPUT [REPORT]

OUTPUT is allocwatch's stdout, text or JSON Lines (then it holds the stall
report's records too); REPORT the --report file. Spans, from
DAT alone: every funcgraph_exit whose rettime - calltime is at least the
threshold ([calltime, rettime], exact ns), and every complete
mm_shrink_slab_start/end pair of one pid and shrinker instance (at most one
start open per pid) that long ([start, end]); a shrinker is named by its
raw `shrink` (an address looked up in DAT's symbols where it prints as one)
and its instance is its raw `shr`. Checks, each printing one
"ok ..." or "FAIL ..." line (exit 1 if any failed, 2 if DAT cannot be read):
  - OUTPUT has no line but trace lines, LOST lines and shrinker totals (text),
    or JSON records;
  - every return OUTPUT prints is one of DAT's over-threshold returns, each
    printed at most once, with its pid, cpu, function, time and
    duration (text: µs in the kernel's columns, the duration's digits
    exact to the ns printed; JSON: start_ns and end_ns exact), and every such
    return of DAT is printed; the same for the shrink pairs' two lines;
  - every tracepoint OUTPUT prints is a record of DAT, printed at most once,
    as trace-cmd prints its fields (text), of the pid of the span it is
    printed with, inside that span's [start, end] (exact ns);
  - every record of DAT that the profile binds to an over-threshold
    return's function, of its pid and inside it, is printed;
  - the shrinker totals (text lines, JSON records) equal the sums over DAT's
    complete pairs, per shrinker and per instance;
  - the report: per task, kind and span (stall rows, or background rows for
    the profile's background tasks), the count, total and max DAT gives
    (REPORT: ms rounded to 3 decimals; JSON: total_ns and max_ns exact); and
    for each kind, its histogram, its order rows and (for reclaim) its
    reclaim row count the same stalls as its stall rows (JSON: with the
    same total_ns); each reclaim row's pages scanned and reclaimed are the
    nr_scanned of mm_vmscan_lru_shrink_inactive and the nr_reclaimed of the
    kind's end events inside its stalls; what each task's slow reclaim and
    compaction got counts its stalls (its orders each once) with its own
    such pages, and every task with reclaim stalls has it.
A task's name is not checked (a live run names it as saved_cmdlines did
when it read its records; the trace.dat keeps the last name): the tasks
printed under other names are listed. The last line, "summary: ...", is for
the VM test's table.
"""
import json
import re
import sys
from bisect import bisect_left, bisect_right
from collections import Counter, defaultdict

import yaml

from report_tables import report_from_json, report_from_text
from tracedat import DatError, number, read_dat, read_functions

MICRO = 1000
# abstime | cpu) comm-pid | duration | body, as allocwatch prints graph mode.
GRAPH = re.compile(r"^\s*(\d+)\.(\d{6}) \|\s*(\d+)\)\s*(.*)-(\d+)\s*\|([^|]*)\|\s*(.*?)\s*$")
RETURN = re.compile(r"^} /\* (\S+).*\*/$")
EVENT = re.compile(r"^/\* (\w+):\s*(.*?)\s*\*/$")
DURATION = re.compile(r"^[+!#*@$ ]?\s*([\d.]+) us$")
LOST = re.compile(r"^CPU:\d+ \[LOST( \d+)? EVENTS\]$")
TOTALS = re.compile(r"^(\S+?)(?:\[(.+)\])? : total time = (\d+)\.(\d{6}) ms, "
                    r"max latency = (\d+)\.(\d{6}) ms(?:, calls = (\d+))?$")
SHRINK_START, SHRINK_END = "mm_shrink_slab_start", "mm_shrink_slab_end"
LRU_SCAN = "mm_vmscan_lru_shrink_inactive"

failures = 0


def result(ok, text):
    global failures
    print(("ok " if ok else "FAIL ") + text)
    failures += 0 if ok else 1


def first(items):
    return f", first: {items[0]}" if items else ""


def graph_duration(ns):
    """The duration's digits as the kernel prints them (print_graph_duration):
    whole µs, then as many of the ns digits as fit in 7 characters."""
    whole = str(ns // MICRO)
    return whole if len(whole) >= 7 else whole + "." + f"{ns % MICRO:03d}"[:7 - len(whole)]


def ms(ns):
    """Rounded milliseconds with 3 decimals, as the report prints them."""
    us = (ns + 500) // MICRO
    return f"{us // 1000}.{us % 1000:03d}"


class Profile:
    """What the checks take from the profile: each function name's stall
    kind (a kind names one alternative of a function; any alternative is
    it), the events bound to each function, the reclaim kinds (a function or
    pair bound to a *reclaim_begin/end event), the shrinker pair's kind, the
    background task names."""

    def __init__(self, path):
        with open(path, encoding="utf-8") as f:
            p = yaml.safe_load(f)
        alternatives = {}
        for entry in p.get("functions", []):
            names = entry if isinstance(entry, list) else [entry]
            for n in names:
                alternatives[n] = names
        self.bound = defaultdict(set)
        for b in p.get("bindings", []):
            for fn in b["functions"]:
                for n in alternatives.get(fn, [fn]):
                    self.bound[n] |= set(b["events"])
        pairs = {pair["name"]: pair for pair in p.get("pairs", [])}
        reclaim_event = re.compile(r"^mm_vmscan_.*reclaim_(begin|end)$")
        self.kind_of, self.reclaim, self.shrinker_kind = {}, set(), None
        for stall in p.get("stalls", []):
            kind = stall["kind"]
            for fn in stall.get("functions", []):
                for n in alternatives.get(fn, [fn]):
                    self.kind_of[n] = kind
                    if any(reclaim_event.match(e) for e in self.bound[n]):
                        self.reclaim.add(kind)
            for name in stall.get("pairs", []):
                pair = pairs.get(name, {})
                if pair.get("shrinker"):
                    self.shrinker_kind = kind
                if reclaim_event.match(pair.get("begin", "")):
                    self.reclaim.add(kind)
        self.background = tuple(p.get("background", []))


class Dat:
    """DAT's spans over the threshold, its records by pid, its shrinker
    totals."""

    def __init__(self, path, threshold_ns):
        self.path = path
        self.functions = None  # read_functions(path), when a shrinker prints as an address
        self.records, self.unread = read_dat(path)
        self.returns = [r for r in self.records
                        if r.name == "funcgraph_exit" and r.duration >= threshold_ns]
        self.by_pid = defaultdict(list)  # tracepoints, in time order
        for r in sorted(self.records, key=lambda r: r.ts):
            if r.name not in ("funcgraph_exit", "funcgraph_entry"):
                self.by_pid[r.pid].append(r)
        self.times = {pid: [r.ts for r in recs] for pid, recs in self.by_pid.items()}
        self.pairs = []  # (start, end) over the threshold
        self.totals = defaultdict(list)  # shrinker, and (shrinker, instance) -> durations
        open_starts = {}
        for r in self.records:
            if r.name == SHRINK_START:
                open_starts[r.pid] = r
            elif r.name == SHRINK_END:
                start = open_starts.get(r.pid)
                if start is None or start.raw.get("shr") != r.raw.get("shr"):
                    continue
                del open_starts[r.pid]
                d = r.ts - start.ts
                self.totals[self.shrinker_of(r)].append(d)
                self.totals[(self.shrinker_of(r), r.raw.get("shr", ""))].append(d)
                if d >= threshold_ns:
                    self.pairs.append((start, r))


    def shrinker_of(self, rec):
        """A shrink_slab record's shrinker: its raw `shrink`, which prints as
        "super_cache_scan+0x0", or as an address (7.2) to look up."""
        shrink = rec.raw.get("shrink", "")
        if not shrink.startswith("0x"):
            return shrink.split("+", 1)[0]
        if self.functions is None:
            self.functions = read_functions(self.path)
        return self.functions.get(number(shrink), shrink)


class Span:
    """A span OUTPUT printed: its DAT record(s) (None: none matched), its
    tracepoints' DAT records (None for one that matched none)."""

    def __init__(self, closing, start=None):
        self.closing, self.start, self.events = closing, start, []

    def window(self):
        if self.start is not None:
            return self.start.pid, self.start.ts, self.closing.ts
        return self.closing.pid, self.closing.calltime, self.closing.rettime


class Output:
    """OUTPUT read as spans, matched to DAT's records: text lines or JSON
    span records; also the shrinker totals and, in JSON, the report."""

    def __init__(self, path, dat, threshold_ns):
        with open(path, encoding="utf-8", errors="replace") as f:
            lines = f.read().splitlines()
        self.json = bool(lines) and lines[0].startswith("{")
        self.spans, self.stray, self.unmatched, self.under = [], [], [], []
        self.totals, self.records, self.other = [], [], []
        self.used = set()
        self.comms = defaultdict(set)  # pid -> the comms its text lines print
        self.threshold_ns = threshold_ns
        # DAT's records by what identifies each in OUTPUT.
        self.returns = defaultdict(list)
        self.events = defaultdict(list)
        for r in dat.records:
            if r.name == "funcgraph_exit":
                key = (r.pid, r.func, r.calltime, r.rettime) if self.json else \
                    (r.pid, r.cpu, r.func, r.rettime // MICRO, graph_duration(r.duration))
                self.returns[key].append(r)
            else:
                key = (r.pid, r.name, r.ts) if self.json else \
                    (r.pid, r.cpu, r.name, r.ts // MICRO, r.info)
                self.events[key].append(r)
        if self.json:
            self.read_json(lines)
        else:
            self.read_text(lines)

    def take(self, table, key, text):
        """The first unused record of DAT under KEY, or None (noted)."""
        for r in table.get(key, []):
            if r.index not in self.used:
                self.used.add(r.index)
                return r
        self.unmatched.append(text)
        return None

    def read_text(self, lines):
        pending = []  # (record or None, text) of tracepoint lines not yet closed
        for text in lines:
            m = GRAPH.match(text)
            if not m:
                t = TOTALS.match(text)
                if t:
                    self.totals.append(t)
                elif not LOST.match(text):
                    self.other.append(text)
                continue
            secs, us, cpu, comm, pid, duration, body = m.groups()
            self.comms[int(pid)].add(comm.strip())
            pid, cpu = int(pid), int(cpu)
            ts_us = int(secs) * 1_000_000 + int(us)
            ret, ev = RETURN.match(body), EVENT.match(body)
            d = DURATION.match(duration.strip())
            if ret and d:
                rec = self.take(self.returns, (pid, cpu, ret.group(1), ts_us, d.group(1)), text)
                if rec is not None and rec.duration < self.threshold_ns:
                    self.under.append(text)
                span = Span(rec)
                span.events = pending
                self.spans.append(span)
                pending = []
            elif ev and not duration.strip():
                rec = self.take(self.events, (pid, cpu, ev.group(1), ts_us, ev.group(2)), text)
                pending.append((rec, text))
                if ev.group(1) == SHRINK_END and rec is not None:
                    starts = [i for i, (r, _) in enumerate(pending)
                              if r is not None and r.name == SHRINK_START and r.pid == pid]
                    if starts:
                        self.stray += [t for _, t in pending[:starts[-1]]]
                        span = Span(rec, pending[starts[-1]][0])
                        span.events = pending[starts[-1] + 1:-1]
                        self.spans.append(span)
                        pending = []
            else:
                self.other.append(text)
        self.stray += [t for _, t in pending]

    def read_json(self, lines):
        for text in lines:
            try:
                rec = json.loads(text)
            except ValueError:
                self.other.append(text)
                continue
            if rec.get("type") != "span":
                self.records.append(rec)
                continue
            pid, start, end = rec.get("pid"), rec.get("start_ns"), rec.get("end_ns")
            if rec.get("name") == "shrinker":
                # Its own two records are its first and last tracepoints.
                begin = self.take(self.events, (pid, SHRINK_START, start), text)
                closing = self.take(self.events, (pid, SHRINK_END, end), text)
                span = Span(closing, begin) if begin and closing else Span(None)
                tps = rec.get("tracepoints", [])[1:-1]
            else:
                rec_ = self.take(self.returns, (pid, rec.get("name"), start, end), text)
                span, tps = Span(rec_), rec.get("tracepoints", [])
            for tp in tps:
                t = f"{tp.get('event')} at {tp.get('ts_ns')} of {text[:80]}"
                span.events.append((self.take(self.events, (pid, tp.get("event"), tp.get("ts_ns")), t), t))
            self.spans.append(span)


def note_comms(dat, out):
    """A live raw run names a task as saved_cmdlines did when it read the
    task's records; the trace.dat keeps one name per pid, the last: tasks
    printed under other names are said, not failed."""
    saved = {r.pid: r.comm[:7] for r in dat.records}
    renamed = sorted(f"{pid} {'/'.join(sorted(names))} ({saved.get(pid)} in the trace.dat)"
                     for pid, names in out.comms.items() if names != {saved.get(pid)})
    print(f"output: {len(renamed)} tasks printed under a name the trace.dat does not keep"
          + (": " + ", ".join(renamed[:5]) if renamed else ""))


def check_spans(dat, out, profile):
    result(not out.other, f"every line of the output is a trace line, a LOST line, a shrinker total "
           f"or a JSON record ({len(out.other)} other{first(out.other)})")
    result(not out.unmatched, f"every span and tracepoint the output prints is a record of the "
           f"trace.dat, printed once ({len(out.unmatched)} not{first(out.unmatched)})")
    result(not out.under, f"no return under the threshold is printed ({len(out.under)}{first(out.under)})")
    missing = [r for r in dat.returns if r.index not in out.used]
    result(not missing and bool(dat.returns),
           f"all {len(dat.returns)} returns over the threshold in the trace.dat are printed "
           f"({len(missing)} missing{first([f'{r.comm}-{r.pid} {r.func} at {r.rettime}' for r in missing])})")
    missing = [s for s, e in dat.pairs if s.index not in out.used or e.index not in out.used]
    result(not missing, f"all {len(dat.pairs)} shrink pairs over the threshold print both lines "
           f"({len(missing)} missing{first([f'{s.comm}-{s.pid} at {s.ts}' for s in missing])})")
    outside, printed = [], 0
    for span in out.spans:
        if span.closing is None:
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
    unprinted, bound = [], set()
    for r in dat.returns:
        events, times = dat.by_pid.get(r.pid, []), dat.times.get(r.pid, [])
        for e in events[bisect_left(times, r.calltime):bisect_right(times, r.rettime)]:
            if e.name in profile.bound.get(r.func, ()):
                if e.index not in bound and e.index not in out.used:
                    unprinted.append(f"{e.comm}-{e.pid} {e.name} at {e.ts} in {r.func}")
                bound.add(e.index)
    result(not unprinted, f"all {len(bound)} records the profile binds to a slow return, of its pid and "
           f"inside it, are printed ({len(unprinted)} not{first(unprinted)})")


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
            totals.append((r["symbol"], None, r["total_ns"], r["max_ns"], r["calls"], json.dumps(r)[:120]))
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
    result(bool(totals) and not wrong,
           f"{len(totals)} shrinker totals equal the trace.dat's pairs ({len(wrong)} wrong{first(wrong)})")


def expected_rows(dat, profile):
    """(table, pid, kind, span) -> durations; table: stall or background.
    A shrinker's span is "NAME[INSTANCE]", and "NAME" for all its instances."""
    rows = defaultdict(list)

    def add(rec, kind, span, d):
        table = "background" if rec.comm.startswith(profile.background) else "stall"
        rows[(table, rec.pid, kind, span)].append(d)

    for r in dat.returns:
        if r.func in profile.kind_of:
            add(r, profile.kind_of[r.func], r.func, r.duration)
    for s, e in dat.pairs:
        name = dat.shrinker_of(s)
        add(s, profile.shrinker_kind, name, e.ts - s.ts)
        add(s, profile.shrinker_kind, f"{name}[{s.raw.get('shr', '')}]", e.ts - s.ts)
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
                if table == "histogram" or kind in profile.reclaim:
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
    """(pid, kind) -> [pages scanned, pages reclaimed] inside the slow reclaim
    returns of tasks that are not background: nr_scanned of
    mm_vmscan_lru_shrink_inactive, nr_reclaimed of the *reclaim_end events
    bound to the return's function."""
    want = defaultdict(lambda: [0, 0])
    for r in dat.returns:
        kind = profile.kind_of.get(r.func)
        if kind not in profile.reclaim or r.comm.startswith(profile.background):
            continue
        events, times = dat.by_pid.get(r.pid, []), dat.times.get(r.pid, [])
        for e in events[bisect_left(times, r.calltime):bisect_right(times, r.rettime)]:
            if e.name == LRU_SCAN:
                want[(r.pid, kind)][0] += number(e.raw.get("nr_scanned", "0"))
            elif e.name.endswith("reclaim_end") and e.name in profile.bound.get(r.func, ()):
                want[(r.pid, kind)][1] += number(e.raw.get("nr_reclaimed", "0"))
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
                      if table == "stall" and kind in profile.reclaim} - set(tasks), key=str)
    result(bool(tasks) and not wrong and not missing,
           f"what each of {len(tasks)} tasks' slow reclaim and compaction got counts its stalls, "
           f"once in its orders, with the trace.dat's pages ({len(wrong)} wrong{first(wrong)}; "
           f"{len(missing)} tasks with reclaim stalls and no row{first(missing)})")


def main():
    args = sys.argv[1:]
    if len(args) not in (4, 5):
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    profile = Profile(args[0])
    threshold_ns = round(float(args[1]) * MICRO)
    try:
        dat = Dat(args[2], threshold_ns)
    except DatError as e:
        print(f"check_dat.py: {e}", file=sys.stderr)
        sys.exit(2)
    print(f"trace.dat: {len(dat.records)} records ({len(dat.unread)} other lines), "
          f"{len(dat.returns)} returns and {len(dat.pairs)} shrink pairs over the threshold")
    for name, n in sorted(Counter(r.func for r in dat.returns).items()):
        print(f"trace.dat: {n} returns over the threshold: {name}")
    for name, n in sorted(Counter(dat.shrinker_of(s) for s, _ in dat.pairs).items()):
        print(f"trace.dat: {n} shrink pairs over the threshold: {name}")
    out = Output(args[3], dat, threshold_ns)
    note_comms(dat, out)
    check_spans(dat, out, profile)
    check_totals(dat, out)
    stalls = {}
    if out.json:
        rows, counts, totals, pages, tasks = report_from_json(out.records)
        stalls = check_report(dat, profile, rows, counts, totals, exact=True)
        check_pages(dat, profile, pages)
        check_task_yield(dat, profile, rows, tasks)
    if len(args) == 5:
        try:
            rows, counts, pages, tasks = report_from_text(args[4])
        except OSError as e:
            rows, counts, pages, tasks = {}, {"histogram": {}, "order": {}, "reclaim": {}}, {}, {}
            result(False, f"the --report file can be read ({e.strerror})")
        stalls = check_report(dat, profile, rows, counts, {}, exact=False)
        check_pages(dat, profile, pages)
        check_task_yield(dat, profile, rows, tasks)
    print("summary: " + ", ".join(f"{k} {n}" for k, n in sorted(stalls.items())))
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()

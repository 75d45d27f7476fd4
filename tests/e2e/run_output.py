"""allocwatch's stdout, read as the spans it printed and matched to a
trace.dat's records (tests/e2e/dat_spans.py), for tests/e2e/check_dat.py.

    out = Output(PATH, dat, mode)     # mode: graph, events

Text (graph mode: "abstime | cpu) comm-pid | duration | body" with µs cut
from the ns, as the kernel's function_graph prints; events mode: the nop
tracer's "comm-pid [cpu] flags ts: name: fields" with µs rounded): a return
line is a funcgraph_exit of its pid, cpu, function, time and duration
digits; a tracepoint line a record of its pid, cpu, event, time and fields
as trace-cmd prints them. The tracepoint lines printed before a return are
its own; a pair's are those from its begin to its end. JSON: a span record
is a return of its pid, function, start_ns and end_ns, or a pair's begin
and end records at start_ns and end_ns, its tracepoints records of its pid
at their ts_ns. Each record matches one line at most.

out.spans: [OutSpan]; out.used: the indexes of the records printed;
out.unmatched: lines (or JSON tracepoints) that match no unused record;
out.stray: tracepoint lines printed with no span; out.other: lines of no
kind; out.totals: the shrinker total lines; out.records: JSON records other
than spans; out.comms: pid -> the names its text lines give it.
"""
import json
import re
from collections import defaultdict

MICRO = 1000
GRAPH = re.compile(r"^\s*(\d+)\.(\d{6}) \|\s*(\d+)\)\s*(.*)-(\d+)\s*\|([^|]*)\|\s*(.*?)\s*$")
EVENTS = re.compile(r"^\s*(.*)-(\d+)\s+\[(\d+)\]\s+\S+\s+(\d+)\.(\d{6}): (\w+):\s*(.*?)\s*$")
RETURN = re.compile(r"^} /\* (\S+).*\*/$")
EVENT = re.compile(r"^/\* (\w+):\s*(.*?)\s*\*/$")
DURATION = re.compile(r"^[+!#*@$ ]?\s*([\d.]+) us$")
LOST = re.compile(r"^CPU:\d+ \[LOST( \d+)? EVENTS\]$")
TOTALS = re.compile(r"^(\S+?)(?:\[(.+)\])? : total time = (\d+)\.(\d{6}) ms, "
                    r"max latency = (\d+)\.(\d{6}) ms(?:, calls = (\d+))?$")


# trace-cmd 3.1.6 cannot read some kernels' print formats (7.x's vmscan
# events name the pid as REC->ent.pid) and prints "[FAILED TO PARSE]" and the
# raw fields; allocwatch reads them and prints the fields its own way. Such
# a record is matched by pid, cpu, event and time; its figures are checked
# through the raw fields elsewhere.
UNPARSED = "[FAILED TO PARSE]"


def info_key(info):
    return UNPARSED if info.startswith(UNPARSED) else info


def fields_of(text):
    """The name=value words of a line's fields, numbers as numbers."""
    out = {}
    for word in text.split():
        key, eq, value = word.partition("=")
        if eq:
            try:
                out[key] = int(value, 0)
            except ValueError:
                out[key] = value
    return out


def same_fields(printed, unparsed):
    """Whether allocwatch's fields say what trace-cmd's raw ones do: every
    name=value it printed is one of them, and it printed some."""
    if unparsed is None:
        return False
    mine, theirs = fields_of(printed), fields_of(unparsed[len(UNPARSED):])
    return bool(mine) and all(theirs.get(k) == v for k, v in mine.items())


def graph_duration(ns):
    """The duration's digits as the kernel prints them (print_graph_duration):
    whole µs, then as many of the ns digits as fit in 7 characters."""
    whole = str(ns // MICRO)
    return whole if len(whole) >= 7 else whole + "." + f"{ns % MICRO:03d}"[:7 - len(whole)]


class OutSpan:
    """A span OUTPUT printed: its records in the trace.dat (None: they
    matched none), and its tracepoints as (record or None, text)."""

    def __init__(self, records=None):
        self.records, self.events = records, []

    def window(self):
        """pid, start, end of the span these records make."""
        first, last = self.records[0], self.records[-1]
        if first.name == "funcgraph_exit":
            return first.pid, first.calltime, first.rettime
        return first.pid, first.ts, last.ts


class Output:
    def __init__(self, path, dat, profile, mode):
        with open(path, encoding="utf-8", errors="replace") as f:
            lines = f.read().splitlines()
        self.json = bool(lines) and lines[0].startswith("{")
        self.mode = mode
        self.spans, self.stray, self.unmatched, self.other = [], [], [], []
        self.totals, self.records, self.used = [], [], set()
        self.comms = defaultdict(set)
        pairs = profile.mode_pairs(mode)
        self.begin_of = {pair["end"]: pair["begin"] for pair in pairs}
        self.pair_events = {pair["name"]: (pair["begin"], pair["end"]) for pair in pairs}
        # The trace.dat's records by what identifies each in OUTPUT.
        self.returns, self.events = defaultdict(list), defaultdict(list)
        self.unparsed = {}  # (pid, cpu, event, µs) -> trace-cmd's "[FAILED TO PARSE] ..."
        for r in dat.records:
            if r.name == "funcgraph_exit":
                key = (r.pid, r.func, r.calltime, r.rettime) if self.json else \
                    (r.pid, r.cpu, r.func, r.rettime // MICRO, graph_duration(r.duration))
                self.returns[key].append(r)
            elif self.json:
                self.events[(r.pid, r.name, r.ts)].append(r)
            else:
                us = r.ts // MICRO if mode == "graph" else (r.ts + MICRO // 2) // MICRO
                self.events[(r.pid, r.cpu, r.name, us, info_key(r.info))].append(r)
                if r.info.startswith(UNPARSED):
                    self.unparsed[(r.pid, r.cpu, r.name, us)] = r.info
        if self.json:
            self.read_json(lines)
        else:
            self.read_text(lines)

    def take(self, table, key, text):
        """The first unused record under KEY, or None (noted)."""
        for r in table.get(key, []):
            if r.index not in self.used:
                self.used.add(r.index)
                return r
        self.unmatched.append(text)
        return None

    def read_text(self, lines):
        pending = []  # (record or None, text) of tracepoint lines not yet a span's
        for text in lines:
            tracepoint = self.tracepoint(text)
            if tracepoint is not None:
                rec, name, pid = tracepoint
                pending.append((rec, text))
                begin = self.begin_of.get(name)
                starts = [i for i, (r, _) in enumerate(pending)
                          if begin and rec and r is not None and r.name == begin and r.pid == pid]
                if starts:
                    self.stray += [t for _, t in pending[:starts[-1]]]
                    span = OutSpan((pending[starts[-1]][0], rec))
                    span.events = pending[starts[-1] + 1:-1]
                    self.spans.append(span)
                    pending = []
                continue
            m = GRAPH.match(text) if self.mode == "graph" else None
            ret = RETURN.match(m.group(7)) if m else None
            d = DURATION.match(m.group(6).strip()) if m else None
            if ret and d:
                self.comms[int(m.group(5))].add(m.group(4).strip())
                key = (int(m.group(5)), int(m.group(3)), ret.group(1),
                       int(m.group(1)) * 1_000_000 + int(m.group(2)), d.group(1))
                rec = self.take(self.returns, key, text)
                span = OutSpan(None if rec is None else (rec,))
                span.events = pending
                self.spans.append(span)
                pending = []
            elif TOTALS.match(text):
                self.totals.append(TOTALS.match(text))
            elif not LOST.match(text):
                self.other.append(text)
        self.stray += [t for _, t in pending]

    def tracepoint(self, text):
        """(its record or None, event, pid) of a tracepoint line in this
        mode's form; None for any other line."""
        if self.mode == "graph":
            m = GRAPH.match(text)
            e = EVENT.match(m.group(7)) if m and not m.group(6).strip() else None
            if not e:
                return None
            comm, pid, cpu, secs, us = m.group(4), m.group(5), m.group(3), m.group(1), m.group(2)
            name, info = e.groups()
        else:
            m = EVENTS.match(text)
            if not m:
                return None
            comm, pid, cpu, secs, us, name, info = m.groups()
        self.comms[int(pid)].add(comm.strip())
        key = (int(pid), int(cpu), name, int(secs) * 1_000_000 + int(us), info)
        if key not in self.events and same_fields(info, self.unparsed.get(key[:4])):
            key = key[:4] + (UNPARSED,)  # an event trace-cmd could not print
        return self.take(self.events, key, text), name, int(pid)

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
            tps = rec.get("tracepoints", [])
            if rec.get("name") in self.pair_events:
                # Its own two records are its first and last tracepoints.
                begin_event, end_event = self.pair_events[rec["name"]]
                begin = self.take(self.events, (pid, begin_event, start), text)
                closing = self.take(self.events, (pid, end_event, end), text)
                span = OutSpan((begin, closing) if begin and closing else None)
                tps = tps[1:-1]
            else:
                ret = self.take(self.returns, (pid, rec.get("name"), start, end), text)
                span = OutSpan(None if ret is None else (ret,))
            for tp in tps:
                t = f"{tp.get('event')} at {tp.get('ts_ns')} of {text[:80]}"
                span.events.append((self.take(self.events, (pid, tp.get("event"), tp.get("ts_ns")), t), t))
            self.spans.append(span)

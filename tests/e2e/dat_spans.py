"""The spans a trace.dat holds, as trace-cmd report reads it
(tests/e2e/tracedat.py), by DESIGN.md's binding rule with exact ns, and what
the profile says of them: the VM test's model, none of allocwatch's code.

    profile = Profile(PROFILE_PATH)
    dat = Dat(DAT_PATH, threshold_ns, profile, mode, buffer)  # mode: graph, events;
                                                               # buffer: "" the top level

A span is a function return (graph mode: a funcgraph_exit, [calltime,
rettime]) or a pair of the mode's (`modes:` in the profile): a begin and the
next end of its pid, at most one begin open per pid and pair (a new one
replaces it), an end with none open (or, for the shrinker pair, of another
instance) ignored; [begin, end]. dat.spans holds those at least the
threshold long, in the order of their closing records; dat.totals every
complete shrinker pair's duration, per shrinker and per (shrinker, instance).
A shrinker is named by its raw `shrink` (an address looked up in the file's
symbols where it prints as one); its instance is its raw `shr`.
"""
import re
from bisect import bisect_left, bisect_right
from collections import defaultdict
from dataclasses import dataclass, field

import yaml

from tracedat import number, read_dat, read_functions

RECLAIM_EVENT = re.compile(r"^mm_vmscan_.*reclaim_(begin|end)$")


class Profile:
    """What the checks take from the profile: each function name's stall
    kind (a kind names one alternative of a function; any alternative is
    it), the events bound to each function, the pairs and each one's kind,
    the background task names. Which spans are reclaims is said of each span
    (Span.reclaim), as DESIGN.md says: a function bound to, or a pair made
    of, a *reclaim_begin/end event."""

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
        self.pairs = {pair["name"]: pair for pair in p.get("pairs", [])}
        self.kind_of, self.pair_kind = {}, {}
        for stall in p.get("stalls", []):
            for fn in stall.get("functions", []):
                for n in alternatives.get(fn, [fn]):
                    self.kind_of[n] = stall["kind"]
            for name in stall.get("pairs", []):
                self.pair_kind[name] = stall["kind"]
        self.background = tuple(p.get("background", []))

    def mode_pairs(self, mode):
        return [pair for pair in self.pairs.values() if mode in pair.get("modes", [])]


@dataclass
class Span:
    name: str            # the function, or the pair
    kind: str            # its stall kind, or None
    pid: int
    comm: str
    start: int           # ns
    end: int
    records: tuple       # its own: the return, or the begin and the end
    bound: frozenset     # the events it claims
    reclaim: bool        # whether it is a reclaim: it claims a *reclaim_begin/end
    shrinker: str = ""   # a shrinker pair's shrinker and instance
    instance: str = ""
    report_names: tuple = field(default=())  # the report's SPAN for it, by either name

    @property
    def duration(self):
        return self.end - self.start


class Dat:
    def __init__(self, path, threshold_ns, profile, mode, buffer=""):
        self.path = path
        self.functions = None  # read_functions(path), once a shrinker prints as an address
        self.records, self.unread = read_dat(path, buffer)
        self.by_pid = defaultdict(list)  # tracepoints, in time order
        for r in sorted(self.records, key=lambda r: r.ts):
            if r.name not in ("funcgraph_exit", "funcgraph_entry"):
                self.by_pid[r.pid].append(r)
        self.times = {pid: [r.ts for r in recs] for pid, recs in self.by_pid.items()}
        self.spans, self.totals = [], defaultdict(list)
        pairs = profile.mode_pairs(mode)
        begins = {pair["begin"]: pair for pair in pairs}
        ends = {pair["end"]: pair for pair in pairs}
        open_begins = {}  # (pid, pair) -> its begin
        for r in self.records:
            if r.name == "funcgraph_exit" and mode == "graph":
                if r.duration >= threshold_ns:
                    bound = frozenset(profile.bound.get(r.func, ()))
                    self.spans.append(Span(r.func, profile.kind_of.get(r.func), r.pid, r.comm,
                                           r.calltime, r.rettime, (r,), bound,
                                           any(RECLAIM_EVENT.match(e) for e in bound),
                                           report_names=(r.func,)))
            elif r.name in begins:
                open_begins[(r.pid, begins[r.name]["name"])] = r
            elif r.name in ends:
                pair = ends[r.name]
                begin = open_begins.get((r.pid, pair["name"]))
                if begin is None or (pair.get("shrinker") and begin.raw.get("shr") != r.raw.get("shr")):
                    continue
                del open_begins[(r.pid, pair["name"])]
                span = Span(pair["name"], profile.pair_kind.get(pair["name"]), r.pid, begin.comm,
                            begin.ts, r.ts, (begin, r),
                            frozenset(pair.get("claims", [])) | {pair["begin"], pair["end"]},
                            bool(RECLAIM_EVENT.match(pair["begin"])), report_names=(pair["name"],))
                if pair.get("shrinker"):
                    span.shrinker, span.instance = self.shrinker_of(r), r.raw.get("shr", "")
                    span.report_names = (span.shrinker, f"{span.shrinker}[{span.instance}]")
                    self.totals[span.shrinker].append(span.duration)
                    self.totals[(span.shrinker, span.instance)].append(span.duration)
                if span.duration >= threshold_ns:
                    self.spans.append(span)

    def returns(self):
        return [s for s in self.spans if s.records[0].name == "funcgraph_exit"]

    def pairs(self):
        return [s for s in self.spans if s.records[0].name != "funcgraph_exit"]

    def inside(self, span):
        """The tracepoints of the span's pid inside [start, end], in time order."""
        events, times = self.by_pid.get(span.pid, []), self.times.get(span.pid, [])
        return events[bisect_left(times, span.start):bisect_right(times, span.end)]

    def shrinker_of(self, rec):
        """A shrink_slab record's shrinker: its raw `shrink`, which prints as
        "super_cache_scan+0x0", or as an address (7.2) to look up."""
        shrink = rec.raw.get("shrink", "")
        if not shrink.startswith("0x"):
            return shrink.split("+", 1)[0]
        if self.functions is None:
            self.functions = read_functions(self.path)
        return self.functions.get(number(shrink), shrink)

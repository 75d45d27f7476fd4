#!/usr/bin/env python3
"""Do a raw run and a text run, traced at once, find the same stalls?

Usage: same_stalls.py RAW.json TEXT.json THRESHOLD_NS [PROFILE RAW.dat TEXT.save]

Reads the span records ({"type":"span"}) of two `--format json` runs of
allocwatch, one with --source raw and one with --source text, that traced
the same reclaim at the same time, each in its own instance. Prints one
"ok - ..." or "FAIL - ..." line per check and exits 1 if any failed.

Each instance stamps its own copy of an event. Mostly the two stamps are
within a µs, but when an event is the first after a quiet time, the
instance written first wakes its waiting reader (an irq_work on the same
CPU) before the other instance is written: that one's stamp comes up to
some tens of µs later. A span's begin is the usual victim, its end
sometimes; when the woken reader runs on the writer's CPU before the
writer is done, more (up to 32 µs in this machine's runs). So
spans are paired by name, pid and the nearest end (within 50 µs; one
task's calls of one kind are further apart), and:
  - every span of either run 50 µs or more above the threshold has its
    pair, or, given the raw run's --save (RAW.dat, read by trace-cmd) and
    the text run's (TEXT.save), the other instance's own begin and end of
    that call stamped it below the threshold (the profile's pairs name
    them);
  - the (pid, span) rows agree, and their counts, but for stalls near the
    threshold and those the other instance stamped below it (a row whose
    every stall is such may be one run's alone);
  - a pair whose raw begin and end print as the text's did (the kernel
    prints an event's time rounded to the µs) has durations within 1 µs of
    each other; the other pairs, stamped apart, are counted;
  - paired stalls name their task alike (or one run does not know it);
  - the raw durations are exact in ns (some not a multiple of 1000), the
    text's whole µs.
"""

import collections
import json
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "e2e"))

US = 1000
CLEAR = 50 * US
NEAR = 50 * US


def spans(path):
    out = []
    with open(path) as f:
        for line in f:
            if not line.startswith('{"type":"span"'):
                continue
            r = json.loads(line)
            out.append((r["name"], r["pid"], r["start_ns"], r["end_ns"], r["duration_ns"],
                        r["comm"]))
    return out


# A saved text line: comm-pid [cpu] flags secs.usecs: event:
TEXT_LINE = re.compile(r"^\s*.*?-(\d+)\s+\[\d+\]\s+(?:\S+\s+)?(\d+)\.(\d{6}):\s+(\w+):")


def profile_pairs(path):
    """The profile's pairs: name -> (begin event, end event)."""
    import yaml
    with open(path, encoding="utf-8") as f:
        return {p["name"]: (p["begin"], p["end"]) for p in yaml.safe_load(f).get("pairs", [])}


def dat_records(path):
    """(pid, ts_ns, event) of each record of a trace.dat, as trace-cmd reads it."""
    from tracedat import read_dat
    records, _ = read_dat(path)
    return [(r.pid, r.ts, r.name) for r in records]


def text_records(path):
    """(pid, ts_ns, event) of each line of a text run's --save."""
    out = []
    with open(path, errors="replace") as f:
        for line in f:
            m = TEXT_LINE.match(line)
            if m:
                out.append((int(m[1]), int(m[2]) * 1_000_000_000 + int(m[3]) * US, m[4]))
    return out


class Instance:
    """One run's instance as its saved records show it, by pid: to tell how
    long that instance stamped a call that only the other run reported."""

    def __init__(self, records, pairs):
        self.pairs = pairs  # name -> (begin event, end event)
        self.by_pid = collections.defaultdict(list)
        for pid, ts, event in sorted(records, key=lambda r: r[1]):
            self.by_pid[pid].append((ts, event))

    def duration(self, span):
        """The duration of its own pair of SPAN's call: the end nearest the
        span's (within 50 µs) and the last begin before it; None if it has
        none."""
        name, pid, _, end = span[:4]
        if name not in self.pairs:
            return None
        begin_event, end_event = self.pairs[name]
        records = self.by_pid.get(pid, [])
        ends = [i for i, (ts, event) in enumerate(records)
                if event == end_event and abs(ts - end) < NEAR]
        if not ends:
            return None
        at = min(ends, key=lambda i: abs(records[i][0] - end))
        begins = [ts for ts, event in records[:at] if event == begin_event]
        return records[at][0] - begins[-1] if begins else None


def pair(these, others):
    """Each span of `these` with its pair in `others` (or None)."""
    by_key = collections.defaultdict(list)
    for i, s in enumerate(others):
        by_key[(s[0], s[1])].append(i)
    used = set()
    out = []
    for s in these:
        near = [i for i in by_key[(s[0], s[1])]
                if i not in used and abs(others[i][3] - s[3]) < NEAR]
        found = min(near, key=lambda i: abs(others[i][3] - s[3]), default=None)
        if found is not None:
            used.add(found)
        out.append((s, None if found is None else others[found]))
    return out


def main():
    raw, text, threshold = spans(sys.argv[1]), spans(sys.argv[2]), int(sys.argv[3])
    clear = threshold + CLEAR
    failed = 0
    instances = {}
    if len(sys.argv) == 7:
        pairs = profile_pairs(sys.argv[4])
        instances = {"raw": Instance(dat_records(sys.argv[5]), pairs),
                     "text": Instance(text_records(sys.argv[6]), pairs)}

    def check(good, what):
        nonlocal failed
        print(("ok - " if good else "FAIL - ") + what)
        failed += not good

    check(len(raw) > 0 and len(text) > 0, f"both runs found stalls: raw {len(raw)}, text {len(text)}")
    raw_pairs = pair(raw, text)
    # A stall one run reported whose call the other instance stamped below
    # the threshold: by (pid, span) row.
    below = collections.Counter()
    for name, other, these in (("raw", "text", raw_pairs), ("text", "raw", pair(text, raw))):
        unpaired = [s for s, o in these if o is None and s[4] >= clear]
        stamped = {}
        if other in instances:
            stamped = {s: instances[other].duration(s) for s in unpaired}
        shorter = [s for s in unpaired if stamped.get(s) is not None and stamped[s] < threshold]
        below.update((s[1], s[0]) for s in shorter)
        missing = [s for s in unpaired if s not in shorter]
        check(not missing, f"each of the {name} run's stalls 50 us or more above the threshold "
              f"has its pair in the other run ({len(missing)} missing: "
              f"{[(s, stamped.get(s)) for s in missing[:3]]}; {len(shorter)} the {other} "
              f"instance stamped below the threshold, by up to "
              f"{max((s[4] - stamped[s] for s in shorter), default=0)} ns)")
    paired = [(r, t) for r, t in raw_pairs if t is not None]
    # Rows and counts: the rows that hold a stall clear of the threshold;
    # a row's counts may differ only by its stalls near the threshold,
    # which either run may have and the other not, and by those the other
    # instance stamped below it. A row one run lacks must be all of these.
    count_raw = collections.Counter((s[1], s[0]) for s in raw)
    count_text = collections.Counter((s[1], s[0]) for s in text)
    rows = {(s[1], s[0]) for s in raw + text if s[4] >= clear}
    near = collections.Counter((s[1], s[0]) for s in raw + text if s[4] < clear) + below
    off = {k: (count_raw[k], count_text[k]) for k in rows
           if abs(count_raw[k] - count_text[k]) > near[k]}
    check(rows and not off,
          f"the same (pid, span) rows and counts: {len(rows)} rows, {len(paired)} stalls "
          f"paired (raw {len(raw)}, text {len(text)}; rows off: {off})")
    # The text's times are the kernel's, rounded to the µs it prints: a pair
    # whose raw begin and end print as the text's were stamped alike.
    def printed(ns):
        return (ns + US // 2) // US * US
    alike = lambda r, t: printed(r[2]) == t[2] and printed(r[3]) == t[3]
    together = [(r, t) for r, t in paired if alike(r, t)]
    apart = [(r, t) for r, t in paired if not alike(r, t)]
    worst = max((abs(r[4] - t[4]) for r, t in together), default=0)
    check(together and worst < US,
          f"durations within 1 us of each other ({len(together)} pairs, largest difference "
          f"{worst} ns; {len(apart)} pairs whose begins or ends the instances stamped up to "
          f"{max((max(abs(t[2] - r[2]), abs(t[3] - r[3])) for r, t in apart), default=0)} ns apart)")
    unnamed = sum(1 for r, t in paired if "<...>" in (r[5], t[5]))
    named_apart = [(r[1], r[5], t[5]) for r, t in paired if "<...>" not in (r[5], t[5]) and r[5] != t[5]]
    check(not named_apart, f"paired stalls name their task alike ({unnamed} unnamed in one run; "
          f"named apart: {named_apart[:3]})")
    exact = sum(1 for s in raw if s[4] % US != 0)
    check(exact > 0, f"raw durations exact in ns: {exact} of {len(raw)} not a multiple of 1000")
    check(all(s[4] % US == 0 for s in text), "text durations in whole us")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Do a raw run and a text run, traced at once, find the same stalls?

Usage: same_stalls.py RAW.json TEXT.json THRESHOLD_NS

Reads the span records ({"type":"span"}) of two `--format json` runs of
allocwatch, one with --source raw and one with --source text, that traced
the same reclaim at the same time, each in its own instance. Prints one
"ok - ..." or "FAIL - ..." line per check and exits 1 if any failed.

Each instance stamps its own copy of an event. Mostly the two stamps are
within a µs, but when an event is the first after a quiet time, the
instance written first wakes its waiting reader (an irq_work on the same
CPU) before the other instance is written: that one's stamp comes up to
some tens of µs later. A span's begin is the usual victim, its end
sometimes. So spans are paired by name, pid and the nearest end (within
50 µs; one task's calls of one kind are further apart), and:
  - every span of either run 50 µs or more above the threshold (so that a
    late begin stamp cannot have put its pair below it) has its pair;
  - the (pid, span) rows agree, and their counts but for stalls near the
    threshold;
  - a pair whose raw begin and end print as the text's did (the kernel
    prints an event's time rounded to the µs) has durations within 1 µs of
    each other; the other pairs, stamped apart, are counted;
  - paired stalls name their task alike (or one run does not know it);
  - the raw durations are exact in ns (some not a multiple of 1000), the
    text's whole µs.
"""

import collections
import json
import sys

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

    def check(good, what):
        nonlocal failed
        print(("ok - " if good else "FAIL - ") + what)
        failed += not good

    check(len(raw) > 0 and len(text) > 0, f"both runs found stalls: raw {len(raw)}, text {len(text)}")
    raw_pairs = pair(raw, text)
    for name, these in (("raw", raw_pairs), ("text", pair(text, raw))):
        missing = [s for s, o in these if o is None and s[4] >= clear]
        check(not missing, f"each of the {name} run's stalls 50 us or more above the threshold "
              f"has its pair in the other run ({len(missing)} missing: {missing[:3]})")
    paired = [(r, t) for r, t in raw_pairs if t is not None]
    # Rows and counts: the rows that hold a stall clear of the threshold;
    # a row's counts may differ only by its stalls near the threshold,
    # which either run may have and the other not.
    count_raw = collections.Counter((s[1], s[0]) for s in raw)
    count_text = collections.Counter((s[1], s[0]) for s in text)
    rows = {(s[1], s[0]) for s in raw + text if s[4] >= clear}
    near = collections.Counter((s[1], s[0]) for s in raw + text if s[4] < clear)
    off = {k: (count_raw[k], count_text[k]) for k in rows
           if abs(count_raw[k] - count_text[k]) > near[k] or not count_raw[k] or not count_text[k]}
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

#!/usr/bin/env python3
"""Compares two replays of the same events in --format json: one of a
trace.dat (exact ns) and one of the text the same buffer printed (whole
µs). They must find the same stalls:

- every span of one has its twin in the other: the same pid and span name,
  start and end within 1 µs (the text rounds each time to the µs);
- a span without a twin is allowed only when its exact duration lies within
  1 µs of the threshold, where rounding decides which side of it the text
  falls; such spans are listed, not hidden;
- so the counts per (pid, span) agree but for those;
- the trace.dat's durations are exact: not all whole µs.

  compare_replays.py DAT_JSON TEXT_JSON THRESHOLD_NS
Prints "ok ..." lines or "FAIL ..." lines; exit status 1 on a failure.
"""
import collections
import json
import sys


def spans(path):
    out = []
    with open(path) as f:
        for line in f:
            if not line.startswith("{"):
                continue
            r = json.loads(line)
            if r.get("type") == "span":
                out.append(r)
    return out


def main():
    dat_path, text_path, threshold = sys.argv[1], sys.argv[2], int(sys.argv[3])
    dat, text = spans(dat_path), spans(text_path)
    failures = []
    unmatched_text = list(text)
    by_key = collections.defaultdict(list)
    for i, s in enumerate(text):
        by_key[(s["pid"], s["name"])].append(i)
    used = set()
    borderline = []
    for s in dat:
        twin = None
        for i in by_key[(s["pid"], s["name"])]:
            t = text[i]
            if i not in used and abs(t["start_ns"] - s["start_ns"]) <= 1000 and \
                    abs(t["end_ns"] - s["end_ns"]) <= 1000:
                twin = i
                break
        if twin is None:
            if abs(s["duration_ns"] - threshold) <= 1000:
                borderline.append(("dat", s))
            else:
                failures.append("trace.dat span without a twin in the text: %s pid %d at %d ns, %d ns"
                                % (s["name"], s["pid"], s["start_ns"], s["duration_ns"]))
            continue
        used.add(twin)
        if abs(text[twin]["duration_ns"] - s["duration_ns"]) > 1000:
            failures.append("durations differ by more than 1 us: %s pid %d: %d vs %d ns"
                            % (s["name"], s["pid"], s["duration_ns"], text[twin]["duration_ns"]))
    for i, t in enumerate(text):
        if i in used:
            continue
        # The text's duration is off by up to 1 us from the exact one.
        if abs(t["duration_ns"] - threshold) <= 1000:
            borderline.append(("text", t))
        else:
            failures.append("text span without a twin in the trace.dat: %s pid %d at %d ns, %d ns"
                            % (t["name"], t["pid"], t["start_ns"], t["duration_ns"]))
    count = lambda ss: collections.Counter((s["pid"], s["name"]) for s in ss)
    allowed = count(s for side, s in borderline)
    for key in set(count(dat)) | set(count(text)):
        diff = abs(count(dat)[key] - count(text)[key])
        if diff > allowed[key]:
            failures.append("counts differ for pid %d %s: %d vs %d"
                            % (key[0], key[1], count(dat)[key], count(text)[key]))
    whole = sum(1 for s in dat if s["duration_ns"] % 1000 == 0)
    if dat and whole == len(dat):
        failures.append("every trace.dat duration is whole us: not exact")
    if not dat:
        failures.append("the trace.dat replay found no span")
    for f in failures:
        print("FAIL - " + f)
    if not failures:
        print("ok - %d spans matched (%d whole us), %d at the threshold on one side only%s"
              % (len(used), whole, len(borderline),
                 "".join("\n     %s: %s pid %d, %d ns" % (side, s["name"], s["pid"], s["duration_ns"])
                         for side, s in borderline)))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

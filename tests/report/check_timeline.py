#!/usr/bin/env python3
"""Checks a --timeline file: valid JSON in the Chrome trace-event format
(the JSON Array Format) as allocwatch writes it, every event's fields, and
that the complete events of each track nest (each pair either disjoint or
one inside the other), which Perfetto and chrome://tracing need to draw calls
inside calls.

    check_timeline.py TIMELINE [SPANS.jsonl]

With SPANS.jsonl (the same run's --format json output), also checks that
every span record has its complete event, with the same name, track, kind,
duration and tracepoints. Prints what it found; exit 1 on the first fault.
"""
import json
import sys
from decimal import Decimal

LANE_TID_STEP = 1 << 22


def fail(message):
    print(f"check_timeline: FAIL: {message}")
    sys.exit(1)


def ns(us):
    """Trace-event microseconds (Decimal) to integer nanoseconds, exactly."""
    value = us * 1000
    if value != value.to_integral_value():
        fail(f"{us} us is not a whole number of nanoseconds")
    return int(value)


def is_int(value):
    return isinstance(value, int) and not isinstance(value, bool)


def check_tracepoints(where, tracepoints):
    if not isinstance(tracepoints, list):
        fail(f"{where}: tracepoints is not a list")
    for tp in tracepoints:
        if set(tp) != {"event", "ts_ns", "fields"}:
            fail(f"{where}: tracepoint keys {sorted(tp)}")
        if not isinstance(tp["event"], str) or not tp["event"]:
            fail(f"{where}: tracepoint without an event name")
        if not is_int(tp["ts_ns"]):
            fail(f"{where}: tracepoint ts_ns {tp['ts_ns']!r}")
        for key, value in tp["fields"].items():
            if not (is_int(value) or isinstance(value, str)):
                fail(f"{where}: field {key} is {value!r}, neither a number nor a string")


def main():
    if len(sys.argv) not in (2, 3):
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    with open(sys.argv[1], encoding="utf-8") as f:
        try:
            events = json.load(f, parse_float=Decimal)
        except json.JSONDecodeError as e:
            fail(f"not valid JSON: {e}")
    if not isinstance(events, list):
        fail("not a JSON array of events")

    names = {}  # pid -> track name
    tracks = {}  # tid -> [(start, end, index)]
    complete = []
    instants = 0
    for i, ev in enumerate(events):
        where = f"event {i}"
        if not isinstance(ev, dict):
            fail(f"{where} is not an object")
        ph = ev.get("ph")
        if ph == "M":
            if set(ev) != {"name", "ph", "pid", "tid", "args"}:
                fail(f"{where}: metadata keys {sorted(ev)}")
            if ev["name"] not in ("process_name", "thread_name"):
                fail(f"{where}: metadata {ev['name']!r}")
            name = ev["args"].get("name")
            # A task's own track (tid = pid), or one of its overlap tracks
            # (tid = pid + k * 2^22) for spans that overlap without nesting.
            lane, pid = divmod(ev["tid"], LANE_TID_STEP)
            suffix = f"-{ev['pid']}" + (f" (overlap {lane})" if lane else "")
            if (not isinstance(name, str) or not name.endswith(suffix) or pid != ev["pid"]
                    or (ev["name"] == "process_name" and lane)):
                fail(f"{where}: track {ev['tid']} of {ev['pid']} named {name!r}, not comm-pid")
            names[ev["tid"]] = name
        elif ph == "X":
            if set(ev) != {"name", "cat", "ph", "ts", "dur", "pid", "tid", "args"}:
                fail(f"{where}: complete event keys {sorted(ev)}")
            if not isinstance(ev["name"], str) or not ev["name"] or not isinstance(ev["cat"], str):
                fail(f"{where}: name or category missing")
            if not isinstance(ev["ts"], Decimal) or not isinstance(ev["dur"], Decimal):
                fail(f"{where}: ts and dur must be numbers with decimals")
            if not is_int(ev["pid"]) or not is_int(ev["tid"]) or ev["tid"] % LANE_TID_STEP != ev["pid"]:
                fail(f"{where}: pid {ev['pid']!r}, tid {ev['tid']!r}")
            if ev["tid"] not in names:
                fail(f"{where}: track {ev['tid']} has no name before its first event")
            start, dur = ns(ev["ts"]), ns(ev["dur"])
            if start < 0 or dur < 0:
                fail(f"{where}: negative time")
            args = ev["args"]
            if set(args) != {"kind", "duration_ns", "tracepoints"}:
                fail(f"{where}: args keys {sorted(args)}")
            if not is_int(args["duration_ns"]) or args["duration_ns"] < 0:
                fail(f"{where}: duration_ns {args['duration_ns']!r}")
            # Widened over nested calls by under 1 us per level, never shortened.
            if dur < args["duration_ns"] or dur - args["duration_ns"] > 10_000:
                fail(f"{where}: dur {dur} ns for a call of {args['duration_ns']} ns")
            check_tracepoints(where, args["tracepoints"])
            tracks.setdefault(ev["tid"], []).append((start, start + dur, i))
            complete.append(ev)
        elif ph == "i":
            if set(ev) != {"name", "cat", "ph", "s", "ts", "pid", "tid", "args"} or ev["s"] != "g":
                fail(f"{where}: instant event {ev}")
            if "LOST" not in ev["name"] or ev["args"].get("line") != ev["name"]:
                fail(f"{where}: an instant event that is not a LOST line: {ev['name']!r}")
            ns(ev["ts"])
            instants += 1
        else:
            fail(f"{where}: phase {ph!r}")

    # Nesting: sorted by start, longest first, each event must end inside the
    # innermost open one that it starts in.
    for tid, spans in tracks.items():
        spans.sort(key=lambda s: (s[0], -s[1], s[2]))
        open_spans = []
        for start, end, i in spans:
            while open_spans and open_spans[-1][1] <= start:
                open_spans.pop()
            if open_spans and end > open_spans[-1][1]:
                outer = open_spans[-1]
                fail(f"track {tid}: event {i} [{start}, {end}] overlaps event {outer[2]} "
                     f"[{outer[0]}, {outer[1]}] without nesting in it")
            open_spans.append((start, end, i))

    if len(sys.argv) == 3:
        by_key = {}
        for ev in complete:
            # A shrinker call is named "shrink_slab: super_cache_scan".
            key = (ev["pid"], ev["name"].split(": ")[0], ev["args"]["duration_ns"],
                   json.dumps(ev["args"]["tracepoints"], default=str))
            by_key.setdefault(key, []).append(ev)
        spans = 0
        with open(sys.argv[2], encoding="utf-8") as f:
            for line in f:
                record = json.loads(line)
                if record["type"] == "span" and record["start_ns"] >= 0:
                    spans += 1
                    key = (record["pid"], record["name"] or "(unknown)", record["duration_ns"],
                           json.dumps(record["tracepoints"]))
                    found = by_key.get(key)
                    if not found:
                        fail(f"span {record['name']} of {record['pid']} at {record['start_ns']} "
                             "has no event in the timeline")
                    found.pop()
        calls = sum(1 for ev in complete if ev["cat"] == "shrinker call")
        if spans != len(complete) - calls:
            fail(f"{spans} spans in the JSON output, {len(complete) - calls} in the timeline")

    overlap = sum(1 for tid in tracks if tid >= LANE_TID_STEP)
    print(f"check_timeline: ok: {len(complete)} complete events on {len(tracks)} tracks "
          f"({overlap} overlap tracks), nested; {instants} LOST markers")


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Derives the stall report from the span records of the same run, plainly,
and compares it with the report records allocwatch wrote after them.

    derive_report.py PROFILE.yaml OUTPUT.jsonl

OUTPUT.jsonl is `allocwatch -p PROFILE --format json` of one run. From its
"span" records alone (name, pid, comm, times, tracepoints) and the profile's
own `stalls`, `functions` and `background` (read with PyYAML, none of
allocwatch's code), this recomputes:
  - per task, kind and span: count, total, max (exact) and p99 (the exact
    nearest-rank value; allocwatch's may be up to 1/32 above it, never below,
    never above the max), background tasks apart;
  - per kind: the log2 microsecond histogram (exact);
  - per kind, order and gfp flags of the printed begin tracepoint: count,
    total, max; a stall of a span the profile binds to an order-printing
    event (a reclaim begin, mm_compaction_try_to_compact_pages) whose
    begin was not claimed has order and flags null;
  - per kind of reclaim stall (a span the profile binds to a reclaim begin
    or end event, or one that printed one): count, total, the pages scanned,
    pages written (sync ones apart), times throttled and time waited, and
    shrinker time of the lines of the same task printed up to it whose
    timestamps lie in its window [start - 1 us, end] (each line for the
    first reclaim stall whose window holds it, and for the reclaims whose
    windows hold that one's), and the pages reclaimed its own end line
    printed;
  - per task row, its yield: its stalls by order (as the order rows, `?`
    where the begin was not claimed); a reclaim row, the figures above of
    its own stalls; a compaction row (a span bound to a compaction begin's
    try_to_compact_pages, migratepages or end event), the pages migrated and
    failed its own lines printed and its stalls by end status (`?` for a
    span bound to mm_compaction_end whose end line was not claimed);
    and that the rows of each reclaim kind sum to its reclaim totals.
and checks that every table counts the same stalls: per kind, the stall
rows, the histogram, the order rows (a kind with ordered spans) and the
reclaim row (a reclaim kind) have one count.
Prints one line per check; exit 1 if any differs.
"""
import json
import math
import re
import sys
from collections import defaultdict

import yaml

MICRO = 1000
GRAPH_COMM_BYTES = 7
RECLAIM_BEGIN = re.compile(r"^mm_vmscan_.*_reclaim_begin$")
RECLAIM_END = re.compile(r"^mm_vmscan_.*_reclaim_end$")
WRITES = {"mm_vmscan_write_folio", "mm_vmscan_writepage"}  # the name before 5.18
COMPACTION = {"mm_compaction_try_to_compact_pages", "mm_compaction_migratepages",
              "mm_compaction_end"}
# COMPACTION_STATUS, include/trace/events/mmflags.h, in enum compact_result's order.
STATUSES = ["not_suitable_zone", "skipped", "deferred", "no_suitable_page", "continue",
            "complete", "partial_skipped", "contended", "success"]
# "%pS %p:": a symbol in a module prints its module between the two:
# "jbd2_journal_shrink_scan+0x0/0x130 [jbd2] 000000008f07d1a2:".
SHRINK_END = re.compile(r" mm_shrink_slab_end: ([^+ ]+)\+\S+ (?:\[\S+\] )?(\S+):")

failures = 0


def check(ok, what):
    global failures
    print(("ok   " if ok else "FAIL ") + what)
    if not ok:
        failures += 1


def load_profile(path):
    with open(path, encoding="utf-8") as f:
        profile = yaml.safe_load(f)
    # A function of the profile under each of its kernel names.
    alternatives = {}
    for entry in profile.get("functions", []):
        names = entry if isinstance(entry, list) else [entry]
        for name in names:
            alternatives[name] = names
    function_kind, pair_kind = {}, {}
    for stall in profile.get("stalls", []):
        for function in stall.get("functions", []):
            for name in alternatives.get(function, [function]):
                function_kind[name] = stall["kind"]
        for pair in stall.get("pairs", []):
            pair_kind[pair] = stall["kind"]
    pair_end = {p["name"]: p["end"] for p in profile.get("pairs", [])}
    background = profile.get("background", ["kswapd", "kcompactd"])
    # Spans by the events bound to them: those whose stalls have an order,
    # those whose stalls are reclaims.
    ordered, reclaim, compaction, ended = set(), set(), set(), set()

    def classify(span, event):
        if RECLAIM_BEGIN.match(event) or event == "mm_compaction_try_to_compact_pages":
            ordered.add(span)
        if RECLAIM_BEGIN.match(event) or RECLAIM_END.match(event):
            reclaim.add(span)
        if event in COMPACTION:
            compaction.add(span)
        if event == "mm_compaction_end":
            ended.add(span)

    for binding in profile.get("bindings", []):
        for function in binding["functions"]:
            for name in alternatives.get(function, [function]):
                for event in binding["events"]:
                    classify(name, event)
    for p in profile.get("pairs", []):
        for event in [p["begin"], p["end"]] + p.get("claims", []):
            classify(p["name"], event)
    return function_kind, pair_kind, pair_end, background, ordered, reclaim, compaction, ended


def is_background(comm, names):
    return any(comm.startswith(n) or (len(comm) == GRAPH_COMM_BYTES and n.startswith(comm))
               for n in names)


def percentile_99(durations):
    ordered = sorted(durations)
    rank = max(1, math.ceil(99 * len(ordered) / 100))
    return ordered[rank - 1]


def log2_bucket(duration_ns):
    return (duration_ns // MICRO).bit_length()


def shrinker_of(span):
    """(symbol, instance) of a shrinker call, a span whose lines are its own
    mm_shrink_slab_start and end; (None, None) for other spans."""
    tps = span["tracepoints"]
    # From the line: an instance of decimal digits alone is a number in
    # "fields", its leading zeros gone.
    end = SHRINK_END.search(span["lines"][-1])
    if tps and tps[-1]["event"] == "mm_shrink_slab_end" and end and (
            len(tps) == 1 or tps[0]["event"] == "mm_shrink_slab_start"):
        return (end.group(1), end.group(2))
    return (None, None)


# A figure line: (first ts, last ts, pages scanned, shrinker ns, pages
# written, sync writes, times throttled, ns waited).
FIGURES = 6


def figure(first, last, scanned=0, shrinker=0, written=0, sync=0, throttled=0, waited=0):
    return (first, last, scanned, shrinker, written, sync, throttled, waited)


def figure_lines(span):
    """What a span's lines add to a reclaim around them, line by line. An LRU
    scan, a write or a throttle is one line; a shrinker call, its start and
    end, paired by instance; a span that is itself a shrinker call (its last
    line the end) is that call."""
    figures, open_starts = [], []
    tps = span["tracepoints"]
    for i, tp in enumerate(tps):
        ts = tp["ts_ns"]
        if tp["event"] == "mm_vmscan_lru_shrink_inactive":
            scanned = max(0, tp["fields"].get("nr_scanned", 0))
            if scanned:
                figures.append(figure(ts, ts, scanned=scanned))
        elif tp["event"] in WRITES:
            sync = "RECLAIM_WB_SYNC" in str(tp["fields"].get("flags", ""))
            figures.append(figure(ts, ts, written=1, sync=int(sync)))
        elif tp["event"] == "mm_vmscan_throttled":
            # The kernel prints usec_delayed as usect_delayed.
            waited = max(0, tp["fields"].get("usect_delayed", 0)) * MICRO
            figures.append(figure(ts, ts, throttled=1, waited=waited))
        elif tp["event"] == "mm_shrink_slab_start":
            open_starts.append((tp["fields"].get("instance"), tp["ts_ns"]))
        elif tp["event"] == "mm_shrink_slab_end":
            instance = tp["fields"].get("instance")
            for j in range(len(open_starts) - 1, -1, -1):
                if open_starts[j][0] == instance:
                    figures.append(figure(open_starts[j][1], ts, shrinker=ts - open_starts[j][1]))
                    del open_starts[j]
                    break
            else:
                if i == len(tps) - 1 and span["lines"][-1].find("mm_shrink_slab_end") >= 0:
                    figures.append(figure(span["start_ns"], span["end_ns"],
                                          shrinker=span["duration_ns"]))
    return [f for f in figures if any(f[2:])]


def sums(figures):
    """The figures summed: [scanned, shrinker ns, written, sync, throttled, ns waited]."""
    return [sum(f[2 + i] for f in figures) for i in range(FIGURES)]


def main():
    if len(sys.argv) != 3:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    (function_kind, pair_kind, pair_end, background_names, ordered_spans,
     reclaim_spans, compaction_spans, ended_spans) = load_profile(sys.argv[1])
    spans, report = [], defaultdict(list)
    with open(sys.argv[2], encoding="utf-8") as f:
        for line in f:
            record = json.loads(line)
            if record["type"] == "span":
                spans.append(record)
            elif record["type"] in ("stall", "background", "order", "reclaim", "histogram",
                                    "run"):
                report[record["type"]].append(record)

    rows = defaultdict(list)
    task_comm = {}
    histograms = defaultdict(lambda: defaultdict(int))
    orders = defaultdict(list)
    # What reclaim got, in the order the spans closed: per task, the figure
    # lines no reclaim stall took yet, and (counted) what one took, for a
    # reclaim around it. A stall that is not a reclaim drops the latter: no
    # reclaim is around an allocation.
    # [count, total, pages reclaimed] + sums()
    reclaim_totals = defaultdict(lambda: [0, 0, 0] + [0] * FIGURES)
    held = defaultdict(list)  # pid -> [figure(...) + (counted,)]
    # Per task row, what its stalls got (the JSON keys of its stall record).
    yields = defaultdict(lambda: {"orders": defaultdict(int), "reclaim": None,
                                  "compaction": None})
    for span in spans:
        if span["start_ns"] < 0:
            continue
        last = span["lines"][-1]
        name = span["name"]
        # A pair ends with its end tracepoint's line; a function with its return.
        if name in pair_kind and f" {pair_end[name]}: " in last:
            kind = pair_kind[name]
        elif name in function_kind and not any(f" {e}: " in last for e in pair_end.values()):
            kind = function_kind[name]
        else:
            kind = None
        background = is_background(span["comm"], background_names)
        lines = [] if background else figure_lines(span)
        if kind is None:
            held[span["pid"]] += [line + (False,) for line in lines]
            continue
        duration = span["duration_ns"]
        row_key = (background, span["pid"], kind, name) + shrinker_of(span)
        rows[row_key].append(duration)
        # A pid is one task, named by its newest comm; `<...>` (the kernel
        # had not saved it) only while it has no other.
        if span["comm"] != "<...>" or span["pid"] not in task_comm:
            task_comm[span["pid"]] = span["comm"]
        if background:
            continue
        histograms[kind][log2_bucket(duration)] += 1
        begin = next((tp for tp in span["tracepoints"]
                      if (RECLAIM_BEGIN.match(tp["event"])
                          or tp["event"] == "mm_compaction_try_to_compact_pages")), None)
        got = yields[row_key]
        if begin is not None and isinstance(begin["fields"].get("order"), int):
            gfp = begin["fields"].get("gfp_flags", begin["fields"].get("gfp_mask", ""))
            orders[(kind, begin["fields"]["order"], gfp)].append(duration)
            got["orders"][str(begin["fields"]["order"])] += 1
        elif name in ordered_spans:
            orders[(kind, None, None)].append(duration)
            got["orders"]["?"] += 1
        # A compaction: what its own lines say.
        events = [tp["event"] for tp in span["tracepoints"]]
        if name in compaction_spans or any(e in COMPACTION for e in events):
            c = got["compaction"] = got["compaction"] or {
                "pages_migrated": 0, "migrate_failed": 0, "ends": defaultdict(int)}
            for tp in span["tracepoints"]:
                if tp["event"] == "mm_compaction_migratepages":
                    c["pages_migrated"] += max(0, tp["fields"].get("nr_migrated", 0))
                    c["migrate_failed"] += max(0, tp["fields"].get("nr_failed", 0))
                elif tp["event"] == "mm_compaction_end":
                    status = tp["fields"].get("status")
                    c["ends"][status if status in STATUSES else "other"] += 1
            if name in ended_spans and "mm_compaction_end" not in events:
                c["ends"]["?"] += 1
        window = (span["start_ns"] - MICRO, span["end_ns"])

        def in_window(h):
            return window[0] <= h[0] and h[1] <= window[1]

        inside = [h for h in held[span["pid"]] if in_window(h)]
        if name not in reclaim_spans and not any(
                RECLAIM_BEGIN.match(tp["event"]) or RECLAIM_END.match(tp["event"])
                for tp in span["tracepoints"]):
            held[span["pid"]] = [h for h in held[span["pid"]] if not (h[-1] and in_window(h))]
            held[span["pid"]] += [line + (False,) for line in lines]
            continue
        held[span["pid"]] = [h for h in held[span["pid"]] if not in_window(h)]
        taken = inside + lines
        figures = sums(taken)
        reclaimed = sum(max(0, tp["fields"].get("nr_reclaimed", 0)) for tp in span["tracepoints"]
                        if RECLAIM_END.match(tp["event"]))
        t = reclaim_totals[kind]
        t[0] += 1
        t[1] += duration
        t[2] += reclaimed
        for i, value in enumerate(figures):
            t[3 + i] += value
        r = got["reclaim"] = got["reclaim"] or [0] * (1 + FIGURES)
        r[0] += reclaimed
        for i, value in enumerate(figures):
            r[1 + i] += value
        if taken:  # for a reclaim whose window holds this one's
            held[span["pid"]].append(figure(*window, *figures) + (True,))

    # Stall and background rows.
    got, twice = {}, []
    for kind_of_row in ("stall", "background"):
        for r in report[kind_of_row]:
            check(r["pid"] >= 0, f"{kind_of_row} row of {r['comm']}: a task, not folded ones")
            key = (kind_of_row == "background", r["pid"], r["kind"], r["span"],
                   r.get("shrinker"), r.get("instance"))
            if key in got:
                twice.append(key)
            got[key] = r
    check(not twice, "one row per pid, kind and span" + (f": twice {twice[:3]}" if twice else ""))
    names = {r["pid"]: set() for r in report["stall"] + report["background"]}
    for r in report["stall"] + report["background"]:
        names[r["pid"]].add(r["comm"])
    misnamed = {pid: (sorted(n), task_comm.get(pid)) for pid, n in names.items()
                if n != {task_comm.get(pid)}}
    check(not misnamed, f"{len(names)} tasks, each one name, its newest comm"
          + (f": {misnamed}" if misnamed else ""))
    check(set(got) == set(rows),
          f"rows: {len(rows)} task/kind/span rows from the spans, {len(got)} in the report"
          + (f"; only derived: {sorted(set(rows) - set(got))[:3]}, only reported: "
             f"{sorted(set(got) - set(rows))[:3]}" if set(got) != set(rows) else ""))
    bad = []
    for key, durations in rows.items():
        r = got.get(key)
        if r is None:
            continue
        exact = percentile_99(durations)
        if (r["count"], r["total_ns"], r["max_ns"]) != (len(durations), sum(durations), max(durations)) \
                or not exact <= r["p99_ns"] <= min(exact + exact // 32, max(durations)):
            bad.append((key, (r["count"], r["total_ns"], r["max_ns"], r["p99_ns"]),
                        (len(durations), sum(durations), max(durations), exact)))
    check(not bad, f"count, total, max and p99 of {len(rows)} rows" + (f": {bad[:3]}" if bad else ""))
    # The report's order: largest total first.
    for kind_of_row in ("stall", "background"):
        totals = [r["total_ns"] for r in report[kind_of_row]]
        check(totals == sorted(totals, reverse=True), f"{kind_of_row} rows, largest total first")

    # Histograms.
    reported = {h["kind"]: h for h in report["histogram"]}
    check(set(reported) == set(histograms),
          f"histograms for kinds {sorted(histograms)}, reported {sorted(reported)}")
    for kind, counts in histograms.items():
        h = reported.get(kind)
        if h is None:
            continue
        first, last = min(counts), max(counts)
        want = [{"low": 0 if b == 0 else 1 << (b - 1), "high": 1 << b, "count": counts.get(b, 0)}
                for b in range(first, last + 1)]
        check(h["unit"] == "us" and h["buckets"] == want,
              f"histogram of {kind}: {sum(counts.values())} stalls in {len(want)} buckets")

    # Order and gfp rows.
    got_orders = {(o["kind"], o["order"], o["gfp_flags"]): o for o in report["order"]}
    want_orders = {k: (len(d), sum(d), max(d)) for k, d in orders.items()}
    have_orders = {k: (o["count"], o["total_ns"], o["max_ns"]) for k, o in got_orders.items()}
    check(have_orders == want_orders,
          f"{len(want_orders)} order/gfp rows" +
          ("" if have_orders == want_orders else f": derived {want_orders}, reported {have_orders}"))

    # What reclaim got (summed above, span by span).
    figure_keys = ["pages_scanned", "shrinker_ns", "pages_written", "sync_writes", "throttled",
                   "throttled_ns"]
    want = dict(reclaim_totals)
    have = {r["kind"]: [r["count"], r["total_ns"], r["pages_reclaimed"]] +
            [r[k] for k in figure_keys] for r in report["reclaim"]}
    check(have == want, f"reclaim totals of {sorted(want)}" +
          ("" if have == want else f": derived {want}, reported {have}"))

    # Each task row's yield, and the rows of a reclaim kind summing to its totals.
    yield_keys = ["orders", "pages_scanned", "pages_reclaimed", "pages_written", "sync_writes",
                  "throttled", "throttled_ns", "pages_migrated", "migrate_failed", "ends"]
    row_keys = ["pages_reclaimed", "pages_scanned", "pages_written", "sync_writes", "throttled",
                "throttled_ns"]
    wrong, row_sums = [], defaultdict(lambda: [0] * len(row_keys))
    for key, r in got.items():
        if key[0]:
            continue  # background work has no yield
        y = yields[key]
        derived = {}
        if y["orders"]:
            derived["orders"] = dict(y["orders"])
        if y["reclaim"]:
            derived["pages_reclaimed"] = y["reclaim"][0]
            derived.update((k, v) for k, v in zip(figure_keys, y["reclaim"][1:])
                           if k != "shrinker_ns")
        if y["compaction"]:
            derived.update(y["compaction"], ends=dict(y["compaction"]["ends"]))
        reported = {k: r[k] for k in yield_keys if k in r}
        if reported != derived:
            wrong.append((key, reported, derived))
        if "pages_reclaimed" in r:
            for i, k in enumerate(row_keys):
                row_sums[r["kind"]][i] += r[k]
    check(not wrong, f"the yield of {len(got)} task rows" + (f": {wrong[:2]}" if wrong else ""))
    # The reported rows of a reclaim kind add up to its reported totals.
    totals_of = {r["kind"]: [r[k] for k in row_keys] for r in report["reclaim"]}
    uneven = {kind: (row, totals_of.get(kind)) for kind, row in row_sums.items()
              if row != totals_of.get(kind)}
    check(not uneven and set(row_sums) == set(totals_of),
          f"the rows of {len(totals_of)} reclaim kinds sum to their totals"
          + (f": {uneven}" if uneven else ""))

    # The run's own record: one, with what the run was.
    runs = report["run"]
    check(len(runs) == 1 and runs[0]["profile"] and runs[0]["threshold_ns"] > 0
          and runs[0]["lines_read"] > 0 and runs[0]["mode"] in ("graph", "events"),
          f"one run record: {runs[0] if runs else None}")

    # One count per stall, in every table that counts the stalls of a kind.
    counts = defaultdict(dict)
    for r in report["stall"]:
        counts[r["kind"]]["rows"] = counts[r["kind"]].get("rows", 0) + r["count"]
    for h in report["histogram"]:
        counts[h["kind"]]["histogram"] = sum(b["count"] for b in h["buckets"])
    for o in report["order"]:
        counts[o["kind"]]["orders"] = counts[o["kind"]].get("orders", 0) + o["count"]
    for r in report["reclaim"]:
        counts[r["kind"]]["reclaim"] = r["count"]
    uneven = {k: c for k, c in counts.items() if len(set(c.values())) > 1}
    check(not uneven, f"one count per stall in every table of {len(counts)} kinds"
          + (f": {uneven}" if uneven else ""))
    # And the rows of each table sum to the same total.
    totals = defaultdict(dict)
    for name, records in (("rows", report["stall"]), ("orders", report["order"]),
                          ("reclaim", report["reclaim"])):
        for r in records:
            totals[r["kind"]][name] = totals[r["kind"]].get(name, 0) + r["total_ns"]
    unequal = {k: t for k, t in totals.items() if len(set(t.values())) > 1}
    check(not unequal, f"rows sum to one total in every table of {len(totals)} kinds"
          + (f": {unequal}" if unequal else ""))

    print(f"derive_report: {len(spans)} spans, {sum(len(d) for d in rows.values())} stalls, "
          f"{failures} differences")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()

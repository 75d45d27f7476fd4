#!/usr/bin/env python3
"""An independent, slow, plain reading of DESIGN.md's binding rule.

Used to check the golden expected files when they are (re)made:

    tests/golden/reference.py TRACE THRESHOLD_NS > ref.out
    diff ref.out tests/golden/expected/NAME.out

It shares no code with allocwatch: its own regexes for the two line forms,
its own spans and claims, the default profile's bindings written out below.
It keeps every held line forever (no window, no cap), which the real traces
are short enough for. The shrinker totals follow, from every complete pair.
"""
import re
import sys

# mm_vmscan_write_folio was mm_vmscan_writepage before 5.18: the profile
# lists both as one event.
WRITES_THROTTLES = {"mm_vmscan_write_folio", "mm_vmscan_writepage", "mm_vmscan_throttled"}
LRU = {"mm_vmscan_lru_shrink_inactive"} | WRITES_THROTTLES
BINDINGS = {
    "try_to_free_pages": {"mm_vmscan_direct_reclaim_begin", "mm_vmscan_direct_reclaim_end"} | LRU,
    "try_to_free_mem_cgroup_pages": {"mm_vmscan_memcg_reclaim_begin",
                                     "mm_vmscan_memcg_reclaim_end"} | LRU,
    "shrink_inactive_list": LRU,
    "evict_folios": LRU,
    "shrink_lruvec": LRU,
    "shrink_node_memcg": LRU,
    "try_to_compact_pages": {"mm_compaction_try_to_compact_pages"},
    "compact_zone": {"mm_compaction_begin", "mm_compaction_end", "mm_compaction_migratepages"},
}
# name: (begin, end, claims, shrinker)
EVENT_PAIRS = {
    "direct_reclaim": ("mm_vmscan_direct_reclaim_begin", "mm_vmscan_direct_reclaim_end", LRU),
    "memcg_reclaim": ("mm_vmscan_memcg_reclaim_begin", "mm_vmscan_memcg_reclaim_end", LRU),
    "memcg_softlimit_reclaim": ("mm_vmscan_memcg_softlimit_reclaim_begin",
                                "mm_vmscan_memcg_softlimit_reclaim_end", LRU),
    "node_reclaim": ("mm_vmscan_node_reclaim_begin", "mm_vmscan_node_reclaim_end", LRU),
    "compaction": ("mm_compaction_begin", "mm_compaction_end", {"mm_compaction_migratepages"}),
    "shrink_slab": ("mm_shrink_slab_start", "mm_shrink_slab_end", set()),
}
GRAPH_PAIRS = {"shrink_slab": EVENT_PAIRS["shrink_slab"]}

GRAPH = re.compile(r"^\s*(\d+)\.(\d+) \|\s+(\d+)\)\s+(.*?)-(\d+)\s+\|\s+[$@*#!+ ]?\s*([\d.]+ us)?\s*\|  (.*)$")
EVENT = re.compile(r"^\s*(.*)-(\d+)\s+(?:\(.*?\)\s+)?\[(\d+)\]\s+(?:\S+\s+)?(\d+)\.(\d+): (\w+): (.*)$")


def ns(secs, frac):
    return int(secs) * 10**9 + int(frac.ljust(9, "0"))


def dur_ns(text):
    number = text.split()[0]
    whole, _, frac = number.partition(".")
    return int(whole) * 1000 + int(frac.ljust(3, "0")[:3]) if frac else int(whole) * 1000


def main():
    path, threshold = sys.argv[1], int(sys.argv[2])
    held = {}  # task -> list of [seq, ts, name, line, emitted]
    entries = {}  # task -> {depth: (name, ts, line)}
    open_pairs = {}  # (task, pair) -> (ts, line, instance, seq)
    mode = None
    out = []
    totals = {}  # symbol -> instance -> [durations]

    def claim(task, names, start, end):
        got = []
        for h in held.get(task, []):
            if not h[4] and h[2] in names and start - 1000 <= h[1] <= end:
                h[4] = True
                got.append(h[3])
        return got

    for seq, raw in enumerate(open(path, encoding="utf-8", errors="replace")):
        line = raw.rstrip("\n")
        if line.startswith("CPU:") and "LOST" in line:
            out.append(line)
            continue
        m = GRAPH.match(line)
        if m:
            mode = mode or "graph"
            secs, frac, cpu, _comm, pid, dur, body = m.groups()
            ts, pid = ns(secs, frac), int(pid)
            task = ("cpu", cpu) if pid == 0 else pid
            stripped = body.lstrip(" ")
            depth = (len(body) - len(stripped)) // 2
            if stripped.startswith("/*"):
                name, _, _ = stripped[3:].partition(":")
                kind, fields = "event", stripped
            elif stripped.startswith("}"):
                d = dur_ns(dur) if dur else None
                named = re.match(r"} /\* (\w+)", stripped)
                opening = None
                if named:
                    fn = named.group(1)
                else:
                    entry = entries.get(task, {}).get(depth)
                    fn = entry[0] if entry else ""
                    opening = entry[2] if entry else None
                    if d is None and entry:
                        d = ts - entry[1]
                entries[task] = {k: v for k, v in entries.get(task, {}).items() if k < depth}
                if d is not None and d >= threshold:
                    lines = [opening] if opening else []
                    lines += claim(task, BINDINGS.get(fn, set()), ts - d, ts)
                    out.extend(lines + [line])
                continue
            elif stripped.endswith("{"):
                fn = stripped.split("(")[0]
                kept = {k: v for k, v in entries.get(task, {}).items() if k < depth}
                kept[depth] = (fn, ts, line)
                entries[task] = kept
                continue
            elif stripped.endswith(";") or "; /*" in stripped:
                fn = stripped.split("(")[0]
                d = dur_ns(dur) if dur else None
                if d is not None and d >= threshold:
                    out.extend(claim(task, BINDINGS.get(fn, set()), ts, ts + d) + [line])
                continue
            else:
                continue
        else:
            m = EVENT.match(line)
            if not m:
                continue
            mode = mode or "events"
            _comm, pid, cpu, secs, frac, name, fields = m.groups()
            ts, pid = ns(secs, frac), int(pid)
            task = ("cpu", cpu) if pid == 0 else pid
        # an event line, in either form
        pairs = GRAPH_PAIRS if mode == "graph" else EVENT_PAIRS
        instance = None
        if name.startswith("mm_shrink_slab"):
            body = fields[3:] if fields.startswith("/* ") else fields
            body = body.split(": ", 1)[1] if mode == "graph" else body
            instance = body.split()[1].rstrip(":")
        consumed = False
        for pname, (begin, end, claims) in pairs.items():
            if name == begin:
                open_pairs[(task, pname)] = (ts, line, instance, seq)
                consumed = True
            elif name == end:
                opened = open_pairs.get((task, pname))
                if opened is None or opened[2] != instance:
                    continue
                del open_pairs[(task, pname)]
                if instance is not None:
                    symbol = body.split()[0].split("+")[0]
                    totals.setdefault(symbol, {}).setdefault(instance, []).append(ts - opened[0])
                if ts - opened[0] >= threshold:
                    out.extend([opened[1]] + claim(task, claims, opened[0], ts) + [line])
                consumed = True
        if not consumed or mode == "graph":
            held.setdefault(task, []).append([seq, ts, name, line, False])
    def ms(n):
        return "%d.%06d" % (n // 10**6, n % 10**6)

    by_symbol = sorted(totals.items(),
                       key=lambda kv: (-sum(sum(d) for d in kv[1].values()), kv[0]))
    for symbol, instances in by_symbol:
        every = [d for ds in instances.values() for d in ds]
        out.append("%s : total time = %s ms, max latency = %s ms" % (symbol, ms(sum(every)), ms(max(every))))
    for symbol, instances in by_symbol:
        if len(instances) < 2:
            continue
        for instance, ds in sorted(instances.items(), key=lambda kv: (-sum(kv[1]), kv[0])):
            out.append("%s[%s] : total time = %s ms, max latency = %s ms, calls = %d"
                       % (symbol, instance, ms(sum(ds)), ms(max(ds)), len(ds)))
    print("\n".join(out))


main()

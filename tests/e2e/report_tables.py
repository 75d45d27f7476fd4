"""The stall report's tables as the VM test's checkers compare them, read
from a --report file or from JSON report records, with no allocwatch code.

    rows, counts, pages, tasks = report_from_text(PATH)
    rows, counts, totals, pages, tasks = report_from_json(RECORDS)

rows: {(table, pid, kind, span): (count, total, max)} of the task tables,
table "stall" or "background" (the report's "background work" table); the
text gives ms with 3 decimals as printed, JSON total_ns and max_ns; a
shrinker's span is "NAME[INSTANCE]" where the report names the instance.
counts: {"histogram" | "order" | "reclaim": {kind: stalls counted}}.
totals (JSON): {"order" | "reclaim": {kind: total_ns}}. pages: {kind:
(pages scanned, pages reclaimed)} of the reclaim table. tasks: {(pid, kind):
{"count", "orders": the stalls its orders count (None: no orders),
"pages": (scanned, reclaimed) or None}} of what each task's slow reclaim
and compaction got (JSON: the stall records' orders and pages).
"""
import re
from collections import defaultdict


def report_from_text(path):
    """The --report file's tables: rows {(table, pid, kind, span): (count,
    total, max)}, and per kind the histogram, order and reclaim counts."""
    with open(path, encoding="utf-8", errors="replace") as f:
        lines = f.read().splitlines()
    rows, hist, orders, reclaim, pages, tasks = {}, {}, defaultdict(int), {}, {}, {}
    heading = ""
    for line in lines:
        if not line.startswith("  "):
            heading = line
            continue
        c = re.split(r"\s{2,}", line.strip())
        if heading.startswith(("allocwatch: stalls of ", "allocwatch: background work of ")) \
                and len(c) == 7 and c[0] != "TASK":
            table = "stall" if heading.startswith("allocwatch: stalls") else "background"
            rows[(table, pid_of(c[0]), c[1], c[2])] = (int(c[3]), c[4], c[5])
        elif heading.startswith("allocwatch: reclaim and compaction stalls by order") \
                and len(c) == 6 and c[0] != "KIND":
            orders[c[0]] += int(c[3])
        elif heading.startswith(("allocwatch: what each task's slow reclaim got",
                                 "allocwatch: what each task's slow compaction got")) \
                and len(c) >= 4 and c[0] != "TASK":
            reclaims = "reclaim" in heading
            tasks[(pid_of(c[0]), c[1])] = {
                "count": int(c[2]), "orders": order_total(c[3]),
                "pages": (int(c[4]), int(c[5])) if reclaims and len(c) >= 6 else None}
        elif heading.startswith("allocwatch: what slow reclaim got") and len(c) >= 3 and c[0] != "KIND":
            reclaim[c[0]] = int(c[1])
            pages[c[0]] = (int(c[3]), int(c[4])) if len(c) >= 5 else None
        m = re.match(r"^allocwatch: latency of (.*) stalls \((\d+)\), usecs:$", heading)
        if m and re.match(r"^\[\S+, \S+\)$", c[0]):
            hist[m.group(1)] = hist.get(m.group(1), 0) + int(c[1].split()[0])
    return rows, {"histogram": hist, "order": dict(orders), "reclaim": reclaim}, pages, tasks


def pid_of(task):
    """"culprit-1336" -> 1336; "(other tasks)" -> -1."""
    head, _, pid = task.rpartition("-")
    return int(pid) if head and pid.isdigit() else -1


def order_total(text):
    """How many stalls an ORDERS cell counts: "9=10", "0=5 ?=1", "-" (None)."""
    return None if text == "-" else sum(int(o.rsplit("=", 1)[1]) for o in text.split())


def report_from_json(records):
    """The same from the JSON report records, with exact ns, and per kind
    the order and reclaim tables' total_ns too."""
    rows, counts, totals, pages = {}, defaultdict(dict), defaultdict(lambda: defaultdict(int)), {}
    tasks = {}
    for r in records:
        t = r.get("type")
        if t in ("stall", "background"):
            span = r["span"]
            if r.get("shrinker"):
                span = r["shrinker"] + (f"[{r['instance']}]" if r.get("instance") else "")
            rows[(t, r["pid"], r["kind"], span)] = (r["count"], r["total_ns"], r["max_ns"])
            if "orders" in r or "pages_scanned" in r:
                task = tasks.setdefault((r["pid"], r["kind"]), {"count": 0, "orders": None, "pages": None})
                task["count"] += r["count"]
                if "orders" in r:
                    task["orders"] = (task["orders"] or 0) + sum(r["orders"].values())
                if "pages_scanned" in r:
                    scanned, reclaimed = task["pages"] or (0, 0)
                    task["pages"] = (scanned + r["pages_scanned"], reclaimed + r["pages_reclaimed"])
        elif t == "histogram":
            counts["histogram"][r["kind"]] = sum(b["count"] for b in r["buckets"])
        elif t in ("order", "reclaim"):
            counts[t][r["kind"]] = counts[t].get(r["kind"], 0) + r["count"]
            totals[t][r["kind"]] += r["total_ns"]
            if t == "reclaim":
                pages[r["kind"]] = (r.get("pages_scanned"), r.get("pages_reclaimed"))
    return rows, counts, totals, pages, tasks

#!/usr/bin/env python3
"""The VM test's check of the stall report's cgroup part (which container
stalled, and against whose limit), against what the guest made and the raw
trace, with no allocwatch code.

    check_cgroups.py THRESHOLD_US CGROUPS MEMSTRESS RAW REPORT [JSON]

CGROUPS is the guest's record of the memory cgroups it made (tests/e2e/init.sh):
  ROLE CGROUP RUNTIME CONTAINER_ID POD_UID|-    roles culprit, bystander, quiet
  limit CGROUP BYTES                            each memory.max it set
MEMSTRESS the workload's output, with where it put each worker
("memstress: worker NAME pid N cgroup DIR|-", DIR under /sys/fs/cgroup) and
when the cgroup workers ended ("... pid N ended after S s"). RAW is the run's
saved trace: text, or a trace.dat (*.dat) as trace-cmd report reads it; REPORT its --report file, JSON its output in --format json (its
{"type":"cgroup"} and {"type":"memcg"} records).

From RAW it takes every function_graph return of try_to_free_pages (direct
reclaim) and try_to_free_mem_cgroup_pages (memcg reclaim) whose duration is
at least the threshold, by pid, and checks, printing one "ok ..." or
"FAIL ..." line each (exit 1 if any failed):
  - the culprit and the bystander made memcg reclaim stalls (the workload
    did its part), and the culprit ended before the workload did;
  - REPORT's cgroup table has rows for the culprit's and the bystander's
    cgroups, with the container id (12 digits) and pod uid (first group)
    the guest gave them, the cgroups largest total first (the sum of their
    rows; which of the two stalled longer is the guest's doing, not
    allocwatch's: under TCG the bystander's reclaim is now and then the slower),
    and no memcg reclaim row for the quiet cgroup (a stall of its own under
    the guest's global pressure may show, never first); each of the two
    kinds' rows has the count and total of the RAW stalls of the pids put in
    that cgroup;
  - REPORT's limits: the culprit's cgroup with no limit of its own and no
    "max" event, its pod slice with the limit set and "max" events; the
    bystander's cgroup with its own limit and "max" events; no table for the
    quiet cgroup;
  - with JSON, the same of its records, exactly: runtime, whole container
    id and pod uid, each kind's count and total_ns, and per memcg level
    (version 2) the limit as set (null where none was) and memory.events
    "max" deltas.
"""
import json
import re
import sys
from collections import defaultdict
from decimal import Decimal

from tracedat import read_dat

KINDS = {"try_to_free_pages": "direct reclaim", "try_to_free_mem_cgroup_pages": "memcg reclaim"}
MICRO = 1000
CGROUP_ROOT = "/sys/fs/cgroup"
LINE = re.compile(r"^\s*\d+\.\d{6} \|\s*\d+\)\s*.*?-(\d+)\s*\|([^|]*)\|\s*(.*?)\s*$")
RETURN = re.compile(r"^} /\* (\w+)\b.*\*/$")
DURATION = re.compile(r"^\s*[+!#*@$]?\s*([\d.]+) us\s*$")
TABLE = "allocwatch: stalls by memory cgroup, largest total first:"
LIMITS = "allocwatch: memory limits of the cgroups whose memcg reclaim stalled"
ROLES = ("culprit", "bystander", "quiet")

failures = 0


def result(ok, text):
    global failures
    print(("ok " if ok else "FAIL ") + text)
    failures += 0 if ok else 1


def ms(ns):
    us = (ns + 500) // 1000  # rounded to the microsecond, half up, as the report does
    return f"{us // 1000}.{us % 1000:03d}"


def runs(order, kept):
    """The entries of `order` that `kept` holds, one for each run of equal
    neighbours: a cgroup whose rows (or records) are split shows twice."""
    return [p for i, p in enumerate(order) if p in kept and (i == 0 or order[i - 1] != p)]


def short_path(path):
    """The path as a terminal shows it: 64-digit ids cut to 12."""
    return re.sub(r"[0-9a-f]+", lambda m: m[0][:12] if len(m[0]) == 64 else m[0], path)


def read_cgroups(path):
    roles, limits = {}, {}
    with open(path, encoding="utf-8") as f:
        for line in f:
            w = line.split()
            if len(w) == 3 and w[0] == "limit":
                limits[w[1]] = int(w[2])
            elif len(w) == 5 and w[0] in ROLES:
                roles[w[0]] = {"cgroup": w[1], "runtime": w[2], "container_id": w[3],
                               "pod_uid": "" if w[4] == "-" else w[4]}
    return roles, limits


def read_memstress(path):
    """pid -> cgroup the guest put it in; culprit's end and the workload's length."""
    placed, ended, seconds = {}, {}, None
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            m = re.match(r"^memstress: worker (\S+) pid (\d+) cgroup (\S+)$", line)
            if m and m.group(3) != "-":
                placed[int(m.group(2))] = m.group(3).removeprefix(CGROUP_ROOT) or "/"
            m = re.match(r"^memstress: worker (\S+) pid \d+ ended after ([\d.]+) s$", line)
            if m:
                ended[m.group(1)] = float(m.group(2))
            m = re.match(r"^memstress: .*, (\d+) s$", line)
            if m:
                seconds = int(m.group(1))
    return placed, ended, seconds


def text_returns(path):
    """(pid, function, duration_ns) of each function_graph return of a text trace."""
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            m = LINE.match(line)
            r, d = (RETURN.match(m.group(3)), DURATION.match(m.group(2))) if m else (None, None)
            if r and d:
                yield int(m.group(1)), r.group(1), int(Decimal(d.group(1)) * MICRO)


def dat_returns(path):
    """The same of a trace.dat's funcgraph_exit records, as trace-cmd report
    reads them: exact ns."""
    records, _ = read_dat(path)
    return ((r.pid, r.func, r.duration) for r in records if r.name == "funcgraph_exit")


def read_raw(path, threshold_ns, placed):
    """(cgroup, kind) -> [count, total_ns] of the stalls of the pids placed
    there, from the run's saved trace: text, or a trace.dat (*.dat)."""
    stalls = defaultdict(lambda: [0, 0])
    for pid, function, duration in (dat_returns if path.endswith(".dat") else text_returns)(path):
        if pid in placed and function in KINDS and duration >= threshold_ns:
            t = stalls[(placed[pid], KINDS[function])]
            t[0] += 1
            t[1] += duration
    return stalls


def report_tables(path):
    """The cgroup table's rows (cgroup, container, pod, kind, count, total ms)
    and the limit tables (lists of rows of cells), from the --report file."""
    with open(path, encoding="utf-8", errors="replace") as f:
        lines = f.read().splitlines()
    rows, limits, on, header = [], [], None, None
    for line in lines:
        if not line.startswith("  "):
            on = "rows" if line == TABLE else "limits" if line.startswith(LIMITS) else None
            header = None
            continue
        if on == "rows":
            if header is None:
                header = line
                continue
            at = [header.index(h) for h in ("CGROUP", "CONTAINER", "POD", "KIND")]
            m = re.match(r"^(.+?)\s+(\d+)\s+([\d.]+)\s+[\d.]+\s+[\d.]+\s*$", line[at[3]:])
            if m:
                rows.append((line[at[0]:at[1]].strip(), line[at[1]:at[2]].strip(),
                             line[at[2]:at[3]].strip(), m.group(1), int(m.group(2)), m.group(3)))
        elif on == "limits":
            cells = line.split()
            if cells[0] == "CGROUP":
                limits.append([])
            elif limits:
                limits[-1].append(cells)
    return rows, limits


def size_text(n):
    """A limit as the text report reads it (a whole number of MiB here)."""
    return "max" if n is None else f"{n / (1 << 20):.1f}MiB"


def main():
    args = sys.argv[1:]
    if len(args) not in (5, 6):
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    threshold_ns = int(Decimal(args[0]) * MICRO)
    roles, limits = read_cgroups(args[1])
    placed, ended, seconds = read_memstress(args[2])
    if set(roles) != set(ROLES) or not placed:
        print(f"no roles or no placed workers in {args[1]} and {args[2]}", file=sys.stderr)
        sys.exit(2)
    raw = read_raw(args[3], threshold_ns, placed)
    culprit, bystander, quiet = (roles[r]["cgroup"] for r in ROLES)
    pod = culprit.rsplit("/", 1)[0]

    for role in ("culprit", "bystander"):
        n = raw[(roles[role]["cgroup"], "memcg reclaim")][0]
        result(n > 0, f"the {role}'s pids made memcg reclaim stalls ({n} in the raw trace)")
    end = ended.get("culprit")
    result(end is not None and seconds is not None and end <= seconds - 1,
           f"the culprit ended {end} s into the {seconds} s workload, a second or more before"
           f" its end")

    def expected_rows(of):
        """kind -> (count, total_ns) the raw trace gives cgroup `of`."""
        return {k: tuple(raw[(of, k)]) for k in KINDS.values() if raw[(of, k)][0]}

    # The text report.
    rows, limit_tables = report_tables(args[4])
    result(bool(rows), f"the --report file has the cgroup table ({len(rows)} rows)")
    order = [r[0] for r in rows]
    for role in ("culprit", "bystander"):
        want = roles[role]
        path = short_path(want["cgroup"])
        mine = [r for r in rows if r[0] == path]
        ids = {(r[1], r[2]) for r in mine}
        result(ids == {(want["container_id"][:12], want["pod_uid"][:8])},
               f"the table's {role} rows ({len(mine)}) name container {want['container_id'][:12]}"
               f" and pod '{want['pod_uid'][:8]}' ({sorted(ids)})")
        got = {r[3]: (r[4], r[5]) for r in mine if r[3] in KINDS.values()}
        exp = {k: (v[0], ms(v[1])) for k, v in expected_rows(want["cgroup"]).items()}
        result(got == exp, f"the table's {role} reclaim rows are the raw trace's stalls of its pids:"
               f" {exp}" + ("" if got == exp else f"; the table: {got}"))
    c, b = short_path(culprit), short_path(bystander)
    # A cgroup's rows come together, and rows of no cgroup ("(unknown)")
    # after the cgroups'. Each row's total is rounded to the µs: sums of
    # them may differ by that much a row.
    totals, row_count = defaultdict(Decimal), defaultdict(int)
    for r in rows:
        if r[0].startswith("/"):
            totals[r[0]] += Decimal(r[5])
            row_count[r[0]] += 1
    ranked = runs(order, totals)
    misordered = [(x, y) for x, y in zip(ranked, ranked[1:])
                  if totals[x] + Decimal("0.001") * (row_count[x] + row_count[y]) < totals[y]]
    cgroup_rows = sum(p in totals for p in order)
    result(c in ranked and b in ranked and not misordered and len(ranked) == len(set(ranked))
           and all(p in totals for p in order[:cgroup_rows]),
           f"the table puts the cgroups largest total first, the culprit's and the bystander's among"
           f" them ({totals.get(c)} ms and {totals.get(b)} ms)"
           + ("" if not misordered else f"; before a larger one: {misordered[0][0]}"))
    # The quiet cgroup's task only sleeps: it never reaches its own limit. Under
    # the guest's global pressure even its start (fork, a page fault) may
    # stall in an allocation, which is its own stall and may show.
    quiet_kinds = sorted(r[3] for r in rows if r[0] == short_path(quiet))
    result("memcg reclaim" not in quiet_kinds and
           (short_path(quiet) not in order or order.index(short_path(quiet)) > order.index(c)),
           f"the table has no memcg reclaim row for the quiet cgroup, nor puts it first"
           f" ({quiet_kinds or 'no row'})")

    def text_levels(of):
        return next((t for t in limit_tables if t and t[0][0] == short_path(of)), None)

    levels = text_levels(culprit) or []
    by_path = {cells[0]: cells for cells in levels}
    leaf, parent = by_path.get(short_path(culprit)), by_path.get(short_path(pod))
    result(leaf is not None and leaf[1] == "max" and leaf[4] == "+0" and parent is not None
           and parent[1] == size_text(limits[pod]) and re.fullmatch(r"\+[1-9]\d*", parent[4]),
           f"the limits show the culprit's cgroup without a limit or max events ({leaf}) and its"
           f" pod slice with its {size_text(limits[pod])} and max events ({parent})")
    levels = text_levels(bystander) or []
    mine = levels[0] if levels else None
    result(mine is not None and mine[1] == size_text(limits[bystander])
           and re.fullmatch(r"\+[1-9]\d*", mine[4]),
           f"the limits show the bystander's cgroup with its {size_text(limits[bystander])} and"
           f" max events ({mine})")
    result(text_levels(quiet) is None, "the limits have no table for the quiet cgroup")

    if len(args) == 6:
        check_json(args[5], roles, limits, expected_rows)
    print(f"summary: culprit {raw[(culprit, 'memcg reclaim')][0]} (pod slice's limit),"
          f" bystander {raw[(bystander, 'memcg reclaim')][0]}")
    sys.exit(1 if failures else 0)


def check_json(path, roles, limits, expected_rows):
    records = []
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            if line.startswith('{"type":"cgroup"') or line.startswith('{"type":"memcg"'):
                records.append(json.loads(line))
    cgroups = [r for r in records if r["type"] == "cgroup"]
    memcgs = [r for r in records if r["type"] == "memcg"]
    culprit, bystander, quiet = (roles[r]["cgroup"] for r in ROLES)
    result(bool(cgroups) and bool(memcgs),
           f"the JSON has cgroup and memcg records ({len(cgroups)} and {len(memcgs)})")
    for role in ("culprit", "bystander"):
        want = roles[role]
        mine = [r for r in cgroups if r["cgroup"] == want["cgroup"]]
        ids = {(r["runtime"], r["container_id"], r["pod_uid"]) for r in mine}
        exp_ids = {(want["runtime"], want["container_id"], want["pod_uid"])}
        result(bool(mine) and ids == exp_ids,
               f"the {role}'s cgroup records ({len(mine)}) have runtime {want['runtime']}, its"
               f" container id and pod uid '{want['pod_uid']}'" + ("" if ids == exp_ids else f": {ids}"))
        got = {r["kind"]: (r["count"], r["total_ns"]) for r in mine if r["kind"] in KINDS.values()}
        exp = expected_rows(want["cgroup"])
        result(got == exp, f"the {role}'s reclaim records are the raw trace's stalls of its pids:"
               f" {exp}" + ("" if got == exp else f"; the records: {got}"))
    total = defaultdict(int)
    for r in cgroups:
        if isinstance(r["cgroup"], str) and r["cgroup"].startswith("/"):
            total[r["cgroup"]] += r["total_ns"]
    order = [r["cgroup"] for r in cgroups]
    ranked = runs(order, total)
    misordered = [(x, y) for x, y in zip(ranked, ranked[1:]) if total[x] < total[y]]
    result(culprit in ranked and bystander in ranked and not misordered
           and len(ranked) == len(set(ranked)),
           f"the cgroup records come largest total first, the culprit's and the bystander's among"
           f" them ({ms(total[culprit])} ms and {ms(total[bystander])} ms)"
           + ("" if not misordered else f"; before a larger one: {misordered[0][0]}"))
    quiet_kinds = sorted(r["kind"] for r in cgroups if r["cgroup"] == quiet)
    result("memcg reclaim" not in quiet_kinds and
           all(quiet not in (r["cgroup"], r["stalled"]) for r in memcgs),
           f"no memcg reclaim record and no memcg record of the quiet cgroup"
           f" ({quiet_kinds or 'no record'})")

    def chain(of):
        return {r["cgroup"]: r for r in memcgs if r["stalled"] == of}

    for role in ("culprit", "bystander"):
        of = roles[role]["cgroup"]
        levels = chain(of)
        want, wrong = [], []
        for level in ancestors(of):
            r = levels.get(level)
            limit = limits.get(level)
            want.append(f"{level} {limit}")
            if r is None or r["version"] != 2 or r.get("limit") != limit:
                wrong.append(f"{level}: {r}")
        result(not wrong and len(levels) == len(want),
               f"the {role}'s memcg records are version 2, one for it and each parent but the root,"
               f" with the"
               f" limits set ({len(want)} levels)" + ("" if not wrong else f"; wrong: {wrong}"))
    culprit_levels = chain(culprit)
    pod = culprit.rsplit("/", 1)[0]
    leaf_max = culprit_levels.get(culprit, {}).get("events", {}).get("max")
    pod_max = culprit_levels.get(pod, {}).get("events", {}).get("max")
    result(leaf_max == 0 and isinstance(pod_max, int) and pod_max > 0,
           f"the culprit's stalls are its pod slice's memory.max: memory.events max +{pod_max}"
           f" there, +{leaf_max} in its own cgroup")
    own_max = chain(bystander).get(bystander, {}).get("events", {}).get("max")
    result(isinstance(own_max, int) and own_max > 0,
           f"the bystander's stalls are its own memory.max: memory.events max +{own_max}")


def ancestors(path):
    """The cgroup, then each parent below "/": v2's root has no memory files,
    so no memcg record stands for it."""
    out = [path]
    while True:
        path = path.rsplit("/", 1)[0]
        if not path:
            return out
        out.append(path)


if __name__ == "__main__":
    main()

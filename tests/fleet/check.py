#!/usr/bin/env python3
"""The fleet tests' helper: the numbers allocwatch's own output gives,
compared with its Prometheus metrics (as a file, a scrape, or through a real
Prometheus), and an HTTP client that misbehaves on purpose.

  check.py expected JSONL [N]                 the series the JSON records imply
  check.py compare METRICS_FILE JSONL [N]     the metrics file holds them
  check.py prometheus URL JSONL SECONDS [N]   Prometheus' API returns them
  check.py cgroups URL JSONL N PATH:ID:UID...  through Prometheus' API: these cgroups'
                                             series and labels, the series per kind
  check.py bound URL JSONL N                  more than N cgroups stalled in a kind,
                                             N + 1 series per kind through the API
  check.py promql URL QUERY JSONL KIND LE     README's query, for KIND and LE
  check.py wait URL PROMQL SECONDS          until Prometheus has a result for it
  check.py hostile HOST PORT              malformed, oversized, slow requests
  check.py journal JOURNAL_JSON [CGROUP]  the journal entries of a watch
  check.py savefile FILE                  writes a --save file: memcg reclaim stalls
                                          of 40 tasks in 6 cgroups (and unknown ones)

Every check prints "ok - ..." or "FAIL - ..."; the exit status is the
number of failures (0: all passed).

The JSON records are allocwatch's own (--format json, --watch's stdout):
each span record's duration and cgroup, and each shrinker record's totals.
N is the run's --metrics-cgroups (default 10): within five minutes (before
any rebalance) the first N cgroups of a kind to stall, in record order, have
series of their own, and every other stall of it is cgroup="other". Their kinds
come from the pair names of the shipped profiles in events mode (the JSON
span record does not carry the kind), and background tasks from the
profiles' comm prefixes.
"""
import json
import math
import random
import re
import socket
import sys
import time
import urllib.parse
import urllib.request

PAIR_KINDS = {
    "direct_reclaim": "direct reclaim",
    "memcg_reclaim": "memcg reclaim",
    "memcg_softlimit_reclaim": "memcg soft limit reclaim",
    "node_reclaim": "node reclaim",
    "compaction": "compaction",
    "shrinker": "shrinker",
}
BACKGROUND = ("kswapd", "kcompactd")
CGROUP_FAMILIES = ("allocwatch_cgroup_stalls_total", "allocwatch_cgroup_stall_seconds_total")
OTHER = frozenset({"cgroup": "other"}.items())
# DurationHistogram::kUpperBounds, in ns, and their "le" text.
BOUNDS_NS = [100_000, 250_000, 500_000, 1_000_000, 2_500_000, 5_000_000, 10_000_000,
             25_000_000, 50_000_000, 100_000_000, 250_000_000, 500_000_000,
             1_000_000_000, 2_500_000_000, 5_000_000_000, 10_000_000_000]

failures = 0


def ok(text):
    print("ok - " + text)


def fail(text):
    global failures
    failures += 1
    print("FAIL - " + text)


def le_text(ns):
    text = "%d.%09d" % divmod(ns, 1_000_000_000)
    return text.rstrip("0").rstrip(".")


def cgroup_labels(record):
    """The labels of a span record's own cgroup series, as Prometheus keeps
    them (an empty label is no label)."""
    # A path's bytes that are not UTF-8 are U+FFFD in a label value.
    path = record["cgroup"].encode("utf-8", "surrogateescape").decode("utf-8", "replace")
    labels = {"cgroup": path, "container_id": record.get("container_id", ""),
              "pod_uid": record.get("pod_uid", "")}
    return {k: v for k, v in labels.items() if v}


def expected_series(jsonl, top_cgroups=10):
    """{(name, frozenset(labels)): value}: what the metrics must say."""
    stalls, background, shrinkers = {}, {}, {}
    # Per kind: {frozenset(cgroup labels): [count, ns]}, the first
    # top_cgroups cgroups to stall, and "other".
    cgroups = {}
    with open(jsonl, encoding="utf-8", errors="surrogateescape") as f:
        for line in f:
            record = json.loads(line)
            if record["type"] == "span":
                kind = PAIR_KINDS.get(record["name"])
                if kind is None or record["duration_ns"] < 0:
                    continue
                if record["comm"].startswith(BACKGROUND):
                    background.setdefault(kind, []).append(record["duration_ns"])
                    continue
                stalls.setdefault(kind, []).append(record["duration_ns"])
                own = cgroups.setdefault(kind, {})
                key = OTHER
                if "cgroup" in record:
                    labels = frozenset(cgroup_labels(record).items())
                    if labels in own or len(set(own) - {OTHER}) < top_cgroups:
                        key = labels
                totals = own.setdefault(key, [0, 0])
                totals[0] += 1
                totals[1] += record["duration_ns"]
            elif record["type"] == "shrinker":
                shrinkers[record["symbol"]] = (record["total_ns"], record["calls"])
    series = {}

    def put(name, labels, value):
        series[(name, frozenset(labels.items()))] = value

    for kind, durations in stalls.items():
        put("allocwatch_stall_duration_seconds_count", {"kind": kind}, len(durations))
        put("allocwatch_stall_duration_seconds_sum", {"kind": kind}, sum(durations) / 1e9)
        for bound in BOUNDS_NS:
            put("allocwatch_stall_duration_seconds_bucket", {"kind": kind, "le": le_text(bound)},
                sum(1 for d in durations if d <= bound))
    for kind, durations in background.items():
        put("allocwatch_background_duration_seconds_count", {"kind": kind}, len(durations))
    for kind, own in cgroups.items():
        own.setdefault(OTHER, [0, 0])
        for labels, (count, ns) in own.items():
            put(CGROUP_FAMILIES[0], dict(labels, kind=kind), count)
            put(CGROUP_FAMILIES[1], dict(labels, kind=kind), ns / 1e9)
    for symbol, (total_ns, calls) in shrinkers.items():
        put("allocwatch_shrinker_calls_total", {"shrinker": symbol}, calls)
        put("allocwatch_shrinker_seconds_total", {"shrinker": symbol}, total_ns / 1e9)
    return series, stalls


SAMPLE = re.compile(r'^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$')
LABEL = re.compile(r'([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"')


def parse_exposition(text):
    samples = {}
    for line in text.splitlines():
        if not line or line.startswith("#"):
            continue
        m = SAMPLE.match(line)
        if not m:
            raise ValueError("not a sample line: " + line)
        # As Prometheus reads them: an empty label is no label.
        labels = {k: v.replace('\\"', '"').replace("\\n", "\n").replace("\\\\", "\\")
                  for k, v in LABEL.findall(m.group(2) or "") if v}
        samples[(m.group(1), frozenset(labels.items()))] = float(m.group(3))
    return samples


def same(a, b):
    return math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-9)


def describe(key):
    name, labels = key
    return name + "{" + ",".join('%s="%s"' % kv for kv in sorted(labels)) + "}"


def compare(samples, series, where):
    wrong = [(k, v, samples.get(k)) for k, v in series.items()
             if samples.get(k) is None or not same(samples[k], v)]
    for key, want, got in wrong[:10]:
        fail("%s: %s is %s, allocwatch's records give %s" % (where, describe(key), got, want))
    return not wrong


def sums_by_comm(samples, stalls, where):
    """allocwatch_stalls_total summed over comm equals each kind's count."""
    good = True
    for kind, durations in stalls.items():
        total = sum(v for (name, labels), v in samples.items()
                    if name == "allocwatch_stalls_total" and ("kind", kind) in labels)
        if total != len(durations):
            fail("%s: stalls_total{kind=%r} sums to %s over comm, records give %d"
                 % (where, kind, total, len(durations)))
            good = False
    return good


def cmd_expected(jsonl, top_cgroups="10"):
    series, _ = expected_series(jsonl, int(top_cgroups))
    for key, value in sorted(series.items(), key=lambda kv: describe(kv[0])):
        print(describe(key), value)


def report_rows(jsonl):
    """The stall report's rows, when the run wrote them (--format json):
    {kind: (count, total_ns)} for tasks, and for background work."""
    tasks, background = {}, {}
    with open(jsonl, encoding="utf-8", errors="surrogateescape") as f:
        for line in f:
            record = json.loads(line)
            table = {"stall": tasks, "background": background}.get(record["type"])
            if table is not None:
                count, total = table.get(record["kind"], (0, 0))
                table[record["kind"]] = (count + record["count"], total + record["total_ns"])
    return tasks, background


def agrees_with_report(samples, jsonl, where):
    """The histograms' count and sum per kind equal the report's rows summed."""
    tasks, background = report_rows(jsonl)
    if not tasks and not background:
        return True  # no report in this output
    good = True
    for family, rows in (("allocwatch_stall_duration_seconds", tasks),
                         ("allocwatch_background_duration_seconds", background)):
        for kind, (count, total_ns) in rows.items():
            labels = frozenset({("kind", kind)})
            got_count = samples.get((family + "_count", labels))
            got_sum = samples.get((family + "_sum", labels))
            if got_count != count or got_sum is None or not same(got_sum, total_ns / 1e9):
                fail("%s: %s{kind=%r} count %s sum %s, the report says %d and %s s"
                     % (where, family, kind, got_count, got_sum, count, total_ns / 1e9))
                good = False
    if good:
        ok("%s: each kind's count and sum equal the stall report's rows (%s)"
           % (where, ", ".join("%s=%d" % (k, c) for k, (c, _) in sorted(tasks.items()))))
    return good


def cmd_compare(metrics_file, jsonl, top_cgroups="10"):
    series, stalls = expected_series(jsonl, int(top_cgroups))
    with open(metrics_file, encoding="utf-8") as f:
        samples = parse_exposition(f.read())
    agrees_with_report(samples, jsonl, metrics_file)
    if compare(samples, series, metrics_file) and sums_by_comm(samples, stalls, metrics_file):
        kinds = ", ".join("%s=%d" % (k, len(v)) for k, v in sorted(stalls.items()))
        ok("%s: %d series equal to allocwatch's own records (stalls: %s)"
           % (metrics_file, len(series), kinds or "none"))


def query(url, promql):
    with urllib.request.urlopen(url + "/api/v1/query?" +
                                urllib.parse.urlencode({"query": promql}), timeout=5) as r:
        answer = json.load(r)
    return [(frozenset(s["metric"].items()), float(s["value"][1]))
            for s in answer["data"]["result"]]


def cmd_prometheus(url, jsonl, seconds, top_cgroups="10"):
    """Queries Prometheus until every expected series has its value."""
    series, stalls = expected_series(jsonl, int(top_cgroups))
    names = sorted({name for name, _ in series})
    deadline = time.time() + float(seconds)
    while True:
        samples = {}
        try:
            for name in names:
                for labels, value in query(url, name):
                    # Prometheus adds job and instance; __name__ names the series.
                    own = frozenset((k, v) for k, v in labels
                                    if k not in ("job", "instance", "__name__"))
                    samples[(name, own)] = value
        except OSError:
            pass
        missing = [k for k, v in series.items()
                   if samples.get(k) is None or not same(samples[k], v)]
        if not missing:
            ok("Prometheus' API: %d series (%s) equal to allocwatch's own records"
               % (len(series), ", ".join(names)))
            return
        if time.time() > deadline:
            compare(samples, series, "Prometheus' API after %ss" % seconds)
            return
        time.sleep(0.5)


def cgroups_per_kind(jsonl):
    """{kind: number of cgroups whose tasks stalled in it}, from the records."""
    seen = {}
    with open(jsonl, encoding="utf-8", errors="surrogateescape") as f:
        for line in f:
            record = json.loads(line)
            kind = PAIR_KINDS.get(record.get("name")) if record["type"] == "span" else None
            if kind and "cgroup" in record and not record["comm"].startswith(BACKGROUND):
                seen.setdefault(kind, set()).add(record["cgroup"])
    return {kind: len(paths) for kind, paths in seen.items()}


def check_series_per_kind(url, series, top):
    """Each cgroup family has, per kind, the series the records imply (at most
    N + 1) through Prometheus' API (`prometheus` first: the values are final);
    a kind without stalls has its "other" series alone, at zero."""
    for family in CGROUP_FAMILIES:
        want = {}
        for name, labels in series:
            if name == family:
                kind = dict(labels)["kind"]
                want[kind] = want.get(kind, 0) + 1
        got = {dict(labels).get("kind"): value
               for labels, value in query(url, "count by (kind) (%s)" % family)}
        # A kind without stalls has its "other" series alone, at zero.
        want.update({kind: 1 for kind in got if kind not in want})
        if want and got == want and max(got.values()) <= top + 1:
            ok("Prometheus' API: %s has %s series per kind (--metrics-cgroups %d: at most %d)"
               % (family, ", ".join("%s=%d" % kv for kv in sorted(got.items())), top, top + 1))
        else:
            fail("Prometheus' API: %s series per kind %s, the records give %s, at most %d"
                 % (family, got, want, top + 1))


def cmd_cgroups(url, jsonl, top_cgroups, *cgroups):
    """Through Prometheus' API: each cgroup given as PATH:CONTAINER_ID:POD_UID
    (an empty id: none) has series of its own in both families, labelled so,
    and each family the series per kind that the records imply."""
    top = int(top_cgroups)
    series, _ = expected_series(jsonl, top)
    check_series_per_kind(url, series, top)
    for given in cgroups:
        path, container_id, pod_uid = given.rsplit(":", 2)
        labels = {k: v for k, v in
                  (("cgroup", path), ("container_id", container_id), ("pod_uid", pod_uid)) if v}
        if not any(name == CGROUP_FAMILIES[0] and labels.items() <= dict(key).items()
                   for name, key in series):
            fail("allocwatch's records give %s no series of its own" % path)
            continue
        for family in CGROUP_FAMILIES:
            found = [dict(l) for l, _ in query(url, "%s{cgroup=%s}" % (family, json.dumps(path)))]
            exact = [f for f in found if {k: v for k, v in f.items()
                                          if k in ("cgroup", "container_id", "pod_uid")} == labels]
            if found and len(exact) == len(found):
                ok("Prometheus' API: %s{cgroup=%r} for %d kind(s), with %s"
                   % (family, path, len(found),
                      ", ".join("%s=%s" % kv for kv in sorted(labels.items()) if kv[0] != "cgroup")
                      or "no container"))
            else:
                fail("Prometheus' API: %s{cgroup=%r}: %s, wanted the labels %s"
                     % (family, path, found, labels))


def cmd_bound(url, jsonl, top_cgroups):
    """The bound, exercised: more than N cgroups stalled in some kind, and
    each family still has at most N + 1 series per kind."""
    top = int(top_cgroups)
    seen = cgroups_per_kind(jsonl)
    if any(n > top for n in seen.values()):
        ok("the records have more than %d cgroups in a kind (%s)"
           % (top, ", ".join("%s=%d" % kv for kv in sorted(seen.items()))))
    else:
        fail("the bound is not exercised: cgroups per kind %s, --metrics-cgroups %d" % (seen, top))
    series, _ = expected_series(jsonl, top)
    check_series_per_kind(url, series, top)


def cmd_wait(url, promql, seconds):
    deadline = time.time() + float(seconds)
    while time.time() < deadline:
        try:
            if query(url, promql):
                ok("Prometheus has %s" % promql)
                return
        except OSError:
            pass
        time.sleep(0.5)
    fail("Prometheus has no %s after %s s" % (promql, seconds))


def cmd_promql(url, query_file, jsonl, kind, le):
    """README's query, asked about KIND over LE seconds: a machine is listed
    exactly when allocwatch's records have such a stall."""
    promql = open(query_file, encoding="utf-8").read()
    promql = promql.replace('"direct reclaim"', '"%s"' % kind).replace('le="0.01"', 'le="%s"' % le)
    _, stalls = expected_series(jsonl)
    over = sum(1 for d in stalls.get(kind, []) if d > float(le) * 1e9)
    result = query(url, promql)
    listed = [value for _, value in result]
    if (over > 0) == (len(listed) == 1 and listed[0] > 0) and len(listed) <= 1:
        ok("README's PromQL, for %s over %s s: %s (allocwatch's records: %d such stalls)"
           % (kind, le, "this machine listed (%.1f)" % listed[0] if listed else "nothing listed",
              over))
    else:
        fail("README's PromQL for %s over %s s: %r, but %d such stalls" % (kind, le, listed, over))


def http(host, port, payload, wait_after=0.0, read=True, timeout=10):
    """Sends payload (bytes, or a list of chunks sent with pauses); returns the answer."""
    s = socket.create_connection((host, port), timeout=timeout)
    try:
        chunks = payload if isinstance(payload, list) else [payload]
        for chunk in chunks:
            s.sendall(chunk)
            time.sleep(wait_after)
        if not read:
            return b""
        answer = b""
        while True:
            data = s.recv(65536)
            if not data:
                return answer
            answer += data
    except (ConnectionResetError, BrokenPipeError):
        return b"<reset>"
    finally:
        s.close()


def status(answer):
    return answer.split(b"\r\n", 1)[0].decode("latin-1")


def cmd_hostile(host, port):
    port = int(port)
    cases = [
        ("a malformed request line", b"GET\r\n\r\n", "HTTP/1.1 400 Bad Request"),
        ("a request with no version", b"GET /metrics\r\n\r\n", "HTTP/1.1 400 Bad Request"),
        ("POST", b"POST /metrics HTTP/1.1\r\nContent-Length: 2\r\n\r\nhi",
         "HTTP/1.1 405 Method Not Allowed"),
        ("HEAD", b"HEAD /metrics HTTP/1.1\r\n\r\n", "HTTP/1.1 405 Method Not Allowed"),
        ("another path", b"GET /debug/pprof HTTP/1.1\r\n\r\n", "HTTP/1.1 404 Not Found"),
        ("a path escaping upwards", b"GET /../../etc/shadow HTTP/1.1\r\n\r\n",
         "HTTP/1.1 404 Not Found"),
        ("HTTP/2 preface", b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n", "HTTP/1.1 400 Bad Request"),
        ("binary junk with line ends", bytes(range(1, 32)) + b"\r\n\r\n",
         "HTTP/1.1 400 Bad Request"),
        ("an oversized head (64 KiB of headers)",
         b"GET /metrics HTTP/1.1\r\n" + b"X-Pad: " + b"a" * 65536 + b"\r\n\r\n",
         "HTTP/1.1 431 Request Header Fields Too Large"),
        ("the index", b"GET / HTTP/1.1\r\n\r\n", "HTTP/1.1 200 OK"),
    ]
    for what, request, expected in cases:
        answer = http(host, port, request)
        got = status(answer)
        if got == expected and (b"allocwatch_info" not in answer or expected.endswith("200 OK")):
            ok("hostile request, %s: %s" % (what, expected))
        elif expected.startswith("HTTP/1.1 431") and answer == b"<reset>":
            # Closing a socket with unread bytes resets it: the answer may be lost.
            ok("hostile request, %s: connection reset" % what)
        else:
            fail("hostile request, %s: got %r, wanted %r" % (what, got, expected))

    # A slow client (slowloris) holds the one slot until the deadline (5 s),
    # then gets 408; a scrape queued behind it is answered right after.
    start = time.time()
    slow = socket.create_connection((host, port), timeout=15)
    slow.sendall(b"GET /metrics HTTP/1.1\r\nHost: x\r\n")
    time.sleep(0.5)
    queued = http(host, port, b"GET /metrics HTTP/1.1\r\n\r\n", timeout=15)
    waited = time.time() - start
    slow_answer = b""
    try:
        while True:
            data = slow.recv(65536)
            if not data:
                break
            slow_answer += data
    except ConnectionResetError:
        pass
    slow.close()
    if status(slow_answer) == "HTTP/1.1 408 Request Timeout":
        ok("a slow client is cut at the deadline with 408")
    else:
        fail("a slow client got %r" % status(slow_answer))
    if status(queued) == "HTTP/1.1 200 OK" and b"allocwatch_info" in queued and 4 <= waited < 12:
        ok("a scrape behind the slow client is served after it (%.1f s)" % waited)
    else:
        fail("a scrape behind the slow client: %r after %.1f s" % (status(queued), waited))

    # A client sending its request one byte at a time, in time, is served.
    request = b"GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n"
    answer = http(host, port, [request[i:i + 1] for i in range(len(request))], wait_after=0.02)
    if status(answer) == "HTTP/1.1 200 OK":
        ok("a request sent byte by byte is served")
    else:
        fail("a request sent byte by byte: %r" % status(answer))

    # Thirty scrapers at once, each sending its request as it connects: they
    # are answered one after the other; then a plain scrape still works.
    # (Thirty that connect and stay silent would each hold the one slot for
    # the 5 s deadline: the endpoint's documented limit.)
    start = time.time()
    socks = []
    for _ in range(30):
        s = socket.create_connection((host, port), timeout=15)
        s.sendall(b"GET /metrics HTTP/1.1\r\n\r\n")
        socks.append(s)
    answered = 0
    for s in socks:
        try:
            if s.recv(12).startswith(b"HTTP/1.1 200"):
                answered += 1
        except OSError:
            pass
        s.close()
    took = time.time() - start
    answer = http(host, port, b"GET /metrics HTTP/1.1\r\n\r\n")
    if answered == len(socks) and status(answer) == "HTTP/1.1 200 OK":
        ok("30 scrapers at once: all answered, one at a time, in %.1f s; the next one too" % took)
    else:
        fail("30 scrapers at once: %d answered; then %r" % (answered, status(answer)))


def cmd_journal(journal_json, cgroup=None):
    entries = [json.loads(line) for line in open(journal_json, encoding="utf-8")]
    ours = [e for e in entries if e.get("SYSLOG_IDENTIFIER") == "allocwatch"]
    stalls = [e for e in ours if e.get("MESSAGE_ID") == "5e1fefd551e04db7b4321847c804a337"]
    shrinkers = [e for e in ours if e.get("MESSAGE_ID") == "891375134fee485094327826d896951f"]
    if not stalls:
        fail("journal: no stall entry (%d entries of allocwatch)" % len(ours))
        return
    bad = []
    for e in stalls:
        duration = int(e["DURATION_NS"])
        kind = PAIR_KINDS.get(e["NAME"], "")
        want = 6 if e["COMM"].startswith(BACKGROUND) else (
            3 if duration >= 1e9 else 4 if duration >= 1e8 else 5)
        lines = e.get("LINES")
        lines = lines if isinstance(lines, list) else [lines]
        if (int(e["PRIORITY"]) != want or e["TYPE"] != "span" or not lines or
                int(e["END_NS"]) - int(e["START_NS"]) != duration or
                kind not in e["MESSAGE"] or "%s-%s" % (e["COMM"], e["PID"]) not in e["MESSAGE"]):
            bad.append(e)
    if bad:
        fail("journal: %d of %d stall entries wrong, e.g. %r" % (len(bad), len(stalls), bad[0]))
    else:
        ok("journal: %d stall entries, each with the JSON record's fields, its lines, a "
           "summary and its priority (e.g. %r)" % (len(stalls), stalls[0]["MESSAGE"]))
    if shrinkers and all("SYMBOL" in e and "CALLS" in e for e in shrinkers):
        ok("journal: %d shrinker total entries" % len(shrinkers))
    else:
        fail("journal: no shrinker total entries")
    if cgroup is not None:
        named = [e for e in stalls if e.get("CGROUP") == cgroup]
        odd = [e for e in stalls if "CGROUP" in e and not str(e["CGROUP"]).startswith("/")]
        if named and not odd:
            ok("journal: %d stall entries carry CGROUP=%s" % (len(named), cgroup))
        else:
            fail("journal: no stall entry with CGROUP=%s (CGROUP seen: %s)"
                 % (cgroup, sorted({str(e.get("CGROUP")) for e in stalls})))
    plain = [e for e in entries if str(e.get("MESSAGE", "")).startswith('{"type"')]
    if plain:
        fail("journal: %d JSON lines came through stdout instead" % len(plain))
    else:
        ok("journal: nothing went to stdout as JSON")


def cmd_savefile(path):
    """An events-mode trace as a live run's --save file ends: memcg reclaim
    pairs of 40 tasks, then the cgroups the run learnt for 34 of them (a
    Kubernetes pod's container, a Docker container, a unit, a path that is
    not UTF-8, two plain ones); the others are unknown."""
    rng = random.Random(3)
    paths = ["/kubepods/burstable/pod8b1e1f2c-4d3a-4f5e-9a8b-7c6d5e4f3a2b/" + "a" * 64,
             "/docker/" + "b" * 64, "/system.slice/x.service", "/user.slice/u\xe9", "/c5", "/c6"]
    pids = range(1000, 1040)
    lines, at = [], 100.0
    for _ in range(300):
        pid, took = rng.choice(pids), rng.randint(50, 5000) / 1e6
        for when, event in ((at, "begin: order=0 gfp_flags=GFP_KERNEL"),
                            (at + took, "end: nr_reclaimed=32")):
            lines.append("           cat-%d    [001] .....  %.6f: mm_vmscan_memcg_reclaim_%s"
                         % (pid, when, event))
        at += took + 0.001
    # saved_cgroups.cpp's records: each path's bytes <= ' ', '%' and >= 0x7f as %XX.
    encode = lambda p: "".join("%%%02X" % b if b <= 32 or b == 37 or b >= 127 else chr(b)
                               for b in p.encode("latin-1"))
    records = "".join("# allocwatch cgroup %d v1 %s\n" % (pid, encode(paths[pid % len(paths)]))
                      for pid in pids if pid % 7)
    with open(path, "w", encoding="latin-1") as f:
        f.write("\n".join(lines) + "\n" + records + "# allocwatch cgroups %d\n" % len(records))


def main():
    commands = {"expected": cmd_expected, "compare": cmd_compare, "prometheus": cmd_prometheus,
                "promql": cmd_promql, "wait": cmd_wait, "hostile": cmd_hostile, "journal": cmd_journal,
                "cgroups": cmd_cgroups, "bound": cmd_bound, "savefile": cmd_savefile}
    if len(sys.argv) < 2 or sys.argv[1] not in commands:
        print(__doc__, file=sys.stderr)
        return 2
    commands[sys.argv[1]](*sys.argv[2:])
    return min(failures, 100)


if __name__ == "__main__":
    sys.exit(main())

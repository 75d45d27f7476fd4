# Sourced by tests/live/run.sh: which container stalled, and against whose
# limit. Memcg reclaim in a cgroup laid out as a Kubernetes pod's container
# (the culprit: a 32 MiB limit, and it reads the file four times) and in one
# laid out as a Docker container (64 MiB, once), beside a quiet cgroup; every reader has exited before
# the run ends. The report (text and JSON) must attribute each stall to its
# cgroup, with the container id and pod uid parsed, the culprit first, the
# quiet cgroup absent, and show the culprit's limit and failures; the span
# records and the metrics file must carry the same attribution.

pod_uid=8b1e1f2c-4d3a-4f5e-9a8b-7c6d5e4f3a2b
k8s_id=3f4ae8b2c1d04e6f9a7b5c3d2e1f0a9b8c7d6e5f4a3b2c1d0e9f8a7b6c5d4e3f
docker_id=9c8b7a6f5e4d3c2b1a0f9e8d7c6b5a4f3e2d1c0b9a8f7e6d5c4b3a2f1e0d9c8b
k8s_rel=/allocwatch-test-$$-k8s/kubepods/burstable/pod$pod_uid/$k8s_id
docker_rel=/allocwatch-test-$$-docker/docker/$docker_id
quiet_rel=/allocwatch-test-$$-quiet
# The cgroup paths as /proc/PID/cgroup names them: below this hierarchy's root.
for rel in "$k8s_rel" "$docker_rel" "$quiet_rel"; do
  mkdir -p "$cgroups$rel"
done
if [ "$limit_file" = memory.max ]; then
  # v2: the controller must be on in every ancestor of a limited cgroup.
  for dir in "$cgroups/allocwatch-test-$$-k8s" "$cgroups/allocwatch-test-$$-k8s/kubepods" \
    "$cgroups/allocwatch-test-$$-k8s/kubepods/burstable" \
    "$cgroups/allocwatch-test-$$-k8s/kubepods/burstable/pod$pod_uid" \
    "$cgroups/allocwatch-test-$$-docker" "$cgroups/allocwatch-test-$$-docker/docker"; do
    echo +memory >"$dir/cgroup.subtree_control"
  done
fi
echo $((32 << 20)) >"$cgroups$k8s_rel/$limit_file"
for rel in "$docker_rel" "$quiet_rel"; do
  echo $((64 << 20)) >"$cgroups$rel/$limit_file"
done

state >"$tmp/prior-state"
# --metrics-cgroups 50: the machine's own cgroups may stall first, and must
# not take the slots of this test's.
start_bg -t 50us --format json --report "$tmp/cg-report.txt" --save "$tmp/cg.trace" \
  --metrics-file "$tmp/cg.prom" --metrics-cgroups 50
if wait_started "$bg"; then
  for _ in 1 2 3 4; do
    read_in_cgroup "$cgroups$k8s_rel"
  done
  read_in_cgroup "$cgroups$docker_rel"
  sh -c "echo \$\$ > $cgroups$quiet_rel/cgroup.procs; exec sleep 0.2"
  sleep 0.5
  stop_bg INT
  cp "$tmp/out" "$tmp/cg.json"
  [ $rc = 0 ] && ok "cgroups: exit 0 on SIGINT, every reader gone before" ||
    { fail "cgroups: exit $rc"; cat "$tmp/err"; }
  verdict=$(/usr/bin/python3 - "$tmp/cg.json" "$k8s_rel" "$k8s_id" "$pod_uid" "$docker_rel" \
    "$docker_id" "$quiet_rel" "$tmp/cg.prom" <<'PY'
import json, re, sys
path, k8s, k8s_id, uid, docker, docker_id, quiet, prom = sys.argv[1:]
records = [json.loads(line) for line in open(path) if line.startswith("{")]
# Only this test's cgroups: the machine may reclaim elsewhere meanwhile.
ours = k8s.split("/")[1].rsplit("-", 1)[0] + "-"
rows = [r for r in records if r["type"] == "cgroup" and r["cgroup"].startswith("/" + ours)]
memcg = [r for r in records if r["type"] == "memcg"]
problems = []
totals = {}
for r in rows:
    totals[r["cgroup"]] = totals.get(r["cgroup"], 0) + r["total_ns"]
order = sorted(totals, key=lambda c: -totals[c])
if not order or order[0] != k8s:
    problems.append("the culprit is not first: %s" % order)
by = {r["cgroup"]: r for r in rows}
want = {k8s: ("kubernetes", k8s_id, uid), docker: ("docker", docker_id, "")}
for cg, (runtime, cid, pod) in want.items():
    r = by.get(cg)
    if r is None:
        problems.append("no row for " + cg)
    elif (r["runtime"], r["container_id"], r["pod_uid"]) != (runtime, cid, pod):
        problems.append("%s parsed as %s" % (cg, (r["runtime"], r["container_id"], r["pod_uid"])))
if quiet in by:
    problems.append("the quiet cgroup has a row")
leaf = [r for r in memcg if r["cgroup"] == k8s and r["stalled"] == k8s]
if not leaf or leaf[0]["limit"] != 32 << 20 or leaf[0].get("failcnt", leaf[0].get("events", {}).get("max", 0)) <= 0:
    problems.append("the culprit's limit row: %s" % leaf)
# Every memcg span of a pid is its cgroup's: the stall rows count them all.
spans = sum(1 for r in records if r["type"] == "span" and r["name"] == "memcg_reclaim")
counted = sum(r["count"] for r in rows if r["kind"] == "memcg reclaim")
if spans == 0 or counted != spans:
    problems.append("%d memcg reclaim spans, %d in the cgroup rows" % (spans, counted))
# The report's task rows name their task's cgroup too: the culprit's
# readers' memcg reclaim rows, with its ids.
task_rows = [r for r in records if r["type"] == "stall" and r["kind"] == "memcg reclaim"
             and r.get("cgroup") == k8s]
if not task_rows or any((r.get("container_id"), r.get("pod_uid")) != (k8s_id, uid)
                        for r in task_rows):
    problems.append("the culprit's task rows: %s" % task_rows[:2])
# Each memcg reclaim span record names its cgroup (and container and pod)
# as the rows do: per cgroup, the same count and total.
by_span = {}
for r in records:
    if r["type"] == "span" and r["name"] == "memcg_reclaim" and r.get("cgroup", "").startswith("/" + ours):
        ids = (r.get("container_id", ""), r.get("pod_uid", ""))
        count, total, seen = by_span.get(r["cgroup"], (0, 0, set()))
        by_span[r["cgroup"]] = (count + 1, total + r["duration_ns"], seen | {ids})
for r in rows:
    if r["kind"] != "memcg reclaim":
        continue
    got = by_span.get(r["cgroup"], (0, 0, set()))
    if got != (r["count"], r["total_ns"], {(r["container_id"], r["pod_uid"])}):
        problems.append("spans of %s: %s, its row: %s" % (r["cgroup"], got, r))
# The metrics file (written once more at the end) agrees with the rows.
sample = re.compile(r'^allocwatch_cgroup_(stalls_total|stall_seconds_total)\{kind="([^"]*)",'
                    r'cgroup="([^"]*)",container_id="([^"]*)",pod_uid="([^"]*)"\} (\S+)$')
metrics = {}
for line in open(prom):
    m = sample.match(line)
    if m:
        metrics[m.group(1, 2, 3, 4, 5)] = float(m.group(6))
for r in rows:
    key = (r["kind"], r["cgroup"], r["container_id"], r["pod_uid"])
    count = metrics.get(("stalls_total",) + key)
    seconds = metrics.get(("stall_seconds_total",) + key)
    if count != r["count"] or seconds is None or abs(seconds - r["total_ns"] / 1e9) > 1e-9:
        problems.append("metrics of %s: %s stalls, %s s; its row: %d, %d ns"
                        % (key, count, seconds, r["count"], r["total_ns"]))
if not any(c.startswith("/" + ours) for (_, _, c, _, _) in metrics):
    problems.append("no cgroup of this test in the metrics file")
print("; ".join(problems) if problems else "ok %d spans, culprit %.1f ms" % (spans, totals[k8s] / 1e6))
PY
)
  case $verdict in
  ok*) ok "cgroups: JSON attributes every stall, culprit first, ids parsed, quiet absent; span records and metrics agree (${verdict#ok })" ;;
  *) fail "cgroups: JSON: $verdict" ;;
  esac
  short_k8s=$(echo "$k8s_rel" | sed "s/$k8s_id/${k8s_id:0:12}/")
  short_docker=$(echo "$docker_rel" | sed "s/$docker_id/${docker_id:0:12}/")
  table=$(sed -n '/^allocwatch: stalls by memory cgroup/,/^allocwatch: memory limits/p' "$tmp/cg-report.txt")
  first=$(echo "$table" | grep "^  /allocwatch-test-$$-" | head -n 1)
  if echo "$first" | awk -v c="$short_k8s" -v i="${k8s_id:0:12}" -v p="${pod_uid:0:8}" \
    '{ exit !($1 == c && $2 == i && $3 == p && $4 == "memcg") }' &&
    echo "$table" | awk -v c="$short_docker" -v i="${docker_id:0:12}" \
      '$1 == c && $2 == i && $3 == "memcg" { found = 1 } END { exit !found }' &&
    ! grep -qF "$quiet_rel" "$tmp/cg-report.txt" &&
    grep -q '^allocwatch: memory limits of the cgroups whose memcg reclaim stalled' "$tmp/cg-report.txt"; then
    ok "cgroups: --report shows the culprit first, its container and pod, and the limits"
  else
    fail "cgroups: --report's cgroup tables"
    sed -n '/^allocwatch: stalls by memory cgroup/,$p' "$tmp/cg-report.txt" | head -12
  fi
  "$bin" -t 50us --format json -i "$tmp/cg.trace" --metrics-file "$tmp/cg-replay.prom" \
    --metrics-cgroups 50 >"$tmp/cg-replay.json" 2>/dev/null
  # The records that name cgroups: the report's, and the spans' own keys.
  attributed() {
    grep -E '"type":"(cgroup|memcg)"' "$1"
    sed -n 's/^{"type":"span",.*\("cgroup":"[^"]*"\(,"container_id":"[^"]*"\)\{0,1\}\(,"pod_uid":"[^"]*"\)\{0,1\}\).*/\1/p' "$1"
  }
  if cmp -s <(attributed "$tmp/cg.json") <(attributed "$tmp/cg-replay.json") &&
    cmp -s <(grep '^allocwatch_cgroup_' "$tmp/cg.prom") <(grep '^allocwatch_cgroup_' "$tmp/cg-replay.prom") &&
    grep -q '"type":"cgroup"' "$tmp/cg-replay.json"; then
    ok "cgroups: the replay of the --save file attributes as the live run did (records, spans, metrics)"
  else
    fail "cgroups: the replay's cgroup records, span keys or metrics differ"
    diff <(attributed "$tmp/cg.json") <(attributed "$tmp/cg-replay.json") | head
    diff <(grep '^allocwatch_cgroup_' "$tmp/cg.prom") <(grep '^allocwatch_cgroup_' "$tmp/cg-replay.prom") | head
  fi
else
  fail "cgroups: allocwatch did not start"
  cat "$tmp/err"
  stop_bg KILL
fi
check_restored "cgroups"

# --cgroup: the tasks of a cgroup at the start and their children only. A
# shell waits in the pod's container cgroup, then reads; a reader in the
# Docker-like cgroup reads at the same time and must not be traced.
state >"$tmp/prior-state"
mkfifo "$tmp/go"
sh -c "echo \$\$ > $cgroups$k8s_rel/cgroup.procs; read go < $tmp/go;
  dd if=$data iflag=nocache count=0 status=none; exec cat $data > /dev/null" &
scoped_reader=$!
for i in $(seq 50); do
  grep -qx "$scoped_reader" "$cgroups$k8s_rel/cgroup.procs" && break
  sleep 0.1
done
"$bin" --check --cgroup "/allocwatch-test-$$-k8s" >"$tmp/out" 2>"$tmp/err"
rc=$?
expect "--cgroup --check: says the scope and its tasks" 0 "$tmp/out" \
  "^cgroup: */allocwatch-test-$$-k8s: 1 task at the start and the children they fork"
start_bg -t 50us --format json --cgroup "/allocwatch-test-$$-k8s"
if wait_started "$bg"; then
  echo go >"$tmp/go"
  read_in_cgroup "$cgroups$docker_rel"
  wait "$scoped_reader"
  sleep 0.5
  stop_bg INT
  rows=$(grep '"type":"cgroup"' "$tmp/out" | sed -n 's/.*"cgroup":"\([^"]*\)".*/\1/p' | sort -u)
  if [ "$rows" = "$k8s_rel" ] && [ $rc = 0 ]; then
    ok "--cgroup: only the scoped cgroup's tasks stalled in the report"
  else
    fail "--cgroup: cgroup rows '$rows' (exit $rc)"
    tail -5 "$tmp/err"
  fi
else
  fail "--cgroup: allocwatch did not start"
  cat "$tmp/err"
  stop_bg KILL
  kill "$scoped_reader" 2>/dev/null
fi
check_restored "--cgroup"
"$bin" --cgroup /allocwatch-test-$$-nowhere -t 50us --duration 1s >"$tmp/out" 2>"$tmp/err"
rc=$?
expect "--cgroup of no cgroup: exit 1, says where it looked" 1 "$tmp/err" "no such cgroup (looked for "
for top in k8s docker quiet; do
  remove_cgroup_tree "$cgroups/allocwatch-test-$$-$top"
done

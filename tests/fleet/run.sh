#!/bin/bash
# Fleet tests (allocwatch --watch on a fleet): its Prometheus metrics read by
# a real node_exporter and Prometheus and scraped from --listen, both checked
# by promtool and against allocwatch's own records; hostile HTTP clients; the
# journal; and each part of the systemd unit, by running the unit's own
# commands (this machine's PID 1 is not systemd).
#
#   tests/fleet/run.sh BUILD_DIR
#
# Every check prints "ok - ..." or "FAIL - ..."; the last line is
# "fleet: N passed, N failed". The parts that trace (root, tracefs, cgroup v1
# memory) hold /tmp/allocwatch-live.lock, and check that tracefs is
# byte-identical after every way out. Prometheus, node_exporter and a private
# journald are started and stopped here, on the loopback or in a mount
# namespace of their own; nothing of them stays.
set -u
build=${1:-build}
cd "$(dirname "$0")/../.."
bin=$PWD/$build/allocwatch
check=tests/fleet/check.py
T=/sys/kernel/tracing
J=/run/allocwatch
suite=fleet
. tests/lib.sh
# run_check COMMAND...: check.py's own ok/FAIL lines, counted.
run_check() {
  local out status p f
  out=$("$@" 2>&1)
  status=$?
  printf '%s\n' "$out"
  p=$(printf '%s\n' "$out" | grep -c '^ok - ')
  f=$(printf '%s\n' "$out" | grep -c '^FAIL - ')
  passed=$((passed + p))
  failed=$((failed + f))
  [ "$status" != 0 ] && [ "$f" = 0 ] && fail "$1 ${2:-}: exit $status"
}

tmp=$(mktemp -d /tmp/allocwatch-fleet-XXXXXX)
daemons=()
cleanup() {
  local pid
  for pid in "${daemons[@]}"; do
    kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null
  done
  [ "$(id -u)" = 0 ] && "$bin" --restore >/dev/null 2>&1
  for cg in /sys/fs/cgroup/memory/allocwatch-test-fleet-$$-*; do
    [ -d "$cg" ] && remove_cgroup_tree "$cg"
  done
  rm -rf "$tmp" "/var/tmp/allocwatch-test-fleet-$$".*
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP

# --- without root: the metrics of replays, the options, the unit --------

if command -v promtool >/dev/null; then
  for trace in tests/golden/traces/*.txt; do
    name=$(basename "$trace" .txt)
    "$bin" -i "$trace" -t 1ms --format json --metrics-file "$tmp/$name.prom" \
      >"$tmp/$name.jsonl" 2>"$tmp/$name.err"
    if lint=$(promtool check metrics <"$tmp/$name.prom" 2>&1); then
      ok "promtool check metrics: the metrics of a replay of $name"
    else
      fail "promtool check metrics on the metrics of $name: $lint"
    fi
  done
  # Events mode: each JSON span record's kind is its pair's.
  run_check python3 "$check" compare "$tmp/events-6.18-dropcaches-compact.prom" \
    "$tmp/events-6.18-dropcaches-compact.jsonl"
  # A live run's --save file: its replay's cgroup series agree with the span
  # records, with no slot (everything "other"), fewer slots than cgroups,
  # and more.
  python3 "$check" savefile "$tmp/cgroups.trace"
  for n in 0 1 3 10; do
    "$bin" -i "$tmp/cgroups.trace" -t 100us --format json --metrics-file "$tmp/cgroups-$n.prom" \
      --metrics-cgroups $n >"$tmp/cgroups-$n.jsonl" 2>"$tmp/cgroups-$n.err"
    run_check python3 "$check" compare "$tmp/cgroups-$n.prom" "$tmp/cgroups-$n.jsonl" $n
    lint=$(promtool check metrics <"$tmp/cgroups-$n.prom" 2>&1) &&
      series=$(grep -c '^allocwatch_cgroup_stalls_total{kind="memcg reclaim"' "$tmp/cgroups-$n.prom") &&
      [ "$series" = $((n < 6 ? n + 1 : 7)) ] &&
      ok "--metrics-cgroups $n, 6 cgroups stalling: $series memcg reclaim series, promtool clean" ||
      fail "--metrics-cgroups $n: ${series:-no} memcg reclaim series; promtool: $lint"
  done
else
  fail "promtool is missing (scripts/install-deps.sh fleet installs it)"
fi

# expect_usage NAME PATTERN ARGS...: exit 2 with PATTERN on stderr.
expect_usage() {
  local name=$1 pattern=$2 rc
  shift 2
  "$bin" "$@" >"$tmp/out" 2>"$tmp/err"
  rc=$?
  if [ $rc = 2 ] && grep -q -- "$pattern" "$tmp/err"; then
    ok "$name: exit 2, says why"
  else
    fail "$name: exit $rc: $(cat "$tmp/err")"
  fi
}
expect_usage "--watch with -i" "cannot replay" --watch -i /dev/null
expect_usage "--watch with --format" "--format is not for it" --watch --format text
expect_usage "--watch with --save" "grow without bound" --watch --save "$tmp/x"
expect_usage "--metrics-interval without a file" "period of --metrics-file" --metrics-interval 5s
expect_usage "--listen without an address" "0.0.0.0:PORT for every interface" --listen :9466
expect_usage "--listen with a name" "not a numeric" --listen example.org:9466
expect_usage "--listen in a replay" "while tracing live" -i /dev/null --listen 9466

# A replay's metrics file in a directory that does not exist: exit 1, named.
"$bin" -i tests/golden/traces/graph-6.1-thresh100.txt --metrics-file "$tmp/no/such.prom" \
  >/dev/null 2>"$tmp/err"
rc=$?
if [ $rc = 1 ] && grep -q "$tmp/no/\.such.prom.*No such file or directory" "$tmp/err"; then
  ok "a metrics file that cannot be written: exit 1, names it"
else
  fail "a metrics file that cannot be written: exit $rc: $(cat "$tmp/err")"
fi

# The unit as make install writes it, here with this build's binary.
unit=$tmp/allocwatch.service
env_file=$tmp/allocwatch.default
sed -e "s|@SBINDIR@|$(dirname "$bin")|g" -e "s|@ENVFILE@|$env_file|g" \
  systemd/allocwatch.service.in >"$unit"
if command -v systemd-analyze >/dev/null; then
  # Documentation=man:allocwatch(8) is looked up: this tree's page.
  mkdir -p "$tmp/man/man8"
  cp man/allocwatch.8 "$tmp/man/man8/"
  if out=$(MANPATH=$tmp/man systemd-analyze verify "$unit" 2>&1) && [ -z "$out" ]; then
    ok "systemd-analyze verify: the unit is clean"
  else
    fail "systemd-analyze verify: $out"
  fi
else
  echo "ok - systemd-analyze verify: not run: no systemd-analyze on this machine"
fi

if [ "$(id -u)" != 0 ]; then
  echo "fleet: the live parts not run: they need root to configure the real tracefs"
  finish
fi
exec 9>/tmp/allocwatch-live.lock
flock 9
if [ ! -r "$T/available_events" ] || [ ! -d /sys/fs/cgroup/memory ]; then
  echo "fleet: the live parts not run: no tracefs at $T or no cgroup v1 memory controller"
  finish
fi

# --- live: helpers ----------------------------------------------------------

state() { tests/live/tracefs-state.sh "$T" "$J"; }
data=/var/tmp/allocwatch-test-fleet-$$.dat
files=/var/tmp/allocwatch-test-fleet-$$.files
dd if=/dev/zero of="$data" bs=1M count=320 oflag=direct status=none

. tests/live/memcg.sh
# A 64 MiB memory cgroup, with 2000 dentries charged to it (its reclaim then
# runs the filesystem's shrinker); prints its directory.
make_cgroup() {
  local cg=/sys/fs/cgroup/memory/allocwatch-test-fleet-$$-$1
  mkdir "$cg" && echo $((64 << 20)) >"$cg/memory.limit_in_bytes" || return 1
  rm -rf "$files"
  charge_dentries "$cg"
  echo "$cg"
}
# NAME PATH: a 64 MiB memory cgroup at PATH (nested, as a container
# runtime lays it out) below allocwatch-test-fleet-$$-NAME; prints its
# directory.
make_container_cgroup() {
  local cg=/sys/fs/cgroup/memory/allocwatch-test-fleet-$$-$1$2
  mkdir -p "$cg" && echo $((64 << 20)) >"$cg/memory.limit_in_bytes" || return 1
  echo "$cg"
}
# CGROUP [ROUNDS]: reads the 320 MiB file from disk in it: memcg reclaim.
reclaim() {
  local i
  for i in $(seq "${2:-1}"); do
    read_in_cgroup "$1"
  done
}
# PID: until its private instance traces (the last step of its setup).
wait_started() {
  local i
  for i in $(seq 150); do
    [ "$(cat "$T/instances/allocwatch-$1/tracing_on" 2>/dev/null)" = 1 ] && return 0
    kill -0 "$1" 2>/dev/null || return 1
    sleep 0.1
  done
  return 1
}
# A free TCP port on the loopback.
free_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}
# URL: waits for it to answer 200.
wait_http() {
  local i
  for i in $(seq 100); do
    curl -sf -o /dev/null "$1" && return 0
    sleep 0.2
  done
  return 1
}
# NAME PID: stopped and gone.
stop_daemon() {
  kill "$2" 2>/dev/null
  wait "$2" 2>/dev/null
  if kill -0 "$2" 2>/dev/null; then
    fail "$1 still runs after SIGTERM"
    kill -9 "$2"
  else
    ok "$1 stopped"
  fi
}
check_restored() {
  state >"$tmp/after"
  if cmp -s "$tmp/before" "$tmp/after"; then
    ok "$1: tracefs byte-identical afterwards"
  else
    fail "$1: tracefs differs afterwards"
    diff "$tmp/before" "$tmp/after" | head -20
  fi
}

# --- live: Prometheus and node_exporter read the metrics file ------------

mkdir "$tmp/textfile"
node_port=$(free_port)
prom_port=$(free_port)
prometheus-node-exporter --web.listen-address="127.0.0.1:$node_port" \
  --collector.disable-defaults --collector.textfile \
  --collector.textfile.directory="$tmp/textfile" >"$tmp/node.log" 2>&1 &
node_pid=$!
daemons+=("$node_pid")
cat >"$tmp/prometheus.yml" <<EOF
global:
  scrape_interval: 1s
  evaluation_interval: 1s
scrape_configs:
  - job_name: node
    static_configs:
      - targets: ['127.0.0.1:$node_port']
EOF
prometheus --config.file="$tmp/prometheus.yml" --storage.tsdb.path="$tmp/prometheus" \
  --web.listen-address="127.0.0.1:$prom_port" >"$tmp/prometheus.log" 2>&1 &
prom_pid=$!
daemons+=("$prom_pid")
if wait_http "http://127.0.0.1:$node_port/metrics" && wait_http "http://127.0.0.1:$prom_port/-/ready"; then
  ok "node_exporter (textfile collector only) and Prometheus up, on the loopback"
else
  fail "node_exporter or Prometheus did not start"
  tail -5 "$tmp/node.log" "$tmp/prometheus.log"
fi

state >"$tmp/before"
cg=$(make_cgroup prom)
# Two containers: a Kubernetes pod's (cgroupfs driver) and a Docker one's.
pod_uid=8b1e1f2c-4d3a-4f5e-9a8b-7c6d5e4f3a2b
k8s_id=3f4ae8b2c1d04e6f9a7b5c3d2e1f0a9b8c7d6e5f4a3b2c1d0e9f8a7b6c5d4e3f
docker_id=9c8b7a6f5e4d3c2b1a0f9e8d7c6b5a4f3e2d1c0b9a8f7e6d5c4b3a2f1e0d9c8b
k8s_cg=$(make_container_cgroup k8s "/kubepods/burstable/pod$pod_uid/$k8s_id")
docker_cg=$(make_container_cgroup docker "/docker/$docker_id")
# As /proc/PID/cgroup names them, and the container and pod each is.
k8s_label=${k8s_cg#/sys/fs/cgroup/memory}:$k8s_id:$pod_uid
docker_label=${docker_cg#/sys/fs/cgroup/memory}:$docker_id:
# -t 20us: each cgroup's reader must give stalls, and few of its memcg
# reclaims take 100us (see the journal's run below).
"$bin" --watch -t 20us --metrics-file "$tmp/textfile/allocwatch.prom" --metrics-interval 1s \
  --listen 127.0.0.1:0 >"$tmp/watch.jsonl" 2>"$tmp/watch.err" &
watch=$!
if wait_started "$watch"; then
  url=$(sed -n 's/^allocwatch: serving metrics at //p' "$tmp/watch.err")
  # Prometheus sees the file's zeros before the load: increase() has a start.
  run_check python3 "$check" wait "http://127.0.0.1:$prom_port" 'allocwatch_info{profile="watch"}' 30
  reclaim "$cg" 2
  reclaim "$k8s_cg"
  reclaim "$docker_cg"
  # --listen, scraped directly while the watch traces.
  if curl -sf "$url" >"$tmp/listen.prom" && lint=$(promtool check metrics <"$tmp/listen.prom" 2>&1); then
    ok "promtool check metrics: a scrape of --listen ($url) while tracing"
  else
    fail "a scrape of --listen: ${lint:-no answer}"
  fi
  grep -q '^allocwatch_info{version=".*",mode="events",profile="watch"} 1$' "$tmp/listen.prom" &&
    ok "--listen: allocwatch_info says events mode and the watch profile" ||
    fail "--listen: no allocwatch_info of the watch: $(grep info "$tmp/listen.prom")"

  # Hostile clients at the endpoint while the load goes on; the metrics file
  # is rewritten every second meanwhile: the tracing loop never waits for them.
  (reclaim "$cg" 3) &
  load=$!
  before_mtime=$(stat -c %Y "$tmp/textfile/allocwatch.prom")
  port=${url%/metrics}
  run_check python3 "$check" hostile 127.0.0.1 "${port##*:}"
  after_mtime=$(stat -c %Y "$tmp/textfile/allocwatch.prom")
  wait "$load"
  if [ $((after_mtime - before_mtime)) -ge 4 ]; then
    ok "the metrics file went on being rewritten during the hostile requests ($((after_mtime - before_mtime)) s)"
  else
    fail "the metrics file was not rewritten during the hostile requests"
  fi

  # Quiet again: the last scrape, then the stop; the scrape must equal what
  # allocwatch's own records say at the end.
  : >"$tmp/quiet.prev"
  for i in $(seq 20); do
    sleep 1
    curl -sf "$url" | grep -E '^allocwatch_(stall|background|shrinker|stalls)' >"$tmp/quiet"
    cmp -s "$tmp/quiet" "$tmp/quiet.prev" && break
    cp "$tmp/quiet" "$tmp/quiet.prev"
  done
  curl -sf "$url" >"$tmp/listen-final.prom"
  kill -TERM "$watch"
  wait "$watch"
  rc=$?
  [ $rc = 0 ] && ok "SIGTERM ends the watch: exit 0" || { fail "SIGTERM: exit $rc"; cat "$tmp/watch.err"; }
  check_restored "the watch under Prometheus"
  if jq_lines=$(python3 -c '
import json, sys
n = 0
for line in open(sys.argv[1]):
    # The incidents, then the stall report records at the end, by cgroup last.
    assert json.loads(line)["type"] in ("span", "lost", "shrinker", "run", "stall",
                                        "background", "background_work", "order", "reclaim",
                                        "histogram", "cgroup", "memcg")
    n += 1
print(n)' "$tmp/watch.jsonl" 2>&1); then
    ok "stdout not the journal: every incident is a JSON Lines record ($jq_lines records)"
  else
    fail "the watch's stdout is not JSON Lines: $jq_lines"
  fi
  run_check python3 "$check" compare "$tmp/listen-final.prom" "$tmp/watch.jsonl"
  run_check python3 "$check" compare "$tmp/textfile/allocwatch.prom" "$tmp/watch.jsonl"
  if lint=$(promtool check metrics <"$tmp/textfile/allocwatch.prom" 2>&1); then
    ok "promtool check metrics: the metrics file"
  else
    fail "promtool check metrics on the metrics file: $lint"
  fi
  run_check python3 "$check" prometheus "http://127.0.0.1:$prom_port" "$tmp/watch.jsonl" 30
  run_check python3 "$check" cgroups "http://127.0.0.1:$prom_port" "$tmp/watch.jsonl" 10 \
    "$k8s_label" "$docker_label"
  # README's example query, as printed there, asked about this run's stalls.
  sed -n '/^<!-- promql:/,/^$/p' README.md | sed '1d' >"$tmp/readme.promql"
  run_check python3 "$check" promql "http://127.0.0.1:$prom_port" "$tmp/readme.promql" \
    "$tmp/watch.jsonl" "memcg reclaim" 0.001
else
  fail "the watch did not start"
  cat "$tmp/watch.err"
  kill -9 "$watch"
fi

# The cgroup series' bound: with --metrics-cgroups 1 and three cgroups
# stalling, one has series of its own per kind, the rest are "other".
rm -f "$tmp/textfile/allocwatch.prom"
state >"$tmp/before"
"$bin" --watch -t 20us --metrics-cgroups 1 --metrics-file "$tmp/textfile/allocwatch.prom" \
  --metrics-interval 1s >"$tmp/watch-n1.jsonl" 2>"$tmp/watch-n1.err" &
watch=$!
if wait_started "$watch"; then
  reclaim "$k8s_cg"
  reclaim "$docker_cg"
  reclaim "$cg"
  sleep 1
  kill -TERM "$watch"
  wait "$watch"
  rc=$?
  [ $rc = 0 ] && ok "--metrics-cgroups 1: SIGTERM ends the watch: exit 0" ||
    { fail "--metrics-cgroups 1: exit $rc"; cat "$tmp/watch-n1.err"; }
  check_restored "the watch with --metrics-cgroups 1"
  run_check python3 "$check" compare "$tmp/textfile/allocwatch.prom" "$tmp/watch-n1.jsonl" 1
  run_check python3 "$check" prometheus "http://127.0.0.1:$prom_port" "$tmp/watch-n1.jsonl" 30 1
  run_check python3 "$check" bound "http://127.0.0.1:$prom_port" "$tmp/watch-n1.jsonl" 1
else
  fail "the watch with --metrics-cgroups 1 did not start"
  cat "$tmp/watch-n1.err"
  kill -9 "$watch"
fi
remove_cgroup "$cg"
remove_cgroup_tree "/sys/fs/cgroup/memory/allocwatch-test-fleet-$$-k8s"
remove_cgroup_tree "/sys/fs/cgroup/memory/allocwatch-test-fleet-$$-docker"
stop_daemon "Prometheus" "$prom_pid"
stop_daemon "node_exporter" "$node_pid"
daemons=()

# --- live: the unit's parts, by running its own commands ------------------

# The environment file as shipped, with the metrics options filled in.
sed -e "s|^#METRICS=.*|METRICS=\"--metrics-file $tmp/unit.prom --metrics-interval 1s\"|" \
  -e 's|^#LISTEN=.*|LISTEN="--listen 127.0.0.1:0"|' systemd/allocwatch.default >"$env_file"
# The ExecStart= and ExecStopPost= lines, expanded as systemd does: an
# unquoted $VAR is split at whitespace, an unset or empty one gives nothing.
unit_command() { # KEY: prints each argument on a line
  (
    set -a
    . "$env_file"
    set +a
    line=$(sed -n "s/^$1=//p" "$unit")
    eval "set -- $line"
    printf '%s\n' "$@"
  )
}
mapfile -t exec_start < <(unit_command ExecStart)
mapfile -t exec_stop_post < <(unit_command ExecStopPost)
if [ "${exec_start[*]}" = "$bin --watch --threshold 1ms --profile watch --metrics-file $tmp/unit.prom --metrics-interval 1s --listen 127.0.0.1:0" ]; then
  ok "the environment file's settings reach ExecStart"
else
  fail "ExecStart from the environment file: ${exec_start[*]}"
fi

# A stand-in for systemd's notify socket: what the service says there.
notify_log=$tmp/notify.log
python3 -c '
import socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.bind(sys.argv[1])
with open(sys.argv[2], "a", buffering=1) as log:
    while True:
        log.write(s.recv(4096).decode() + "\n")' "$tmp/notify.sock" "$notify_log" &
notify_pid=$!
daemons+=("$notify_pid")
for i in $(seq 50); do [ -S "$tmp/notify.sock" ] && break; sleep 0.1; done

# start_service: ExecStart as systemd runs it (Type=notify); $svc its pid.
start_service() {
  : >"$notify_log"
  NOTIFY_SOCKET=$tmp/notify.sock INVOCATION_ID=0123456789abcdef0123456789abcdef \
    "${exec_start[@]}" >"$tmp/svc.out" 2>"$tmp/svc.err" &
  svc=$!
}
wait_ready() {
  local i
  for i in $(seq 100); do
    grep -q '^READY=1$' "$notify_log" && return 0
    kill -0 "$svc" 2>/dev/null || return 1
    sleep 0.1
  done
  return 1
}

for sig in TERM HUP; do
  state >"$tmp/before"
  start_service
  if wait_ready; then
    [ "$(cat "$T/instances/allocwatch-$svc/tracing_on" 2>/dev/null)" = 1 ] &&
      ok "SIG$sig: READY=1 comes once tracing is on" || fail "SIG$sig: READY=1 before tracing"
    kill "-$sig" "$svc"
    wait "$svc"
    rc=$?
    # The listener writes what it received on its own time.
    for i in $(seq 20); do grep -q '^STOPPING=1$' "$notify_log" && break; sleep 0.1; done
    [ $rc = 0 ] && grep -q '^STOPPING=1$' "$notify_log" &&
      ok "SIG$sig (systemctl stop / kill -HUP): exit 0, STOPPING=1 said" ||
      { fail "SIG$sig: exit $rc"; cat "$tmp/svc.err"; }
    check_restored "SIG$sig"
    "${exec_stop_post[@]}" >"$tmp/post.out" 2>&1 && grep -q "nothing to restore" "$tmp/post.out" &&
      ok "SIG$sig: ExecStopPost then finds nothing to restore" ||
      fail "SIG$sig: ExecStopPost: $(cat "$tmp/post.out")"
  else
    fail "SIG$sig: the service did not say READY=1"
    cat "$tmp/svc.err"
    kill -9 "$svc"
  fi
done

# A crash (SIGKILL): ExecStopPost puts tracefs back from the journal.
state >"$tmp/before"
start_service
if wait_ready; then
  kill -9 "$svc"
  wait "$svc" 2>/dev/null
  [ -f "$J/$svc.state" ] && ok "a crash leaves its journal" || fail "a crash left no journal"
  "${exec_stop_post[@]}" >"$tmp/post.out" 2>&1
  rc=$?
  [ $rc = 0 ] && grep -q "restored what pid $svc changed" "$tmp/post.out" &&
    ok "after a crash, ExecStopPost restores: $(head -1 "$tmp/post.out")" ||
    fail "ExecStopPost after a crash: exit $rc: $(cat "$tmp/post.out")"
  check_restored "a crash, then ExecStopPost"
else
  fail "crash: the service did not start"
  kill -9 "$svc"
fi

# A crash and a restart (Restart=on-failure) without ExecStopPost having run:
# the new watch puts back what the crashed one left, then traces.
state >"$tmp/before"
start_service
if wait_ready; then
  crashed=$svc
  kill -9 "$svc"
  wait "$svc" 2>/dev/null
  start_service
  if wait_ready && grep -q "restored what pid $crashed changed" "$tmp/svc.err"; then
    ok "a restart after a crash first puts tracefs back from the journal"
  else
    fail "a restart after a crash: $(cat "$tmp/svc.err")"
  fi
  kill -TERM "$svc"
  wait "$svc"
  check_restored "a crash, then a restart"
else
  fail "restart: the service did not start"
  kill -9 "$svc"
fi

# The sandbox's promises: no capability at all, every syscall a watch makes
# in SystemCallFilter=@system-service minus ~@privileged @resources.
expand_filter() {
  systemd-analyze syscall-filter "$1" | sed -n '2,$p' | sed 's/^ *//' | grep -v '^#' |
    while read -r s; do
      case $s in @*) expand_filter "$s" ;; "") ;; *) echo "$s" ;; esac
    done
}
if command -v strace >/dev/null && command -v systemd-analyze >/dev/null; then
  state >"$tmp/before"
  cg=$(make_cgroup sandbox)
  port=$(free_port)
  sandboxed=("${exec_start[@]/127.0.0.1:0/127.0.0.1:$port}" --duration 6s)
  (
    sleep 2
    reclaim "$cg"
    curl -sf "http://127.0.0.1:$port/metrics" >/dev/null
  ) &
  load=$!
  # (LeakSanitizer cannot work under ptrace: off, in a SAN=1 build.)
  ASAN_OPTIONS=detect_leaks=0 setpriv --inh-caps=-all --bounding-set=-all --no-new-privs -- \
    strace -f -qq -c -o "$tmp/strace" "${sandboxed[@]}" >"$tmp/svc.out" 2>"$tmp/svc.err"
  rc=$?
  wait "$load"
  awk 'NR > 2 && $NF != "total" && $1 !~ /^-/ { print $NF }' "$tmp/strace" | sort -u >"$tmp/used"
  expand_filter @system-service | sort -u >"$tmp/allowed"
  expand_filter @privileged | sort -u >"$tmp/denied"
  expand_filter @resources | sort -u >>"$tmp/denied"
  outside=$(comm -23 "$tmp/used" "$tmp/allowed" | tr '\n' ' ')
  denied=$(sort -u "$tmp/denied" | comm -12 "$tmp/used" - | tr '\n' ' ')
  lines=$(sed -n 's/^allocwatch: \([0-9]*\) lines read.*/\1/p' "$tmp/svc.err")
  if [ $rc = 0 ] && [ "${lines:-0}" -gt 0 ] && [ -z "$outside$denied" ]; then
    ok "without any capability the watch traces ($lines lines); its $(wc -l <"$tmp/used") syscalls are all in the unit's filter"
  else
    fail "sandboxed watch: exit $rc, ${lines:-0} lines; outside @system-service: $outside; denied: $denied"
    tail -5 "$tmp/svc.err"
  fi
  remove_cgroup "$cg"
  check_restored "the sandboxed watch"
else
  echo "ok - the syscall filter: not checked: no strace or systemd-analyze"
fi
kill "$notify_pid" 2>/dev/null
wait "$notify_pid" 2>/dev/null
daemons=()

# --- live: the journal, with a journald of our own --------------------------

if [ -x /lib/systemd/systemd-journald ] && command -v unshare >/dev/null; then
  state >"$tmp/before"
  cg=$(make_cgroup journal)
  # A private mount namespace: journald's sockets and files are on tmpfs
  # there; the machine's /run/systemd and /var/log/journal are not touched.
  unshare -m --propagation private bash -c '
    tmp=$1 bin=$2
    for d in /run/systemd /run/log /var/log/journal; do
      [ -d $d ] && mount -t tmpfs tmpfs $d
    done
    mkdir -p /run/systemd/journal
    /lib/systemd/systemd-journald >"$tmp/journald.log" 2>&1 &
    journald=$!
    for i in $(seq 50); do [ -S /run/systemd/journal/socket ] && break; sleep 0.1; done
    # As systemd runs a service: stdout and stderr a journal stream, named
    # by JOURNAL_STREAM. -t 20us: the check needs stall entries, and this
    # load (one reader) makes 37-63 memcg reclaims over 8us (four runs), of
    # which 15-25 are over 16us but only 2-7 over 100us, and some runs none.
    systemd-cat -t allocwatch-service bash -c "export JOURNAL_STREAM=\$(stat -L -c %d:%i /proc/\$\$/fd/1); exec $bin --watch -t 20us --duration 10s"
    sleep 0.5
    journalctl --no-pager -D /run/log/journal -o json >"$tmp/journal.json"
    kill $journald
    wait $journald
  ' journal "$tmp" "$bin" &
  journal_run=$!
  for i in $(seq 100); do
    pid=$(ls -d "$T"/instances/allocwatch-* 2>/dev/null | sed -n 's/.*allocwatch-\([0-9]*\)$/\1/p' | head -1)
    [ -n "$pid" ] && wait_started "$pid" && break
    sleep 0.1
  done
  # Readers that outlive the report of their stalls: the cgroup of a task
  # gone by then is unknown (allocwatch(8)).
  for _ in 1 2; do read_in_cgroup "$cg" 1; done
  wait "$journal_run"
  if [ -s "$tmp/journal.json" ]; then
    run_check python3 "$check" journal "$tmp/journal.json" "${cg#/sys/fs/cgroup/memory}"
  else
    fail "the private journald gave no journal: $(cat "$tmp/journald.log")"
  fi
  remove_cgroup "$cg"
  check_restored "the watch writing to the journal"
else
  echo "ok - the journal: not checked: no systemd-journald here"
fi

finish

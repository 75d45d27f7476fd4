#!/bin/bash
# Live tests: allocwatch on this machine's real tracefs (root only).
#
#   tests/live/run.sh BUILD_DIR
#
# Every check prints "ok - ..." or "FAIL - ..."; the last line is
# "live: N passed, N failed". The restore checks compare every tracefs file
# allocwatch could touch (tracefs-state.sh) before and after, byte for byte.
# What the tests change on purpose (a prior state, a memory cgroup, a data
# file) is put back by a trap, and the machine's whole tracing state is
# compared at the end with what it was at the start.
set -u
build=${1:-build}
cd "$(dirname "$0")/../.."
T=/sys/kernel/tracing
J=/run/allocwatch
bin=$build/allocwatch
suite=live
. tests/lib.sh

if [ "$(id -u)" != 0 ]; then
  echo "live: not run: they need root to configure the real tracefs"
  finish
fi
# The suite changes the machine's top-level tracing state and compares it
# byte for byte: two suites (two checkouts) at once would see each other's
# changes. Anything else that traces live on this machine takes this lock too.
exec 9>/tmp/allocwatch-live.lock
flock 9
# A fresh machine as root has tracefs in its kernel but may not have it
# mounted yet: mount it, as allocwatch does, and say so.
if [ ! -r "$T/available_events" ]; then
  if mount -t tracefs nodev "$T"; then
    echo "live: tracefs was not mounted: mounted it at $T (as allocwatch does)"
  else
    echo "live: not run: tracefs is not mounted at $T and mounting it failed (a kernel without CONFIG_TRACING?)"
    finish
  fi
fi

# --- the Session on the real tracefs, from the unit-test binary -----------

out=$(ALLOCWATCH_LIVE_TRACEFS=1 "$build/unit-tests" -tc='live:*' 2>&1)
line=$(printf '%s\n' "$out" | grep '^\[doctest\] test cases:' | tail -n 1)
p=$(printf '%s\n' "$line" | sed -n 's/.*| *\([0-9][0-9]*\) passed.*/\1/p')
f=$(printf '%s\n' "$line" | sed -n 's/.*| *\([0-9][0-9]*\) failed.*/\1/p')
if [ -z "$p" ] || [ -z "$f" ]; then
  printf '%s\n' "$out"
  fail "Session on the real tracefs: the unit tests gave no result"
elif [ "$f" = 0 ]; then
  echo "ok - Session on the real tracefs: $p cases"
else
  printf '%s\n' "$out"
  echo "FAIL - Session on the real tracefs: $f of $((p + f)) cases"
fi
passed=$((passed + ${p:-0}))
failed=$((failed + ${f:-0}))

# --- allocwatch itself ----------------------------------------------------

tmp=$(mktemp -d /tmp/allocwatch-live-XXXXXX)
# Memory cgroups: v1's memory hierarchy (this machine), or cgroup v2 with
# the memory controller (a fresh Debian), whose limit file is memory.max.
if [ -f /sys/fs/cgroup/memory/memory.limit_in_bytes ]; then
  cgroups=/sys/fs/cgroup/memory
  limit_file=memory.limit_in_bytes
else
  cgroups=/sys/fs/cgroup
  limit_file=memory.max
  grep -qw memory $cgroups/cgroup.subtree_control 2>/dev/null ||
    echo "live: the memory controller is not enabled in $cgroups/cgroup.subtree_control: the memcg cases will fail"
fi
data=/var/tmp/allocwatch-test-$$.dat
files=/var/tmp/allocwatch-test-$$.files
bg=""
load=""
dead=""

state() { tests/live/tracefs-state.sh "$T" "$J"; }
state >"$tmp/machine"

# The prior state the restore checks start from: not the default, and
# reversible. A never-used top-level ring buffer reads "7 (expanded: 1408)";
# enabling a top-level event, writing set_event_pid or buffer_size_kb there
# expands it for good, so those are part of the prior state only when that
# buffer was expanded already.
prior_files=(tracing_thresh tracing_on options/irq-info events/vmscan/mm_shrink_slab_start/filter)
expanded=no
if ! grep -q expanded "$T/buffer_size_kb"; then
  expanded=yes
  prior_files+=(set_event_pid events/compaction/mm_compaction_begin/enable buffer_size_kb)
fi
mkdir "$tmp/prior"
for f in "${prior_files[@]}"; do
  cat "$T/$f" >"$tmp/prior/${f//\//_}"
done

set_prior() {
  echo 50 >"$T/tracing_thresh"
  echo 0 >"$T/tracing_on"
  echo $((1 - $(cat "$T/options/irq-info"))) >"$T/options/irq-info"
  echo 'nr_objects_to_shrink > 100' >"$T/events/vmscan/mm_shrink_slab_start/filter"
  if [ $expanded = yes ]; then
    echo $$ >"$T/set_event_pid"
    echo 1 >"$T/events/compaction/mm_compaction_begin/enable"
    echo 2048 >"$T/buffer_size_kb"
  fi
  state >"$tmp/prior-state"
}

put_back_prior() {
  local f value
  for f in "${prior_files[@]}"; do
    value=$(cat "$tmp/prior/${f//\//_}")
    case $f in
    */filter) [ "$value" = none ] && value=0 ;;
    set_event_pid) : >"$T/$f" ;;
    esac
    [ -n "$value" ] && echo "$value" >"$T/$f"
  done
}

. tests/live/memcg.sh

cleanup() {
  [ -n "$bg" ] && kill -9 "$bg" 2>/dev/null && wait "$bg" 2>/dev/null
  [ -n "$load" ] && kill "$load" 2>/dev/null && wait "$load" 2>/dev/null
  # The forged journals and the symlinked journal directory.
  [ -L "$J" ] && rm "$J" && mkdir -m 700 "$J"
  [ -n "$dead" ] && rm -f "$J/$dead.state" "$J/$dead.state.tmp"
  "$bin" --restore >/dev/null 2>&1
  put_back_prior
  for cg in "$cgroups"/allocwatch-test-$$-*; do
    [ -d "$cg" ] && remove_cgroup_tree "$cg"
  done
  rm -rf "$data" "$files" "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP

# check_restored NAME: tracefs as it was before the run, byte for byte.
check_restored() {
  state >"$tmp/after"
  if cmp -s "$tmp/prior-state" "$tmp/after"; then
    ok "$1: tracefs byte-identical afterwards"
  else
    fail "$1: tracefs differs afterwards"
    diff "$tmp/prior-state" "$tmp/after" | head -20
  fi
}

# wait_started PID: until the run's instance traces (its last setup step).
wait_started() {
  local i
  for i in $(seq 150); do
    [ "$(cat "$T/instances/allocwatch-$1/tracing_on" 2>/dev/null)" = 1 ] && return 0
    kill -0 "$1" 2>/dev/null || return 1
    sleep 0.1
  done
  return 1
}

# start_bg ARGS: allocwatch in the background, $bg its pid.
start_bg() {
  "$bin" "$@" >"$tmp/out" 2>"$tmp/err" &
  bg=$!
}

# stop_bg SIGNAL: sends it, waits; $rc is the exit status.
stop_bg() {
  kill "-$1" "$bg"
  wait "$bg" 2>/dev/null
  rc=$?
  bg=""
}

# expect NAME STATUS FILE PATTERN: ok when the run ($rc) ended with STATUS
# and FILE holds PATTERN; else FAIL, and FILE.
expect() {
  if [ "$rc" = "$2" ] && grep -q -- "$4" "$3"; then
    ok "$1"
  else
    fail "$1 (exit $rc)"
    cat "$3"
  fi
}

# A normal end.
set_prior
"$bin" -t 50us --duration 2s >"$tmp/out" 2>"$tmp/err"
rc=$?
expect "--duration 2s: exit 0, says events mode and why" 0 "$tmp/err" \
  "events mode: this kernel has no function_graph tracer"
check_restored "--duration 2s"
put_back_prior

# The signals that end a run the normal way.
for sig in INT TERM HUP; do
  set_prior
  start_bg -t 50us --duration 60s
  if wait_started "$bg"; then
    stop_bg "$sig"
    [ $rc = 0 ] && ok "SIG$sig: exit 0" || { fail "SIG$sig: exit $rc"; cat "$tmp/err"; }
  else
    fail "SIG$sig: allocwatch did not start"
    cat "$tmp/err"
    stop_bg KILL
  fi
  check_restored "SIG$sig"
  put_back_prior
done

# Reclaim on demand: a 64 MiB memory cgroup reads a file five times larger,
# written around the page cache so that reading it charges the cgroup.
dd if=/dev/zero of="$data" bs=1M count=320 oflag=direct status=none
make_cgroup() { # NAME: prints its directory
  mkdir "$cgroups/allocwatch-test-$$-$1" &&
    echo $((64 << 20)) >"$cgroups/allocwatch-test-$$-$1/$limit_file" &&
    echo "$cgroups/allocwatch-test-$$-$1"
}

# SIGPIPE: the reader of the output goes away while lines flow.
set_prior
cg=$(make_cgroup pipe)
(while :; do read_in_cgroup "$cg"; done) &
reader=$!
start=$SECONDS
timeout 60 "$bin" -t 1us --duration 30s 2>"$tmp/err" | head -n 1 >"$tmp/first"
rc=${PIPESTATUS[0]}
took=$((SECONDS - start))
kill "$reader"
wait "$reader" 2>/dev/null
remove_cgroup "$cg"
if [ -s "$tmp/first" ] && [ "$took" -lt 30 ]; then
  ok "SIGPIPE: ended ${took}s after its reader left (exit $rc)"
else
  fail "SIGPIPE: did not end with its reader (exit $rc, ${took}s, first line: $(cat "$tmp/first"))"
  cat "$tmp/err"
fi
check_restored "SIGPIPE"
put_back_prior

# An error half-way through setup: the ring buffer cannot be that large.
set_prior
sed 's/^buffer_size_kb:.*/buffer_size_kb: 4000000000/' configs/default.yaml >"$tmp/huge.yaml"
"$bin" -p "$tmp/huge.yaml" -t 50us --duration 2s >"$tmp/out" 2>"$tmp/err"
rc=$?
expect "setup error half-way: exit 1, says why" 1 "$tmp/err" "buffer_size_kb: Cannot allocate memory"
check_restored "setup error half-way"
put_back_prior

# kill -9, then allocwatch --restore.
set_prior
start_bg -t 50us --duration 60s
if wait_started "$bg"; then
  killed=$bg
  stop_bg KILL
  if [ -d "$T/instances/allocwatch-$killed" ] && [ -f "$J/$killed.state" ]; then
    ok "kill -9: the instance and the journal are left"
  else
    fail "kill -9: no instance or no journal left behind"
  fi
  "$bin" --restore >"$tmp/out" 2>&1
  rc=$?
  expect "--restore after kill -9: says what it did" 0 "$tmp/out" "restored what pid $killed changed"
  check_restored "kill -9 then --restore"
  "$bin" --restore >"$tmp/out" 2>&1
  rc=$?
  expect "--restore again: nothing to do" 0 "$tmp/out" "nothing to restore"
else
  fail "kill -9: allocwatch did not start"
  cat "$tmp/err"
  stop_bg KILL
fi
put_back_prior

# Real memcg reclaim, stopped with SIGINT; its saved trace replays the same.
state >"$tmp/prior-state"
cg=$(make_cgroup memcg)
charge_dentries "$cg"
start_bg -t 50us --save "$tmp/raw.trace" --timeline "$tmp/timeline.json" --report "$tmp/report.txt"
if wait_started "$bg"; then
  read_in_cgroup "$cg"
  sleep 0.5
  stop_bg INT
  reader_pid=$(sed -n 's/^ *cat-\([0-9]*\) .* mm_vmscan_memcg_reclaim_begin: .*/\1/p' "$tmp/out" | head -n 1)
  cp "$tmp/out" "$tmp/live.out"
  [ $rc = 0 ] && ok "memcg reclaim: exit 0 on SIGINT" || { fail "memcg reclaim: exit $rc"; cat "$tmp/err"; }
  # Each printed memcg span (begin, the lines it claims, end) lasts 50us or
  # more; some claim the lru_shrink_inactive lines of their reclaim.
  spans=$(awk '
    / mm_vmscan_memcg_reclaim_begin: / { open = 1; ts = time($0); claimed = 0; next }
    / mm_vmscan_lru_shrink_inactive: / { if (open) claimed++; next }
    / mm_vmscan_memcg_reclaim_end: / {
      # In whole microseconds: 0.000050 in floating point can read as 0.0000499999.
      if (open && int((time($0) - ts) * 1000000 + 0.5) >= 50) { long++; if (claimed) claiming++ } else bad++
      open = 0
    }
    function time(line,   f, i, n) {
      n = split(line, f, " ")
      for (i = 1; i <= n; i++) if (f[i] ~ /^[0-9]+\.[0-9]+:$/) return f[i] + 0
    }
    END { printf "%d %d %d\n", long, claiming, bad }' "$tmp/live.out")
  set -- $spans
  if [ "${1:-0}" -gt 0 ] && [ "${2:-0}" -gt 0 ] && [ "${3:-1}" = 0 ]; then
    ok "memcg reclaim: $1 spans of 50us or more, $2 with their lru_shrink_inactive lines"
  else
    fail "memcg reclaim: spans over 50us / claiming / shorter: $spans"
    head -20 "$tmp/live.out"
  fi
  grep -q ' : total time = .* ms, max latency = ' "$tmp/live.out" &&
    ok "memcg reclaim: shrinker totals" || fail "memcg reclaim: no shrinker totals"
  "$bin" -t 50us -i "$tmp/raw.trace" >"$tmp/replay.out" 2>"$tmp/replay.err"
  if cmp -s "$tmp/live.out" "$tmp/replay.out"; then
    ok "memcg reclaim: the --save'd trace replays to the same output"
  else
    fail "memcg reclaim: the replay differs"
    diff "$tmp/live.out" "$tmp/replay.out" | head -10
  fi
  # The stall report after SIGINT: on stderr (not a terminal: every row),
  # with the reader's memcg reclaim row, the same in the --report file and
  # in the replay of the saved trace.
  sed -n '/^allocwatch: stalls of /,/^allocwatch: [0-9]* lines read/p' "$tmp/err" | sed '$d' >"$tmp/live-report"
  sed -n '/^allocwatch: stalls of /,/^allocwatch: [0-9]* lines read/p' "$tmp/replay.err" | sed '$d' >"$tmp/replay-report"
  row=$(grep -E "^  cat-${reader_pid:-none} +memcg reclaim +memcg_reclaim +[0-9]+ " "$tmp/live-report")
  if [ -n "$reader_pid" ] && [ -n "$row" ] && grep -q '^allocwatch: latency of memcg reclaim stalls' "$tmp/live-report" &&
    grep -q '^  memcg reclaim .* [0-9][0-9]*\.[0-9]%$' "$tmp/live-report"; then
    ok "memcg reclaim: the stall report after SIGINT:$(echo "$row" | tr -s ' ')"
  else
    fail "memcg reclaim: no stall report with the reader's (cat-$reader_pid) memcg reclaim row"
    cat "$tmp/err" | head -n 30
  fi
  cmp -s "$tmp/live-report" "$tmp/report.txt" && ok "memcg reclaim: --report FILE holds the same report" ||
    fail "memcg reclaim: --report FILE differs from the report on stderr"
  cmp -s "$tmp/live-report" "$tmp/replay-report" &&
    ok "memcg reclaim: the replay of the saved trace gives the same report" ||
    { fail "memcg reclaim: the replay's report differs"; diff "$tmp/live-report" "$tmp/replay-report" | head; }
  if /usr/bin/python3 tests/report/check_timeline.py "$tmp/timeline.json" >"$tmp/check" 2>&1; then
    ok "memcg reclaim: --timeline is valid trace-event JSON, nested ($(sed 's/^check_timeline: ok: //' "$tmp/check"))"
  else
    fail "memcg reclaim: --timeline: $(cat "$tmp/check")"
  fi
else
  fail "memcg reclaim: allocwatch did not start"
  cat "$tmp/err"
  stop_bg KILL
fi
check_restored "memcg reclaim"
remove_cgroup "$cg"
rm -rf "$files"

# The status line: on a terminal (script(1) gives allocwatch a pseudo-
# terminal as stderr), drawn in place at most once a second, erased before
# the report; absent when stderr is a file, and with -q.
status_line_runs() { # NAME ARGS: live run of 3 s under memcg reclaim, stderr in $tmp/tty
  local cg
  state >"$tmp/prior-state"
  cg=$(make_cgroup "$1")
  shift
  (while :; do read_in_cgroup "$cg"; done) &
  reader=$!
  script -qec "$bin -t 50us --duration 3s $* >$tmp/tty.out" "$tmp/tty" >/dev/null 2>&1
  kill "$reader"
  wait "$reader" 2>/dev/null
  remove_cgroup "$cg"
}
esc=$(printf '\033')
status_line_runs tty
draws=$(grep -o "$esc\[Kallocwatch: [0-9]*s, [0-9]* lines, [0-9]* stalls of 50us or more" "$tmp/tty" | wc -l)
# What follows the last erase: the report, not a status line left behind.
after=$(tr '\r' '\n' <"$tmp/tty" | grep "^$esc\[K" | tail -n 1 | cut -c4-)
if [ "$draws" -ge 2 ] && [ "$draws" -le 5 ] &&
  case $after in "allocwatch: stalls of 50us or more, by task"* | "allocwatch: no stall"*) true ;; *) false ;; esac; then
  ok "status line on a terminal: drawn $draws times in 3 s, erased before the report"
else
  fail "status line on a terminal: $draws draws, then '$after'"
  tr '\r' '\n' <"$tmp/tty" | cat -v | head -n 12
fi
check_restored "status line on a terminal"
status_line_runs tty-quiet -q
if [ -s "$tmp/tty.out" ] && ! grep -q "$esc" "$tmp/tty"; then
  ok "status line: none with -q"
else
  fail "status line: -q still draws it (or traced nothing)"
fi
state >"$tmp/prior-state"
cg=$(make_cgroup notty)
(while :; do read_in_cgroup "$cg"; done) &
reader=$!
"$bin" -t 50us --duration 3s >"$tmp/out" 2>"$tmp/err"
kill "$reader"
wait "$reader" 2>/dev/null
remove_cgroup "$cg"
if ! grep -q "$esc" "$tmp/err" && ! grep -q ' lines, .* stalls of ' "$tmp/err" &&
  grep -q 'allocwatch: stalls of 50us or more' "$tmp/err"; then
  ok "status line: none when stderr is a file (the report is there)"
else
  fail "status line: stderr to a file has escape sequences or a status line"
  cat -v "$tmp/err" | head -n 5
fi
check_restored "status line"

. tests/live/attribution.sh
. tests/live/raw.sh
. tests/live/trace_dat.sh

# Refusals: each a clear message, a non-zero exit, nothing changed.
state >"$tmp/prior-state"
runuser -u nobody -- "$bin" -t 50us --duration 1s >"$tmp/out" 2>"$tmp/err"
rc=$?
expect "not root: exit 1, says root is needed" 1 "$tmp/err" "needs root"
mkdir "$tmp/empty"
"$bin" --tracefs "$tmp/empty" -t 50us --duration 1s >"$tmp/out" 2>"$tmp/err"
rc=$?
expect "no tracefs: exit 1, names what is missing" 1 "$tmp/err" \
  "cannot read $tmp/empty/available_tracers"
start_bg -t 50us --duration 60s
if wait_started "$bg"; then
  "$bin" -t 50us --duration 1s >"$tmp/out2" 2>"$tmp/err2"
  rc=$?
  expect "another allocwatch running: exit 1, says so" 1 "$tmp/err2" "another allocwatch"
  stop_bg INT
else
  fail "another allocwatch running: the first did not start"
  stop_bg KILL
fi
"$bin" --check >"$tmp/out" 2>"$tmp/err"
rc=$?
expect "--check: prints the plan" 0 "$tmp/out" "^mode: *events"
check_restored "refusals and --check"

# Graph mode and a tracer in use, on a fake tracefs (this kernel has no
# function_graph): plain files, and a FIFO with no writer as trace_pipe.
fake=$tmp/fake
mkdir -p "$fake/options" "$fake/instances"
echo "function_graph function nop" >"$fake/available_tracers"
echo nop >"$fake/current_tracer"
echo 0 >"$fake/tracing_thresh"
echo 1 >"$fake/tracing_on"
echo 1408 >"$fake/buffer_size_kb"
: >"$fake/set_ftrace_filter"
: >"$fake/trace"
printf '%s\n' __alloc_pages_noprof try_to_free_pages shrink_node shrink_slab >"$fake/available_filter_functions"
for o in funcgraph-proc funcgraph-abstime funcgraph-tail funcgraph-duration; do echo 0 >"$fake/options/$o"; done
sed -n 's#^  - \(vmscan\|compaction\)/\(.*\)$#\1 \2#p' configs/default.yaml | while read -r sys ev; do
  mkdir -p "$fake/events/$sys/$ev"
  echo 0 >"$fake/events/$sys/enable"
  echo 0 >"$fake/events/$sys/$ev/enable"
  echo none >"$fake/events/$sys/$ev/filter"
  echo "$sys:$ev" >>"$fake/available_events"
done
mkfifo "$fake/trace_pipe"
tests/live/tracefs-state.sh "$fake" "$J" >"$tmp/fake-before"
"$bin" --tracefs "$fake" -t 100us --duration 1s >"$tmp/out" 2>"$tmp/err"
rc=$?
tests/live/tracefs-state.sh "$fake" "$J" >"$tmp/fake-after"
if [ $rc = 0 ] && cmp -s "$tmp/fake-before" "$tmp/fake-after"; then
  ok "graph mode on a fake tracefs: exit 0, every file put back"
else
  fail "graph mode on a fake tracefs: exit $rc"
  cat "$tmp/err"
  diff "$tmp/fake-before" "$tmp/fake-after" | head
fi
echo function >"$fake/current_tracer"
tests/live/tracefs-state.sh "$fake" "$J" >"$tmp/fake-before"
"$bin" --tracefs "$fake" -t 100us --duration 1s >"$tmp/out" 2>"$tmp/err"
rc=$?
tests/live/tracefs-state.sh "$fake" "$J" >"$tmp/fake-after"
expect "a tracer in use: exit 1, says which" 1 "$tmp/err" \
  "another tracer is active at the top level (current_tracer is 'function')"
cmp -s "$tmp/fake-before" "$tmp/fake-after" && ok "a tracer in use: nothing changed" ||
  fail "a tracer in use: the fake tracefs changed"

# --- write errors: the output is the product; losing it is an error -------

# A stream of events while it runs: memcg reclaim in the background.
start_load() {
  load_cg=$(make_cgroup "$1")
  (while :; do read_in_cgroup "$load_cg"; done) >/dev/null 2>&1 &
  load=$!
}
stop_load() {
  kill "$load"
  wait "$load" 2>/dev/null
  remove_cgroup "$load_cg"
}

state >"$tmp/prior-state"
start_load full
timeout 60 "$bin" -t 1us --duration 3s >/dev/full 2>"$tmp/err"
rc=$?
expect "stdout on a full device: exit 1, says why" 1 "$tmp/err" \
  "^allocwatch: cannot write stdout: No space left on device$"
timeout 60 "$bin" -t 1us --duration 3s --source text --save /dev/full >"$tmp/out" 2>"$tmp/err"
rc=$?
expect "--save of the text on a full device: exit 1, says why" 1 "$tmp/err" \
  "^allocwatch: cannot write /dev/full: No space left on device$"
# A trace.dat is made beside its name and renamed: a device is refused.
timeout 60 "$bin" -t 1us --duration 3s --save /dev/full >"$tmp/out" 2>"$tmp/err"
rc=$?
expect "--save of a trace.dat to a device: exit 1, says why" 1 "$tmp/err" \
  "^allocwatch: --save /dev/full: cannot write /dev/full: not a regular file"
stop_load
check_restored "write errors"
mkdir "$tmp/ro" "$tmp/small"
# A read-only file system, and one too small for the pages, each mounted in
# a mount namespace of its own.
for source in text raw; do
  unshare --mount --propagation private sh -c \
    'mount -t tmpfs -o ro tmpfs "$1" && exec "$2" -t 50us --duration 1s --source "$3" --save "$1/raw.trace"' \
    sh "$tmp/ro" "$bin" "$source" >"$tmp/out" 2>"$tmp/err"
  rc=$?
  expect "--save ($source) on a read-only file system: exit 1, says why" 1 "$tmp/err" \
    "$tmp/ro/raw.trace: Read-only file system"
done
start_load small
unshare --mount --propagation private sh -c \
  'mount -t tmpfs -o size=8k tmpfs "$1" && exec "$2" -t 1us --duration 3s --save "$1/raw.dat"; ' \
  sh "$tmp/small" "$bin" >"$tmp/out" 2>"$tmp/err"
rc=$?
stop_load
expect "--save of a trace.dat on a full file system: exit 1, says why" 1 "$tmp/err" \
  "No space left on device"
check_restored "--save on a read-only or full file system"

# --- start-up killed at any point, then --restore ---------------------------

# kill -9 at delays across start-up (journal written, renamed, instance
# made, configured): --restore always puts tracefs back, and leaves no
# journal, finished or not.
state >"$tmp/prior-state"
leftovers=""
for delay in 0.001 0.003 0.006 0.01 0.02 0.04 0.08 0.15 0.3; do
  "$bin" -t 50us --duration 60s >/dev/null 2>&1 &
  victim=$!
  sleep "$delay"
  kill -9 "$victim"
  wait "$victim" 2>/dev/null
  "$bin" --restore >"$tmp/restore.out" 2>&1 || leftovers="$leftovers [${delay}s: --restore failed: $(cat "$tmp/restore.out")]"
  [ -n "$(ls -A "$J" 2>/dev/null)" ] && leftovers="$leftovers [${delay}s: left $(ls "$J")]"
  state >"$tmp/after"
  cmp -s "$tmp/prior-state" "$tmp/after" || leftovers="$leftovers [${delay}s: tracefs differs]"
done
[ -z "$leftovers" ] && ok "kill -9 at 9 points of start-up, then --restore: tracefs as before, no journal left" ||
  fail "kill -9 during start-up:$leftovers"

# A journal a killed run had not finished writing: removed, and said.
dead=$(sh -c 'echo $$')
mkdir -p "$J"
printf 'allocwatch-journal 2\npid %s\n' "$dead" >"$J/$dead.state.tmp"
"$bin" --restore >"$tmp/out" 2>&1
rc=$?
expect "--restore removes an unfinished journal and says so" 0 "$tmp/out" \
  "removed $J/$dead.state.tmp, the journal pid $dead was writing when it was killed"
[ ! -e "$J/$dead.state.tmp" ] && ok "--restore: the unfinished journal is gone" ||
  fail "--restore left $J/$dead.state.tmp"

# --- --restore trusts no journal it did not write ---------------------------

# forge PATH ENTRY CONTENT TRACING_DIR [INSTANCE]: a format-2 journal of the
# dead pid, as a forger would plant it.
forge() {
  rm -f "$1"
  printf 'allocwatch-journal 2\npid %s\nstart_time 1\ntracing_dir %s\ninstance %s\nfile %s %d\n%s\nend\n' \
    "$dead" "$4" "${5:-}" "$2" "${#3}" "$3" >"$1"
  chmod 600 "$1"
}
# refused NAME PATTERN: --restore exits 1 saying PATTERN, tracefs and the
# victim file untouched, the journal kept.
refused() {
  "$bin" --restore >"$tmp/out" 2>&1
  rc=$?
  expect "--restore refuses $1" 1 "$tmp/out" "$2"
  [ "$(cat "$tmp/victim")" = precious ] || fail "--restore $1: the victim file was written"
}
echo precious >"$tmp/victim"
mkdir "$tmp/plain"
echo nop >"$tmp/plain/current_tracer"
state >"$tmp/prior-state"
journal=$J/$dead.state
forge "$journal" "../../../../../../..$tmp/victim" owned "$T"
refused "an entry path with '..'" "it names '../../../../../../..$tmp/victim', not a file allocwatch saves"
forge "$journal" current_tracer function "$tmp/plain"
refused "a tracing directory that is not a tracefs" "its tracing directory '$tmp/plain' is not a tracefs or debugfs"
[ "$(cat "$tmp/plain/current_tracer")" = nop ] || fail "--restore wrote into $tmp/plain"
forge "$journal" current_tracer nop "$T" mine
refused "an instance not its own" "its instance 'mine' is not allocwatch-$dead"
forge "$journal" current_tracer nop "$T"
chown nobody "$journal"
chmod 666 "$journal"
refused "a journal of another user, mode 0666" "refusing the journal $journal: it is owned by another user"
forge "$journal" current_tracer nop "$T"
head -c -4 "$journal" >"$tmp/cut" && cat "$tmp/cut" >"$journal"
refused "a journal cut short" "is damaged (cut short: no end marker)"
rm -f "$journal"
# /run/allocwatch as a symlink to a directory someone else made.
mkdir -p "$tmp/elsewhere"
forge "$tmp/elsewhere/$dead.state" current_tracer nop "$T"
rmdir "$J" 2>/dev/null && ln -s "$tmp/elsewhere" "$J" &&
  refused "a journal directory that is a symlink" "refusing the journal directory $J: it is a symbolic link"
[ -L "$J" ] && rm "$J" && mkdir -m 700 "$J"
check_restored "forged journals"

# --- a minimal root without /run (an initramfs, some containers) -----------

# A root of /usr, /proc, /sys and /dev only, in a mount namespace of its
# own: allocwatch makes /run (0755) and /run/allocwatch (0700) in it.
root=$tmp/root
mkdir -p "$root/usr" "$root/proc" "$root/sys" "$root/dev" "$root/aw"
for d in bin lib lib64 sbin; do [ -L "/$d" ] && ln -s "$(readlink "/$d")" "$root/$d"; done
cp "$bin" configs/default.yaml "$root/aw/"
state >"$tmp/prior-state"
unshare --mount --propagation private sh -c '
  mount --rbind /usr "$1/usr" && mount --rbind /sys "$1/sys" && mount --rbind /dev "$1/dev" &&
    mount -t proc proc "$1/proc" &&
    exec chroot "$1" /aw/allocwatch -p /aw/default.yaml -t 50us --duration 1s' sh "$root" \
  >"$tmp/out" 2>"$tmp/err"
rc=$?
if [ $rc = 0 ] && [ "$(stat -c %a "$root/run")" = 755 ] && [ "$(stat -c %a "$root/run/allocwatch")" = 700 ]; then
  ok "no /run: exit 0, made /run (0755) and /run/allocwatch (0700)"
else
  fail "no /run: exit $rc"
  cat "$tmp/err"
fi
check_restored "no /run"

# The machine as the tests found it.
put_back_prior
state >"$tmp/now"
if cmp -s "$tmp/machine" "$tmp/now"; then
  ok "the machine's tracing state is as before the live tests"
else
  fail "the machine's tracing state differs from before the live tests"
  diff "$tmp/machine" "$tmp/now" | head -20
fi
finish

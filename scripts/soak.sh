#!/bin/bash
# make soak: allocwatch --watch for SOAK_SECONDS (default 600) under memcg
# reclaim with more task churn than any of its bounded tables can hold, its
# metrics file rewritten every second and --listen scraped every two seconds.
#
#   SOAK_SECONDS=N scripts/soak.sh BUILD/allocwatch
#
# The load, time-compressed (a day of a busy container host's churn in twenty
# minutes): in cycles of 25 s of churn and 5 s of quiet, two streams of
# memory cgroups (allocwatch-test-soak-PID-S-N, 32 MiB) made and removed one
# after another; in each, 40 short-lived readers at once of parts of a file
# larger than the limit (memcg reclaim), each a new pid under one of 4000
# task names (symlinks to perl: the kernel takes comm from the name
# executed) that lives 0.3 s past its read (so that its cgroup can be read),
# one in eight killed with SIGKILL while it reads (tasks that die
# mid-reclaim), and a tmpfs mounted in a private mount namespace while they
# run, with negative dentries charged to the cgroup (a filesystem shrinker
# that comes and goes). Every third cycle the machine's caches are dropped
# (every shrinker) and its memory compacted.
#
# Every 10 s it records the watch's RSS, its open descriptors, the series in
# its metrics file and each table the metrics publish
# (allocwatch_table_entries, allocwatch_table_max_entries), with the churn
# so far; SOAK_LOG=FILE keeps that curve. It passes when:
# - warm-up, the later of a third of the run and the first sample by which
#   the tables the churn fills have reached their bounds (task rows, the
#   pid-to-cgroup cache and the cgroup rows: at least 7/8 of the bound, or
#   fewer entries than at the sample before, which only a full table's fold
#   or forgetting makes) and memcg reclaim's comm series are full (ten and
#   "other"), comes before half of the run: else the load did not fill them
#   and proves nothing;
# - after warm-up, split into two halves, the second half's highest value
#   of each measure is at most the first half's plus its tolerance: RSS
#   128 KiB in a soak of 1200 s or more (at the 27 KiB a minute the watch
#   once grew by, a 20-minute soak's halves differ by 180 KiB), 3 % in a
#   shorter one (after the tables fill, the allocator settles for about
#   ten minutes under the cgroup cache's cycles of filling and forgetting:
#   350 KiB in the long soak, then flat; in 300 s soaks, with the heap's
#   free pages given back every 10 s, the halves differed by up to 340
#   KiB, as the tables' fill peaked), descriptors (open_fds) and series
#   none, and a table with a bound never above it (below it, its size
#   follows the load);
#   the table without a bound of its own (tasks: those seen since the last
#   sweep, read every second) is judged by its mean over each half, which
#   may grow by a quarter (growth without end, linear from the start, makes
#   the second half's mean two thirds larger; its highest value follows the
#   load's bursts, and moved by 29 % between the halves of a flat run);
# - every scrape was answered, the watch exited 0 after SIGTERM, tracefs is
#   byte-identical, and its output is what a watch writes: span and lost
#   records while it runs; at the end, after the last of them, the shrinker
#   totals, then the stall report's records (run, stall, background,
#   background_work, order, reclaim, histogram; then cgroup, memcg), its task
#   rows bounded.
#
# Root, tracefs and cgroup v1 memory. It holds /tmp/allocwatch-live.lock the
# whole time: the one long hold of the live lock the team allows.
set -u
bin=$(realpath "$1")
seconds=${SOAK_SECONDS:-600}
cd "$(dirname "$0")/.."
T=/sys/kernel/tracing
J=/run/allocwatch
CG=/sys/fs/cgroup/memory

if [ "$(id -u)" != 0 ]; then
  echo "soak: needs root (the real tracefs, memory cgroups)" >&2
  exit 1
fi
if [ "$seconds" -lt 120 ]; then
  echo "soak: SOAK_SECONDS=$seconds: at least 120 (warm-up, then two halves to compare)" >&2
  exit 2
fi
exec 9>/tmp/allocwatch-live.lock
echo "soak: waiting for /tmp/allocwatch-live.lock" >&2
flock 9
echo "soak: holding /tmp/allocwatch-live.lock for $seconds s (the team's one long hold)" >&2

tmp=$(mktemp -d /tmp/allocwatch-soak-XXXXXX)
cgroups=$CG/allocwatch-test-soak-$$
data=/var/tmp/allocwatch-test-soak-$$.dat
watch=""
helpers=()
# remove_cgroup CGROUP: the live suites' (kills what runs in it, removes it).
. tests/live/memcg.sh
cleanup() {
  local pid cg
  for pid in "${helpers[@]}"; do
    kill "$pid" 2>/dev/null
  done
  # Stopped the normal way; --restore after it, if it could not.
  [ -n "$watch" ] && kill -TERM "$watch" 2>/dev/null
  wait 2>/dev/null
  "$bin" --restore >/dev/null 2>&1
  for cg in "$cgroups"-*; do
    [ -d "$cg" ] && remove_cgroup "$cg"
  done
  rm -rf "$tmp" "$data"
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP

tests/live/tracefs-state.sh "$T" "$J" >"$tmp/before"
dd if=/dev/zero of="$data" bs=1M count=320 oflag=direct status=none
mkdir "$tmp/names" "$tmp/mnt"
for n in $(seq -w 0 3999); do
  ln -s "$(command -v perl)" "$tmp/names/s$n"
done
# A reader: ARGV[2] blocks of 64 KiB of ARGV[0] from block ARGV[1], then 0.3 s.
read_part='open(my $f, "<", $ARGV[0]) or die; sysseek($f, $ARGV[1] * 65536, 0);
  my ($b, $n) = (undef, $ARGV[2]); sysread($f, $b, 65536) while $n--;
  select(undef, undef, undef, 0.3)'

port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
# Only each record's type, pid and comm are kept: a long soak writes GBs.
mkfifo "$tmp/fifo"
cut -d, -f1-4 <"$tmp/fifo" >"$tmp/out" &
cutter=$!
"$bin" --watch -t 100us --metrics-file "$tmp/soak.prom" --metrics-interval 1s \
  --listen "127.0.0.1:$port" >"$tmp/fifo" 2>"$tmp/err" &
watch=$!
for i in $(seq 150); do
  [ "$(cat "$T/instances/allocwatch-$watch/tracing_on" 2>/dev/null)" = 1 ] && break
  sleep 0.1
done

# One cgroup's life: a tmpfs with negative dentries charged to it, mounted
# while 40 readers run (each a new pid, a random name of the 4000, a random
# part of the file; every eighth killed 10-50 ms in); then it is removed.
one_cgroup() {
  local cg=$cgroups-$1 mnt=$tmp/mnt/$1 j name reader holder
  mkdir "$cg" "$mnt"
  echo $((32 << 20)) >"$cg/memory.limit_in_bytes"
  # Its pages were charged to a cgroup removed since: read from disk again.
  dd if="$data" iflag=nocache count=0 status=none
  (
    echo "$BASHPID" >"$cg/cgroup.procs"
    unshare -m sh -c "mount -t tmpfs -o size=1m none $mnt &&
      i=0; while [ \$i -lt 300 ]; do [ -e $mnt/x\$i ]; i=\$((i + 1)); done; exec sleep 600" &
    holder=$!
    for j in $(seq 40); do
      name=s$(printf '%04d' $(((RANDOM * 32768 + RANDOM) % 4000)))
      echo "$name" >>"$tmp/names-used"
      "$tmp/names/$name" -e "$read_part" "$data" $((RANDOM % 4800)) $((RANDOM % 32 + 16)) &
      reader=$!
      if [ $((j % 8)) = 0 ]; then
        sleep "0.0$((RANDOM % 5 + 1))"
        kill -9 "$reader" 2>/dev/null && echo killed >>"$tmp/killed"
      fi
    done
    wait "$reader"
    kill "$holder"
    wait
  ) 2>/dev/null
  remove_cgroup "$cg"
  rmdir "$mnt"
  echo "$1" >>"$tmp/cgroups"
}
# STREAM: cgroups one after another, in cycles.
churn() {
  local cycle=0 n=0 end
  while :; do
    cycle=$((cycle + 1))
    end=$((SECONDS + 25))
    while [ $SECONDS -lt $end ]; do
      n=$((n + 1))
      one_cgroup "$1-$n"
    done
    if [ "$1" = 1 ] && [ $((cycle % 3)) = 0 ]; then
      echo 2 >/proc/sys/vm/drop_caches
      echo 1 >/proc/sys/vm/compact_memory
    fi
    sleep 5
  done
}
churn 1 &
helpers+=($!)
churn 2 &
helpers+=($!)

# The scraper: --listen every 2 s.
(
  while :; do
    if curl -sf -m 10 "http://127.0.0.1:$port/metrics" -o "$tmp/scrape"; then
      echo ok >>"$tmp/scrapes"
    else
      echo fail >>"$tmp/scrapes"
    fi
    sleep 2
  done
) &
helpers+=($!)

count() { [ -f "$1" ] && wc -l <"$1" || echo 0; }
# The watch's open descriptors: the fewest of three reads 50 ms apart. A
# leaked one is open in all three; one that a scrape, a metrics rewrite or a
# read of /proc holds for a moment is not a leak.
open_fds() {
  local i n fewest=
  for i in 1 2 3; do
    n=$(ls "/proc/$watch/fd" | wc -l)
    [ -z "$fewest" ] || [ "$n" -lt "$fewest" ] && fewest=$n
    [ $i = 3 ] || sleep 0.05
  done
  echo "$fewest"
}
# One line of KEY=VALUE: the time, the watch's RSS, descriptors and series,
# the stalls and churn so far, then each published table's entries.
sample() {
  local prom=$tmp/soak.prom
  printf 't=%d rss_kb=%s fds=%s series=%s stalls=%s memcg_comm_series=%s procs=%s killed=%s cgroups=%s' \
    $((SECONDS - start)) \
    "$(sed -n 's/^VmRSS:[[:space:]]*\([0-9]*\) kB/\1/p' "/proc/$watch/status")" \
    "$(open_fds)" \
    "$(grep -vc '^#' "$prom")" \
    "$(awk '/^allocwatch_stall_duration_seconds_count/ { n += $NF } END { print n + 0 }' "$prom")" \
    "$(grep -c '^allocwatch_stalls_total{kind="memcg reclaim"' "$prom")" \
    "$(count "$tmp/names-used")" "$(count "$tmp/killed")" "$(count "$tmp/cgroups")"
  sed -n '/{table="tasks"}/d; s/^allocwatch_table_entries{table="\([a-z_]*\)"} \([0-9]*\)$/ \1=\2/p' "$prom" | tr -d '\n'
  awk '{ n++; s += $1 } END { printf " tasks=%.1f\n", n ? s / n : 0 }' "$tmp/tasks-now"
  : >"$tmp/tasks-now"
}
# The tasks table follows the load from one sweep to the next: read every
# second, its mean over the ten seconds is what a sample records.
read_tasks() {
  sed -n 's/^allocwatch_table_entries{table="tasks"} \([0-9]*\)$/\1/p' "$tmp/soak.prom"
}
start=$SECONDS
: >"$tmp/tasks-now"
while [ $((SECONDS - start)) -lt "$seconds" ]; do
  for i in 1 2 3 4 5 6 7 8 9 10; do
    sleep 1
    read_tasks >>"$tmp/tasks-now"
  done
  sample >>"$tmp/samples"
  tail -1 "$tmp/samples" | cut -d' ' -f1-5 | sed 's/^/soak: /' >&2
done
# The watch's CPU time so far (user, system), in clock ticks.
read -r cpu_user cpu_system < <(awk '{ print $14, $15 }' "/proc/$watch/stat")
ticks=$(getconf CLK_TCK)
for pid in "${helpers[@]}"; do
  kill "$pid" 2>/dev/null
  wait "$pid" 2>/dev/null
done
helpers=()
for cg in "$cgroups"-*; do
  [ -d "$cg" ] && remove_cgroup "$cg"
done
cp "$tmp/out" "$tmp/out.running"

kill -TERM "$watch"
wait "$watch"
rc=$?
watch=""
wait "$cutter"
tests/live/tracefs-state.sh "$T" "$J" >"$tmp/after"
cp "$tmp/samples" "${SOAK_LOG:-/dev/null}"

prom=$tmp/soak.prom
value() { sed -n "s/^$1 //p" "$prom" | head -1; }
lines=$(value allocwatch_trace_lines_read_total)
lost=$(value allocwatch_events_lost_total)
dropped=$(value allocwatch_held_lines_dropped_total)
background=$(awk '/^allocwatch_background_duration_seconds_count/ { n += $NF } END { print n + 0 }' "$prom")
stalls=$(awk '/^allocwatch_stall_duration_seconds_count/ { n += $NF } END { print n + 0 }' "$prom")
# Each table's bound, TABLE=N, from the last metrics the watch wrote.
maxes=$(sed -n 's/^allocwatch_table_max_entries{table="\([a-z_]*\)"} \([0-9]*\)$/\1=\2/p' "$prom" | tr '\n' ' ')
scrapes_ok=$(grep -c ok "$tmp/scrapes")
scrapes_failed=$(grep -c fail "$tmp/scrapes")
types() { sed -n 's/^{"type":"\([a-z_]*\)".*/\1/p' "$1"; }
tally() { types "$1" | sort | uniq -c | awk '{ printf "%s%d %s", (NR > 1 ? ", " : ""), $1, $2 } END { if (!NR) printf "none" }'; }
running_other=$(types "$tmp/out.running" | grep -cv '^\(span\|lost\)$')
# Span and lost records, then shrinker totals, then the report's records in
# the order RunReport::write_json writes them (the stall report's, then the
# cgroups'); prints the first out of order.
ends="shrinker run stall background background_work order reclaim histogram cgroup memcg"
out_of_order=$(types "$tmp/out" | awk -v ends="$ends" '
  BEGIN { rank["span"] = 0; rank["lost"] = 0
          n = split(ends, names); for (i = 1; i <= n; i++) rank[names[i]] = i }
  !($1 in rank) || rank[$1] < last { print NR ": " $1; exit }
  { last = rank[$1] }')
task_records=$(grep -c '^{"type":"\(stall\|background\)","pid":[0-9]' "$tmp/out")
stalled_tasks=$(sed -n 's/^{"type":"span",.*"pid":\([0-9]*\),"comm":\(.*\)/\1 \2/p' "$tmp/out" | sort -u | wc -l)
comms_used=$(sort -u "$tmp/names-used" | wc -l)

echo "soak: $seconds s of allocwatch --watch -t 100us, metrics file every 1 s, --listen every 2 s"
awk -v u="$cpu_user" -v s="$cpu_system" -v t="$ticks" -v d="$seconds" 'BEGIN {
  printf "soak: the watch used %.2f s user + %.2f s system CPU in %d s (%.3f %% of one CPU)\n",
    u / t, s / t, d, (u + s) / t * 100 / d }'
echo "soak: churn: $(count "$tmp/names-used") readers started under $comms_used task names ($(count "$tmp/killed") killed mid-read), $(count "$tmp/cgroups") cgroups and tmpfs mounts made and removed"
echo "soak: $lines trace lines read, $stalls stalls of tasks ($background of background tasks) by $stalled_tasks tasks (pid and comm), $lost events lost, $dropped held lines dropped"
echo "soak: output while running: $(tally "$tmp/out.running")"
echo "soak: output in all: $(tally "$tmp/out")"
echo "soak: $scrapes_ok scrapes answered, $scrapes_failed failed; exit status $rc after SIGTERM"
good=yes
[ "$rc" = 0 ] || { echo "soak: FAIL: exit status $rc"; good=no; }
[ "$scrapes_failed" = 0 ] && [ "$scrapes_ok" -gt 0 ] || { echo "soak: FAIL: scrapes failed"; good=no; }
[ "$running_other" = 0 ] || { echo "soak: FAIL: while it ran, the watch wrote $running_other records other than span and lost"; good=no; }
[ -z "$out_of_order" ] || { echo "soak: FAIL: record $out_of_order is out of place (span and lost, then: $ends)"; good=no; }
[ "$stalls" -gt 0 ] && grep -q '^{"type":"histogram"' "$tmp/out" || { echo "soak: FAIL: no stall report at the end"; good=no; }
task_rows_max=$(printf '%s\n' $maxes | sed -n 's/^task_rows=//p')
[ -n "$task_rows_max" ] && [ "$task_records" -le "$task_rows_max" ] ||
  { echo "soak: FAIL: $task_records task rows in the report, over its bound (${task_rows_max:-none published})"; good=no; }

# The curve, and the plateau after warm-up (see the header).
awk -v seconds="$seconds" -v maxes="$maxes" '
  { n = NR
    for (i = 1; i <= NF; i++) {
      split($i, kv, "=")
      v[n, kv[1]] = kv[2]
      if (!(kv[1] in seen)) { seen[kv[1]] = 1; keys[++nkeys] = kv[1] }
    } }
  END {
    split(maxes, m, " ")
    for (i in m) { split(m[i], kv, "="); bound[kv[1]] = kv[2] }
    measured["rss_kb"] = seconds >= 1200 ? 128 : "3%"
    measured["fds"] = 0; measured["series"] = 0
    measured["memcg_comm_series"] = 0
    for (k in bound) measured[k] = "bound"
    measured["tasks"] = "25%"; by_mean["tasks"] = 1
    for (k in seen) if (!(k in measured) && k !~ /^(t|stalls|procs|killed|cgroups)$/)
      measured[k] = "25%"
    # When each table the churn fills reached its bound; 0: never.
    nfill = split("task_rows task_cgroups cgroup_rows", fill)
    full = 0
    for (i = 1; i <= nfill + 1; i++) {
      k = i <= nfill ? fill[i] : "memcg_comm_series"
      if (i <= nfill && !(k in bound)) continue
      at = 0
      for (r = 1; r <= n && !at; r++)
        if (i > nfill ? v[r, k] >= 11 : v[r, k] >= bound[k] * 7 / 8 || (r > 1 && v[r, k] < v[r - 1, k]))
          at = r
      if (!at) { printf "soak: FAIL: %s never filled\n", k; exit 1 }
      printf "soak: %s full at %d s\n", k, v[at, "t"]
      if (at > full) full = at
    }
    printf "soak: every table the churn fills full at %d s, after %d readers, %d cgroups, %d stalls\n",
      v[full, "t"], v[full, "procs"], v[full, "cgroups"], v[full, "stalls"]
    if (v[full, "t"] > seconds / 2) { print "soak: FAIL: filled after half of the run"; exit 1 }
    for (r = 1; r <= n && v[r, "t"] < seconds / 3; r++);
    w = full > r ? full : r
    mid = int((w + n) / 2)
    printf "soak: warm-up until %d s; halves %d-%d s and %d-%d s\n", v[w, "t"], v[w, "t"], v[mid, "t"], v[mid + 1, "t"], v[n, "t"]
    # The curve: a tenth of the run a row.
    printf "soak: curve:"
    for (i = 1; i <= nkeys; i++) printf " %s", keys[i]
    printf "\n"
    step = int(n / 10); if (step < 1) step = 1
    for (r = step; r <= n; r += step) {
      printf "soak:  "
      for (i = 1; i <= nkeys; i++) printf " %s", v[r, keys[i]]
      printf "\n"
    }
    bad = 0
    for (i = 1; i <= nkeys; i++) {
      k = keys[i]
      if (!(k in measured)) continue
      a = -1; b = -1
      for (r = w; r <= mid; r++) if (v[r, k] + 0 > a) a = v[r, k] + 0
      for (r = mid + 1; r <= n; r++) if (v[r, k] + 0 > b) b = v[r, k] + 0
      if (k in by_mean) {
        a = 0; b = 0
        for (r = w; r <= mid; r++) a += v[r, k] / (mid - w + 1)
        for (r = mid + 1; r <= n; r++) b += v[r, k] / (n - mid)
        a = int(a * 10 + 0.5) / 10; b = int(b * 10 + 0.5) / 10
      }
      if (k in bound) {
        verdict = "within it"
        for (r = 1; r <= n; r++) if (v[r, k] + 0 > bound[k]) { verdict = "FAIL: over it"; bad = 1 }
        printf "soak: %-18s first half max %s, second half max %s, bound %s: %s\n", k, a, b, bound[k], verdict
        continue
      }
      tol = measured[k]
      limit = tol ~ /%$/ ? a * (1 + substr(tol, 1, length(tol) - 1) / 100) : a + tol
      verdict = "flat"
      if (b > limit) { verdict = "FAIL: still growing"; bad = 1 }
      printf "soak: %-18s first half %s %s, second half %s %s, tolerance %s: %s\n", k,
        k in by_mean ? "mean" : "max", a, k in by_mean ? "mean" : "max", b, tol, verdict
    }
    exit bad
  }' "$tmp/samples" || good=no

if cmp -s "$tmp/before" "$tmp/after"; then
  echo "soak: tracefs byte-identical after SIGTERM"
else
  echo "soak: FAIL: tracefs differs after SIGTERM"
  diff "$tmp/before" "$tmp/after" | head -20
  good=no
fi
[ $good = yes ] && echo "soak: passed" || { echo "soak: FAILED"; exit 1; }

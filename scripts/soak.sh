#!/bin/bash
# make soak: allocwatch --watch for 10 minutes (SOAK_SECONDS) under cycling
# reclaim, with its metrics file rewritten every second and --listen scraped
# every two seconds. Passes when the watch's RSS at the end is within 10 % of
# its RSS after the first minute, every scrape was answered, its output holds
# nothing but incident records, and tracefs is byte-identical after SIGTERM.
#
#   scripts/soak.sh BUILD/allocwatch
#
# Root, tracefs and cgroup v1 memory. It holds /tmp/allocwatch-live.lock the
# whole time: the one long hold of the live lock the team allows.
set -u
bin=$(realpath "$1")
seconds=${SOAK_SECONDS:-600}
cd "$(dirname "$0")/.."
T=/sys/kernel/tracing
J=/run/allocwatch

if [ "$(id -u)" != 0 ]; then
  echo "soak: needs root (the real tracefs, a memory cgroup)" >&2
  exit 1
fi
exec 9>/tmp/allocwatch-live.lock
echo "soak: waiting for /tmp/allocwatch-live.lock" >&2
flock 9
echo "soak: holding /tmp/allocwatch-live.lock for $seconds s (the team's one long hold)" >&2

tmp=$(mktemp -d /tmp/allocwatch-soak-XXXXXX)
cg=/sys/fs/cgroup/memory/allocwatch-test-soak-$$-load
data=/var/tmp/allocwatch-test-soak-$$.dat
watch=""
helpers=()
cleanup() {
  local pid
  for pid in "${helpers[@]}"; do
    kill "$pid" 2>/dev/null
  done
  wait 2>/dev/null
  [ -n "$watch" ] && kill -9 "$watch" 2>/dev/null
  "$bin" --restore >/dev/null 2>&1
  if [ -d "$cg" ]; then
    for i in $(seq 50); do
      [ -z "$(cat "$cg/cgroup.procs")" ] && break
      kill -9 $(cat "$cg/cgroup.procs") 2>/dev/null
      sleep 0.1
    done
    rmdir "$cg"
  fi
  rm -rf "$tmp" "$data"
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP

tests/live/tracefs-state.sh "$T" "$J" >"$tmp/before"
dd if=/dev/zero of="$data" bs=1M count=320 oflag=direct status=none
mkdir "$cg"
echo $((64 << 20)) >"$cg/memory.limit_in_bytes"
# Readers under 15 task names: more than the metrics' 10 comm series.
for n in $(seq -w 1 15); do
  cp /bin/cat "$tmp/reader$n"
done

port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
"$bin" --watch -t 100us --metrics-file "$tmp/soak.prom" --metrics-interval 1s \
  --listen "127.0.0.1:$port" >"$tmp/out" 2>"$tmp/err" &
watch=$!
for i in $(seq 150); do
  [ "$(cat "$T/instances/allocwatch-$watch/tracing_on" 2>/dev/null)" = 1 ] && break
  sleep 0.1
done

# The load, in cycles of 20 s of memcg reclaim (reading a file five times the
# group's limit, dentries created and removed for the shrinkers) and 10 s of
# quiet; every third cycle the machine's caches are dropped (shrinkers) and
# its memory compacted.
(
  cycle=0
  while :; do
    cycle=$((cycle + 1))
    end=$((SECONDS + 20))
    while [ $SECONDS -lt $end ]; do
      n=$(printf '%02d' $((RANDOM % 15 + 1)))
      dd if="$data" iflag=nocache count=0 status=none
      sh -c "echo \$\$ > $cg/cgroup.procs; exec $tmp/reader$n $data > /dev/null"
      sh -c "echo \$\$ > $cg/cgroup.procs; mkdir -p $tmp/d && cd $tmp/d &&
        i=0; while [ \$i -lt 500 ]; do : > f\$i; i=\$((i + 1)); done; cd / && rm -rf $tmp/d"
    done
    if [ $((cycle % 3)) = 0 ]; then
      echo 2 >/proc/sys/vm/drop_caches
      echo 1 >/proc/sys/vm/compact_memory
    fi
    sleep 10
  done
) &
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

rss() { sed -n 's/^VmRSS:[[:space:]]*\([0-9]*\) kB/\1/p' "/proc/$watch/status"; }
rss_parts() { grep -E '^Rss(Anon|File)' "/proc/$watch/status" | tr -s ' \t' ' ' | tr '\n' ' '; }
start=$SECONDS
rss_minute=""
while [ $((SECONDS - start)) -lt "$seconds" ]; do
  sleep 10
  now=$(rss)
  echo "$((SECONDS - start)) $now $(rss_parts)" >>"$tmp/rss"
  [ -z "$rss_minute" ] && [ $((SECONDS - start)) -ge 60 ] && rss_minute=$now
  printf 'soak: %4d s  RSS %s kB\r' $((SECONDS - start)) "$now" >&2
done
echo >&2
rss_end=$(rss)
# The watch's CPU time so far (user, system), in clock ticks.
read -r cpu_user cpu_system < <(awk '{ print $14, $15 }' "/proc/$watch/stat")
ticks=$(getconf CLK_TCK)
rss_max=$(sort -k2 -n "$tmp/rss" | tail -1 | cut -d' ' -f2)
cp "$tmp/rss" "${SOAK_RSS_LOG:-/dev/null}"
for pid in "${helpers[@]}"; do
  kill "$pid" 2>/dev/null
  wait "$pid" 2>/dev/null
done
helpers=()
for i in $(seq 50); do
  [ -z "$(cat "$cg/cgroup.procs")" ] && break
  kill -9 $(cat "$cg/cgroup.procs") 2>/dev/null
  sleep 0.1
done

kill -TERM "$watch"
wait "$watch"
rc=$?
watch=""
tests/live/tracefs-state.sh "$T" "$J" >"$tmp/after"

value() { sed -n "s/^$1 //p" "$tmp/soak.prom" | head -1; }
lines=$(value allocwatch_trace_lines_read_total)
lost=$(value allocwatch_events_lost_total)
dropped=$(value allocwatch_held_lines_dropped_total)
background=$(awk '/^allocwatch_background_duration_seconds_count/ { n += $NF } END { print n + 0 }' "$tmp/soak.prom")
stalls=$(awk '/^allocwatch_stall_duration_seconds_count/ { n += $NF } END { print n + 0 }' "$tmp/soak.prom")
comms=$(grep -c '^allocwatch_stalls_total{kind="memcg reclaim"' "$tmp/soak.prom")
records=$(wc -l <"$tmp/out")
other=$(grep -cv '^{"type":"\(span\|lost\|shrinker\)"' "$tmp/out")
scrapes_ok=$(grep -c ok "$tmp/scrapes")
scrapes_failed=$(grep -c fail "$tmp/scrapes")
ratio=$(awk -v a="$rss_end" -v b="$rss_minute" 'BEGIN { printf "%.1f", (a - b) * 100 / b }')

echo "soak: $seconds s of allocwatch --watch -t 100us, metrics file every 1 s, --listen every 2 s"
awk -v u="$cpu_user" -v s="$cpu_system" -v t="$ticks" -v d="$seconds" 'BEGIN {
  printf "soak: the watch used %.2f s user + %.2f s system CPU in %d s (%.3f %% of one CPU)\n",
    u / t, s / t, d, (u + s) / t * 100 / d }'
echo "soak: RSS after the first minute $rss_minute kB, at the end $rss_end kB ($ratio %), highest $rss_max kB"
echo "soak: $lines trace lines read, $stalls stalls of tasks ($background of background tasks), $records output records ($other not incident records), $lost events lost, $dropped held lines dropped"
echo "soak: memcg reclaim stalls in $comms comm series (at most 10 and other)"
echo "soak: $scrapes_ok scrapes answered, $scrapes_failed failed; exit status $rc after SIGTERM"
good=yes
awk -v r="$ratio" 'BEGIN { exit !(r <= 10 && r >= -10) }' || { echo "soak: FAIL: RSS moved more than 10 %"; good=no; }
[ "$rc" = 0 ] || { echo "soak: FAIL: exit status $rc"; good=no; }
[ "$scrapes_failed" = 0 ] && [ "$scrapes_ok" -gt 0 ] || { echo "soak: FAIL: scrapes failed"; good=no; }
[ "$other" = 0 ] || { echo "soak: FAIL: the output holds other than incident records"; good=no; }
[ "$comms" -le 11 ] || { echo "soak: FAIL: $comms comm series"; good=no; }
if cmp -s "$tmp/before" "$tmp/after"; then
  echo "soak: tracefs byte-identical after SIGTERM"
else
  echo "soak: FAIL: tracefs differs after SIGTERM"
  diff "$tmp/before" "$tmp/after" | head -20
  good=no
fi
[ $good = yes ] && echo "soak: passed" || { echo "soak: FAILED"; exit 1; }

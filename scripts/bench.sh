#!/bin/sh
# make bench: replays generated traces of 100 MB and 500+ MB through
# allocwatch and prints its speed and memory beside `wc -l` on the same file.
# The traces are made once (fixed seeds) and kept in BUILD_DIR/bench/.
# It reports figures against the targets; it does not fail on a miss.
#   scripts/bench.sh BUILD_DIR
set -eu
build=${1:-build}
cd "$(dirname "$0")/.."
gentrace=$build/gentrace
allocwatch=$build/allocwatch
dir=$build/bench
mkdir -p "$dir"

threshold=100
# name format size seed. The two graph traces share their seed: the smaller
# is the start of the larger, so their RSS differ by input length alone.
cases="graph-100M graph 100M 512
graph-512M graph 512M 512
events-512M events 512M 513"

now_ns() { date +%s%N; }

# Best of three wall times (ns) of "$@" with stdout to /dev/null: the machine
# is shared, and the fastest run is the one least disturbed.
best_of_3() {
  best=""
  for _ in 1 2 3; do
    start=$(now_ns)
    "$@" >/dev/null 2>&1 || echo "bench: exit $? from $*" >&2
    elapsed=$(($(now_ns) - start))
    if [ -z "$best" ] || [ "$elapsed" -lt "$best" ]; then best=$elapsed; fi
  done
  echo "$best"
}

# "peak-RSS-kB cpu-seconds" from GNU time (user + system: on a shared
# machine the cpu time says more than the wall time); "n/a n/a" without it.
rss_and_cpu() {
  if [ -x /usr/bin/time ]; then
    /usr/bin/time -f '%M %U %S' -o "$dir/time" "$@" >/dev/null 2>&1 || true
    tail -n 1 "$dir/time" | awk '{ printf "%s %.2f\n", $1, $2 + $3 }'
  else
    echo n/a n/a
  fi
}

# rate BYTES_OR_LINES NS SCALE: per second, divided by SCALE, one decimal.
rate() { awk -v n="$1" -v ns="$2" -v s="$3" 'BEGIN { printf "%.1f", n / s / (ns / 1e9) }'; }
secs() { awk -v ns="$1" 'BEGIN { printf "%.3f", ns / 1e9 }'; }

echo "$cases" | while read -r name format size seed; do
  trace=$dir/$name-seed$seed.trace
  if [ ! -s "$trace" ] || [ ! -f "$dir/$name-seed$seed.expected" ] || [ -n "$(find "$gentrace" -newer "$trace")" ]; then
    echo "bench: generating $trace ($size, $format)" >&2
    "$gentrace" --format "$format" --seed "$seed" --bytes "$size" --threshold-us "$threshold" \
      --trace "$trace.tmp" --expected "$dir/$name-seed$seed.expected" 2>/dev/null
    mv "$trace.tmp" "$trace"
  fi
done

printf '%-12s %6s %8s | %7s %7s | %6s %7s %8s %7s %7s %6s\n' \
  trace MB lines "wc -l s" "MB/s" "wall s" "MB/s" "Mline/s" "cpu s" "RSS kB" truth
echo "$cases" | while read -r name format size seed; do
  trace=$dir/$name-seed$seed.trace
  cat "$trace" >/dev/null # warm the page cache: measure allocwatch, not the disk
  bytes=$(stat -c %s "$trace")
  lines=$(wc -l <"$trace")
  wc_ns=$(best_of_3 wc -l "$trace")
  aw_ns=$(best_of_3 "$allocwatch" -i "$trace" -t "${threshold}us")
  stats=$(rss_and_cpu "$allocwatch" -i "$trace" -t "${threshold}us")
  rss=${stats% *}
  cpu=${stats#* }
  # Not timed: is the output at this size still exactly gentrace's truth?
  if "$allocwatch" -i "$trace" -t "${threshold}us" 2>/dev/null | cmp -s - "$dir/$name-seed$seed.expected"; then
    truth=same
  else
    truth=DIFFERS
  fi
  printf '%-12s %6.0f %8s | %7s %7.0f | %6s %7.0f %8s %7s %7s %6s\n' "$name" \
    "$(awk -v b="$bytes" 'BEGIN { print b / 1e6 }')" "$lines" \
    "$(secs "$wc_ns")" "$(rate "$bytes" "$wc_ns" 1e6)" \
    "$(secs "$aw_ns")" "$(rate "$bytes" "$aw_ns" 1e6)" "$(rate "$lines" "$aw_ns" 1e6)" \
    "$cpu" "$rss" "$truth"
done
echo
echo "wc -l: the same file, lines counted and nothing else. The rest is allocwatch"
echo "-i FILE -t ${threshold}us > /dev/null, page cache warm, best of 3 wall times;"
echo "cpu s and RSS from one more run; truth: its output against gentrace's (untimed)."
echo "targets: >= 1000 MB/s on one core; peak RSS <= 16384 kB, and flat: about the"
echo "         same for graph-100M and graph-512M."

#!/bin/bash
# make bench, last part: the replay of a trace.dat beside the replay of the
# text of the same events. Both come from one live capture under memory
# cgroup reclaim (tests/live/memcg.sh): a raw run saves the ring buffer's
# pages (--save FILE.dat) while a --source text run, in an instance of its
# own, saves the kernel's text of the same tracepoints (--save FILE.trace).
# Each file is then replayed at three thresholds, best of 3 wall times, and
# one more run gives CPU seconds and peak RSS. Root and tracefs only: it
# says why and stops otherwise. Takes /tmp/allocwatch-live.lock; removes
# the cgroup and the files it made on every way out.
#   scripts/bench-dat.sh BUILD_DIR
# Environment: ALLOCWATCH=path, PROFILE=path as for scripts/bench.sh;
# CAPTURE_SECONDS=10 (three readers of a 300 MiB file in a 64 MiB cgroup).
set -u
build=${1:-build}
cd "$(dirname "$0")/.." || exit 1
bin=${ALLOCWATCH:-$build/allocwatch}
profile=${PROFILE:-configs/default.yaml}
seconds=${CAPTURE_SECONDS:-10}

if [ "$(id -u)" != 0 ] || [ ! -d /sys/kernel/tracing/instances ] ||
  [ ! -d /sys/fs/cgroup/memory ]; then
  echo "trace.dat replay: skipped (needs root, tracefs and memory cgroup v1)"
  exit 0
fi

exec 9>/tmp/allocwatch-live.lock
flock 9
. tests/live/memcg.sh
tag=allocwatch-test-bench-dat-$$
cg=/sys/fs/cgroup/memory/$tag
data=/var/tmp/$tag.data
tmp=$(mktemp -d /tmp/allocwatch-bench-dat.XXXXXX)
cleanup() {
  [ -n "${raw_run:-}" ] && kill -INT "$raw_run" 2>/dev/null
  [ -n "${text_run:-}" ] && kill -INT "$text_run" 2>/dev/null
  wait 2>/dev/null
  [ -d "$cg" ] && remove_cgroup "$cg"
  rm -rf "$data" "$tmp"
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP

dd if=/dev/zero of="$data" bs=1M count=300 oflag=direct status=none
mkdir "$cg" && echo $((64 << 20)) >"$cg/memory.limit_in_bytes" || exit 1

# started PID: waits until the run's instance (allocwatch-PID) traces.
started() {
  for _ in $(seq 100); do
    [ -d "/sys/kernel/tracing/instances/allocwatch-$1" ] && return 0
    kill -0 "$1" 2>/dev/null || return 1
    sleep 0.1
  done
  return 1
}
"$bin" -p "$profile" -t 1s --mode events --save "$tmp/capture.dat" >/dev/null 2>"$tmp/raw.err" &
raw_run=$!
started "$raw_run" || { echo "trace.dat replay: the raw capture did not start" >&2; exit 1; }
"$bin" -p "$profile" -t 1s --mode events --source text --force --save "$tmp/capture.trace" \
  >/dev/null 2>"$tmp/text.err" &
text_run=$!
started "$text_run" || { echo "trace.dat replay: the text capture did not start" >&2; exit 1; }
end=$(($(date +%s) + seconds))
for _ in 1 2 3; do
  (while [ "$(date +%s)" -lt "$end" ]; do read_in_cgroup "$cg"; done) &
done
wait %3 %4 %5 2>/dev/null
sleep 1
kill -INT "$text_run" "$raw_run"
wait "$text_run"
text_rc=$?
wait "$raw_run"
raw_rc=$?
text_run="" raw_run=""
if [ "$raw_rc" != 0 ] || [ "$text_rc" != 0 ]; then
  echo "trace.dat replay: capture failed: $(tail -n 1 "$tmp/raw.err") / $(tail -n 1 "$tmp/text.err")" >&2
  exit 1
fi
lines_of() { sed -n 's/^allocwatch: \([0-9]*\) lines read.*/\1/p' "$1"; }

now_ns() { date +%s%N; }
echo
echo "trace.dat replay: one capture under memcg reclaim, as trace.dat and as text"
printf '%-6s %6s %9s %8s | %5s %8s %9s %6s %7s\n' \
  file MB records "x text" T best_s "records/s" "cpu s" "RSS kB"
for file in capture.trace capture.dat; do
  mb=$(du -m "$tmp/$file" | cut -f1)
  for t in 100us 10ms 1s; do
    best=""
    for _ in 1 2 3; do
      start=$(now_ns)
      "$bin" -p "$profile" -i "$tmp/$file" -t "$t" >/dev/null 2>"$tmp/replay.err" || {
        echo "trace.dat replay: -i $file failed: $(tail -n 1 "$tmp/replay.err")" >&2
        exit 1
      }
      ns=$(($(now_ns) - start))
      [ -z "$best" ] || [ "$ns" -lt "$best" ] && best=$ns
    done
    records=$(lines_of "$tmp/replay.err")
    /usr/bin/time -f '%M %U %S' -o "$tmp/time" "$bin" -p "$profile" -i "$tmp/$file" -t "$t" \
      >/dev/null 2>/dev/null
    read -r rss user sys <"$tmp/time"
    [ "$file" = capture.trace ] && eval "text_$t=$best"
    eval "text_best=\$text_$t"
    printf '%-6s %6s %9s %8s | %5s %8.3f %9.0f %6.2f %7s\n' "${file#capture.}" "$mb" "$records" \
      "$(awk -v a="$best" -v b="$text_best" 'BEGIN { printf "%.2f", a / b }')" "$t" \
      "$(awk -v n="$best" 'BEGIN { print n / 1e9 }')" \
      "$(awk -v r="$records" -v n="$best" 'BEGIN { print r / (n / 1e9) }')" \
      "$(awk -v u="$user" -v s="$sys" 'BEGIN { print u + s }')" "$rss"
  done
done
echo "x text: the replay's best wall time over the text's at the same threshold. The"
echo "trace.dat's records are read twice (libtracecmd in a child first, which refuses a"
echo "file the libraries would crash on), and decoded with libtraceevent; the text's"
echo "lines are parsed. Records: what each replay read (the text's LOST lines included)."

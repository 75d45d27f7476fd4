#!/bin/sh
# trace.dat replays against the text of the same events: the golden
# extract (tests/golden/traces/events-6.18-memcg.dat, and .txt, the same
# instance's `trace` read first) replayed both ways at several thresholds
# must find the same stalls (compare_replays.py), and the checker must
# catch replays broken one way each. tests/live/trace_dat.sh does the same
# on a file made at the time.
#   tests/dat/run.sh BUILD_DIR
set -u
build=${1:-build}
cd "$(dirname "$0")/../.." || exit 1
suite=dat
. tests/lib.sh
bin=$build/allocwatch
traces=tests/golden/traces
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# THRESHOLD NS: both replays, then the comparison.
compare() {
  "$bin" -p configs/default.yaml -i "$traces/events-6.18-memcg.dat" -t "$1" --format json \
    >"$tmp/dat.json" 2>"$tmp/dat.err" &&
    "$bin" -p configs/default.yaml -i "$traces/events-6.18-memcg.txt" -t "$1" --format json \
      >"$tmp/text.json" 2>"$tmp/text.err" || return 1
  tests/dat/compare_replays.py "$tmp/dat.json" "$tmp/text.json" "$2"
}

for case in "5us 5000" "50us 50000" "200us 200000" "1ms 1000000"; do
  set -- $case
  if out=$(compare "$1" "$2"); then
    ok "trace.dat and text at -t $1: $(printf '%s\n' "$out" | head -n 1 | sed 's/^ok - //')"
  else
    fail "trace.dat and text at -t $1:"
    printf '%s\n' "$out"
    cat "$tmp/dat.err"
  fi
done

# The checker against replays broken one way each (from the 50us pair).
compare 50us 50000 >/dev/null
python3 - "$tmp" <<'PY'
import json, sys
tmp = sys.argv[1]
lines = open(tmp + "/dat.json").read().splitlines()
def write(name, change):
    with open(tmp + "/" + name, "w") as f:
        done = False
        for line in lines:
            r = json.loads(line)
            if r["type"] == "span" and not done:
                r, done = change(r), True
                if r is None:
                    continue
            f.write(json.dumps(r) + "\n")
def shift(r):
    r["start_ns"] += 2000; r["end_ns"] += 2000; return r
def longer(r):
    r["end_ns"] += 5000; r["duration_ns"] += 5000; return r
write("shifted.json", shift)
write("longer.json", longer)
write("dropped.json", lambda r: None)
with open(tmp + "/whole.json", "w") as f:
    for line in lines:
        r = json.loads(line)
        if r["type"] == "span":
            for k in ("start_ns", "end_ns", "duration_ns"):
                r[k] = r[k] // 1000 * 1000
        f.write(json.dumps(r) + "\n")
PY
for broken in shifted longer dropped whole; do
  if tests/dat/compare_replays.py "$tmp/$broken.json" "$tmp/text.json" 50000 >/dev/null; then
    fail "compare_replays.py passes a trace.dat replay broken one way ($broken)"
  else
    ok "compare_replays.py fails a trace.dat replay broken one way ($broken)"
  fi
done

# What is not a trace.dat nor a text trace, and a damaged trace.dat: exit 1,
# a message that names the file, nothing on stdout.
printf '\027\010\104tracing6\0garbage' >"$tmp/forged.dat"
head -c 20000 "$traces/events-6.18-memcg.dat" >"$tmp/cut.dat"
for f in forged cut; do
  "$bin" -p configs/default.yaml -i "$tmp/$f.dat" >"$tmp/out" 2>"$tmp/err"
  status=$?
  if [ $status = 1 ] && [ ! -s "$tmp/out" ] &&
    grep -q "^allocwatch: $tmp/$f.dat is a trace.dat that libtracecmd cannot read" "$tmp/err"; then
    ok "a $f trace.dat: exit 1, said on stderr, nothing on stdout"
  else
    fail "a $f trace.dat: exit $status"
    cat "$tmp/err" "$tmp/out"
  fi
done

# stdin: a trace.dat redirected from its file is read; piped, it is said
# why it is not, exit 1, nothing on stdout.
"$bin" -p configs/default.yaml -i - -t 1ms <"$traces/events-6.18-memcg.dat" >"$tmp/out" 2>"$tmp/err"
status=$?
if [ $status = 0 ] && [ -s "$tmp/out" ] && grep -q '^allocwatch: reading instance' "$tmp/err"; then
  ok "-i - < trace.dat: read as a trace.dat"
else
  fail "-i - < trace.dat: exit $status"
  cat "$tmp/err"
fi
cat "$traces/events-6.18-memcg.dat" |
  "$bin" -p configs/default.yaml -i - -t 1ms >"$tmp/out" 2>"$tmp/err"
status=$?
if [ $status = 1 ] && [ ! -s "$tmp/out" ] && grep -q \
  "^allocwatch: stdin is a trace.dat, which libtracecmd reads from a file, not a pipe" "$tmp/err"; then
  ok "a trace.dat piped to -i -: exit 1, says why, nothing on stdout"
else
  fail "a trace.dat piped to -i -: exit $status"
  cat "$tmp/err"
fi
finish

#!/bin/sh
# The command line's answers to bad input: the exit status (2 bad usage or
# profile, 1 other errors) and a message that says what is wrong. Replays
# only: no root, no tracefs.
set -u
build=${1:-build}
cd "$(dirname "$0")/../.."
bin=$build/allocwatch
trace=tests/golden/traces/events-6.18-dropcaches-compact.txt
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
passed=0
failed=0

# expect STATUS TEXT -- ARGS...: allocwatch ARGS exits STATUS, stderr has TEXT.
expect() {
  status=$1 text=$2
  shift 3
  "$bin" "$@" >"$tmp/out" 2>"$tmp/err" </dev/null
  got=$?
  if [ "$got" = "$status" ] && grep -qF -- "$text" "$tmp/err"; then
    passed=$((passed + 1))
  else
    echo "FAIL allocwatch $*: want exit $status and '$text', got exit $got:"
    sed 's/^/  /' "$tmp/err" | head -n 5
    failed=$((failed + 1))
  fi
}

expect 2 "unknown unit" -- -i "$trace" -t 5parsecs
expect 2 "no number" -- -i "$trace" -t us
expect 2 "must be greater than zero" -- -i "$trace" -t 0
expect 2 "they are for live tracing" -- -i "$trace" --pid 1
expect 2 "they are for live tracing" -- -i "$trace" --save "$tmp/x"
expect 2 "not in {graph,events}" -- --mode fast --check
expect 2 "not in {text,json}" -- -i "$trace" --format xml
expect 2 "not in range 1 to" -- --pid 0 --check
expect 2 "unknown profile 'nosuch'" -- -p nosuch -i "$trace"
expect 2 "longer than the profile's window" -- -i "$trace" -t 11s
expect 2 "--restore runs alone" -- --restore -i "$trace"
expect 2 "reads no tracefs" -- --tracefs /tmp -i "$trace"
expect 2 "are for a run that traces or replays" -- --check --report "$tmp/r"
expect 2 "are for a run that traces or replays" -- --list-profiles --timeline "$tmp/t"
expect 1 "cannot write $tmp/no/such/file: No such file or directory" -- -i "$trace" --report "$tmp/no/such/file"
expect 1 "cannot open $tmp/missing" -- -i "$tmp/missing"
expect 1 "holds no line of an ftrace trace" -- -i "$bin"

# -q silences the counts; a good replay exits 0 with the trace on stdout.
"$bin" -i "$trace" -t 10ms -q >"$tmp/out" 2>"$tmp/err"
if [ $? = 0 ] && [ ! -s "$tmp/err" ] && grep -q mm_compaction_end "$tmp/out"; then
  passed=$((passed + 1))
else
  echo "FAIL -q replay: stderr not empty or no trace on stdout"
  failed=$((failed + 1))
fi

echo "cli: $passed passed, $failed failed"
[ "$failed" = 0 ]

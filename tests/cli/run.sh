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
expect 2 "they are for live tracing" -- -i "$trace" --source text
expect 2 "not in {raw,text}" -- --source binary --check
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
# Bytes from the command line, a profile or a file name reach the terminal
# escaped: an ESC would drive it, a newline would forge a message line.
esc=$(printf '\033')
expect 1 "cannot open $tmp/x\\x1b[2Jy\\nallocwatch: forged: No such file" -- -i "$tmp/x${esc}[2Jy
allocwatch: forged"
expect 2 "invalid duration '5\\x1b[31mus'" -- -i "$trace" -t "5${esc}[31mus"
expect 2 "'no\\x1bsuch' is not a profile name" -- -i "$trace" -p "no${esc}such"

# -q silences the counts; a good replay exits 0 with the trace on stdout.
"$bin" -i "$trace" -t 10ms -q >"$tmp/out" 2>"$tmp/err"
if [ $? = 0 ] && [ ! -s "$tmp/err" ] && grep -q mm_compaction_end "$tmp/out"; then
  passed=$((passed + 1))
else
  echo "FAIL -q replay: stderr not empty or no trace on stdout"
  failed=$((failed + 1))
fi

# check NAME CONDITION...: one case, passed when the shell test holds.
check() {
  name=$1
  shift
  if "$@"; then
    passed=$((passed + 1))
  else
    echo "FAIL $name"
    sed 's/^/  /' "$tmp/err" | head -n 5
    failed=$((failed + 1))
  fi
}

# Output that cannot be written is an error that says why, exit 1, never a
# silent loss (it was exit 0 with 132 of 25963 lines written).
graph=tests/golden/traces/graph-6.1-thresh100.txt
"$bin" -i "$graph" -t 100us >/dev/full 2>"$tmp/err"
check "replay to /dev/full: exit 1, says why" \
  [ $? = 1 ] && grep -qx 'allocwatch: cannot write stdout: No space left on device' "$tmp/err"
"$bin" -i "$graph" -t 100us --format json >/dev/full 2>"$tmp/err"
check "json replay to /dev/full: exit 1" [ $? = 1 ]
"$bin" --list-profiles >/dev/full 2>"$tmp/err"
check "--list-profiles to /dev/full: exit 1" [ $? = 1 ]
"$bin" --help >/dev/full 2>"$tmp/err"
check "--help to /dev/full: exit 1" [ $? = 1 ]
{
  "$bin" -i "$graph" -t 100us 2>"$tmp/err"
  echo $? >"$tmp/status"
} | head -n 1 >/dev/null
check "a reader that leaves: exit 1, says so" \
  [ "$(cat "$tmp/status")" = 1 ] && grep -q 'cannot write stdout: Broken pipe' "$tmp/err"

# CRLF line ends (a trace that went through a Windows editor) read the same.
"$bin" -i "$graph" -t 1ms >"$tmp/lf.out" 2>"$tmp/lf.err"
sed 's/$/\r/' "$graph" >"$tmp/crlf.trace"
"$bin" -i "$tmp/crlf.trace" -t 1ms >"$tmp/out" 2>"$tmp/err"
check "CRLF trace: exit 0, the same output and counts as LF" \
  [ $? = 0 ] && cmp -s "$tmp/lf.out" "$tmp/out" && cmp -s "$tmp/lf.err" "$tmp/err"

# A line longer than any trace line is one line not understood; the rest reads on.
{ head -n 5 "$graph"; head -c 3000000 /dev/zero | tr '\0' x; echo; tail -n +6 "$graph"; } >"$tmp/long.trace"
"$bin" -i "$tmp/long.trace" -t 1ms >"$tmp/out" 2>"$tmp/err"
check "a 3 MB line: counted as not understood, the trace around it read" \
  [ $? = 0 ] && grep -q '^allocwatch: 25964 lines read, 1 not understood' "$tmp/err" &&
  cmp -s "$tmp/lf.out" "$tmp/out"

# Ctrl-C while -i waits for a FIFO's writer (in open), or for its bytes: a
# normal stop, as for any interrupted replay.
for wait_in in open read; do
  rm -f "$tmp/fifo"
  mkfifo "$tmp/fifo"
  [ $wait_in = read ] && { sleep 600 >"$tmp/fifo" & writer=$!; }
  "$bin" -i "$tmp/fifo" >"$tmp/out" 2>"$tmp/err" &
  reader=$!
  # Until it blocks: wchan names the kernel function it waits in.
  for _ in $(seq 50); do
    case $(cat /proc/$reader/wchan 2>/dev/null) in fifo_open | pipe_read | pipe_wait*) break ;; esac
    sleep 0.1
  done
  kill -INT $reader
  for _ in $(seq 50); do
    kill -0 $reader 2>/dev/null || break
    sleep 0.1
  done
  kill -KILL $reader 2>/dev/null # still waiting 5 s after Ctrl-C: a failure
  wait $reader
  status=$?
  [ $wait_in = read ] && kill $writer 2>/dev/null
  check "Ctrl-C while -i FIFO waits in $wait_in: exit 0 (got $status)" \
    [ $status = 0 ] && grep -q '^allocwatch: 0 lines read' "$tmp/err"
done

echo "cli: $passed passed, $failed failed"
[ "$failed" = 0 ]

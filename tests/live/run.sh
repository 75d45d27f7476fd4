#!/bin/bash
# Live tests: allocwatch on this machine's real tracefs (root only).
#
#   tests/live/run.sh BUILD_DIR
#
# Every check prints "ok - ..." or "FAIL - ..."; the last line is
# "live: N passed, N failed". Each check compares every tracefs file
# allocwatch could touch before and after, byte for byte. Whatever a check
# changes on purpose (a prior state, a cgroup, a file) is put back by a trap.
set -u
build=${1:-build}
cd "$(dirname "$0")/../.."
T=/sys/kernel/tracing
passed=0
failed=0

ok() {
  echo "ok - $1"
  passed=$((passed + 1))
}
fail() {
  echo "FAIL - $1"
  failed=$((failed + 1))
}
finish() {
  echo "live: $passed passed, $failed failed"
  [ "$failed" = 0 ]
  exit
}

if [ "$(id -u)" != 0 ]; then
  echo "live: not run: they need root to configure the real tracefs"
  finish
fi
if [ ! -r "$T/available_events" ]; then
  echo "live: not run: no tracefs at $T (mount -t tracefs nodev $T)"
  finish
fi

# The Session on the real tracefs, from the unit-test binary.
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

finish

#!/bin/sh
# Runs every test suite against BUILD_DIR and prints one closing line
# "N passed, N failed" over all suites (each suite counts its own cases).
set -u
build=${1:-build}
cd "$(dirname "$0")/.."
passed=0
failed=0
# Leaks of the system's libraries, for the sanitized build (SAN=1).
export LSAN_OPTIONS="suppressions=$PWD/tests/lsan.supp${LSAN_OPTIONS:+:$LSAN_OPTIONS}"

# suite NAME COMMAND...: the command prints "NAME: N passed, N failed" last.
suite() {
  name=$1
  shift
  echo "== $name"
  out=$("$@" 2>&1)
  status=$?
  printf '%s\n' "$out"
  counts=$(printf '%s\n' "$out" | sed -n 's/^.*: \([0-9]*\) passed, \([0-9]*\) failed.*$/\1 \2/p' | tail -n 1)
  if [ -z "$counts" ]; then
    echo "$name: no result line (exit $status)"
    failed=$((failed + 1))
    return
  fi
  set -- $counts
  passed=$((passed + $1))
  failed=$((failed + $2))
  if [ "$status" != 0 ] && [ "$2" = 0 ]; then
    echo "$name: exit $status"
    failed=$((failed + 1))
  fi
}

suite unit tests/unit/run.sh "$build"
for s in tests/*/run.sh; do
  [ "$s" = tests/unit/run.sh ] && continue
  suite "$(basename "$(dirname "$s")")" "$s" "$build"
done

echo
echo "all: $passed passed, $failed failed"
[ "$failed" = 0 ]

#!/bin/sh
# The fuzz harnesses without libFuzzer: each (built with the project's
# compiler, under SAN=1 with ASan+UBSan) runs once over its seed corpus and
# its past findings. `make fuzz` is what searches for new findings.
# Last line: "fuzz: N passed, N failed".
set -u
build=${1:-build}
cd "$(dirname "$0")/../.." || exit 1
passed=0
failed=0
for replay in "$build"/fuzz-replay-*; do
  [ -x "$replay" ] || continue
  name=${replay##*/fuzz-replay-}
  out=$("$replay" "$name" "tests/fuzz/corpus/$name" "tests/fuzz/regressions/$name" 2>&1)
  status=$?
  count=$(printf '%s\n' "$out" | sed -n "s/^$name: \([0-9]*\) passed.*/\1/p")
  if [ "$status" = 0 ] && [ -n "$count" ] && [ "$count" -gt 0 ]; then
    echo "ok - $name: $count inputs"
    passed=$((passed + count))
  else
    echo "FAIL - $name (exit $status):"
    printf '%s\n' "$out" | tail -n 20
    failed=$((failed + 1))
  fi
done
[ $passed = 0 ] && [ $failed = 0 ] && failed=1 && echo "FAIL - no fuzz-replay-* in $build"
echo "fuzz: $passed passed, $failed failed"
[ "$failed" = 0 ]

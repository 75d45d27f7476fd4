#!/bin/sh
# doctest's own summary, restated as "unit: N passed, N failed".
build=${1:-build}
out=$("$build/unit-tests" 2>&1)
status=$?
printf '%s\n' "$out"
line=$(printf '%s\n' "$out" | grep '^\[doctest\] test cases:' | tail -n 1)
p=$(printf '%s\n' "$line" | sed -n 's/.*[^0-9]\([0-9][0-9]*\) passed.*/\1/p')
f=$(printf '%s\n' "$line" | sed -n 's/.*[^0-9]\([0-9][0-9]*\) failed.*/\1/p')
echo "unit: ${p:-0} passed, ${f:-1} failed"
exit $status

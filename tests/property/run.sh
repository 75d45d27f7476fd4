#!/bin/sh
# Property tests: on generated traces, allocwatch prints exactly what gentrace
# (which knows every call it planned) says it must. A dozen seeds x both trace
# formats x a few thresholds, each trace 1-5 MB. On a failure it shows the
# first differing lines and how to make the same trace again.
#   tests/property/run.sh BUILD_DIR
set -u
build=${1:-build}
cd "$(dirname "$0")/../.." || exit 1
gentrace=$build/gentrace
allocwatch=$build/allocwatch
for bin in "$gentrace" "$allocwatch"; do
  if [ ! -x "$bin" ]; then
    echo "property: $bin is missing (make $bin)"
    echo "property: 0 passed, 1 failed"
    exit 1
  fi
done

# The bindings gentrace's truth follows are the default profile's.
profile=""
[ -f configs/default.yaml ] && profile="-p configs/default.yaml"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/allocwatch-property.XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM

passed=0
failed=0
thresholds="1 7 50 100 180 250 1000 4000"

for seed in 1 2 3 4 5 6 7 8 9 10 11 12; do
  size=$((1 + seed % 5))M
  for format in graph events; do
    # Three thresholds per seed, rotating through the list: from 1 us (every
    # return printed) to 4 ms (few are).
    for pick in 0 1 2; do
      n=$(((seed * 3 + pick) % 8 + 1))
      t=$(echo "$thresholds" | cut -d' ' -f$n)
      name="$format seed=$seed size=$size t=${t}us"
      gen="$gentrace --format $format --seed $seed --bytes $size --threshold-us $t"
      if ! $gen --trace "$tmp/trace" --expected "$tmp/expected" 2>"$tmp/gen.err"; then
        echo "FAIL $name: gentrace failed"
        sed 's/^/  /' "$tmp/gen.err"
        failed=$((failed + 1))
        continue
      fi
      # shellcheck disable=SC2086
      "$allocwatch" -i "$tmp/trace" -t "${t}us" $profile >"$tmp/out" 2>"$tmp/err"
      status=$?
      if [ $status = 0 ] && cmp -s "$tmp/expected" "$tmp/out"; then
        echo "ok   $name"
        passed=$((passed + 1))
        continue
      fi
      echo "FAIL $name (exit $status)"
      echo "  remake: $gen --trace T --expected E; $allocwatch -i T -t ${t}us $profile"
      diff "$tmp/expected" "$tmp/out" | head -n 12 | cut -c1-200 | sed 's/^/  /'
      tail -n 5 "$tmp/err" | sed 's/^/  stderr: /'
      failed=$((failed + 1))
    done
  done
done

echo "property: $passed passed, $failed failed"
[ "$failed" = 0 ]

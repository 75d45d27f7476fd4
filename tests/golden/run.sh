#!/bin/sh
# Replays each real trace of tests/golden/cases and compares stdout and stderr
# with the expected files byte for byte.
#   tests/golden/run.sh BUILD_DIR            check
#   tests/golden/run.sh BUILD_DIR --update   rewrite the expected files (then
#                                            check the diff by hand, see cases)
set -u
build=${1:-build}
update=${2:-}
here=$(cd "$(dirname "$0")" && pwd)
bin=$build/allocwatch
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
passed=0
failed=0

while read -r name trace args; do
  case "$name" in '' | '#'*) continue ;; esac
  # shellcheck disable=SC2086
  "$bin" -p configs/default.yaml -i "$here/traces/$trace" $args >"$tmp/out" 2>"$tmp/err"
  status=$?
  if [ "$update" = --update ]; then
    cp "$tmp/out" "$here/expected/$name.out" || exit 1
    cp "$tmp/err" "$here/expected/$name.err" || exit 1
    echo "updated $name"
    continue
  fi
  if [ $status = 0 ] && cmp -s "$tmp/out" "$here/expected/$name.out" &&
    cmp -s "$tmp/err" "$here/expected/$name.err"; then
    echo "ok   $name"
    passed=$((passed + 1))
  else
    echo "FAIL $name (exit $status)"
    diff "$here/expected/$name.out" "$tmp/out" | head -n 10
    diff "$here/expected/$name.err" "$tmp/err" | head -n 5
    failed=$((failed + 1))
  fi
done <"$here/cases"

echo "golden: $passed passed, $failed failed"
[ "$failed" = 0 ]

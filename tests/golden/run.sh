#!/bin/sh
# Replays each real trace of tests/golden/cases and compares stdout and stderr
# with the expected files byte for byte, and the files a case asks for: ARGS
# may name @report and @timeline, which stand for a --report or --timeline
# file compared with expected/NAME.report and expected/NAME.timeline.json.
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
  # What the case writes (tmp file) and what it must equal (expected file).
  outputs="out:$name.out err:$name.err"
  case " $args " in *" @report "*) outputs="$outputs report:$name.report" ;; esac
  case " $args " in *" @timeline "*) outputs="$outputs timeline:$name.timeline.json" ;; esac
  args=$(printf '%s' "$args" | sed "s|@report|$tmp/report|; s|@timeline|$tmp/timeline|")
  rm -f "$tmp/report" "$tmp/timeline"
  # shellcheck disable=SC2086
  "$bin" -p configs/default.yaml -i "$here/traces/$trace" $args >"$tmp/out" 2>"$tmp/err"
  status=$?
  if [ "$update" = --update ]; then
    for o in $outputs; do
      cp "$tmp/${o%%:*}" "$here/expected/${o#*:}" || exit 1
    done
    echo "updated $name"
    continue
  fi
  same=yes
  for o in $outputs; do
    cmp -s "$tmp/${o%%:*}" "$here/expected/${o#*:}" || same=no
  done
  if [ $status = 0 ] && [ $same = yes ]; then
    echo "ok   $name"
    passed=$((passed + 1))
  else
    echo "FAIL $name (exit $status)"
    for o in $outputs; do
      diff "$here/expected/${o#*:}" "$tmp/${o%%:*}" | head -n 8
    done
    failed=$((failed + 1))
  fi
done <"$here/cases"

echo "golden: $passed passed, $failed failed"
[ "$failed" = 0 ]

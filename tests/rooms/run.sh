#!/bin/sh
# The rooms of src/ (tests/rooms/check.py holds the table): no include of a
# sibling or higher room, no cycle, no include of a missing file, test
# support in unit tests only, no non-test file of 600 lines or more. Checks
# the tree, then shows that the check fails on copies of it broken one way
# each.
#   tests/rooms/run.sh [BUILD_DIR]   (builds nothing; the argument is ignored)
set -u
cd "$(dirname "$0")/../.." || exit 1
suite=rooms
. tests/lib.sh

check=tests/rooms/check.py
if out=$(python3 "$check" .); then
  printf '%s\n' "$out"
  ok "src/ keeps to its rooms"
else
  printf '%s\n' "$out"
  fail "src/ keeps to its rooms"
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/allocwatch-rooms.XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM

# broken NAME EXPECTED EDIT: a copy of src/ and tests/support/ changed by the
# shell command EDIT (run inside the copy) must fail with a BREACH line that
# contains EXPECTED.
broken() {
  name=$1 expected=$2 edit=$3
  copy=$tmp/$name
  mkdir -p "$copy/tests"
  cp -R src "$copy/src"
  cp -R tests/support "$copy/tests/support"
  (cd "$copy" && eval "$edit")
  if out=$(python3 "$check" "$copy"); then
    fail "$name: passed, should have found '$expected'"
  elif printf '%s\n' "$out" | grep '^BREACH' | grep -qF -- "$expected"; then
    ok "$name: $(printf '%s\n' "$out" | grep '^BREACH' | grep -F -- "$expected" | head -n 1)"
  else
    printf '%s\n' "$out"
    fail "$name: failed without '$expected'"
  fi
}

broken upward "util includes bind, a higher room" \
  'echo "#include \"bind/binder.h\"" >> src/util/duration.h'
broken upward-test "util includes bind, a higher room" \
  'echo "#include \"bind/binder.h\"" >> src/util/duration_test.cpp'
broken sibling "output includes its sibling metrics" \
  'echo "#include \"metrics/render.h\"" >> src/output/latency.h'
broken room-cycle "cycle between rooms: metrics <-> output" \
  'echo "#include \"metrics/render.h\"" >> src/output/latency.h &&
   echo "#include \"output/latency.h\"" >> src/metrics/render.h'
broken file-cycle "include cycle between files: util/a.h <-> util/b.h" \
  'echo "#include \"util/b.h\"" > src/util/a.h && echo "#include \"util/a.h\"" > src/util/b.h'
broken missing '"trace/no_such.h", no such file under src/' \
  'echo "#include \"trace/no_such.h\"" >> src/trace/record.h'
broken test-support '"fake_tracefs.h" from tests/support, which is for unit tests only' \
  'echo "#include \"fake_tracefs.h\"" >> src/tracefs/plan.cpp'
broken unknown-room "room 'attic' is not in the room table" \
  'mkdir src/attic && touch src/attic/old.h'
broken too-long "src/trace/record.h: 600 lines, not under 600" \
  'lines=$(wc -l < src/trace/record.h) &&
   while [ "$lines" -lt 600 ]; do echo "//" >> src/trace/record.h; lines=$((lines + 1)); done'

finish

#!/bin/sh
# Profile suite. The loader's doctest cases check every shipped configs/*.yaml
# loads and every malformed tests/profiles/bad/NN-*.yaml fails with the exact
# line in its .expected file. Once allocwatch has --check, the same files also
# go through the command line: bad ones must exit 2 and print their expected
# line on stderr, shipped ones must exit 0; tests/profiles/warn/NN-*.yaml load
# with the warning their .expected file holds, and are refused live.
# Last line: "profiles: N passed, N failed".
build=${1:-build}
cd "$(dirname "$0")/../.." || exit 1
passed=0
failed=0

out=$("$build/unit-tests" -tc='*profile*' 2>&1)
printf '%s\n' "$out"
line=$(printf '%s\n' "$out" | grep '^\[doctest\] test cases:' | tail -n 1)
p=$(printf '%s\n' "$line" | sed -n 's/.*[^0-9]\([0-9][0-9]*\) passed.*/\1/p')
f=$(printf '%s\n' "$line" | sed -n 's/.*[^0-9]\([0-9][0-9]*\) failed.*/\1/p')
passed=$((passed + ${p:-0}))
failed=$((failed + ${f:-1}))

# expect_run WHAT STATUS TEXT OUTPUT GOT: a pass when GOT is STATUS and
# OUTPUT holds TEXT.
expect_run() {
  if [ "$5" = "$2" ] && printf '%s\n' "$4" | grep -qF -- "$3"; then
    passed=$((passed + 1))
  else
    echo "FAIL $1: exit $5, want $2 and: $3; output:"
    printf '%s\n' "$4" | sed 's/^/  /'
    failed=$((failed + 1))
  fi
}

if "$build/allocwatch" --help 2>&1 | grep -q -- '--check'; then
  for profile in tests/profiles/bad/*.yaml; do
    expected=$(cat "${profile%.yaml}.expected")
    # A bad profile is answered at once: a hang (a lone ',' once made
    # yaml-cpp loop without end) fails here instead of eating the machine.
    err=$(timeout 20 "$build/allocwatch" --check -p "$profile" 2>&1 >/dev/null)
    status=$?
    if [ "$status" = 2 ] && printf '%s\n' "$err" | grep -qF -- "$expected"; then
      passed=$((passed + 1))
    else
      echo "FAIL $profile: exit $status, stderr:"
      printf '%s\n' "$err"
      echo "expected exit 2 and the line: $expected"
      failed=$((failed + 1))
    fi
  done
  for profile in configs/*.yaml; do
    if err=$("$build/allocwatch" --check -p "$profile" 2>&1 >/dev/null); then
      passed=$((passed + 1))
    else
      echo "FAIL $profile: --check refused a shipped profile:"
      printf '%s\n' "$err"
      failed=$((failed + 1))
    fi
  done
  # A doubtful profile (an event allocwatch does not know; a newer kernel
  # may have it) loads with its warning in a replay and in a --check that
  # reads no tracefs, and a live --check on this kernel, which lacks the
  # event, refuses it with the kernel's nearest names.
  trace=tests/golden/traces/events-6.18-dropcaches-compact.txt
  for profile in tests/profiles/warn/*.yaml; do
    expected=$(cat "${profile%.yaml}.expected")
    err=$("$build/allocwatch" -i "$trace" -p "$profile" 2>&1 >/dev/null)
    expect_run "$profile: replay" 0 "$expected" "$err" $?
    if command -v runuser >/dev/null && [ "$(id -u)" = 0 ]; then
      err=$(runuser -u nobody -- "$build/allocwatch" --check -p "$profile" 2>&1)
      expect_run "$profile: --check as a user" 0 "the kernel is not asked" "$err" $?
      printf '%s\n' "$err" | grep -qF -- "$expected" ||
        expect_run "$profile: --check as a user warns" 0 "$expected" "$err" 1
    fi
    if [ "$(id -u)" = 0 ] && [ -r /sys/kernel/tracing/available_events ]; then
      err=$("$build/allocwatch" --check -p "$profile" 2>&1 >/dev/null)
      expect_run "$profile: live --check refuses" 1 "does not exist on this kernel (it is not in available_events; nearest there: '" "$err" $?
    fi
  done
  # A kernel that has the event allocwatch's table lacks decides: no doubt.
  if [ "$(id -u)" = 0 ]; then
    fake=$(mktemp -d)
    echo nop >"$fake/available_tracers"
    printf 'vmscan:mm_vmscan_direct_reclaim_begin\nvmscan:lru_gen_aging_walk\n' >"$fake/available_events"
    profile=tests/profiles/warn/02-event-of-a-newer-kernel.yaml
    err=$("$build/allocwatch" --check --tracefs "$fake" -p "$profile" 2>&1)
    status=$?
    if [ "$status" = 0 ] && ! printf '%s\n' "$err" | grep -q 'not one allocwatch knows' &&
      printf '%s\n' "$err" | grep -q 'ok  *vmscan/lru_gen_aging_walk'; then
      passed=$((passed + 1))
    else
      echo "FAIL $profile: --check on a kernel with the event: exit $status, output:"
      printf '%s\n' "$err" | sed 's/^/  /'
      failed=$((failed + 1))
    fi
    rm -rf "$fake"
  fi
else
  echo "allocwatch has no --check yet: the command-line cases were not run"
fi

echo "profiles: $passed passed, $failed failed"
[ "$failed" = 0 ]

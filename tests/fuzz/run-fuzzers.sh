#!/bin/sh
# make fuzz: runs each libFuzzer harness for SECONDS and fails on any
# finding (a crash, a sanitizer report, a leak, a timeout, memory over the
# limit).
#
#   tests/fuzz/run-fuzzers.sh FUZZ_BUILD_DIR SECONDS HARNESS...
#
# Each starts from its seeds (tests/fuzz/corpus/NAME) and past findings
# (tests/fuzz/regressions/NAME); what it learns goes to
# FUZZ_BUILD_DIR/corpus/NAME (kept between runs, never in the repository),
# a finding to FUZZ_BUILD_DIR/findings/. A finding is kept by copying it into
# tests/fuzz/regressions/NAME/ and adding a unit test for it.
set -u
dir=$1
seconds=$2
shift 2
cd "$(dirname "$0")/../.." || exit 1
mkdir -p "$dir/findings"
# Leaks of the system's libraries (libtracecmd's), not allocwatch's.
export LSAN_OPTIONS="suppressions=$PWD/tests/lsan.supp${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
failed=""
for name in "$@"; do
  corpus=$dir/corpus/$name
  mkdir -p "$corpus"
  mkdir -p tests/fuzz/regressions/"$name"
  # Longest input: a few KB of trace or YAML; each harness's seeds fit.
  case $name in
  parse_line) max_len=1024 ;;
  pipeline) max_len=16384 ;;
  trace_dat) max_len=65536 ;; # the real seeds are 9 to 41 KB
  *) max_len=8192 ;;
  esac
  dict=""
  [ -f "tests/fuzz/$name.dict" ] && dict="-dict=tests/fuzz/$name.dict"
  log=$dir/$name.log
  echo "fuzz: $name for ${seconds}s (log: $log)"
  # shellcheck disable=SC2086
  "$dir/fuzz-$name" "$corpus" "tests/fuzz/corpus/$name" "tests/fuzz/regressions/$name" \
    $dict -max_total_time="$seconds" -max_len="$max_len" -timeout=10 -rss_limit_mb=2048 \
    -malloc_limit_mb=512 -print_final_stats=1 -artifact_prefix="$dir/findings/$name-" \
    >"$log" 2>&1
  status=$?
  # A harness whose code forks (trace_dat: DatInput reads a file in a child
  # first) has children that die of the libraries' faults: libFuzzer in the
  # child prints its stats and writes the input as a crash, yet the parent
  # refuses the file and goes on. The fuzzer's own figures are the last;
  # the children's are counted, and only the exit status is a finding.
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
  per_second=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -n 1)
  rss=$(sed -n 's/^stat::peak_rss_mb: *//p' "$log" | tail -n 1)
  children=$(($(grep -c '^stat::number_of_executed_units' "$log") - 1))
  refused=""
  [ "$children" -gt 0 ] && refused=", $children refused after a fault in the child that reads them first"
  units=$(find "$corpus" -type f | wc -l)
  if [ "$status" = 0 ]; then
    echo "fuzz: $name: ${runs:-?} inputs in ${seconds}s (${per_second:-?}/s)$refused, peak RSS ${rss:-?} MB, corpus $units: no finding"
  else
    echo "fuzz: $name: FINDING (exit $status); the input is the last unit written to $dir/findings/:"
    grep -E '^==[0-9]+==|^SUMMARY|ERROR|^state_file:|^pipeline:|^artifact_prefix' "$log" | tail -n 20
    grep 'Test unit written' "$log" | tail -n 1
    failed="$failed $name"
  fi
done
if [ -n "$failed" ]; then
  echo "fuzz: findings in:$failed"
  exit 1
fi
echo "fuzz: every harness ran clean"

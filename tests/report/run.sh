#!/bin/sh
# The stall report, the JSON records and the timeline, checked by second,
# plain computations (Python, none of allocwatch's code), on the real traces
# and on generated ones; the report and the status line on a pseudo-terminal
# (script(1)); output files and their write errors. Replays only: no root.
# (The VM test's report checker, tests/e2e/check_report.py, has its own
# cases in tests/e2e/run.sh.)
#   tests/report/run.sh BUILD_DIR
set -u
build=${1:-build}
cd "$(dirname "$0")/../.."
bin=$build/allocwatch
gentrace=$build/gentrace
python=/usr/bin/python3
profile=configs/default.yaml
traces=tests/golden/traces
tmp=$(mktemp -d "${TMPDIR:-/tmp}/allocwatch-report.XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM
suite=report
. tests/lib.sh

# derive NAME TRACE THRESHOLD: the report's records equal what
# derive_report.py computes from the span records of the same run, and the
# timeline of the same run is valid, nested, and has every span.
derive() {
  "$bin" -p "$profile" -i "$2" -t "$3" --format json --timeline "$tmp/timeline.json" -q \
    >"$tmp/out.jsonl" 2>"$tmp/err"
  status=$?
  if [ $status = 0 ] && $python tests/report/derive_report.py "$profile" "$tmp/out.jsonl" >"$tmp/derive" 2>&1; then
    ok "$1: report = derived from the spans ($(tail -n 1 "$tmp/derive"))"
  else
    fail "$1: report differs from the spans (exit $status)"
    grep -v '^ok' "$tmp/derive" | head -n 5 | cut -c1-300 | sed 's/^/  /'
  fi
  if $python tests/report/check_timeline.py "$tmp/timeline.json" "$tmp/out.jsonl" >"$tmp/check" 2>&1; then
    ok "$1: timeline $(sed 's/^check_timeline: ok: //' "$tmp/check")"
  else
    fail "$1: timeline: $(cat "$tmp/check")"
  fi
}

# --- second computations on the real traces ---------------------------------
for trace in graph-6.1-thresh100 graph-6.1-thresh0 events-6.18-dropcaches-compact \
  events-6.18-memcg-swap-writeback; do
  for t in 1us 100us 1ms; do
    derive "$trace -t $t" "$traces/$trace.txt" "$t"
  done
done

# A return whose timestamp came late: the calls nested in the stall seem to
# start before it, and the LRU line evict_folios claimed still counts for
# the stall, as its timestamp lies in the stall's window (make e2e's reader,
# tests/e2e/check_report.py, counts it so; CI once saw 64 pages missing).
late=tests/report/fixtures/late-return.trace
derive "late return" "$late" 100us
"$bin" -p "$profile" -i "$late" -t 100us --format json -q >"$tmp/out.jsonl" 2>"$tmp/err"
if grep -q '^{"type":"reclaim","kind":"memcg reclaim","count":1,"total_ns":240000,"pages_scanned":64,' "$tmp/out.jsonl"; then
  ok "late return: the memcg reclaim scanned the 64 pages its window holds"
else
  fail "late return: $(grep '"type":"reclaim"' "$tmp/out.jsonl" || cat "$tmp/err")"
fi

# Its begin line lies before the computed start and is not claimed: the
# stall is still one count in every table, its order unknown.
if grep -q '^{"type":"order","kind":"memcg reclaim","order":null,"gfp_flags":null,"count":1,"total_ns":240000,' "$tmp/out.jsonl"; then
  ok "late return: the stall whose begin was not claimed is an order row '?'"
else
  fail "late return: no order row of unknown order: $(grep '"type":"order"' "$tmp/out.jsonl")"
fi

# A pid's lines printed as `<...>` (comm not saved) are its task's: one row,
# dd-160, with all 20 returns (31620.892 us, counted by hand in the fixture).
unsaved=tests/report/fixtures/comm-unsaved.trace
derive "comm <...>" "$unsaved" 100us
"$bin" -p "$profile" -i "$unsaved" -t 100us >/dev/null 2>"$tmp/err"
if grep -q '^  dd-160  allocation  __alloc_pages     20 ' "$tmp/err" && ! grep -q '<\.\.\.>' "$tmp/err"; then
  ok "comm <...>: one row per pid, named by the comm seen for it"
else
  fail "comm <...>: $(grep -- '-160' "$tmp/err")"
fi

# A return over threshold whose entry is not in the trace: said in words.
"$bin" -p "$profile" -i tests/report/fixtures/entry-lost.trace -t 1ms >/dev/null 2>"$tmp/err"
if grep -q '^allocwatch: functions over threshold: ?=1$' "$tmp/err" &&
  grep -q '^allocwatch: 1 return over threshold could not be named (? above): a bare "}" whose entry line is not in the trace' "$tmp/err"; then
  ok "entry lost: the unnamed return is said in words"
else
  fail "entry lost: $(grep 'over threshold' "$tmp/err")"
fi

# --- and on generated ones (tests/gentrace, as tests/property) --------------
for seed in 3 8 21; do
  for format in graph events; do
    if ! "$gentrace" --format "$format" --seed "$seed" --bytes 2M --threshold-us 20 \
      --trace "$tmp/gen.trace" --expected "$tmp/gen.expected" 2>"$tmp/gen.err"; then
      fail "gentrace $format seed=$seed: $(cat "$tmp/gen.err")"
      continue
    fi
    for t in 20us 500us; do
      derive "generated $format seed=$seed -t $t" "$tmp/gen.trace" "$t"
    done
  done
done

# --- a --save file says the tracing_thresh its live run set -----------------
# A live graph run writes "# allocwatch tracing_thresh_us N" first in its
# --save file; a replay below it says so, from the record (a pipe, which
# cannot be read twice, falls back on the shortest return).
{ echo "# allocwatch tracing_thresh_us 100"; cat "$traces/graph-6.1-thresh100.txt"; } >"$tmp/saved.trace"
"$bin" -p "$profile" -i "$tmp/saved.trace" -t 50us >"$tmp/saved.out" 2>"$tmp/saved.err"
if grep -q 'the live run that saved this trace set tracing_thresh to 100us: .* so -t 50us finds no more function calls than -t 100us would' "$tmp/saved.err" &&
  ! grep -q 'shortest return' "$tmp/saved.err" &&
  "$bin" -p "$profile" -i "$traces/graph-6.1-thresh100.txt" -t 50us 2>/dev/null | cmp -s - "$tmp/saved.out"; then
  ok "a replay below the threshold its --save file records says so; the output is the same"
else
  fail "a replay below the recorded tracing_thresh"
fi
"$bin" -p "$profile" -i "$tmp/saved.trace" -t 100us >/dev/null 2>"$tmp/saved.err"
! grep -q 'tracing_thresh' "$tmp/saved.err" &&
  ok "at the recorded tracing_thresh: nothing to say" || fail "at the recorded tracing_thresh: a warning"

# --- the terminal: top rows only, no status line in a replay -----------------
# script(1) runs allocwatch on a pseudo-terminal; what it printed is in the
# typescript, stdout and stderr alike (stdout goes to a file here).
on_pty() { # OUTPUT COMMAND: runs COMMAND on a pty, its terminal output in OUTPUT
  script -qec "$2" "$1" >/dev/null 2>&1
}
on_pty "$tmp/pty" "$bin -p $profile -i $traces/graph-6.1-thresh100.txt -t 1ms > $tmp/pty.out"
if grep -q 'allocwatch: stalls of 1ms or more' "$tmp/pty" &&
  grep -q '^  \.\.\. 27 more rows (--report FILE has them all)' "$tmp/pty" &&
  [ "$(sed -n '/stalls of 1ms/,/more rows/p' "$tmp/pty" | grep -c '^  [a-z]')" = 10 ]; then
  ok "on a terminal: the stall table's top 10 rows, and how many more"
else
  fail "on a terminal: no top-10 stall table"
  head -n 20 "$tmp/pty"
fi
# An 80-column terminal: no line of the report or the counts is wider
# (tables give way, other lines are cut); a file keeps every line whole.
for case in "graph-6.1-thresh100 1ms" "graph-6.1-thresh100 100us" "graph-6.1-thresh0 20us" \
  "events-6.18-dropcaches-compact 5us" "events-6.18-memcg-swap-writeback 1us"; do
  set -- $case
  on_pty "$tmp/pty80" "stty cols 80; $bin -p $profile -i $traces/$1.txt -t $2 > $tmp/pty.out"
  widest=$(tr -d '\r' <"$tmp/pty80" | grep -v '^Script \(started\|done\)' |
    awk '{ if (length($0) > n) n = length($0) } END { print n + 0 }')
  if [ "$widest" -le 80 ] && grep -q 'allocwatch: stalls of' "$tmp/pty80" &&
    grep -q 'lines read' "$tmp/pty80"; then
    ok "80 columns, $1 -t $2: no line wider (widest $widest)"
  else
    fail "80 columns, $1 -t $2: a line of $widest columns"
    tr -d '\r' <"$tmp/pty80" | awk 'length($0) > 80' | head -n 3
  fi
done

if grep -q "$(printf '\033')\[K" "$tmp/pty" || grep -q 'lines, .* stalls of' "$tmp/pty"; then
  fail "a replay on a terminal shows a status line"
else
  ok "a replay on a terminal shows no status line"
fi
"$bin" -p "$profile" -i "$traces/graph-6.1-thresh100.txt" -t 1ms >/dev/null 2>"$tmp/err"
rows=$(sed -n '/stalls of 1ms/,/^allocwatch: background/p' "$tmp/err" | grep -c '^  [a-z<]')
[ "$rows" = 37 ] && ! grep -q 'more rows' "$tmp/err" &&
  ok "stderr to a file: all 37 stall rows" || fail "stderr to a file: $rows stall rows"

# --- -q, --report, --timeline and their write errors --------------------------
"$bin" -p "$profile" -i "$traces/graph-6.1-thresh100.txt" -t 1ms -q --report "$tmp/report.txt" \
  >/dev/null 2>"$tmp/err"
if [ $? = 0 ] && [ ! -s "$tmp/err" ] && cmp -s "$tmp/report.txt" tests/golden/expected/graph-thresh100-1ms-json.report; then
  ok "-q: nothing on stderr; --report FILE still has the whole report"
else
  fail "-q with --report: stderr not empty, or the report file differs"
fi
"$bin" -p "$profile" -i "$traces/graph-6.1-thresh100.txt" -t 1ms --format json >"$tmp/out" 2>"$tmp/err"
if ! grep -q 'stalls of' "$tmp/err" && grep -q '"type":"histogram"' "$tmp/out"; then
  ok "--format json: the report is JSON records on stdout, not text on stderr"
else
  fail "--format json: the report is not where it belongs"
fi
for option in --report --timeline; do
  "$bin" -p "$profile" -i "$traces/graph-6.1-thresh100.txt" -t 1ms $option /dev/full >/dev/null 2>"$tmp/err"
  status=$?
  if [ $status = 1 ] && grep -q "cannot write /dev/full: No space left on device" "$tmp/err"; then
    ok "$option /dev/full: exit 1, says why"
  else
    fail "$option /dev/full: exit $status: $(cat "$tmp/err" | tail -n 2)"
  fi
  "$bin" -p "$profile" -i "$traces/graph-6.1-thresh100.txt" -t 1ms $option "$tmp/no/such/dir" \
    >"$tmp/out" 2>"$tmp/err"
  status=$?
  if [ $status = 1 ] && [ ! -s "$tmp/out" ] &&
    grep -q "cannot write $tmp/no/such/dir: No such file or directory" "$tmp/err"; then
    ok "$option into a missing directory: exit 1 before anything is read"
  else
    fail "$option into a missing directory: exit $status, $(wc -c <"$tmp/out") bytes out"
  fi
done

finish

#!/bin/bash
# The host's checks of what an e2e guest left (scripts/vm-e2e.sh boots it,
# tests/e2e/init.sh writes its results): of one run of allocwatch, or of the
# kernel as a whole. The output and the stall report are judged against the
# trace the run saved by checkers of their own, not allocwatch's code: a raw
# run's trace.dat as trace-cmd report reads it by check_dat.py; a text run's
# raw.trace by e2e-check (check_trace.cpp) and check_report.py. BIN replays
# that trace on the host, to compare with what the guest printed.
#
#   tests/e2e/check_run.sh run BIN E2E_CHECK THRESHOLD_US RUN_DIR [CHECK...]
#   tests/e2e/check_run.sh kernel BIN E2E_CHECK KERNEL KDIR CONSOLE RESULTS_DIR [CHECK...]
#   tests/e2e/check_run.sh chosen-functions CHECK_TXT
#
# BIN is the allocwatch that ran in the guest (the host replays with it),
# E2E_CHECK the built check_trace.cpp, RUN_DIR one run's results (run1, run2,
# run3 in RESULTS_DIR), KDIR the prepared kernel (its config), CONSOLE the guest's
# console log. CHECK... picks checks by name (default: all of run_checks or
# kernel_checks; json_run_checks for a text run whose output is JSON,
# raw_run_checks for a run that saved a trace.dat). Each check prints ok/FAIL
# lines; the last line is
# "checks: N passed, N failed". Exit status: 0 all passed, 1 some failed,
# 2 bad usage. chosen-functions prints "ROLE CHOSEN|- ALTERNATIVE..." lines
# from allocwatch --check's output.
set -uo pipefail

repo=$(cd "$(dirname "$0")/../.." && pwd)
# Debian's python3, with python3-yaml (scripts/install-deps.sh).
python=/usr/bin/python3

log() { echo "e2e: $*"; }

passed=0
failed=0
result() { # ok|FAIL TEXT
  echo "$1 $2"
  if [ "$1" = ok ]; then passed=$((passed + 1)); else failed=$((failed + 1)); fi
}
check() { # TEXT COMMAND...: ok when the command succeeds
  local text=$1
  shift
  if "$@"; then result ok "$text"; else result FAIL "$text"; fi
}

# Checks of one run, each a function of the run's directory (the guest's
# results for it) that prints ok/FAIL lines through result() or check().
# To check more of every run, add a function to these lists: run_checks for
# text output, json_run_checks for JSON (whose output e2e-check does not
# read: the host's replay, which is checked as text, stands in for it).
# A run that read the ring buffer raw saved a trace.dat, not raw.trace: its
# output and report, text or JSON, are judged against that file as
# trace-cmd report reads it (check_dat.py), and its replay must print the
# same.
run_checks=(check_graph_mode check_output check_allocator_called check_replay check_stall_report
  check_cgroups check_statuses check_restored check_no_journal)
json_run_checks=(check_graph_mode check_json_replay check_allocator_called check_stall_report
  check_cgroups check_statuses check_restored check_no_journal)
raw_run_checks=(check_graph_mode check_dat check_kshark check_allocator_called check_dat_replay
  check_cgroups check_statuses check_restored check_no_journal)

# The trace the run saved: a raw run's trace.dat, a text run's raw.trace.
saved_trace() {
  if [ -f "$1/trace.dat" ]; then echo "$1/trace.dat"; else echo "$1/raw.trace"; fi
}

# The run's output format, as the guest wrote it (text, json).
format_of() { cat "$1/format" 2>/dev/null || echo text; }

check_graph_mode() {
  check "allocwatch chose graph mode: $(head -n 1 "$1/err.txt" 2>/dev/null)" \
    grep -qi 'graph mode' "$1/err.txt"
}

# What the output holds, checked from the raw trace by e2e-check alone;
# memory cgroup reclaim must be there too, with its events.
check_output() { check_output_of "$1" "$1/out.txt"; }
check_output_of() { # RUN_DIR OUTPUT
  local status=0
  "$e2e_check" \
    --carried try_to_free_mem_cgroup_pages:mm_vmscan_memcg_reclaim_begin:mm_vmscan_memcg_reclaim_end \
    "$threshold_us" "$1/raw.trace" "$2" >"$1/e2e-check.log" 2>&1 || status=$?
  local verdict text
  while read -r verdict text; do
    result "$verdict" "$text"
  done < <(grep -E '^(ok|FAIL) ' "$1/e2e-check.log")
  [ $status -le 1 ] || result FAIL "e2e-check could not check: $(tail -n 1 "$1/e2e-check.log")"
}

# The page allocator under the name this kernel gave it (the profile's first
# function) is what the workload's slow allocations returned from.
check_allocator_called() {
  local name n
  name=$(chosen_functions "$1/../check.txt" | awk 'NR == 1 { print $2 }')
  n=$(sed -n "s/^raw: \([0-9]*\) returns over threshold: $name\$/\1/p" "$1/e2e-check.log")
  check "the page allocator, $name here, returned over threshold ${n:-0} times" [ "${n:-0}" -gt 0 ]
}

# A raw run's output and report against its trace.dat, by check_dat.py; the
# log's "raw: N returns over threshold: NAME" lines are e2e-check's, for the
# checks and the table that count them.
check_dat() {
  check_dat_of "$1/dat-check.log" "$1/trace.dat" "$1/out.txt" "$1/report.txt"
  sed -n 's/^trace.dat: \([0-9]*\) \(returns\|shrink pairs\) over the threshold: \(.*\)/raw: \1 \2 over threshold: \3/p' \
    "$1/dat-check.log" >"$1/e2e-check.log"
}
check_dat_of() { # LOG DAT OUTPUT REPORT [OPTION...]: check_dat.py's verdicts, its lines in LOG
  local log=$1 status=0
  "$python" "$repo/tests/e2e/check_dat.py" "${@:5}" "$repo/configs/default.yaml" "$threshold_us" \
    "$2" "$3" "$4" >"$log" 2>&1 || status=$?
  local verdict text
  while read -r verdict text; do
    result "$verdict" "$text"
  done < <(grep -E '^(ok|FAIL) ' "$log")
  [ $status -le 1 ] || result FAIL "check_dat.py could not check $2: $(tail -n 1 "$log")"
}

# KernelShark opens the run's trace.dat: its library reads the records
# trace-cmd report reads (tests/kshark/agrees.py, through kshark-records,
# which make e2e builds beside BIN).
check_kshark() {
  local verdict
  verdict=$("$python" "$repo/tests/kshark/agrees.py" "$(dirname "$bin")/kshark-records" \
    "$1/trace.dat" 2>&1 | tail -n 1)
  case $verdict in
  "ok - "*) result ok "$(echo "${verdict#ok - }" | sed "s|$repo/||")" ;;
  *) result FAIL "${verdict#FAIL - }" ;;
  esac
}

# allocwatch -i of the run's trace.dat on the host prints and reports what
# the guest run did (its cgroups too: a raw --save keeps them after the
# pages), but for the JSON run record, which names the live kernel.
check_dat_replay() {
  local r=$1 status=0 format
  format=$(format_of "$r")
  timeout 300 "$bin" -i "$r/trace.dat" -t "${threshold_us}us" -p "$repo/configs/default.yaml" \
    --format "$format" --report "$r/replay-report.txt" >"$r/replay.out" 2>"$r/replay.err" || status=$?
  check "replaying trace.dat on the host exits 0 (status $status$([ $status = 124 ] && echo ', timed out'): $(tail -n 1 "$r/replay.err"))" \
    [ $status = 0 ]
  grep -v '^{"type":"run",' "$r/out.txt" >"$r/out.but-run"
  grep -v '^{"type":"run",' "$r/replay.out" >"$r/replay.but-run"
  # Records the run's merge handed on after newer ones (it says how many)
  # may print in another order than the file's time order.
  late=$(sed -n 's/^allocwatch: trace_pipe_raw: .*, \([0-9]*\) older than one given before.*/\1/p' \
    "$r/err.txt" | tail -n 1)
  same_output "replaying trace.dat on the host prints what the guest run printed ($(wc -l <"$r/replay.out") lines)" \
    "$r/out.but-run" "$r/replay.but-run" "${late:-0}"
  same_output "replaying trace.dat on the host writes the same report" \
    "$r/report.txt" "$r/replay-report.txt" "${late:-0}"
}
# same_output TEXT LIVE REPLAY [LATE]: ok when the replay printed what the
# run did, but for tasks the run could not name, and in another order if the
# run handed on LATE > 0 records late (tests/e2e/same_output.py).
same_output() {
  local verdict status=0
  verdict=$("$python" "$repo/tests/e2e/same_output.py" --late "${4:-0}" "$2" "$3" 2>&1) || status=$?
  if [ $status = 0 ]; then
    result ok "$1: $verdict"
  else
    result FAIL "$1, $(echo "$verdict" | tail -n 1 | cut -c1-200)"
  fi
}

check_replay() {
  local status=0
  timeout 300 "$bin" -i "$1/raw.trace" -t "${threshold_us}us" -p "$repo/configs/default.yaml" \
    >"$1/replay.out" 2>"$1/replay.err" || status=$?
  check "replaying raw.trace on the host exits 0 (status $status$([ $status = 124 ] && echo ', timed out'))" \
    [ $status = 0 ]
  check "replaying raw.trace on the host prints what the guest run printed" \
    cmp -s "$1/out.txt" "$1/replay.out"
}

# The stall report the run wrote (--report report.txt, and on stderr),
# against the raw trace by check_report.py, none of allocwatch's code: the
# direct reclaim (try_to_free_pages) and memcg reclaim
# (try_to_free_mem_cgroup_pages) rows of each task, their histograms, and
# what that reclaim scanned and reclaimed. Then the host's replay of
# raw.trace writes the same report (its cgroup part too: --save ends
# raw.trace with the cgroups the run learnt), and its JSON report records are
# what tests/report/derive_report.py derives from its span records.
check_stall_report() {
  local r=$1 status=0 why options=() err=()
  why=$(scan_events_missing "$r")
  [ -z "$why" ] || options=(--no-scan-events "$why")
  # In JSON the report goes out as records, not on stderr.
  [ "$(format_of "$r")" = json ] || err=("$r/err.txt")
  "$python" "$repo/tests/e2e/check_report.py" "${options[@]}" "$threshold_us" "$r/raw.trace" \
    "$r/report.txt" "${err[@]}" >"$r/report-check.log" 2>&1 || status=$?
  local verdict text
  while read -r verdict text; do
    result "$verdict" "$text"
  done < <(grep -E '^(ok|FAIL) ' "$r/report-check.log")
  [ $status -le 1 ] || result FAIL "check_report.py could not check: $(tail -n 1 "$r/report-check.log")"
  status=0
  timeout 300 "$bin" -i "$r/raw.trace" -t "${threshold_us}us" -p "$repo/configs/default.yaml" \
    --format json --report "$r/replay-report.txt" >"$r/replay.jsonl" 2>"$r/replay-json.err" ||
    status=$?
  check "replaying raw.trace on the host writes the same report (status $status)" \
    same_report "$status" "$r/report.txt" "$r/replay-report.txt"
  status=0
  "$python" "$repo/tests/report/derive_report.py" "$repo/configs/default.yaml" "$r/replay.jsonl" \
    >"$r/derive.log" 2>&1 || status=$?
  check "the replay's JSON report records are what derive_report.py derives from its span records ($(tail -n 1 "$r/derive.log"))" \
    [ $status = 0 ]
}

same_report() { [ "$1" = 0 ] && cmp -s "$2" "$3"; }

# The cgroup part of the run's report (and, in JSON, its cgroup and memcg
# records) against the cgroups the guest made, where it put each worker,
# and the raw trace, by check_cgroups.py.
check_cgroups() {
  local r=$1 status=0 json=()
  [ "$(format_of "$r")" = json ] && json=("$r/out.txt")
  "$python" "$repo/tests/e2e/check_cgroups.py" "$threshold_us" "$r/../cgroups" "$r/memstress.txt" \
    "$(saved_trace "$r")" "$r/report.txt" "${json[@]}" >"$r/cgroup-check.log" 2>&1 || status=$?
  local verdict text
  while read -r verdict text; do
    result "$verdict" "$text"
  done < <(grep -E '^(ok|FAIL) ' "$r/cgroup-check.log")
  [ $status -le 1 ] || result FAIL "check_cgroups.py could not check: $(tail -n 1 "$r/cgroup-check.log")"
}

# A JSON run: its output is, record for record, the host's replay of its raw
# trace in JSON, the cgroup and memcg records included (--save ends raw.trace
# with the cgroups the run learnt; check_cgroups checks the records); the
# replay's text output is what e2e-check judges against the raw trace.
check_json_replay() {
  local r=$1 status=0
  timeout 300 "$bin" -i "$r/raw.trace" -t "${threshold_us}us" -p "$repo/configs/default.yaml" \
    --format json >"$r/replay.json" 2>"$r/replay.err" || status=$?
  check "replaying raw.trace on the host in JSON exits 0 (status $status$([ $status = 124 ] && echo ', timed out'))" \
    [ $status = 0 ]
  # All but the run record: the live run knew its kernel's release, and the
  # replay read the save's cgroup records as lines too.
  check "the guest's JSON output is the host's JSON replay but for the run record, its $(grep -cE '^\{"type":"(cgroup|memcg)"' "$r/replay.json") cgroup and memcg records included ($(wc -l <"$r/replay.json") lines)" \
    cmp -s <(grep -v '^{"type":"run",' "$r/out.txt") <(grep -v '^{"type":"run",' "$r/replay.json")
  status=0
  timeout 300 "$bin" -i "$r/raw.trace" -t "${threshold_us}us" -p "$repo/configs/default.yaml" \
    >"$r/replay.out" 2>/dev/null || status=$?
  [ $status = 0 ] || result FAIL "replaying raw.trace on the host as text exits 0 (status $status)"
  check_output_of "$r" "$r/replay.out"
}

# Why this run's kernel prints no mm_vmscan_lru_shrink_inactive (nothing if
# it does): MGLRU's evict_folios prints it since Linux 6.7 ("mm: multi-gen
# LRU: reuse some legacy trace events"), and only shrink_inactive_list did
# before.
scan_events_missing() {
  local release
  release=$(cat "$1/../kernel")
  if grep -q 'MGLRU on' "$1/label" &&
    [ "$(printf '%s\n' 6.7 "${release%%-*}" | sort -V | head -n 1)" != 6.7 ]; then
    echo "MGLRU on, and $release's evict_folios prints none (Linux 6.7 added it)"
  fi
}
check_statuses() {
  check "allocwatch exited 0 after SIGINT (status $(cat "$1/allocwatch.status"))" \
    [ "$(cat "$1/allocwatch.status")" = 0 ]
  check "the workload ran to its end (status $(cat "$1/memstress.status" 2>/dev/null))" \
    [ "$(cat "$1/memstress.status" 2>/dev/null)" = 0 ]
}

check_restored() {
  same_tracefs "$1/tracefs.before" "$1/tracefs.after" "the run"
}

check_no_journal() {
  check "no journal is left behind ($(tr '\n' ' ' <"$1/journals"))" \
    no_journal_in "$1/journals"
}
no_journal_in() { ! grep -qE '\.state$' "$1"; }

# same_tracefs BEFORE AFTER WHAT: tracefs as it was, but for what the kernel
# cannot put back of buffer_size_kb.
same_tracefs() {
  if cmp -s <(tracefs_files_but_buffer "$1") <(tracefs_files_but_buffer "$2"); then
    result ok "tracefs after $3 is byte-identical to before ($(grep -c '^== ' "$1") files, options included; buffer_size_kb below)"
  else
    result FAIL "tracefs after $3 differs from before:"
    diff "$1" "$2" | head -n 20 | sed 's/^/  /'
  fi
  local before after restorable
  before=$(tracefs_file "$1" buffer_size_kb)
  after=$(tracefs_file "$2" buffer_size_kb)
  restorable=$(ring_buffer_kb "$before")
  if [ "$after" = "$before" ]; then
    result ok "buffer_size_kb is back to '$before'"
  else
    check "buffer_size_kb '$before' is back as '$after', the nearest the kernel allows ($restorable)" \
      [ "$after" = "$restorable" ]
  fi
}

# The snapshot the guest took: "== FILE" lines, each followed by its content.
tracefs_file() { awk -v f="$2" '/^== /{on = ($2 == f); next} on' "$1"; }
tracefs_files_but_buffer() { awk '/^== /{skip = ($2 == "buffer_size_kb")} !skip' "$1"; }

# What buffer_size_kb reads after allocwatch puts back BEFORE, at best. The
# kernel allocates the ring buffer on first use ("7 (expanded: 1408)" until
# then) and never unallocates it; and it sizes it in whole pages of 4080 data
# bytes, so that its boot default, 1408 KiB, reads 1410 once written back.
ring_buffer_kb() {
  local kb=$1
  [[ $kb =~ \(expanded:\ ([0-9]+)\) ]] && kb=${BASH_REMATCH[1]}
  local pages=$(((kb * 1024 + 4079) / 4080))
  echo $((pages * 4080 / 1024))
}

# Checks of the kernel as a whole (its results directory R, kernel K, the
# prepared kernel KDIR with its config).
kernel_checks=(check_console check_functions check_events check_runs_present check_formats
  check_trace_cmd_file check_restore_after_kill check_made_run)

# A call trace that warn_alloc() prints under its "page allocation failure"
# line is the workload's doing, not a fault: an allocation that was allowed
# to fail (__GFP_NORETRY: a reader's spare ring-buffer page, seen on 5.10
# under trace-cmd's splice) failed. Those are counted, not failed.
check_console() {
  local crashes warned
  crashes=$(awk '/page allocation failure:/ { warned = NR }
    /BUG:|Oops|Kernel panic|segfault/ || (/Call Trace/ && NR - warned > 3) { print; if (++n == 3) exit }' \
    "$console")
  warned=$(grep -o '[^ ]*: page allocation failure: order:[0-9]*' "$console" | sort | uniq -c |
    tr -s ' \n' '  ')
  check "no kernel BUG, Oops, panic, call trace or segfault on the console${crashes:+: $crashes}" \
    [ -z "$crashes" ]
  log "page allocation failures warned of on the console:${warned:- none}"
}

# The chosen function of each profile role (a role is named by its first
# alternative), as allocwatch --check printed it in the guest.
chosen_functions() { # CHECK_TXT: "ROLE CHOSEN|- ALTERNATIVE..." lines
  awk '/^functions:/ { on = 1; next } /^events:/ { on = 0 }
    on && /\(.*\)$/ {
      chosen = $1 == "MISSING" ? "-" : $1
      alts = $0; sub(/^[^(]*\(/, "", alts); sub(/\)$/, "", alts); gsub(/ \| /, " ", alts)
      split(alts, a, " ")
      print a[1], chosen, alts
    }' "$1"
}

# For each role: allocwatch's choice is the first alternative this kernel
# lists in available_filter_functions (read apart from allocwatch), and it is
# the name tests/e2e/expected-functions says this kernel calls.
check_functions() {
  local r=$1 k=$2
  check "allocwatch --check -p default exits 0 on this kernel (status $(cat "$r/check.status"): $(head -n 1 "$r/check.err"))" \
    [ "$(cat "$r/check.status")" = 0 ]
  local column
  column=$(awk -v k="$k" '!/^#/ && NF && !header { for (i = 2; i <= NF; i++) if ($i == k) print i; header = 1 }' \
    "$repo/tests/e2e/expected-functions")
  if [ -z "$column" ]; then
    result FAIL "tests/e2e/expected-functions has no column for kernel $k"
    return
  fi
  local role chosen alts first expected wrong="" unexpected="" none="" n=0
  while read -r role chosen alts; do
    n=$((n + 1))
    first=-
    for alt in $alts; do
      if grep -qxF "$alt" "$r/available-functions"; then first=$alt; break; fi
    done
    [ "$chosen" = "$first" ] || wrong="$wrong $role: chose $chosen, available_filter_functions has $first;"
    expected=$(awk -v role="$role" -v c="$column" '!/^#/ && $1 == role { print $c }' \
      "$repo/tests/e2e/expected-functions")
    if [ -z "$expected" ]; then
      unexpected="$unexpected $role (no expectation);"
    elif [ "$chosen" != "$expected" ]; then
      unexpected="$unexpected $role: $chosen, expected $expected;"
    fi
    [ "$chosen" = - ] && none="$none $role"
  done < <(chosen_functions "$r/check.txt")
  check "each of the $n roles got the first name available_filter_functions lists${wrong:+:$wrong}" \
    [ -z "$wrong" -a "$n" -gt 0 ]
  check "each role's name is the one tests/e2e/expected-functions gives $k${unexpected:+:$unexpected}" \
    [ -z "$unexpected" ]
  # A role without a name on a kernel is reported, not an error.
  log "$k: no name on this kernel (reported, skipped):${none:- none}"
}

# The kernel's available_events decides: every event of the default profile
# is there (else --check would have refused it), and allocwatch saw them all.
check_events() {
  local r=$1 missing
  missing=$(awk '/^events:/ { on = 1; next } on && $1 == "MISSING" { printf "%s ", $2 }' "$r/check.txt")
  check "every event of the default profile is in this kernel's available_events${missing:+: missing $missing}" \
    [ -z "$missing" ]
}

# What the kernel's config says it has, the guest must have run with: MGLRU
# both ways (CONFIG_LRU_GEN), funcgraph-args (CONFIG_FUNCTION_TRACE_ARGS),
# funcgraph-retval (CONFIG_FUNCTION_GRAPH_RETVAL).
check_runs_present() {
  local r=$1 k=$2 kdir=$3
  if grep -qx CONFIG_LRU_GEN=y "$kdir/config"; then
    check "MGLRU (CONFIG_LRU_GEN) ran both ways: run1 '$(cat "$r/run1/label")', run2 '$(cat "$r/run2/label" 2>/dev/null)'" \
      grep -q "MGLRU $([ "$(cat "$r/lru_gen")" = 0x0000 ] && echo on || echo off)" "$r/run2/label"
  else
    check "no MGLRU in this kernel's config, and none in the guest ($(cat "$r/lru_gen"))" \
      [ "$(cat "$r/lru_gen")" = none ]
  fi
  local option config
  for option in funcgraph-args:CONFIG_FUNCTION_TRACE_ARGS funcgraph-retval:CONFIG_FUNCTION_GRAPH_RETVAL; do
    config=${option#*:}
    option=${option%%:*}
    if grep -qx "$config=y" "$kdir/config"; then
      check "$option ($config) was on for run2 and the thresh-0 capture" \
        grep -q "$option on" "$r/run2/label" 2>/dev/null
    else
      log "$k: no $option here ($config is not set)"
    fi
  done
}

# The thresh-0 capture: every line form this kernel printed (entries, leaves,
# bare returns, and those of funcgraph-args/-retval where they were on) reads
# back through allocwatch, and the spans are of traced functions only.
check_formats() {
  local r=$1 f=$1/formats
  # head -c may have cut the last line short.
  if [ -n "$(tail -c 1 "$f/raw.trace")" ]; then
    head -n -1 "$f/raw.trace" >"$f/whole.trace"
  else
    cp "$f/raw.trace" "$f/whole.trace"
  fi
  "$e2e_check" --forms "$f/whole.trace" >"$f/forms.txt"
  local status=0
  timeout 300 "$bin" -i "$f/whole.trace" -t 1us -p "$repo/configs/default.yaml" --format json \
    >"$f/replay.json" 2>"$f/replay.err" || status=$?
  local lines unread
  lines=$(sed -n 's/^allocwatch: \([0-9]*\) lines read, \([0-9]*\) not understood.*/\1/p' "$f/replay.err")
  unread=$(sed -n 's/^allocwatch: \([0-9]*\) lines read, \([0-9]*\) not understood.*/\2/p' "$f/replay.err")
  check "the thresh-0 capture ($(sed 's/^forms: //' "$f/forms.txt" | tr '\n' ',' | sed 's/,$//')) replays: status $status, ${lines:-?} lines read, ${unread:-?} not understood" \
    [ $status = 0 -a "${lines:-0}" -gt 1000 -a "${unread:-1}" = 0 ]
  local strangers
  # A bare return whose entry came before the capture began has no name.
  strangers=$(sed -n 's/^{"type":"span","name":"\([^"]\+\)".*/\1/p' "$f/replay.json" | sort -u |
    grep -vxF -f "$r/available-functions" | tr '\n' ' ' || true)
  check "every named span of the replay is a traced function${strangers:+ (not: $strangers)}" \
    [ -z "$strangers" -a -s "$f/replay.json" ]
  local option
  for option in $(cat "$f/options"); do
    case $option in
      funcgraph-args) check "funcgraph-args on: the capture has entries and leaves with arguments" \
        grep -q 'with arguments' "$f/forms.txt" ;;
      funcgraph-retval) check "funcgraph-retval on: the capture has returns with their value" \
        grep -qE 'with a value|with a comment' "$f/forms.txt" ;;
    esac
  done
}

# The trace.dat trace-cmd recorded in the guest, replayed by allocwatch -i:
# what it prints and reports is what check_dat.py finds in it, the top
# level's graph trace in graph mode, the instance's events (--buffer) in
# events mode.
check_trace_cmd_file() {
  local d=$1/trace-cmd name status option
  check "trace-cmd recorded trace.dat in the guest (status $(cat "$d/record.status" 2>/dev/null): $(tail -n 1 "$d/record.log" 2>/dev/null))" \
    [ "$(cat "$d/record.status" 2>/dev/null)" = 0 ]
  for name in graph events; do
    option=()
    [ $name = graph ] || option=(--buffer allocwatch-e2e)
    status=0
    timeout 300 "$bin" -i "$d/trace.dat" "${option[@]}" -t 100us -p "$repo/configs/default.yaml" \
      --report "$d/$name-report.txt" >"$d/$name.out" 2>"$d/$name.err" || status=$?
    check "allocwatch -i trace.dat${option[*]:+ ${option[*]}} exits 0 (status $status: $(tail -n 1 "$d/$name.err"))" \
      [ $status = 0 ]
    [ $name = graph ] || option=(--events "${option[@]}")
    [ $status != 0 ] || threshold_us=100 check_dat_of "$d/$name-check.log" "$d/trace.dat" \
      "$d/$name.out" "$d/$name-report.txt" "${option[@]}"
  done
}

# allocwatch killed with SIGKILL once set up leaves its journal, and
# allocwatch --restore puts tracefs back from it and removes it.
check_restore_after_kill() {
  local d=$1/restore
  check "a SIGKILLed run had changed tracefs (current_tracer $(tracefs_file "$d/tracefs.killed" current_tracer)) and left its journal ($(tr '\n' ' ' <"$d/journals.killed"))" \
    grep -qE '\.state$' "$d/journals.killed"
  check "allocwatch --restore exits 0 (status $(cat "$d/restore.status"): $(tail -n 1 "$d/restore.err"))" \
    [ "$(cat "$d/restore.status")" = 0 ]
  same_tracefs "$d/tracefs.before" "$d/tracefs.after" "--restore"
  check_no_journal "$d"
}

# A guest booted without /run: allocwatch made /run as a
# minimal root would want it (0755) and its journal directory closed (0700).
check_made_run() {
  grep -q '^/run exists' "$1/run-dir" && return
  check "without /run, allocwatch made /run 0755 and /run/allocwatch 0700 ($(tail -n +2 "$1/run-dir" | tr '\n' ';'))" \
    made_run "$1/run-dir"
}
made_run() { grep -qx '/run 755 0' "$1" && grep -qx '/run/allocwatch 700 0' "$1"; }

usage() {
  sed -n 's/^#   //p' "$0" >&2
  exit 2
}

[ $# -ge 1 ] || usage
what=$1
shift
case $what in
  run)
    [ $# -ge 4 ] || usage
    bin=$1 e2e_check=$2 threshold_us=$3
    run_dir=$4
    shift 4
    [ "$(format_of "$run_dir")" = json ] && run_checks=("${json_run_checks[@]}")
    [ -f "$run_dir/trace.dat" ] && run_checks=("${raw_run_checks[@]}")
    [ $# = 0 ] || run_checks=("$@")
    for fn in "${run_checks[@]}"; do "$fn" "$run_dir"; done
    ;;
  kernel)
    [ $# -ge 6 ] || usage
    bin=$1 e2e_check=$2 k=$3 kdir=$4 console=$5
    results_dir=$6
    shift 6
    [ $# = 0 ] || kernel_checks=("$@")
    for fn in "${kernel_checks[@]}"; do "$fn" "$results_dir" "$k" "$kdir"; done
    ;;
  chosen-functions)
    [ $# = 1 ] || usage
    chosen_functions "$1"
    exit
    ;;
  *) usage ;;
esac
echo "checks: $passed passed, $failed failed"
[ "$failed" = 0 ]

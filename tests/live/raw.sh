# Sourced by tests/live/run.sh: the binary path against the text one. A raw
# run (the default source) and a `--source text --force` run trace at once,
# each in its own instance, while a memory cgroup reclaims; they must find
# the same stalls (tests/live/same_stalls.py: a stall only one run has must
# be one the other instance stamped below the threshold, as the raw run's
# trace.dat and the text run's --save show), the raw figures exact in ns,
# neither losing events, and tracefs must be as found afterwards. The raw
# run's --save is a trace.dat: trace-cmd report reads every record of it,
# and its replay prints exactly what the run printed, cgroups included
# (kept after the pages, where trace-cmd does not read).

state >"$tmp/prior-state"
cg=$(make_cgroup raw)
raw_threshold_ns=2000
"$bin" -t 2us --format json --duration 120s --save "$tmp/raw.dat" \
  >"$tmp/raw.json" 2>"$tmp/raw.err" &
raw_run=$!
if wait_started "$raw_run"; then
  "$bin" -t 2us --format json --source text --force --duration 120s --save "$tmp/text.save" \
    >"$tmp/text.json" 2>"$tmp/text.err" &
  text_run=$!
  if wait_started "$text_run"; then
    for _ in 1 2; do read_in_cgroup "$cg"; done
    sleep 1 # the text run's batch delay, the raw run's last pass
  fi
  kill -INT "$text_run" 2>/dev/null
  wait "$text_run"
  text_rc=$?
fi
kill -INT "$raw_run" 2>/dev/null
wait "$raw_run"
raw_rc=$?
remove_cgroup "$cg"

if [ "$raw_rc" = 0 ] && [ "${text_rc:-1}" = 0 ]; then
  ok "raw and text at once: both exit 0"
else
  fail "raw and text at once: exit $raw_rc (raw), ${text_rc:-none} (text)"
  tail -n 5 "$tmp/raw.err" "$tmp/text.err" 2>/dev/null
fi
if grep -q "instead of trace_pipe_raw" "$tmp/raw.err"; then
  fail "the raw run read the text: $(grep "instead of trace_pipe_raw" "$tmp/raw.err")"
else
  ok "the raw run read trace_pipe_raw"
fi
for run in raw text; do
  if grep -q " 0 events lost by the kernel" "$tmp/$run.err"; then
    ok "the $run run lost no events"
  else
    fail "the $run run lost events: $(grep "events lost" "$tmp/$run.err")"
  fi
done
# compare_runs SCRIPT: SCRIPT's "ok - ..." and "FAIL - ..." lines for the two
# runs' outputs and saves, as this suite's; false if any failed.
compare_runs() {
  local line status=0
  while IFS= read -r line; do
    case $line in
    "ok - "*) ok "raw vs text: ${line#ok - }" ;;
    *) fail "raw vs text: ${line#FAIL - }"; status=1 ;;
    esac
  done < <("$1" "$tmp/raw.json" "$tmp/text.json" "$raw_threshold_ns" \
    configs/default.yaml "$tmp/raw.dat" "$tmp/text.save" 2>&1)
  return $status
}
# The stalls compared; on a failure, what each run said of its merge, its
# held events and its pairs, to read it by.
compare_runs tests/live/same_stalls.py ||
  grep -H -e "trace_pipe_raw:" -e "held events" -e "pairs over" "$tmp/raw.err" "$tmp/text.err" |
  sed "s|$tmp/|  |"
# The comparison fails a stall missing from either run, and passes one the
# other instance stamped below the threshold (its save shows it so).
compare_runs tests/live/same_stalls_test.py
check_restored "raw and text at once"

records=$(sed -n 's/^allocwatch: \([0-9]*\) lines read.*/\1/p' "$tmp/raw.err")
if ! command -v trace-cmd >/dev/null; then
  fail "raw --save: trace-cmd is not installed (scripts/install-deps.sh)"
elif ! trace-cmd report "$tmp/raw.dat" >"$tmp/raw.dat.txt" 2>"$tmp/raw.dat.err"; then
  fail "raw --save: trace-cmd report cannot read the file: $(head -n 2 "$tmp/raw.dat.err")"
elif [ -s "$tmp/raw.dat.err" ]; then
  fail "raw --save: trace-cmd report warns: $(head -n 2 "$tmp/raw.dat.err")"
else
  # Its first line is "cpus=N"; every other line is one record.
  in_file=$(($(wc -l <"$tmp/raw.dat.txt") - 1))
  if [ -n "$records" ] && [ "$in_file" = "$records" ]; then
    ok "raw --save: trace-cmd report reads all $records records of the trace.dat"
  else
    fail "raw --save: trace-cmd report reads $in_file records, the run read ${records:-none}"
  fi
fi
# KernelShark opens it too: its library reads the records trace-cmd reads
# (tests/kshark/agrees.py), and the check fails on a reading one record short.
kshark=$build/kshark-records
if tests/kshark/agrees.py "$kshark" "$tmp/raw.dat" >"$tmp/kshark.log" 2>&1; then
  ok "raw --save: $(cut -c6- "$tmp/kshark.log" | sed "s|$tmp/||")"
else
  fail "raw --save: ${kshark##*/}: $(tail -n 1 "$tmp/kshark.log")"
fi
"$kshark" "$tmp/raw.dat" 2>/dev/null | sed '$d' >"$tmp/kshark.short"
short_records=$(($(wc -l <"$tmp/kshark.short") - 1))
sed -i "1s/^records [0-9]*/records $short_records/" "$tmp/kshark.short"
tests/kshark/agrees.py "$kshark" "$tmp/raw.dat" "$tmp/kshark.short" >"$tmp/kshark.log" 2>&1
rc=$?
expect "raw --save: the KernelShark check fails a reading one record short" 1 "$tmp/kshark.log" \
  "1 only trace-cmd reads"
# The file names each task as the run did (its saved_cmdlines carries the
# run's names), in trace-cmd's reading too.
if names=$(python3 - "$tmp/raw.json" "$tmp/raw.dat" <<'PY'
import json, sys
sys.path.insert(0, "tests/e2e")
import tracedat
run = {}
for line in open(sys.argv[1]):
    r = json.loads(line)
    if r.get("type") == "span" and r.get("comm") not in (None, "<...>"):
        run[r["pid"]] = r["comm"]
records, _ = tracedat.read_dat(sys.argv[2])
file = {r.pid: r.comm.strip() for r in records}
wrong = {pid: (comm, file.get(pid)) for pid, comm in run.items() if file.get(pid) != comm}
print(f"{len(run)} tasks" if run and not wrong else f"{len(wrong)} of {len(run)} named otherwise: {list(wrong.items())[:3]}")
sys.exit(0 if run and not wrong else 1)
PY
); then
  ok "raw --save: trace-cmd names the tasks as the run did ($names)"
else
  fail "raw --save: trace-cmd names tasks otherwise than the run: $names"
fi
# Its replay gives the run's very span records (but for a task the run could
# not name, which the file's saved_cmdlines names: tests/e2e/same_output.py).
if "$bin" -i "$tmp/raw.dat" -t 2us --format json >"$tmp/raw.replay.json" 2>"$tmp/raw.replay.err"; then
  grep '^{"type":"span",' "$tmp/raw.json" >"$tmp/raw.spans"
  grep '^{"type":"span",' "$tmp/raw.replay.json" >"$tmp/raw.replay.spans"
  if ! [ -s "$tmp/raw.spans" ]; then
    fail "raw --save: the run printed no span record to compare its replay with"
  elif same=$(python3 tests/e2e/same_output.py "$tmp/raw.spans" "$tmp/raw.replay.spans"); then
    ok "raw --save: the trace.dat replays to the run's very span records ($same)"
  else
    fail "raw --save: the replay of the trace.dat differs from the run: $same"
  fi
else
  fail "raw --save: -i of the trace.dat failed: $(tail -n 1 "$tmp/raw.replay.err")"
fi

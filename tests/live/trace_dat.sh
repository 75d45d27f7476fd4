# Sourced by tests/live/run.sh: -i of a trace.dat that trace-cmd wrote on
# this machine just now finds the stalls that -i of the same buffer's text
# finds. A private instance with vmscan and compaction events, two readers
# in a memory cgroup of 8 MiB reading 10 MiB (tests/live/dat_capture.sh):
# its `trace` is read, then `trace-cmd extract -B` writes the trace.dat.
# Both are replayed at 50 us and 20 us and compared by
# tests/dat/compare_replays.py: the same (pid, span) stalls, start and end
# within 1 us, exact ns from the file. trace-cmd report must print as many
# records as allocwatch read. Skipped when extract would change the top
# level (dat_top_level_idle).

. tests/live/dat_capture.sh
if ! dat_top_level_idle; then
  echo "live: trace.dat: not run: trace-cmd extract would reset or expand the top level here"
else
  mkdir "$tmp/dat"
  state >"$tmp/prior-state"
  if dat_capture "$tmp/dat" 10 8 && [ -s "$tmp/dat/trace.dat" ]; then
    ok "trace.dat: trace-cmd extract of a private instance under memcg reclaim"
  else
    fail "trace.dat: trace-cmd extract failed"
    cat "$tmp/dat/extract.log"
  fi
  rm -f "$data".dat-*
  check_restored "trace.dat: the instance and trace-cmd extract"
  for t in "50us 50000" "20us 20000"; do
    set -- $t
    "$bin" -i "$tmp/dat/trace.dat" -t "$1" --format json >"$tmp/dat/dat.json" 2>"$tmp/dat/dat.err"
    dat_rc=$?
    "$bin" -i "$tmp/dat/trace.txt" -t "$1" --format json >"$tmp/dat/text.json" 2>/dev/null
    if [ $dat_rc = 0 ] && out=$(tests/dat/compare_replays.py "$tmp/dat/dat.json" \
      "$tmp/dat/text.json" "$2"); then
      ok "trace.dat at -t $1: the text's stalls: $(printf '%s\n' "$out" | head -n 1 | sed 's/^ok - //')"
    else
      fail "trace.dat at -t $1: not the text's stalls (exit $dat_rc)"
      printf '%s\n' "$out"
      head -n 5 "$tmp/dat/dat.err"
    fi
  done
  records=$(trace-cmd report "$tmp/dat/trace.dat" 2>/dev/null | grep -c ': [a-z_]*: ')
  read_here=$(sed -n 's/^allocwatch: \([0-9]*\) lines read.*/\1/p' "$tmp/dat/dat.err")
  if [ -n "$read_here" ] && [ "$records" = "$read_here" ]; then
    ok "trace.dat: allocwatch read the $records records trace-cmd report prints"
  else
    fail "trace.dat: trace-cmd report prints $records records, allocwatch read ${read_here:-?}"
  fi
fi

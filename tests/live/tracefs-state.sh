#!/bin/bash
# Prints every tracefs file allocwatch could change, the instances, and the
# journals, so that two runs of this script can be compared byte for byte.
#
#   tests/live/tracefs-state.sh [TRACEFS_DIR] [JOURNAL_DIR]
set -u
T=${1:-/sys/kernel/tracing}
J=${2:-/run/allocwatch}
cd "$T" || exit 1
for f in current_tracer tracing_thresh tracing_on buffer_size_kb buffer_percent trace_clock \
  tracing_cpumask set_event set_event_pid set_event_notrace_pid set_ftrace_pid \
  set_ftrace_notrace_pid set_ftrace_filter set_ftrace_notrace; do
  printf '== %s\n' "$f"
  cat "$f" 2>&1
done
printf '== options\n'
grep -r . options 2>&1
printf '== events\n'
grep -r . events --include=enable --include=filter --include=trigger 2>&1
printf '== instances\n'
ls instances 2>&1
printf '== journals\n'
ls "$J" 2>/dev/null
exit 0

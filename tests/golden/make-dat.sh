#!/bin/bash
# Made tests/golden/traces/events-6.18-memcg.dat and .txt (root, this
# machine, once): the vmscan and compaction events of a private instance
# while a memory cgroup limited to LIMIT_MIB reads a file of MIB MiB, as
# the instance's `trace` printed them (.txt, read first) and as
# `trace-cmd extract` wrote its buffer (.dat). See tests/live/dat_capture.sh.
#
#   tests/golden/make-dat.sh OUT_DIR [MIB [LIMIT_MIB [BUFFER_KB]]]
#
# events-6.18-memcg: MIB 10, LIMIT_MIB 8; events-6.18-memcg-lost.dat:
# 10 8 8 (a buffer of 8 KiB per CPU, overwritten).
set -u
out=$1
mib=${2:-32}
limit=${3:-16}
buffer_kb=${4:-}
cd "$(dirname "$0")/../.." || exit 1
T=/sys/kernel/tracing
if [ -f /sys/fs/cgroup/memory/memory.limit_in_bytes ]; then
  cgroups=/sys/fs/cgroup/memory limit_file=memory.limit_in_bytes
else
  cgroups=/sys/fs/cgroup limit_file=memory.max
fi
data=/var/tmp/allocwatch-test-$$
files=/var/tmp/allocwatch-test-$$.files
. tests/live/memcg.sh
. tests/live/dat_capture.sh
exec 9>/tmp/allocwatch-live.lock
flock 9
mkdir -p "$out"
tests/live/tracefs-state.sh >"$out/before.state"
dat_top_level_idle || { echo "make-dat: the top level is in use: trace-cmd extract would reset it"; exit 1; }
dat_capture "$out" "$mib" "$limit" "$buffer_kb"
rc=$?
rm -f "$data".dat-*
tests/live/tracefs-state.sh >"$out/after.state"
cmp -s "$out/before.state" "$out/after.state" || { echo "make-dat: tracefs changed"; rc=1; }
exit $rc

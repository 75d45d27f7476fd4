#!/bin/sh
# /init of the e2e guest (busybox sh). scripts/vm-e2e.sh boots one of Debian's
# stock kernels with this as the whole userland, runs allocwatch in graph mode
# over a memory-pressure workload (once as the kernel boots, reading the ring
# buffer raw; once more with what can be switched flipped, reading
# trace_pipe's text; once more, shorter, raw with JSON output), captures a
# short text trace of the kernel's other line forms, records a trace.dat with
# trace-cmd, and hands everything back on a second disk.
#
# Kernel command line words it reads:
#   allocwatch.probe      print the ready marker and power off (accelerator probe)
#   allocwatch.seconds=N  length of each run's workload (default 20; run3's
#                         half of it)
#   allocwatch.no_run     no /run at all, as in a minimal root: allocwatch
#                         must make its journal's home itself
#
# Results, one directory per run (run1, run2, run3) plus kernel-wide facts:
#   kernel, lru_gen, options, available-events, available-functions, check.txt,
#   cgroups (the memory cgroups made, below), run-dir, trace-cmd/ (the
#   trace.dat trace-cmd recorded, its log and status), formats/ (thresh-0
#   capture), restore/ (kill -9, then --restore), dmesg.txt; per run: label,
#   format (of out.txt: text, json), tracefs.before/after, trace.dat (a raw
#   run's --save) or raw.trace (a text run's),
#   out.txt, err.txt, report.txt (the stall report, --report),
#   allocwatch.status, memstress.txt/.status (the workers' pids and cgroups
#   in it), memcg.events (the pod slice's), journals.
export PATH=/bin
mount -t devtmpfs devtmpfs /dev
# The initramfs has no /dev/console node, so the kernel could not give init
# one: take the serial console now that devtmpfs provides it.
exec </dev/console >/dev/console 2>&1
mount -t proc proc /proc
mount -t sysfs sysfs /sys
echo "allocwatch-e2e: guest up, kernel $(uname -r)"

cmdline=" $(cat /proc/cmdline) "
case $cmdline in *" allocwatch.probe "*) poweroff -f ;; esac
seconds=20
case $cmdline in *" allocwatch.seconds="*)
  seconds=${cmdline##* allocwatch.seconds=}
  seconds=${seconds%% *}
  ;;
esac

fail() {
  echo "allocwatch-e2e: guest error: $*"
  poweroff -f
}

while read -r module; do
  insmod "/lib/modules/$module" || fail "insmod $module"
done </lib/modules/load-order

# Disks by the serial numbers the host gave them, not by probe order.
disk_with_serial() {
  for d in /sys/block/vd*; do
    [ "$(cat "$d/serial" 2>/dev/null)" = "$1" ] && { echo "/dev/${d##*/}"; return; }
  done
  fail "no disk with serial $1"
}
data_disk=$(disk_with_serial aw-data)
results_disk=$(disk_with_serial aw-results)

mkdir -p /mnt/data /tmp
case $cmdline in
  *" allocwatch.no_run "*) ;;
  *) mkdir /run && mount -t tmpfs tmpfs /run ;;
esac
mount -t ext4 "$data_disk" /mnt/data || fail "mount $data_disk"
tracing=/sys/kernel/tracing
mount -t tracefs nodev $tracing || fail "mount tracefs"
# The data disk is a throw-away overlay of the host's image: results written
# there stay reclaimable page cache instead of pinning RAM like the rootfs.
results=/mnt/data/results
mkdir -p "$results"

# Memory cgroups (v2 on every kernel: 6.12 and later are built without v1's
# memory controller, CONFIG_MEMCG_V1), laid out as a kubelet with the systemd
# driver and docker with it make them, for the workload's cgroup workers
# (tests/e2e/memstress.c): the culprit in a Kubernetes pod's container whose
# pod slice has the limit (a stall caused by a parent's memory.max), the
# bystander in a docker container under a limit of its own, a quiet docker
# container. Small limits, so that the groups meet them before global
# reclaim (from the rest of the workload) has taken their page cache away.
# $results/cgroups says what the guest made, for the host's checks:
#   ROLE CGROUP RUNTIME CONTAINER_ID POD_UID|-   (culprit, bystander, quiet)
#   limit CGROUP BYTES                           (each memory.max set)
cgroot=/sys/fs/cgroup
mount -t cgroup2 none $cgroot || fail "mount cgroup2"
pod_uid=5f0c3a9e-7d21-4b6e-9c8a-1e2f3a4b5c6d
culprit_id=3f4ae8b2c1d0e9f8a7b6c5d4e3f2a1b0c9d8e7f6a5b4c3d2e1f0a9b8c7d6e5f4
bystander_id=9a8b7c6d5e4f30211203f4e5d6c7b8a99a8b7c6d5e4f30211203f4e5d6c7b8a9
quiet_id=0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef
pod_slice=/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod$(echo $pod_uid | tr - _).slice
culprit_cg=$pod_slice/cri-containerd-$culprit_id.scope
bystander_cg=/system.slice/docker-$bystander_id.scope
quiet_cg=/system.slice/docker-$quiet_id.scope
# make_cgroup CGROUP: it and its parents, the memory controller enabled for
# the children of each (v2 enables a controller in a group through its
# parent's cgroup.subtree_control).
make_cgroup() {
  parent=$cgroot
  for name in $(echo "${1#/}" | tr / ' '); do
    grep -qw memory "$parent/cgroup.subtree_control" ||
      echo +memory >"$parent/cgroup.subtree_control" || fail "enable the memory controller in $parent"
    parent=$parent/$name
    [ -d "$parent" ] || mkdir "$parent" || fail "mkdir $parent"
  done
}
limit_cgroup() { # CGROUP BYTES
  echo "$2" >"$cgroot$1/memory.max" || fail "memory.max of $1"
  echo "limit $1 $2" >>"$results/cgroups"
}
for cg in "$culprit_cg" "$bystander_cg" "$quiet_cg"; do make_cgroup "$cg"; done
{
  echo "culprit $culprit_cg containerd $culprit_id $pod_uid"
  echo "bystander $bystander_cg docker $bystander_id -"
  echo "quiet $quiet_cg docker $quiet_id -"
} >"$results/cgroups"
limit_cgroup "$pod_slice" $((16 * 1024 * 1024))
limit_cgroup "$bystander_cg" $((4 * 1024 * 1024))
cgroup_dirs="$cgroot$culprit_cg $cgroot$bystander_cg $cgroot$quiet_cg"

# Every tracefs file allocwatch could change, with its content.
snapshot_tracefs() {
  (
    cd $tracing || exit 1
    for f in current_tracer tracing_thresh tracing_on buffer_size_kb trace_clock \
      set_ftrace_filter set_ftrace_notrace set_graph_function set_graph_notrace max_graph_depth \
      set_event set_event_pid set_ftrace_pid options/* \
      events/enable events/vmscan/enable events/vmscan/filter \
      events/compaction/enable events/compaction/filter \
      events/vmscan/*/enable events/vmscan/*/filter \
      events/compaction/*/enable events/compaction/*/filter; do
      echo "== $f"
      cat "$f"
    done
    echo "== instances/"
    ls instances
  )
}

# Below 512 MiB the kernel clears every THP flag at boot, defrag included:
# put back the usual defaults so MADV_HUGEPAGE faults compact directly.
echo always >/sys/kernel/mm/transparent_hugepage/enabled
echo madvise >/sys/kernel/mm/transparent_hugepage/defrag

# What this kernel offers, for the host's checks: its release, whether it
# has MGLRU, which function_graph options, which vmscan/compaction events,
# and which of the default profile's function names it can trace.
uname -r >"$results/kernel"
if [ -d /run ]; then echo "/run exists" >"$results/run-dir"; else echo "no /run" >"$results/run-dir"; fi
lru_gen=/sys/kernel/mm/lru_gen/enabled
if [ -e $lru_gen ]; then cat $lru_gen >"$results/lru_gen"; else echo none >"$results/lru_gen"; fi
ls $tracing/options >"$results/options"
grep -E '^(vmscan|compaction):' $tracing/available_events | sort >"$results/available-events"
allocwatch --check -p default >"$results/check.txt" 2>"$results/check.err"
echo $? >"$results/check.status"
# The alternatives --check lists between "functions:" and "events:".
awk '/^functions:/ { on = 1; next } /^events:/ { on = 0 } on' "$results/check.txt" |
  sed -n 's/.*(\(.*\))$/\1/p' | tr '|' '\n' | tr -d ' ' | sort -u >/tmp/function-names
awk 'NR == FNR { want[$1] = 1; next } ($1 in want) { print $1 }' /tmp/function-names \
  $tracing/available_filter_functions | sort -u >"$results/available-functions"

# allocwatch runs in the foreground, as an operator runs it: a background job
# of a non-interactive shell would start with SIGINT ignored. The load runs
# beside it and ends it with SIGINT, as Ctrl-C does.
load_then_interrupt() { # DIR SECONDS
  dir=$1
  # Start once allocwatch has set tracing up (graph mode at the top level,
  # events mode in an instance), or has given up.
  waited=0
  while [ "$(cat $tracing/current_tracer)" = nop ] && [ -z "$(ls $tracing/instances)" ]; do
    [ -e /tmp/allocwatch.exited ] && return
    waited=$((waited + 1))
    [ $waited -gt 600 ] && break
    usleep 100000
  done
  pid=$(pidof allocwatch)
  echo "allocwatch-e2e: tracing set up after $((waited / 10)) s: $(head -n 1 "$dir/err.txt")"
  sleep 1
  echo "allocwatch-e2e: workload for $2 s"
  # shellcheck disable=SC2086 # three directories
  memstress /mnt/data "$2" $cgroup_dirs >"$dir/memstress.txt" 2>&1
  echo $? >"$dir/memstress.status"
  cat "$cgroot$pod_slice/memory.events" >"$dir/memcg.events"
  cat "$dir/memstress.txt"
  [ -n "$pid" ] || return
  kill -INT "$pid"
  # A run that ignores Ctrl-C is killed, and fails for its status.
  waited=0
  while [ ! -e /tmp/allocwatch.exited ] && [ $waited -lt 600 ]; do
    waited=$((waited + 1))
    usleep 100000
  done
  [ -e /tmp/allocwatch.exited ] || kill -KILL "$pid"
}

# run_allocwatch NAME SECONDS FORMAT SOURCE LABEL: one traced run into
# $results/NAME, with SECONDS of workload, its output in FORMAT (text, json),
# reading the ring buffer raw (SOURCE raw, the default: it saves trace.dat)
# or as trace_pipe's text (text: it saves raw.trace).
run_allocwatch() {
  dir=$results/$1
  mkdir -p "$dir"
  echo "$5" >"$dir/label"
  echo "$3" >"$dir/format"
  echo "allocwatch-e2e: run $1: $5"
  snapshot_tracefs >"$dir/tracefs.before"
  rm -f /tmp/allocwatch.exited
  load_then_interrupt "$dir" "$2" &
  loader=$!
  if [ "$4" = text ]; then
    set -- --source text --save "$dir/raw.trace"
  else
    set -- --save "$dir/trace.dat"
  fi
  allocwatch -t 100us -p default --format "$(cat "$dir/format")" "$@" --report "$dir/report.txt" \
    >"$dir/out.txt" 2>"$dir/err.txt"
  echo $? >"$dir/allocwatch.status"
  touch /tmp/allocwatch.exited
  wait "$loader"
  echo "allocwatch-e2e: allocwatch exited with status $(cat "$dir/allocwatch.status")"
  snapshot_tracefs >"$dir/tracefs.after"
  list_journals >"$dir/journals"
}

# Journals left behind (there should be none after a run ends).
list_journals() {
  if [ -d /run/allocwatch ]; then ls /run/allocwatch; else echo "no /run/allocwatch"; fi
}

mglru_state() {
  case $(cat $lru_gen) in 0x0000) echo off ;; *) echo on ;; esac
}

# The function_graph options that change the line format, where this kernel
# has them: switched on before run 2, so that allocwatch must read their forms
# and leave them on.
format_options=""
for option in funcgraph-args funcgraph-retval; do
  [ -e "$tracing/options/$option" ] && format_options="$format_options $option"
done

label1="as booted"
[ -e $lru_gen ] && label1="$label1, MGLRU $(mglru_state)"
run_allocwatch run1 "$seconds" text raw "$label1"

label2=""
if [ -e $lru_gen ]; then
  if [ "$(mglru_state)" = on ]; then echo n >$lru_gen; else echo y >$lru_gen; fi
  label2="MGLRU $(mglru_state)"
fi
for option in $format_options; do
  echo 1 >"$tracing/options/$option"
  label2="${label2:+$label2, }$option on"
done
# Run 2 reads trace_pipe's text, so that the text path meets the line forms
# of the options above, and runs on every kernel.
run_allocwatch run2 "$seconds" text text "${label2:+$label2, }--source text"

# The stall report as JSON records, its cgroup records with it: a shorter run.
run_allocwatch run3 $((seconds / 2)) json raw "JSON output${label2:+, $label2}"


# The kernel's own line forms with tracing_thresh 0 (entries, leaves, bare
# returns, and the forms of the options above), which allocwatch never asks
# the kernel for but replays from saved traces: 3 s of load, at most 4 MB.
capture_formats() {
  dir=$results/formats
  mkdir -p "$dir"
  echo "$format_options" >"$dir/options"
  cat "$results/available-functions" >$tracing/set_ftrace_filter
  old_thresh=$(cat $tracing/tracing_thresh)
  old_abstime=$(cat $tracing/options/funcgraph-abstime)
  old_proc=$(cat $tracing/options/funcgraph-proc)
  echo 0 >$tracing/tracing_thresh
  echo 1 >$tracing/options/funcgraph-abstime
  echo 1 >$tracing/options/funcgraph-proc
  echo function_graph >$tracing/current_tracer
  # shellcheck disable=SC2086 # three directories
  memstress /mnt/data 3 $cgroup_dirs >"$dir/memstress.txt" 2>&1 &
  timeout 8 head -c 4000000 $tracing/trace_pipe >"$dir/raw.trace"
  wait
  echo nop >$tracing/current_tracer
  echo >$tracing/set_ftrace_filter
  echo "$old_thresh" >$tracing/tracing_thresh
  echo "$old_abstime" >$tracing/options/funcgraph-abstime
  echo "$old_proc" >$tracing/options/funcgraph-proc
  echo "allocwatch-e2e: captured $(wc -l <"$dir/raw.trace") lines with tracing_thresh 0"
}
capture_formats

# trace-cmd's own trace.dat, for the host to replay with allocwatch -i and to
# read with trace-cmd report: one recording, under 4 s of load, of a graph
# trace at the top level set up as allocwatch's graph mode sets it (the
# functions allocwatch --check chose, tracing_thresh 100 us, which trace-cmd
# leaves alone; -l rather than -g, which would trace every function the
# profile's call, not only these) with every vmscan and compaction event,
# and of those events alone in an instance (-B). After the thresh-0 capture:
# trace-cmd's graph session was seen to leave a return hook on a kworker
# asleep in schedule(), whose return the next graph trace (the capture, with
# no filter on returns) then printed.
capture_trace_cmd() {
  dir=$results/trace-cmd
  mkdir -p "$dir"
  started=$(cut -d . -f 1 /proc/uptime)
  functions=$(awk '/^functions:/ { on = 1; next } /^events:/ { on = 0 }
    on && $1 != "MISSING" { printf " -l %s", $1 }' "$results/check.txt")
  old_thresh=$(cat $tracing/tracing_thresh)
  echo 100 >$tracing/tracing_thresh
  # shellcheck disable=SC2086 # the -l options; three directories
  trace-cmd record -q -o "$dir/trace.dat" -p function_graph $functions -e vmscan -e compaction \
    -B allocwatch-e2e -e vmscan -e compaction memstress /mnt/data 4 $cgroup_dirs \
    >"$dir/record.log" 2>&1
  echo $? >"$dir/record.status"
  echo "$old_thresh" >$tracing/tracing_thresh
  echo "allocwatch-e2e: trace-cmd recorded trace.dat (status $(cat "$dir/record.status")," \
    "$(wc -c <"$dir/trace.dat") bytes) in $(($(cut -d . -f 1 /proc/uptime) - started)) s"
}
capture_trace_cmd

# A run killed with SIGKILL once tracing is set up, then allocwatch --restore,
# which must find the journal and put tracefs back.
kill_then_restore() {
  dir=$results/restore
  mkdir -p "$dir"
  snapshot_tracefs >"$dir/tracefs.before"
  allocwatch -t 100us -p default >/dev/null 2>"$dir/err.txt" &
  pid=$!
  waited=0
  while [ "$(cat $tracing/current_tracer)" = nop ] && [ $waited -lt 600 ] &&
    kill -0 $pid 2>/dev/null; do
    waited=$((waited + 1))
    usleep 100000
  done
  sleep 1
  kill -KILL $pid
  wait $pid
  snapshot_tracefs >"$dir/tracefs.killed"
  list_journals >"$dir/journals.killed"
  allocwatch --restore >"$dir/restore.out" 2>"$dir/restore.err"
  echo $? >"$dir/restore.status"
  snapshot_tracefs >"$dir/tracefs.after"
  list_journals >"$dir/journals"
  echo "allocwatch-e2e: killed allocwatch, --restore exited with status $(cat "$dir/restore.status")"
}
kill_then_restore

# Booted without /run: what allocwatch made for its journal.
if ! grep -q "^/run exists" "$results/run-dir"; then
  for d in /run /run/allocwatch; do
    if [ -d $d ]; then echo "$d $(stat -c '%a %u' $d)"; else echo "$d missing"; fi
  done >>"$results/run-dir"
fi

dmesg >"$results/dmesg.txt"
(cd "$results" && tar -cf "$results_disk" .) || fail "tar to $results_disk"
sync
echo "allocwatch-e2e: results written"
poweroff -f

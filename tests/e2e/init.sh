#!/bin/sh
# /init of the e2e guest (busybox sh). scripts/vm-e2e.sh boots Debian's stock
# kernel with this as the whole userland, runs allocwatch in graph mode over a
# memory-pressure workload, and reads the results back from a second disk.
#
# Kernel command line words it reads:
#   allocwatch.probe      print the ready marker and power off (accelerator probe)
#   allocwatch.seconds=N  length of the workload (default 25)
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
seconds=25
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

mkdir -p /mnt/data /run /tmp
mount -t tmpfs tmpfs /run
mount -t ext4 "$data_disk" /mnt/data || fail "mount $data_disk"
mount -t tracefs nodev /sys/kernel/tracing || fail "mount tracefs"
# The data disk is a throw-away overlay of the host's image: results written
# there stay reclaimable page cache instead of pinning RAM like the rootfs.
results=/mnt/data/results
mkdir -p "$results"

# Every tracefs file allocwatch could change, with its content.
snapshot_tracefs() {
  (
    cd /sys/kernel/tracing || exit 1
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
snapshot_tracefs >"$results/tracefs.before"

uname -r >"$results/kernel"

# allocwatch runs in the foreground, as an operator runs it: a background job
# of a non-interactive shell would start with SIGINT ignored. The load runs
# beside it and ends it with SIGINT, as Ctrl-C does.
load_then_interrupt() {
  # Start once allocwatch has set tracing up (graph mode at the top level,
  # events mode in an instance), or has given up.
  waited=0
  while [ "$(cat /sys/kernel/tracing/current_tracer)" = nop ] &&
    [ -z "$(ls /sys/kernel/tracing/instances)" ]; do
    [ -e /run/allocwatch.exited ] && return
    waited=$((waited + 1))
    [ $waited -gt 600 ] && break
    usleep 100000
  done
  pid=$(pidof allocwatch)
  echo "allocwatch-e2e: tracing set up after $((waited / 10)) s: $(cat "$results/err.txt")"
  sleep 1
  echo "allocwatch-e2e: workload for $seconds s"
  memstress /mnt/data "$seconds" >"$results/memstress.txt" 2>&1
  echo $? >"$results/memstress.status"
  cat "$results/memstress.txt"
  [ -n "$pid" ] || return
  kill -INT "$pid"
  # A run that ignores Ctrl-C is killed, and fails for its status.
  waited=0
  while [ ! -e /run/allocwatch.exited ] && [ $waited -lt 600 ]; do
    waited=$((waited + 1))
    usleep 100000
  done
  [ -e /run/allocwatch.exited ] || kill -KILL "$pid"
}
load_then_interrupt &
loader=$!
allocwatch -t 100us -p default --save "$results/raw.trace" >"$results/out.txt" 2>"$results/err.txt"
echo $? >"$results/allocwatch.status"
touch /run/allocwatch.exited
wait "$loader"
echo "allocwatch-e2e: allocwatch exited with status $(cat "$results/allocwatch.status")"

snapshot_tracefs >"$results/tracefs.after"
dmesg >"$results/dmesg.txt"
(cd "$results" && tar -cf "$results_disk" .) || fail "tar to $results_disk"
sync
echo "allocwatch-e2e: results written"
poweroff -f

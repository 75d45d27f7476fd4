# trace.dat files made on this machine, for the suites that replay them
# (tests/live/trace_dat.sh; tests/golden/make-dat.sh made the golden one).
# Source it after tests/live/memcg.sh, as root, holding
# /tmp/allocwatch-live.lock, with `cgroups` and `limit_file` set as
# tests/live/run.sh sets them.
#
# `trace-cmd record` cannot run here (it writes
# /proc/sys/kernel/ftrace_enabled, which is refused), so a private instance
# is set up by hand and `trace-cmd extract -B` writes its buffer. extract
# always takes the top level too: it turns its tracing off and on again,
# disables its events, clears its buffer, and expands its ring buffer if it
# was never used (for good, until a reboot). dat_top_level_idle says whether
# that loses nothing.

# Succeeds when extract would change nothing at the top level: the nop
# tracer, no event enabled, an empty buffer, and a ring buffer expanded
# already (a never-used one reads "7 (expanded: 1408)").
dat_top_level_idle() {
  [ "$(cat "$T/current_tracer")" = nop ] && [ -z "$(cat "$T/set_event")" ] &&
    ! grep -q '^entries: [1-9]' "$T"/per_cpu/cpu*/stats && ! grep -q expanded "$T/buffer_size_kb"
}

# OUT_DIR MIB LIMIT_MIB [BUFFER_KB]: vmscan and compaction events of a private instance
# while two readers (on two CPUs) in a memory cgroup limited to LIMIT_MIB read a file of
# MIB MiB. Writes
# OUT_DIR/trace.txt (the instance's `trace`, read first) and
# OUT_DIR/trace.dat (trace-cmd extract of the same buffer). To keep the
# file small, extract runs in a private mount namespace that shows it only
# what the trace needs, each a copy of the kernel's own: the formats of the
# vmscan, compaction and ftrace events, the saved comms of the trace's pids,
# no printk formats, and the kallsyms of the shrinkers the text names, each
# with its successor (so that a symbol's size stays the kernel's).
# DAT_EVENTS (default "vmscan compaction"): the systems or system/event
# names enabled, and the only formats kept but ftrace's (extract needs them). BUFFER_KB: the instance's
# buffer_size_kb, small to make it overwrite
# events (each page then says how many it lost). Reading `trace` would
# clear that count, so trace.txt is left empty then (and with it the saved
# comms and symbols).
dat_capture() {
  local out=$1 mib=$2 limit=$3 buffer_kb=${4:-} name=allocwatch-test-dat-$$ cg rc e top_on
  local inst=$T/instances/$name
  cg=$cgroups/allocwatch-test-dat-$$
  mkdir "$inst" || return 1
  [ -n "$buffer_kb" ] && echo "$buffer_kb" >"$inst/buffer_size_kb"
  for e in ${DAT_EVENTS:-vmscan compaction}; do echo 1 >"$inst/events/$e/enable"; done
  mkdir "$cg"
  echo $((limit << 20)) >"$cg/$limit_file"
  [ -f "$data.dat-$mib" ] ||
    { head -c $((mib << 20)) /dev/urandom >"$data.dat-$mib" && sync "$data.dat-$mib"; }
  dd if="$data.dat-$mib" iflag=nocache count=0 status=none
  # Two readers on the first and the last CPU, so that two CPUs' buffers
  # hold records.
  sh -c "echo \$\$ > $cg/cgroup.procs; taskset -c 0 cat $data.dat-$mib > /dev/null &
    exec taskset -c $(($(nproc) - 1)) cat $data.dat-$mib > /dev/null"
  echo 0 >"$inst/tracing_on"
  if [ -z "$buffer_kb" ]; then cat "$inst/trace"; fi >"$out/trace.txt"
  sed -n 's/.*mm_shrink_slab_start: \([A-Za-z0-9_.]*\)+.*/\1/p' "$out/trace.txt" |
    sort -u >"$out/symbols"
  sort /proc/kallsyms | awk -v want="$out/symbols" '
    BEGIN { while ((getline s < want) > 0) keep[s] = 1 }
    take { print; take = 0 }
    ($3 in keep) && NF == 3 { print; take = 1 }' >"$out/kallsyms"
  sed -n 's/^.*-\([0-9][0-9]*\) *\[[0-9]*\] .*/\1/p' "$out/trace.txt" | sort -u >"$out/pids"
  awk -v want="$out/pids" 'BEGIN { while ((getline p < want) > 0) keep[p] = 1 }
    $1 in keep' "$T/saved_cmdlines" >"$out/cmdlines"
  rm -rf "$out/events"
  mkdir "$out/events"
  cp "$T/events/header_page" "$T/events/header_event" "$out/events/"
  for e in ${DAT_EVENTS:-vmscan compaction} ftrace; do
    (cd "$T/events" && find "$e" -name format) | while read -r f; do
      mkdir -p "$out/events/${f%/format}"
      cat "$T/events/$f" >"$out/events/$f"
    done
  done
  top_on=$(cat "$T/tracing_on")
  unshare -m sh -c "mount --bind $out/kallsyms /proc/kallsyms &&
    mount --bind $out/events $T/events &&
    mount --bind $out/cmdlines $T/saved_cmdlines &&
    mount --bind /dev/null $T/printk_formats &&
    exec trace-cmd extract -B $name -o $out/trace.dat" >"$out/extract.log" 2>&1
  rc=$?
  # extract turns the top level's tracing off and on again: a failed one
  # may have left it off.
  echo "$top_on" >"$T/tracing_on"
  rm -f "$out"/trace.dat.*
  # extract removes the instance it read; a failed one may not have.
  [ -d "$inst" ] && { echo 0 >"$inst/events/enable"; rmdir "$inst"; }
  remove_cgroup "$cg"
  return $rc
}

# Memory-cgroup helpers the root suites share (tests/live, tests/fleet):
# source it after setting `data` (a file of a few hundred MiB on disk) and
# `files` (a directory to create). The suites make their own cgroups, named
# allocwatch-test-*, and remove them with remove_cgroup.

# CGROUP: kills what runs in it, then removes it. A task killed a moment
# ago may have left cgroup.procs and still hold the cgroup (rmdir: EBUSY),
# so each try kills and removes; the last says why if it still cannot.
remove_cgroup() {
  local i
  for i in $(seq 50); do
    kill -9 $(cat "$1/cgroup.procs") 2>/dev/null
    rmdir "$1" 2>/dev/null && return 0
    sleep 0.1
  done
  rmdir "$1"
}
# CGROUP: 2000 dentries and inodes charged to it, which its reclaim then
# asks the filesystem's shrinker (super_cache_scan) to free.
charge_dentries() {
  sh -c "echo \$\$ > $1/cgroup.procs; mkdir $files && cd $files &&
    i=0; while [ \$i -lt 2000 ]; do : > f\$i; i=\$((i + 1)); done"
}
# CGROUP [LINGER]: the file read from disk, not from a cache an earlier read
# left: its evicted pages leave shadow entries, for the memcg's shrinkers to
# scan. By cat; with LINGER seconds, by a python3 reader that lives that long
# past its read, so that its cgroup can still be read when a watch reports
# its stalls (50 to 250 ms after each ends; a cat is gone in 0.1 to 0.3 s).
read_in_cgroup() {
  dd if="$data" iflag=nocache count=0 status=none
  if [ -z "${2:-}" ]; then
    sh -c "echo \$\$ > $1/cgroup.procs; exec cat $data > /dev/null"
    return
  fi
  (echo "$BASHPID" >"$1/cgroup.procs" && exec python3 -c '
import sys, time
with open(sys.argv[1], "rb", buffering=0) as f:
    while f.read(1 << 20):
        pass
time.sleep(float(sys.argv[2]))' "$data" "$2")
}
# CGROUP: kills what runs in it and in the cgroups below it, then removes
# them all, deepest first.
remove_cgroup_tree() {
  local dir
  find "$1" -depth -mindepth 1 -type d | while read -r dir; do
    remove_cgroup "$dir"
  done
  remove_cgroup "$1"
}

#!/bin/bash
# make e2e: allocwatch's graph mode, end to end, on Debian's stock 6.1 kernel
# booted under qemu (this host's kernel has no function_graph tracer).
#
#   scripts/vm-e2e.sh BIN
#
# Downloads (once, into .cache/e2e/) the kernel package linux-image-amd64
# depends on, builds an initramfs around BIN, boots it with a memory-pressure
# workload, and checks what allocwatch printed against its own raw trace.
# A second run downloads nothing. Results land in $(dirname BIN)/e2e/.
# E2E_SECONDS sets the workload's length (25), E2E_TIMEOUT the guest's (480).
# Exit status: 0 all checks passed, 1 some failed, 77 skipped (no kernel
# package: no network and nothing cached; the reason is in e2e/skipped).
set -euo pipefail

[ $# = 1 ] || { echo "usage: $0 BIN" >&2; exit 2; }
repo=$(cd "$(dirname "$0")/.." && pwd)
bin=$(realpath "$1")
cache=$repo/.cache/e2e
work=$(dirname "$bin")/e2e
results=$work/results
mkdir -p "$cache" "$work"

# Guest memory and workload length: 384 MiB without swap is small enough
# that a 25 s load keeps reclaim and compaction busy even under TCG.
guest_mem=384M
workload_seconds=${E2E_SECONDS:-25}
boot_timeout=${E2E_TIMEOUT:-480}

log() { echo "e2e: $*"; }
die() { echo "e2e: error: $*" >&2; exit 1; }
step_start=$SECONDS
timing() { log "$1 ($((SECONDS - step_start)) s)"; step_start=$SECONDS; }

# --- kernel package -------------------------------------------------------

# The versioned image package the metapackage points at, from apt's lists.
resolve_kernel_package() {
  apt-cache depends linux-image-amd64 2>/dev/null |
    sed -n 's/^ *Depends: \(linux-image-6\.1\.0-[0-9]*-amd64\)$/\1/p' | head -n 1
}

fetch_kernel_deb() {
  local pkg deb tmp
  pkg=$(resolve_kernel_package)
  if [ -z "$pkg" ]; then
    # No apt lists (or no such metapackage): any cached 6.1 image will do.
    deb=$(ls "$cache"/linux-image-6.1.0-*-amd64_*_amd64.deb 2>/dev/null | sort -V | tail -n 1)
    [ -n "$deb" ] || die "apt-cache cannot resolve linux-image-amd64 and no kernel is cached in $cache"
    echo "$deb"
    return
  fi
  deb=$(ls "$cache/${pkg}"_*_amd64.deb 2>/dev/null | sort -V | tail -n 1)
  if [ -z "$deb" ]; then
    log "downloading $pkg" >&2
    tmp=$(mktemp -d "$cache/download.XXXXXX")
    # apt's sandbox user cannot write into a root-owned work tree.
    (cd "$tmp" && apt-get download -q -o APT::Sandbox::User=root "$pkg" >&2) ||
      { rm -rf "$tmp"; die "apt-get download $pkg failed"; }
    deb=$(ls "$tmp"/*.deb)
    # A newer kernel replaces the cached one (and what was unpacked from it).
    local old
    for old in "$cache"/linux-image-*.deb; do
      [ -e "$old" ] && rm -rf "$old" "${old%.deb}"
    done
    mv "$deb" "$cache/"
    rmdir "$tmp"
    deb=$cache/$(basename "$deb")
  fi
  echo "$deb"
}

# Modules the guest needs for a virtio disk with ext4. ext4 and jbd2 ask the
# crypto API for "crc32c" at mount time, which no symbol dependency names.
guest_modules="virtio_pci virtio_blk crc32c_generic ext4"

# Unpacks the kernel and the module closure into $cache/<deb name>/ once.
unpack_kernel() {
  local deb=$1 dir tmp kver
  dir=$cache/$(basename "$deb" .deb)
  if [ ! -f "$dir/load-order" ]; then
    log "unpacking $(basename "$deb")" >&2
    tmp=$(mktemp -d "$cache/unpack.XXXXXX")
    dpkg -x "$deb" "$tmp/root"
    kver=$(ls "$tmp/root/lib/modules")
    # The package ships no modules.dep (its postinst runs depmod).
    busybox depmod -b "$tmp/root" "$kver"
    mkdir -p "$tmp/out/modules"
    cp "$tmp/root/boot/vmlinuz-$kver" "$tmp/out/vmlinuz"
    echo "$kver" >"$tmp/out/release"
    module_closure "$tmp/root/lib/modules/$kver" $guest_modules >"$tmp/out/load-order"
    while read -r m; do
      mkdir -p "$tmp/out/modules/$(dirname "$m")"
      cp "$tmp/root/lib/modules/$kver/$m" "$tmp/out/modules/$m"
    done <"$tmp/out/load-order"
    rm -rf "$dir"
    mv "$tmp/out" "$dir"
    rm -rf "$tmp"
  fi
  echo "$dir"
}

# Prints the modules NAMES need, dependencies first, as modules.dep paths.
module_closure() {
  local moddir=$1
  shift
  awk -v want="$*" '
    { sub(/:$/, "", $1); deps[$1] = ""; for (i = 2; i <= NF; i++) deps[$1] = deps[$1] " " $i
      n = $1; sub(/.*\//, "", n); sub(/\.ko$/, "", n); path[n] = $1 }
    function visit(m,   d, k, i) {
      if (m in seen) return
      seen[m] = 1
      k = split(deps[m], d, " ")
      # modules.dep lists the deepest dependency last: load it first.
      for (i = k; i >= 1; i--) visit(d[i])
      print m
    }
    END {
      n = split(want, names, " ")
      for (i = 1; i <= n; i++) {
        if (!(names[i] in path)) { print "no module " names[i] > "/dev/stderr"; exit 1 }
        visit(path[names[i]])
      }
    }' "$moddir/modules.dep"
}

# --- data disk ---------------------------------------------------------------

# Bump when the layout changes: the cached image is rebuilt under a new name.
disk_version=1

# Two files that together exceed guest RAM for the page-cache readers, and a
# tree of small files for the dentry/inode caches. Non-zero content: mke2fs -d
# turns zero blocks into holes, and holes would read without disk I/O.
make_data_disk() {
  local img=$cache/data-v$disk_version.img tmp
  if [ ! -f "$img" ]; then
    log "building data disk $(basename "$img")" >&2
    tmp=$(mktemp -d "$cache/disk.XXXXXX")
    mkdir "$tmp/root"
    yes allocwatch-e2e-page-cache | head -c 256M >"$tmp/root/big0"
    yes allocwatch-e2e-other-file | head -c 256M >"$tmp/root/big1"
    local d f
    for d in $(seq 0 39); do
      mkdir -p "$tmp/root/tree/d$d"
      (cd "$tmp/root/tree/d$d" && seq 0 499 | sed 's/^/f/' | xargs touch)
    done
    mkfs.ext4 -F -q -L allocwatch-e2e -d "$tmp/root" "$tmp/data.img" 1G >&2
    mv "$tmp/data.img" "$img"
    rm -rf "$tmp"
  fi
  echo "$img"
}

# --- initramfs ---------------------------------------------------------------

build_initramfs() {
  local kdir=$1 root=$work/initramfs lib app
  rm -rf "$root"
  mkdir -p "$root"/{bin,dev,proc,sys,mnt,run,tmp,lib/modules}
  ln -s bin "$root/sbin"
  mkdir -p "$root/usr"
  ln -s ../bin "$root/usr/bin"
  ln -s ../bin "$root/usr/sbin"
  cp "$(command -v busybox)" "$root/bin/busybox"
  for app in $(busybox --list); do
    [ "$app" = busybox ] || ln -s busybox "$root/bin/$app"
  done
  # allocwatch as built (less its debug info: the rootfs lives in the guest's
  # RAM), with what the dynamic loader will ask for.
  strip --strip-debug -o "$root/bin/allocwatch" "$bin"
  local libs
  libs=$(ldd "$bin")
  if grep -q 'not found' <<<"$libs"; then
    die "$bin needs libraries this host lacks: $(grep 'not found' <<<"$libs" | tr -s '\t\n' '  ')"
  fi
  for lib in $(grep -o '/[^ ]*' <<<"$libs"); do
    mkdir -p "$root$(dirname "$lib")"
    cp -L "$lib" "$root$lib"
  done
  # The profiles as configs/ holds them now, where `-p NAME` looks whatever
  # PREFIX allocwatch was built for.
  mkdir -p "$root/etc/allocwatch/profiles"
  cp "$repo"/configs/*.yaml "$root/etc/allocwatch/profiles/"
  cp "$work/memstress" "$root/bin/memstress"
  cp -r "$kdir/modules/." "$root/lib/modules/"
  cp "$kdir/load-order" "$root/lib/modules/load-order"
  install -m 0755 "$repo/tests/e2e/init.sh" "$root/init"
  (cd "$root" && find . | LC_ALL=C sort | cpio -o -H newc -R 0:0 --quiet) | gzip -1 >"$work/initramfs.cpio.gz"
}

# --- boot --------------------------------------------------------------------

# boot LOG TIMEOUT ACCEL... -- extra kernel command line words
boot() {
  local log=$1 limit=$2
  shift 2
  local accel=() append="console=ttyS0 tsc=reliable panic=-1"
  while [ $# -gt 0 ] && [ "$1" != -- ]; do accel+=("$1"); shift; done
  [ $# -gt 0 ] && shift
  append="$append $*"
  timeout --foreground -k 5 "$limit" qemu-system-x86_64 -nographic -no-reboot \
    -m "$guest_mem" -smp 2 "${accel[@]}" -net none \
    -kernel "$kdir/vmlinuz" -initrd "$work/initramfs.cpio.gz" -append "$append" \
    -drive "file=$data_img,format=raw,if=none,id=data,snapshot=on" \
    -device virtio-blk-pci,drive=data,serial=aw-data \
    -drive "file=$work/results.img,format=raw,if=none,id=results" \
    -device virtio-blk-pci,drive=results,serial=aw-results \
    </dev/null >"$log" 2>&1
}

tcg=(-accel tcg,thread=multi -cpu max)

# KVM only if it really runs a stock kernel to userspace: a nested /dev/kvm
# can hang such a kernel early in boot, so a short probe boot decides.
choose_accelerator() {
  if [ ! -c /dev/kvm ] || [ ! -r /dev/kvm ] || [ ! -w /dev/kvm ]; then
    accel_name=tcg
    accel_reason="no usable /dev/kvm"
    accel=("${tcg[@]}")
    return
  fi
  local probe_log=$work/probe-kvm.log
  local status=0
  # In a subshell, to silence bash's note of a qemu that aborts (qemu's own
  # message is in the log).
  (boot "$probe_log" 20 -accel kvm -cpu host -- allocwatch.probe) 2>/dev/null || status=$?
  if grep -q 'allocwatch-e2e: guest up' "$probe_log"; then
    accel_name=kvm
    accel_reason="a KVM probe boot reached the guest's init"
    accel=(-accel kvm -cpu host)
    return
  fi
  accel_name=tcg
  accel=("${tcg[@]}")
  if [ $status = 124 ]; then
    accel_reason="a KVM probe boot did not reach the guest's init within 20 s"
  else
    accel_reason="a KVM probe boot failed: $(grep -m 1 -i 'error' "$probe_log" || tail -n 1 "$probe_log")"
  fi
}

# --- checks ----------------------------------------------------------------

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
finish() {
  log "log, console and results in $work"
  echo "e2e: $passed passed, $failed failed"
  [ "$failed" = 0 ] && exit 0
  exit 1
}

# Asserts over the guest's results, as ok/FAIL lines.
check_results() {
  local r=$results threshold_us=100

  check "allocwatch chose graph mode: $(head -n 1 "$r/err.txt" 2>/dev/null)" \
    grep -qi 'graph mode' "$r/err.txt"

  # What the output holds, checked from the raw trace by e2e-check alone.
  local checker_log=$work/e2e-check.log
  "$work/e2e-check" "$threshold_us" "$r/raw.trace" "$r/out.txt" >"$checker_log" 2>&1
  local status=$?
  while read -r verdict text; do
    result "$verdict" "$text"
  done < <(grep -E '^(ok|FAIL) ' "$checker_log")
  [ $status -le 1 ] || result FAIL "e2e-check could not check: $(tail -n 1 "$checker_log")"

  timeout 300 "$bin" -i "$r/raw.trace" -t "${threshold_us}us" -p "$repo/configs/default.yaml" \
    >"$work/replay.out" 2>"$work/replay.err"
  status=$?
  check "replaying raw.trace on the host exits 0 (status $status$([ $status = 124 ] && echo ', timed out'))" \
    [ $status = 0 ]
  check "replaying raw.trace on the host prints what the guest run printed" \
    cmp -s "$r/out.txt" "$work/replay.out"

  local crashes
  crashes=$(grep -E 'BUG:|Oops|Kernel panic|segfault' "$console" | head -n 3)
  check "no kernel BUG, Oops, panic or segfault on the console${crashes:+: $crashes}" [ -z "$crashes" ]
  check "allocwatch exited 0 after SIGINT (status $(cat "$r/allocwatch.status"))" \
    [ "$(cat "$r/allocwatch.status")" = 0 ]
  check "the workload ran to its end (status $(cat "$r/memstress.status"))" \
    [ "$(cat "$r/memstress.status")" = 0 ]

  if cmp -s <(tracefs_files_but_buffer "$r/tracefs.before") <(tracefs_files_but_buffer "$r/tracefs.after"); then
    result ok "tracefs after the run is byte-identical to before ($(grep -c '^== ' "$r/tracefs.before") files; buffer_size_kb below)"
  else
    result FAIL "tracefs after the run differs from before:"
    diff "$r/tracefs.before" "$r/tracefs.after" | head -n 20 | sed 's/^/  /'
  fi
  local before after restorable
  before=$(tracefs_file "$r/tracefs.before" buffer_size_kb)
  after=$(tracefs_file "$r/tracefs.after" buffer_size_kb)
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

# --- main --------------------------------------------------------------------

started=$SECONDS
rm -f "$work/skipped"
if ! deb=$(fetch_kernel_deb); then
  # Only the first run needs the network; CI reads the reason from this file.
  echo "the kernel package could not be downloaded (apt-get download failed, see above) and none is cached in $cache" >"$work/skipped"
  echo "e2e: SKIP: $(cat "$work/skipped")"
  exit 77
fi
kdir=$(unpack_kernel "$deb")
data_img=$(make_data_disk)
timing "kernel $(cat "$kdir/release") from $(basename "$deb"), data disk ready"

[ "$work/memstress" -nt "$repo/tests/e2e/memstress.c" ] ||
  gcc -static -O2 -Wall -Wextra -Werror -o "$work/memstress" "$repo/tests/e2e/memstress.c"
[ "$work/e2e-check" -nt "$repo/tests/e2e/check_trace.cpp" ] ||
  g++ -std=c++20 -O2 -Wall -Wextra -Wpedantic -Werror -o "$work/e2e-check" "$repo/tests/e2e/check_trace.cpp"
build_initramfs "$kdir"
timing "initramfs built ($(du -k "$work/initramfs.cpio.gz" | cut -f1) KiB, profiles: $(cd "$repo" && echo configs/*.yaml))"

# The guest tars its results onto this blank disk.
rm -f "$work/results.img"
truncate -s 512M "$work/results.img"

choose_accelerator
timing "accelerator: $accel_name, because $accel_reason"

console=$work/console.log
set +e
boot "$console" "$boot_timeout" "${accel[@]}" -- "allocwatch.seconds=$workload_seconds"
qemu_status=$?
set -e
timing "guest ran (qemu status $qemu_status), console in $console"

rm -rf "$results"
mkdir -p "$results"
if ! tar -xf "$work/results.img" -C "$results" 2>/dev/null || [ ! -f "$results/raw.trace" ]; then
  why="qemu status $qemu_status"
  [ "$qemu_status" = 124 ] && why="timed out after $boot_timeout s"
  result FAIL "the guest wrote no results ($why); console tail:"
  tail -n 30 "$console" | sed 's/^/  /'
  finish
fi
sed 's/^/  /' "$results/memstress.txt"
set +e
check_results
set -e
mode=$(sed -n 's/^allocwatch: \([a-z]*\) mode: .*/\1/p' "$results/err.txt")
log "guest kernel $(cat "$results/kernel"), ${mode:-unknown} mode, accelerator $accel_name ($accel_reason)"
sed -n 's/^output: returns: /e2e: over-threshold returns printed per function: /p
  s/^output: tracepoint lines: /e2e: tracepoint lines printed per event: /p' "$work/e2e-check.log"
log "total $((SECONDS - started)) s"
finish

#!/bin/bash
# make e2e: allocwatch's graph mode, end to end, on Debian's stock kernels
# booted under qemu (this host's kernel has no function_graph tracer).
#
#   scripts/vm-e2e.sh BIN [KERNEL...]     KERNEL: 5.10 6.1 6.12 7.2 (default: all)
#
# For each kernel: fetches (once, into .cache/e2e/KERNEL/) the stock kernel
# that Debian's linux-image-amd64 points at in that kernel's suite, with
# apt-get through a private sources list and state directory (the machine's
# apt sources are never read or changed); builds an initramfs around BIN;
# boots it; the guest (tests/e2e/init.sh) runs allocwatch under a
# memory-pressure workload (tests/e2e/memstress.c) with some of it in memory
# cgroups laid out as Kubernetes and docker make them: as the kernel boots,
# reading the ring buffer raw and saving a trace.dat; with MGLRU flipped and
# funcgraph-args/-retval on where the kernel has them, reading trace_pipe's
# text (--source text) and saving it; and once more for half as long, raw,
# with JSON output; it records a graph trace and an instance's events with
# trace-cmd itself, and captures a short text trace with tracing_thresh 0.
# The host then checks each run and the kernel with tests/e2e/check_run.sh
# (whose own checkers are tests/e2e/check_dat.py for a raw run, against its
# trace.dat as trace-cmd report reads it, and for a text run
# tests/e2e/check_trace.cpp, tests/e2e/check_report.py for the stall report,
# tests/e2e/check_cgroups.py for its cgroup part) and prints a table:
# kernel, run, mode, functions picked, spans per function, the report's
# reclaim stalls and those of the cgroups, checks.
#
# Results land in $(dirname BIN)/e2e/KERNEL/, the table in e2e/summary.txt.
# Environment: E2E_SECONDS workload per run (20; run3 half of it),
# E2E_TIMEOUT per boot (600), E2E_REFRESH=1 asks each suite again for its
# newest kernel (otherwise a cached kernel is used and nothing is downloaded;
# if the refresh fails, the cached one still is), E2E_MIRROR the Debian
# mirror (http://deb.debian.org).
# Every guest boots without /run, as a minimal root does: allocwatch makes it.
# Exit status: 0 every check passed; 1 some check failed; 77 none failed but
# some kernel was skipped because its package could not be fetched (each
# reason is in e2e/skipped and in the table).
set -euo pipefail

[ $# -ge 1 ] || { echo "usage: $0 BIN [KERNEL...]" >&2; exit 2; }
repo=$(cd "$(dirname "$0")/.." && pwd)
bin=$(realpath "$1")
shift
cache=$repo/.cache/e2e
work=$(dirname "$bin")/e2e
mkdir -p "$cache" "$work"

all_kernels="5.10 6.1 6.12 7.2"
if [ $# -gt 0 ]; then kernels="$*"; else kernels=${KERNELS:-$all_kernels}; fi

# The suite whose linux-image-amd64 is each kernel. The stable suites' own
# security suites carry their newest kernel (bookworm's main has 6.1.0-50,
# bookworm-security 6.1.0-56, what an up-to-date bookworm runs); sid has none.
suite_of() {
  case $1 in
    5.10) echo bullseye ;;
    6.1) echo bookworm ;;
    6.12) echo trixie ;;
    7.2) echo sid ;;
    *) return 1 ;;
  esac
}
for k in $kernels; do
  suite_of "$k" >/dev/null || { echo "e2e: unknown kernel '$k' (known: $all_kernels)" >&2; exit 2; }
done

# Guest memory and workload length: 384 MiB without swap is small enough
# that a 20 s load keeps reclaim and compaction busy even under TCG.
guest_mem=384M
workload_seconds=${E2E_SECONDS:-20}
boot_timeout=${E2E_TIMEOUT:-600}
mirror=${E2E_MIRROR:-http://deb.debian.org}
threshold_us=100

log() { echo "e2e: $*"; }
die() { echo "e2e: error: $*" >&2; exit 1; }

# --- kernel packages ---------------------------------------------------------

# apt-get and apt-cache options for SUITE: its own sources list, lists, state
# and cache under .cache/e2e/apt/SUITE; nothing of the machine's sources,
# pins or dpkg status is read.
apt_options() {
  local suite=$1 dir=$cache/apt/$1
  mkdir -p "$dir"/{lists/partial,cache/archives/partial,state,empty}
  [ -e "$dir/status" ] || : >"$dir/status"
  local keyring=/usr/share/keyrings/debian-archive-keyring.gpg
  {
    echo "deb [signed-by=$keyring] $mirror/debian $suite main"
    [ "$suite" = sid ] ||
      echo "deb [signed-by=$keyring] $mirror/debian-security $suite-security main"
  } >"$dir/sources.list"
  apt=(-q -o "Dir::Etc::sourcelist=$dir/sources.list" -o Dir::Etc::sourceparts=-
    -o "Dir::Etc::preferences=$dir/empty/preferences" -o "Dir::Etc::preferencesparts=$dir/empty"
    -o "Dir::State=$dir/state" -o "Dir::State::Lists=$dir/lists" -o "Dir::State::status=$dir/status"
    -o "Dir::Cache=$dir/cache" -o Acquire::Languages=none
    # apt's sandbox user cannot write into a root-owned work tree.
    -o APT::Sandbox::User=root)
}

# The first error apt logged, with its explanation line.
apt_error() {
  { grep -m 1 -A 1 -E '^(E|Err|W):' "$1" || tail -n 1 "$1"; } | tr -s '\n ' '  ' | sed 's/ $//'
}

# fetch_kernel KERNEL: .cache/e2e/KERNEL/debs holds its packages afterwards,
# or it returns 1 with the reason in $skip_reason. Downloads only when
# nothing is cached (or E2E_REFRESH is set: then a failure falls back on what
# is cached).
fetch_kernel() {
  local k=$1 dir=$cache/$1
  if [ -f "$dir/packages" ] && [ -z "${E2E_REFRESH:-}" ]; then
    return 0
  fi
  download_kernel "$k" && return 0
  [ -f "$dir/packages" ] || return 1
  log "$k: the refresh failed ($skip_reason); the cached $(cat "$dir/packages")is used"
}

download_kernel() {
  local k=$1 suite dir=$cache/$1
  suite=$(suite_of "$k")
  apt_options "$suite"
  local apt_log=$work/$k/apt.log
  if ! apt-get "${apt[@]}" update >"$apt_log" 2>&1; then
    skip_reason="apt-get update of $suite failed: $(apt_error "$apt_log")"
    return 1
  fi
  local image release
  image=$(apt-cache "${apt[@]}" depends linux-image-amd64 2>/dev/null |
    awk '$1 == "Depends:" && $2 ~ /^linux-image-/ { print $2; exit }')
  if [ -z "$image" ]; then
    skip_reason="$suite lists no linux-image-amd64 (apt-get update: $(apt_error "$apt_log"))"
    return 1
  fi
  if [[ $image != linux-image-$k.* ]]; then
    # The suite has moved past KERNEL: one of its KERNEL images still listed
    # will do; otherwise KERNELS needs updating, and the skip says so.
    local listed
    listed=$(apt-cache "${apt[@]}" pkgnames "linux-image-$k." 2>/dev/null |
      grep -E "^linux-image-$(sed 's/\./\\./g' <<<"$k")\.[0-9].*-amd64$" | sort -V | tail -n 1 || true)
    if [ -z "$listed" ]; then
      skip_reason="$suite's linux-image-amd64 depends on $image, and $suite has no linux-image-$k.*-amd64"
      return 1
    fi
    image=$listed
  fi
  release=${image#linux-image-}
  # 7.x splits the kernel into linux-binary (vmlinuz), linux-modules and
  # linux-base (config, modules.builtin) packages that the image package, now
  # empty, depends on; before that the image package holds all of it.
  local packages
  packages="$image $(apt-cache "${apt[@]}" depends "$image" 2>/dev/null | awk -v r="$release" -v i="$image" '
    $1 == "Depends:" && $2 ~ /^linux-/ && $2 != i &&
      substr($2, length($2) - length(r) + 1) == r { print $2 }' | sort -u | tr '\n' ' ')"
  log "downloading $packages($suite)"
  local tmp
  tmp=$(mktemp -d "$cache/download.XXXXXX")
  # shellcheck disable=SC2086
  if ! (cd "$tmp" && apt-get "${apt[@]}" download $packages) >>"$apt_log" 2>&1; then
    rm -rf "$tmp"
    skip_reason="apt-get download of $packages from $suite failed: $(apt_error "$apt_log")"
    return 1
  fi
  rm -rf "$dir"
  mkdir -p "$dir"
  mv "$tmp" "$dir/debs"
  echo "$packages" >"$dir/packages"
}

# Modules the guest needs for a virtio disk with ext4, where they are not
# built in. Up to 6.12 ext4 and jbd2 ask the crypto API for "crc32c" at mount
# time, which no symbol dependency names; '?': only where the kernel has it
# (7.x's ext4 calls the crc32c library instead).
guest_modules="virtio_pci virtio_blk ext4 crc32c_generic?"

# prepare_kernel KERNEL: .cache/e2e/KERNEL/kernel/ with vmlinuz, config,
# release, and the guest's modules uncompressed in load order (busybox insmod
# reads plain .ko files; 6.12+ ships .ko.xz). Done once per package set.
prepare_kernel() {
  local k=$1 dir=$cache/$1/kernel
  local stamp="$guest_modules / $(cat "$cache/$k/packages")"
  [ "$(cat "$dir/prepared-for" 2>/dev/null)" = "$stamp" ] && return 0
  log "unpacking $(cat "$cache/$k/packages")"
  local tmp deb moddir release
  tmp=$(mktemp -d "$cache/unpack.XXXXXX")
  for deb in "$cache/$k/debs"/*.deb; do dpkg-deb -x "$deb" "$tmp/root"; done
  # /lib/modules up to 6.1, /usr/lib/modules since.
  for moddir in "$tmp"/root/usr/lib/modules/* "$tmp"/root/lib/modules/* ""; do
    [ -d "$moddir/kernel" ] && break
  done
  [ -n "$moddir" ] || die "no lib/modules/*/kernel in $(cat "$cache/$k/packages")"
  release=$(basename "$moddir")
  mkdir -p "$tmp/out/modules"
  echo "$release" >"$tmp/out/release"
  local f
  for f in "$tmp/root/boot/vmlinuz-$release" "$moddir/vmlinuz"; do
    [ -f "$f" ] && cp "$f" "$tmp/out/vmlinuz"
  done
  for f in "$tmp/root/boot/config-$release" "$moddir/config"; do
    [ -f "$f" ] && cp "$f" "$tmp/out/config"
  done
  [ -f "$tmp/out/vmlinuz" ] && [ -f "$tmp/out/config" ] || die "no vmlinuz or config for $release"
  module_closure "$moddir" "$tmp/out/modules" >"$tmp/out/load-order"
  echo "$stamp" >"$tmp/out/prepared-for"
  rm -rf "$dir"
  mv "$tmp/out" "$dir"
  rm -rf "$tmp"
}

# module_closure MODDIR OUT: copies the guest's modules and what they depend
# on (the depends= of each module's .modinfo) into OUT as NAME.ko, and prints
# their names in an order insmod can follow. Built-in ones are skipped.
module_closure() {
  local moddir=$1 out=$2
  local -A path=() builtin=() seen=()
  local f name
  while read -r f; do
    name=$(module_name "$f")
    builtin[$name]=1
  done <"$moddir/modules.builtin"
  while read -r f; do
    name=$(module_name "$f")
    path[$name]=$f
  done < <(find "$moddir/kernel" -name '*.ko*')
  visit() {
    local m=$1 optional=${2:-}
    [ -n "${seen[$m]:-}" ] && return 0
    seen[$m]=1
    [ -n "${builtin[$m]:-}" ] && return 0
    if [ -z "${path[$m]:-}" ]; then
      [ -n "$optional" ] && return 0
      die "$release has no module $m, and it is not built in"
    fi
    case ${path[$m]} in
      *.ko.xz) xz -dc "${path[$m]}" ;;
      *.ko.zst) zstd -qdc "${path[$m]}" ;;
      *.ko.gz) gzip -dc "${path[$m]}" ;;
      *) cat "${path[$m]}" ;;
    esac >"$out/$m.ko"
    local deps dep
    deps=$(objcopy -O binary --only-section=.modinfo "$out/$m.ko" /dev/stdout | tr '\0' '\n' |
      sed -n 's/^depends=//p' | tr ',' ' ')
    for dep in $deps; do visit "$dep"; done
    echo "$m.ko"
  }
  local want
  for want in $guest_modules; do
    visit "${want%\?}" "$([ "${want%\?}" != "$want" ] && echo optional)"
  done
}

# "kernel/fs/ext4/ext4.ko.xz" -> "ext4"; "crc32c-intel.ko" -> "crc32c_intel".
module_name() {
  local n=${1##*/}
  n=${n%%.ko*}
  echo "${n//-/_}"
}

# --- data disk ---------------------------------------------------------------

# Bump when the layout changes: the cached image is rebuilt under a new name.
disk_version=2

# Two files that together exceed guest RAM for the page-cache readers, one
# for the reader in the memory cgroup alone, and a tree of small files for
# the dentry/inode caches. Non-zero content: mke2fs -d turns zero blocks into
# holes, and holes would read without disk I/O.
make_data_disk() {
  local img=$cache/data-v$disk_version.img tmp
  if [ ! -f "$img" ]; then
    log "building data disk $(basename "$img")" >&2
    tmp=$(mktemp -d "$cache/disk.XXXXXX")
    mkdir "$tmp/root"
    yes allocwatch-e2e-page-cache | head -c 256M >"$tmp/root/big0"
    yes allocwatch-e2e-other-file | head -c 256M >"$tmp/root/big1"
    yes allocwatch-e2e-memcg-file | head -c 192M >"$tmp/root/memcg0"
    local d
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

# build_initramfs KDIR OUT: busybox, allocwatch, trace-cmd, the profiles,
# memstress and the kernel's modules.
build_initramfs() {
  local kdir=$1 out=$2 root=$work/initramfs lib app
  rm -rf "$root"
  # No /run: the guest makes it, unless it runs without one.
  mkdir -p "$root"/{bin,dev,proc,sys,mnt,tmp,lib/modules}
  ln -s bin "$root/sbin"
  mkdir -p "$root/usr"
  ln -s ../bin "$root/usr/bin"
  ln -s ../bin "$root/usr/sbin"
  cp "$(command -v busybox)" "$root/bin/busybox"
  for app in $(busybox --list); do
    [ "$app" = busybox ] || ln -s busybox "$root/bin/$app"
  done
  # allocwatch as built (less its debug info: the rootfs lives in the guest's
  # RAM) and the host's trace-cmd (the guest records trace.dat files with
  # it), with what the dynamic loader will ask for.
  strip --strip-debug -o "$root/bin/allocwatch" "$bin"
  cp "$(command -v trace-cmd)" "$root/bin/trace-cmd"
  local libs program
  for program in "$bin" "$root/bin/trace-cmd"; do
    libs=$(ldd "$program")
    if grep -q 'not found' <<<"$libs"; then
      die "$program needs libraries this host lacks: $(grep 'not found' <<<"$libs" | tr -s '\t\n' '  ')"
    fi
    for lib in $(grep -o '/[^ ]*' <<<"$libs"); do
      mkdir -p "$root$(dirname "$lib")"
      cp -L "$lib" "$root$lib"
    done
  done
  # The profiles as configs/ holds them now, where `-p NAME` looks whatever
  # PREFIX allocwatch was built for.
  mkdir -p "$root/etc/allocwatch/profiles"
  cp "$repo"/configs/*.yaml "$root/etc/allocwatch/profiles/"
  cp "$work/memstress" "$root/bin/memstress"
  cp "$kdir"/modules/*.ko "$root/lib/modules/" 2>/dev/null || true
  cp "$kdir/load-order" "$root/lib/modules/load-order"
  install -m 0755 "$repo/tests/e2e/init.sh" "$root/init"
  (cd "$root" && find . | LC_ALL=C sort | cpio -o -H newc -R 0:0 --quiet) | gzip -1 >"$out"
}

# --- boot --------------------------------------------------------------------

# boot KDIR INITRAMFS LOG TIMEOUT ACCEL... -- extra kernel command line words
boot() {
  local kdir=$1 initramfs=$2 log=$3 limit=$4
  shift 4
  local accel=() append="console=ttyS0 tsc=reliable panic=-1"
  while [ $# -gt 0 ] && [ "$1" != -- ]; do accel+=("$1"); shift; done
  [ $# -gt 0 ] && shift
  append="$append $*"
  timeout --foreground -k 5 "$limit" qemu-system-x86_64 -nographic -no-reboot \
    -m "$guest_mem" -smp 2 "${accel[@]}" -net none \
    -kernel "$kdir/vmlinuz" -initrd "$initramfs" -append "$append" \
    -drive "file=$data_img,format=raw,if=none,id=data,snapshot=on" \
    -device virtio-blk-pci,drive=data,serial=aw-data \
    -drive "file=$results_img,format=raw,if=none,id=results" \
    -device virtio-blk-pci,drive=results,serial=aw-results \
    </dev/null >"$log" 2>&1
}

# One host thread for both vCPUs: with a thread per vCPU (thread=multi), a
# guest whose ftrace was patching __alloc_pages's call site while both CPUs
# ran it was seen stuck there for good (soft lockups on both CPUs, RIP
# __alloc_pages+0x0, Debian 6.1): cross-vCPU code patching is what
# multi-threaded TCG gets wrong. A single thread sees every patch at once.
tcg=(-accel tcg,thread=single -cpu max)

# KVM only if it really runs a stock kernel to userspace: a nested /dev/kvm
# can hang such a kernel early in boot, so a short probe boot decides.
choose_accelerator() {
  local kdir=$1 initramfs=$2
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
  (boot "$kdir" "$initramfs" "$probe_log" 20 -accel kvm -cpu host -- allocwatch.probe) 2>/dev/null ||
    status=$?
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

# tests/e2e/check_run.sh judges each run and the kernel as a whole; its
# verdicts are counted per row of the summary (a run, or the kernel's own
# checks) and in total.
checker=$repo/tests/e2e/check_run.sh
passed=0
failed=0
total_passed=0
total_failed=0
fail() { # TEXT: a verdict of the host's own, on this row
  echo "FAIL $1"
  failed=$((failed + 1))
  total_failed=$((total_failed + 1))
}

# checks OUT run|kernel ARG...: check_run.sh's lines as they come (all of
# them in OUT), and its counts as this row's.
checks() {
  local out=$1 counts
  shift
  "$checker" "$@" | tee "$out" | grep --line-buffered -v '^checks: [0-9]* passed, [0-9]* failed$'
  counts=$(sed -n 's/^checks: \([0-9]*\) passed, \([0-9]*\) failed$/\1 \2/p' "$out")
  if [ -z "$counts" ]; then
    fail "tests/e2e/check_run.sh $1 ended before its count: $(tail -n 1 "$out")"
    return
  fi
  read -r passed failed <<<"$counts"
  total_passed=$((total_passed + passed))
  total_failed=$((total_failed + failed))
}

# --- one kernel ----------------------------------------------------------------

summary=()   # rows: kernel|release|run|mode|picked|spans|report|checks
timings=()
skipped=()
add_row() { summary+=("$(IFS='|'; echo "$*")"); }

# spans_of RUN_DIR: the chosen functions with their over-threshold returns in
# the run's saved trace ("name N, ...", as e2e-check or check_dat.py counted
# them), and the shrinker pairs.
spans_of() {
  local r=$1 kdir=$2
  local name n out=""
  while read -r _ name _; do
    [ "$name" = - ] && continue
    n=$(sed -n "s/^raw: \([0-9]*\) returns over threshold: $name\$/\1/p" "$r/e2e-check.log")
    out="$out${out:+, }$name ${n:-0}"
  done < <("$checker" chosen-functions "$kdir/check.txt")
  n=$(sed -n 's/^raw: \([0-9]*\) shrink pairs over threshold: .*/\1/p' "$r/e2e-check.log" |
    awk '{ s += $1 } END { print s + 0 }')
  echo "$out, shrink_slab pairs $n"
}

# The report's lines that say most: the heading and direct and memcg reclaim
# rows of the stall table, what reclaim got, and the cgroup part.
show_report() {
  [ -s "$1/report.txt" ] || return 0
  echo "  stall report ($(wc -l <"$1/report.txt") lines in report.txt), its reclaim rows and cgroups:"
  awk '/^allocwatch: stalls of / { print; getline; print; on = 1; next }
    /^allocwatch: what slow reclaim got/ { on = 2; print; next }
    /^allocwatch: (stalls by memory cgroup|memory limits of)/ { on = 2; print; next }
    /^allocwatch: / { on = 0 }
    on == 1 && /  (direct|memcg) reclaim  / || on == 2' "$1/report.txt" | sed 's/^/    /'
}

# report_of RUN_DIR: the report's stalls as its checker counted them in the
# run's saved trace (check_report.py: direct and memcg reclaim of a text run;
# check_dat.py: every kind of a raw run), and those of the cgroup workers, as
# check_cgroups.py did.
report_of() {
  local s c
  s=$(sed -n 's/^summary: //p' "$1/report-check.log" "$1/dat-check.log" 2>/dev/null)
  c=$(sed -n 's/^summary: //p' "$1/cgroup-check.log" 2>/dev/null)
  echo "${s:--}${c:+; $c}"
}

run_kernel() {
  local k=$1 started=$SECONDS step=$SECONDS kwork=$work/$1
  local t_fetch t_guest t_checks
  rm -rf "$kwork"
  mkdir -p "$kwork"
  log "=== kernel $k ($(suite_of "$k")) ==="
  skip_reason=""
  if ! fetch_kernel "$k"; then
    log "SKIP $k: $skip_reason"
    skipped+=("$k: $skip_reason")
    add_row "$k" "-" "SKIPPED" "-" "-" "$skip_reason" "-" "-"
    return
  fi
  prepare_kernel "$k"
  local kdir=$cache/$k/kernel
  t_fetch=$((SECONDS - step))
  step=$SECONDS
  log "$k: $(cat "$kdir/release") from $(cat "$cache/$k/packages")($t_fetch s to fetch and unpack)"

  local initramfs=$kwork/initramfs.cpio.gz
  build_initramfs "$kdir" "$initramfs"
  # The guest tars its results onto this blank disk.
  local results_img=$kwork/results.img
  truncate -s 512M "$results_img"
  [ -n "${accel_name:-}" ] || choose_accelerator "$kdir" "$initramfs"
  console=$kwork/console.log
  local qemu_status=0
  boot "$kdir" "$initramfs" "$console" "$boot_timeout" "${accel[@]}" -- \
    "allocwatch.seconds=$workload_seconds" allocwatch.no_run || qemu_status=$?
  t_guest=$((SECONDS - step))
  step=$SECONDS
  log "$k: guest ran $t_guest s under $accel_name (qemu status $qemu_status), console in $console"

  local r=$kwork/results
  mkdir -p "$r"
  # Checks report; they do not stop the script.
  set +e
  passed=0
  failed=0
  if ! tar -xf "$results_img" -C "$r" 2>/dev/null || [ ! -f "$r/run1/label" ]; then
    local why="qemu status $qemu_status"
    [ "$qemu_status" = 124 ] && why="timed out after $boot_timeout s"
    fail "$k: the guest wrote no results ($why); console tail:"
    tail -n 30 "$console" | sed 's/^/  /'
    add_row "$k" "$(cat "$kdir/release")" "-" "-" "-" "no results: $why" "-" "$passed/$((passed + failed))"
    timings+=("$k: fetch+unpack $t_fetch s, guest $t_guest s, no results")
    set -e
    return
  fi

  local run mode picked
  picked=$("$checker" chosen-functions "$r/check.txt" |
    awk '{ n++; if ($2 == "-") none = none " " $1; else c++ } END { printf "%d of %d%s", c, n, none ? "; no name:" none : "" }')
  for run in run1 run2 run3; do
    [ -d "$r/$run" ] || continue
    log "$k $run: $(cat "$r/$run/label")"
    sed 's/^/  /' "$r/$run/memstress.txt"
    echo "  the pod slice's memory.events: $(tr '\n' ' ' <"$r/$run/memcg.events" 2>/dev/null)"
    show_report "$r/$run"
    passed=0
    failed=0
    checks "$r/$run/checks.log" run "$bin" "$work/e2e-check" "$threshold_us" "$r/$run"
    mode=$(sed -n 's/^allocwatch: \([a-z]*\) mode: .*/\1/p' "$r/$run/err.txt")
    add_row "$k" "$(cat "$r/kernel")" "$run: $(cat "$r/$run/label")" "${mode:-?}" "$picked" \
      "$(spans_of "$r/$run" "$r")" "$(report_of "$r/$run")" "$passed/$((passed + failed))"
  done
  log "$k: the kernel's own checks"
  passed=0
  failed=0
  checks "$r/checks.log" kernel "$bin" "$work/e2e-check" "$k" "$kdir" "$console" "$r"
  add_row "$k" "$(cat "$r/kernel")" "kernel: roles, events, options, thresh-0 forms ($(xargs echo <"$r/formats/options")), -i of trace-cmd's trace.dat, kill -9 + --restore; $(head -n 1 "$r/run-dir")" \
    "replay" "$picked" "-" "-" "$passed/$((passed + failed))"
  set -e
  t_checks=$((SECONDS - step))
  timings+=("$k: fetch+unpack $t_fetch s, guest $t_guest s, host checks $t_checks s, total $((SECONDS - started)) s")
}

# The table, columns padded to their widest cell.
print_summary() {
  printf '%s\n' "kernel|release|run|mode|functions picked|spans over ${threshold_us}us per function|stall report: reclaim stalls (tasks; pages); memcg reclaim stalls of the cgroup workers|checks" \
    "${summary[@]}" | awk -F'|' '
    { n = NR; if (NF > nf) nf = NF
      for (i = 1; i <= NF; i++) { cell[NR, i] = $i; if (length($i) > w[i]) w[i] = length($i) } }
    function row(r,   line, i) {
      line = ""
      for (i = 1; i <= nf; i++) line = line sprintf(i < nf ? "%-" w[i] "s | " : "%s", cell[r, i])
      print line
    }
    END {
      row(1)
      rule = ""
      for (i = 1; i <= nf; i++) { d = ""; while (length(d) < w[i]) d = d "-"; rule = rule d (i < nf ? "-+-" : "") }
      print rule
      for (r = 2; r <= n; r++) row(r)
    }'
}

# --- main --------------------------------------------------------------------

started=$SECONDS
rm -f "$work/skipped" "$work/summary.txt" "$work/status"
# What earlier versions left: the single-kernel layout, older data disks.
rm -rf "$cache"/linux-image-*
for old in "$cache"/data-v*.img; do
  [ "$old" = "$cache/data-v$disk_version.img" ] || rm -f "$old"
done

[ "$work/memstress" -nt "$repo/tests/e2e/memstress.c" ] ||
  gcc -static -O2 -Wall -Wextra -Werror -o "$work/memstress" "$repo/tests/e2e/memstress.c"
[ "$work/e2e-check" -nt "$repo/tests/e2e/check_trace.cpp" ] ||
  g++ -std=c++20 -O2 -Wall -Wextra -Wpedantic -Werror -o "$work/e2e-check" "$repo/tests/e2e/check_trace.cpp"
data_img=$(make_data_disk)

for k in $kernels; do
  run_kernel "$k"
done

{
  echo "e2e: kernels $kernels, ${workload_seconds} s of workload per run, accelerator ${accel_name:-none} (${accel_reason:-no kernel booted})"
  print_summary
  [ ${#timings[@]} = 0 ] || printf 'e2e: time %s\n' "${timings[@]}"
  [ ${#skipped[@]} = 0 ] || printf 'e2e: SKIPPED %s\n' "${skipped[@]}"
  echo "e2e: $total_passed passed, $total_failed failed, ${#skipped[@]} kernels skipped, total $((SECONDS - started)) s"
} | tee "$work/summary.txt"
log "logs, consoles and results in $work/KERNEL/"
if [ ${#skipped[@]} -gt 0 ]; then printf '%s\n' "${skipped[@]}" >"$work/skipped"; fi
# The verdict also in a file, for CI (make only says that the target failed).
status=0
[ ${#skipped[@]} = 0 ] || status=77
[ "$total_failed" = 0 ] || status=1
echo "$status" >"$work/status"
exit "$status"

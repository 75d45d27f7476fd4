#!/bin/sh
# Installs the Debian packages allocwatch needs to build, test and run its VM
# test (e2e) and its fuzzers (fuzz). Only what is missing is installed, so a
# second run does nothing and needs no network. Called by `make deps` (and so by `make test` and `make run`).
set -eu

# python3 and python3-yaml: the report tests' second computations (tests/report).
build_pkgs="g++ make pkg-config man-db time libtracefs-dev libtraceevent-dev libyaml-cpp-dev libcli11-dev doctest-dev python3 python3-yaml"
e2e_pkgs="qemu-system-x86 busybox-static cpio e2fsprogs"
# make fuzz: clang and its compiler-rt (libFuzzer, ASan, UBSan).
fuzz_pkgs="clang libclang-rt-dev"

case "${1:-build}" in
  build) wanted=$build_pkgs ;;
  e2e) wanted="$build_pkgs $e2e_pkgs" ;;
  fuzz) wanted="$build_pkgs $fuzz_pkgs" ;;
  *) echo "usage: $0 [build|e2e|fuzz]" >&2; exit 2 ;;
esac

missing=""
for p in $wanted; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
[ -z "$missing" ] && exit 0

if [ "$(id -u)" != 0 ]; then
  echo "install-deps: missing Debian packages:$missing" >&2
  echo "install-deps: run as root (or: sudo apt-get install$missing)" >&2
  exit 1
fi
echo "install-deps: installing$missing" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -q >&2
# shellcheck disable=SC2086
apt-get install -y -q --no-install-recommends $missing >&2

#!/bin/sh
# Installs the Debian packages allocwatch needs to build, test and run its VM
# test and its fuzzers. Only what is missing is installed, so a second run does nothing and
# needs no network. Called by `make deps` (and so by `make test` and `make run`).
#
#   scripts/install-deps.sh SET...     SET: build, fleet, e2e, fuzz, check
#
# fleet: what the fleet tests (tests/fleet) and `make deb` need: a real
# Prometheus server and node_exporter, promtool, debhelper and lintian.
# Installing a daemon's package must not start it on this machine (the tests
# start and stop their own, on loopback): while the fleet set installs, a
# policy-rc.d that refuses every start is in place, unless the machine has
# its own; on a machine run by systemd, the daemons installed here are then
# disabled (they were not installed before, so nothing of the machine's own
# changes).
set -eu

# python3 and python3-yaml: the report tests' second computations (tests/report).
build_pkgs="g++ make pkg-config man-db time libtracefs-dev libtraceevent-dev libtracecmd-dev trace-cmd libyaml-cpp-dev libcli11-dev doctest-dev libsystemd-dev python3 python3-yaml"
fleet_pkgs="prometheus prometheus-node-exporter debhelper lintian curl python3 strace"
fleet_daemons="prometheus prometheus-node-exporter"
e2e_pkgs="qemu-system-x86 busybox-static cpio e2fsprogs"
# make fuzz: clang and its compiler-rt (libFuzzer, ASan, UBSan).
fuzz_pkgs="clang libclang-rt-dev"
# check: the readers that make test and make e2e check allocwatch's trace.dat
# files with, besides trace-cmd: KernelShark's library (tests/kshark; its
# pkg-config file requires json-c's, which libkshark-dev does not pull in).
check_pkgs="libkshark-dev libjson-c-dev pkg-config"

[ $# = 0 ] && set -- build
wanted=""
for set in "$@"; do
  case $set in
  build) wanted="$wanted $build_pkgs" ;;
  fleet) wanted="$wanted $fleet_pkgs" ;;
  e2e) wanted="$wanted $build_pkgs $e2e_pkgs" ;;
  fuzz) wanted="$wanted $build_pkgs $fuzz_pkgs" ;;
  check) wanted="$wanted $check_pkgs" ;;
  *) echo "usage: $0 [build|fleet|e2e|fuzz|check]..." >&2; exit 2 ;;
  esac
done

missing=""
for p in $wanted; do
  case " $missing " in *" $p "*) continue ;; esac
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
[ -z "$missing" ] && exit 0

if [ "$(id -u)" != 0 ]; then
  echo "install-deps: missing Debian packages:$missing" >&2
  echo "install-deps: run as root (or: sudo apt-get install$missing)" >&2
  exit 1
fi

new_daemons=""
for d in $fleet_daemons; do
  case " $missing " in *" $d "*) new_daemons="$new_daemons $d" ;; esac
done
policy=/usr/sbin/policy-rc.d
own_policy=no
if [ -n "$new_daemons" ] && [ ! -e "$policy" ]; then
  printf '#!/bin/sh\n# allocwatch install-deps: no daemon starts while it installs\nexit 101\n' >"$policy"
  chmod 755 "$policy"
  own_policy=yes
  trap 'rm -f "$policy"' EXIT
fi

echo "install-deps: installing$missing" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -q >&2
# shellcheck disable=SC2086
apt-get install -y -q --no-install-recommends $missing >&2

if [ -n "$new_daemons" ] && [ -d /run/systemd/system ]; then
  # shellcheck disable=SC2086
  systemctl disable --now $new_daemons >&2 || true
fi
[ $own_policy = yes ] && rm -f "$policy"
exit 0

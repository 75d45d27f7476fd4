#!/bin/bash
# make deb-test: the Debian package built by make deb installs, runs and goes
# away cleanly on this machine (root): dpkg -i, allocwatch --version, the
# unit verified where it is installed, dpkg -r (every file gone but the
# conffile, which dpkg keeps until a purge by design), dpkg -P (nothing
# left: no file, no dpkg record, no systemd enablement state).
#
#   scripts/deb-test.sh DEB
#
# Not part of make test: it builds the package (minutes) and installs it
# system-wide. CI runs it (.ci/run). Prints "deb: N passed, N failed" last.
set -u
deb=$1
suite=deb
. "$(dirname "$0")/../tests/lib.sh"

if [ "$(id -u)" != 0 ]; then
  echo "deb: not run: installing a package needs root"
  finish
fi
if dpkg-query -W -f='${Status}' allocwatch 2>/dev/null | grep -q "installed\|config-files"; then
  echo "deb: not run: a package named allocwatch is on this machine already; the test would replace it"
  finish
fi
# One package test at a time on the machine; dpkg itself refuses to run twice.
exec 8>/tmp/allocwatch-deb.lock
flock 8
dpkg_retry() { # dpkg ARGS, retried while another dpkg or apt holds its lock
  local i out
  for i in $(seq 60); do
    out=$(dpkg "$@" 2>&1) && { printf '%s\n' "$out"; return 0; }
    printf '%s\n' "$out" | grep -q "lock" || { printf '%s\n' "$out"; return 1; }
    sleep 2
  done
  return 1
}

tmp=$(mktemp -d /tmp/allocwatch-deb-XXXXXX)
trap 'dpkg -P allocwatch >/dev/null 2>&1; rm -rf "$tmp"' EXIT

dpkg-deb -c "$deb" | awk '{print $NF}' | sed 's|^\.||' | grep -v '/$' >"$tmp/files"
conffiles=$(dpkg-deb -I "$deb" conffiles)
before=$(while read -r f; do [ -e "$f" ] && echo "$f"; done <"$tmp/files")
[ -z "$before" ] && ok "none of the package's $(wc -l <"$tmp/files") files is on the machine before" ||
  fail "files of the package exist before it is installed: $before"
state_dirs="/etc/systemd/system /var/lib/systemd/deb-systemd-helper-enabled /var/lib/systemd/deb-systemd-helper-masked"
find $state_dirs 2>/dev/null | sort >"$tmp/systemd-before"

if out=$(dpkg_retry -i "$deb"); then
  ok "dpkg -i $(basename "$deb")"
else
  fail "dpkg -i: $out"
  finish
fi
dpkg -L allocwatch >"$tmp/listed"
missing=$(while read -r f; do [ -e "$f" ] || echo "$f"; done <"$tmp/listed")
[ -z "$missing" ] && ok "dpkg -L: every file listed is there ($(wc -l <"$tmp/listed") paths)" ||
  fail "dpkg -L lists missing files: $missing"
version=$(dpkg-query -W -f='${Version}' allocwatch)
if out=$(/usr/sbin/allocwatch --version) && [ "$out" = "allocwatch $version" ]; then
  ok "allocwatch --version: $out, the package's version"
else
  fail "allocwatch --version: '$out', package $version"
fi
/usr/sbin/allocwatch --list-profiles | grep -q "^watch" &&
  ok "the installed binary finds the shipped profiles, watch among them" ||
  fail "the installed binary does not find the watch profile"
unit=$(grep '/allocwatch.service$' "$tmp/listed")
if [ -n "$unit" ] && grep -q '^ExecStart=/usr/sbin/allocwatch --watch' "$unit" &&
  grep -q '^EnvironmentFile=-/etc/default/allocwatch$' "$unit"; then
  ok "the unit is installed ($unit) and names /usr/sbin/allocwatch and /etc/default/allocwatch"
else
  fail "the unit: ${unit:-not installed}"
fi
if command -v systemd-analyze >/dev/null; then
  out=$(systemd-analyze verify "$unit" 2>&1) && [ -z "$out" ] &&
    ok "systemd-analyze verify on the installed unit: clean" ||
    fail "systemd-analyze verify: $out"
fi
[ -n "$(find /etc/systemd/system -name allocwatch.service 2>/dev/null)" ] &&
  fail "the service was enabled on install" || ok "the service is not enabled on install"

if out=$(dpkg_retry -r allocwatch); then
  ok "dpkg -r allocwatch"
else
  fail "dpkg -r: $out"
fi
left=$(while read -r f; do [ -e "$f" ] && echo "$f"; done <"$tmp/files")
if [ "$left" = "$conffiles" ]; then
  ok "after dpkg -r only the conffile is left, as dpkg keeps it until a purge: $conffiles"
else
  fail "after dpkg -r, left: $left"
fi
if out=$(dpkg_retry -P allocwatch); then
  ok "dpkg -P allocwatch"
else
  fail "dpkg -P: $out"
fi
left=$(while read -r f; do [ -e "$f" ] && echo "$f"; done <"$tmp/files")
[ -z "$left" ] && ok "after dpkg -P none of the package's files is left" || fail "after dpkg -P, left: $left"
for dir in /usr/share/allocwatch /usr/share/doc/allocwatch; do
  [ -e "$dir" ] && fail "$dir is left"
done
dpkg-query -W allocwatch >/dev/null 2>&1 && fail "dpkg still knows the package" ||
  ok "dpkg has no record of the package"
find $state_dirs 2>/dev/null | sort >"$tmp/systemd-after"
cmp -s "$tmp/systemd-before" "$tmp/systemd-after" &&
  ok "systemd's unit and enablement state is as before" ||
  fail "systemd state changed: $(diff "$tmp/systemd-before" "$tmp/systemd-after")"
finish

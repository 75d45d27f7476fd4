#!/bin/bash
# make deb: the Debian package of this tree, built with debhelper in a copy
# of the sources under OUT_DIR (dpkg-buildpackage writes next to the source
# directory, and leaves debian/allocwatch/ and friends behind), then checked
# with lintian. Prints the .deb's path last.
#
#   scripts/make-deb.sh OUT_DIR
set -eu
out=${1:-build/deb}
cd "$(dirname "$0")/.."
version=$(dpkg-parsechangelog -S Version)
src=$out/allocwatch-$version
rm -rf "$out"
mkdir -p "$src"

# The tree as it is (tracked and new files, not what .gitignore leaves out).
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  git ls-files -z --cached --others --exclude-standard |
    while IFS= read -r -d '' f; do [ -e "$f" ] && printf '%s\0' "$f"; done |
    tar --null -T - -cf - | tar -xf - -C "$src"
else
  tar --exclude=./build --exclude=./build-san --exclude=./.cache -cf - . | tar -xf - -C "$src"
fi

(cd "$src" && dpkg-buildpackage -us -uc -b -j2 >../build.log 2>&1) || {
  tail -40 "$out/build.log" >&2
  echo "make deb: dpkg-buildpackage failed (whole log: $out/build.log)" >&2
  exit 1
}
deb=$(ls "$out"/allocwatch_"$version"_*.deb)
echo "make deb: built $deb" >&2
# Every tag lintian would give is fixed or explained in debian/allocwatch.lintian-overrides.
# lintian leaves its ELF caches (mldbm-elf-*) in TMPDIR: a directory of ours.
lintian_tmp=$(mktemp -d "${TMPDIR:-/tmp}/allocwatch-lintian.XXXXXX")
trap 'rm -rf "$lintian_tmp"' EXIT
if ! TMPDIR=$lintian_tmp lintian --fail-on error,warning --info "$deb" >&2; then
  echo "make deb: lintian finds errors or warnings (above)" >&2
  exit 1
fi
echo "$deb"

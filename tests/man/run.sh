#!/bin/sh
# Every option that `allocwatch --help` offers is documented in allocwatch(8),
# and every option the man page documents exists in --help.
set -u
build=${1:-build}
cd "$(dirname "$0")/../.."
page=man/allocwatch.8
passed=0
failed=0

help_opts=$("$build/allocwatch" --help | grep -o -- '--[a-z][a-z-]*' | sort -u)
# In roff the page writes options as \-\-name.
man_opts=$(grep -oE -- '\\-\\-[a-z]([a-z]|\\-)*' "$page" | sed 's/\\//g' | sort -u)

for opt in $help_opts; do
  if printf '%s\n' "$man_opts" | grep -qx -- "$opt"; then
    passed=$((passed + 1))
  else
    echo "FAIL $opt is in --help but not in $page"
    failed=$((failed + 1))
  fi
done
for opt in $man_opts; do
  if printf '%s\n' "$help_opts" | grep -qx -- "$opt"; then
    passed=$((passed + 1))
  else
    echo "FAIL $opt is in $page but not in --help"
    failed=$((failed + 1))
  fi
done
# The page must render without warnings.
if warnings=$(LC_ALL=C.UTF-8 MANWIDTH=80 man --warnings -l "$page" 2>&1 >/dev/null) && [ -z "$warnings" ]; then
  passed=$((passed + 1))
else
  echo "FAIL $page renders with warnings: $warnings"
  failed=$((failed + 1))
fi
echo "man: $passed passed, $failed failed"
[ "$failed" = 0 ]

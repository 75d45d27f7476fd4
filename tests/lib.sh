# The counting the shell suites share. Set `suite` to the suite's name, then
# source this file: ok and fail print one line each and count it; finish
# prints "SUITE: N passed, N failed" (the line tests/run-all.sh sums) and
# exits with status 1 when anything failed.
passed=0
failed=0
ok() {
  echo "ok - $1"
  passed=$((passed + 1))
}
fail() {
  echo "FAIL - $1"
  failed=$((failed + 1))
}
finish() {
  echo "$suite: $passed passed, $failed failed"
  [ "$failed" = 0 ]
  exit
}

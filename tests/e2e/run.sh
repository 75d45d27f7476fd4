#!/bin/sh
# Tests of the VM test's independent checkers (the VM test itself is
# `make e2e`): e2e-check (check_trace.cpp) and the stall report's
# check_report.py, each given a small real-format trace, a correct output for
# it, and outputs broken one way each, which the checker must reject for that
# reason; check_dat.py, on a slice of a real guest's trace.dat as trace-cmd
# report printed it, with outputs and reports broken one way each;
# check_cgroups.py, on the cgroup part of a real guest's JSON run
# broken one way each; and check_run.sh's checks of what a guest left, on a
# trimmed copy of a real guest's results broken one way each.
#   tests/e2e/run.sh BUILD_DIR
set -u
build=${1:-build}
cd "$(dirname "$0")"
check=../../$build/e2e/e2e-check
mkdir -p "$(dirname "$check")"
g++ -std=c++20 -O2 -Wall -Wextra -Wpedantic -Werror -o "$check" check_trace.cpp || {
  echo "e2e-check: 0 passed, 1 failed (does not build)"
  exit 1
}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
passed=0
failed=0

# case NAME EXPECT RAW_SED OUT_SED [CHECKER_OPTION...]: EXPECT is "pass" or
# text of the FAIL line.
case_() {
  name=$1 expect=$2
  sed "$3" fixtures/raw.trace >"$tmp/raw"
  sed "$4" fixtures/good.out >"$tmp/out"
  shift 4
  "$check" "$@" 100 "$tmp/raw" "$tmp/out" >"$tmp/log" 2>&1
  status=$?
  if [ "$expect" = pass ]; then
    [ $status = 0 ] && ! grep -q '^FAIL' "$tmp/log"
  else
    [ $status = 1 ] && grep '^FAIL' "$tmp/log" | grep -qF "$expect"
  fi
  if [ $? = 0 ]; then
    passed=$((passed + 1))
  else
    failed=$((failed + 1))
    echo "FAIL $name (expected: $expect)"
    sed 's/^/  | /' "$tmp/log"
  fi
}

keep=''
grep mm_vmscan_lru_shrink_inactive fixtures/raw.trace >"$tmp/lru"
grep 'shrink_lruvec' fixtures/raw.trace >"$tmp/fast"
case_ correct pass "$keep" "$keep"
case_ 'event of a task with no slow span' 'lies in an over-threshold span' "$keep" \
  "\$r $tmp/lru"
case_ 'line printed twice' 'used once' "$keep" '/direct_reclaim_end/p'
case_ 'slow return left out' 'print their own lines' "$keep" '/} \/\* try_to_compact_pages/d'
case_ 'fast return printed' 'no return under the threshold' "$keep" "\$r $tmp/fast"
case_ 'shrink pair left out' 'print their own lines' "$keep" '/mm_shrink_slab_start: super/d'
case_ 'wrong shrinker total' 'printed totals equal' "$keep" \
  's/^super_cache_scan\[\(.*\)total time = 0.150000/super_cache_scan[\1total time = 0.151000/'
case_ 'module shrinker without totals' 'printed totals equal' "$keep" '/^ext4_es_scan/d'
case_ 'instance named by its module' 'printed totals equal' "$keep" \
  '$a ext4_es_scan[[ext4] 000000007988191a] : total time = 0.002000 ms, max latency = 0.002000 ms, calls = 1'
case_ 'lone instance named too' pass "$keep" \
  '$a ext4_es_scan[000000007988191a] : total time = 0.002000 ms, max latency = 0.002000 ms, calls = 1'
case_ 'one of several instances without totals' 'printed totals equal' "$keep" \
  '/^super_cache_scan\[0000000099ad4c05/d'
case_ 'calls miscounted' 'printed totals equal' "$keep" \
  's/^\(super_cache_scan\[0000000099ad4c05.*calls = \)1/\12/'
case_ 'event 1.1 us before the span' 'lies in an over-threshold span' \
  's/509.100 us/508.900 us/' 's/509.100 us/508.900 us/'
case_ 'event read after the closing line' 'lies in an over-threshold span' \
  '/direct_reclaim_end/{h;d};/} \/\* try_to_free_pages/{G;s/20.000600/20.000610/}' \
  's/20.000600/20.000610/'
case_ 'slow reclaim without its end event' 'try_to_free_pages returns' "$keep" \
  '/direct_reclaim_end/d'
case_ 'slow compaction without its events' 'compact_zone returns' "$keep" \
  '/mm_compaction_begin/d;/mm_compaction_end/d'
case_ 'carried pair asked for and present' pass "$keep" "$keep" \
  --carried try_to_free_pages:mm_vmscan_direct_reclaim_begin:mm_vmscan_direct_reclaim_end
case_ 'memcg reclaim asked for, none in the trace' 'try_to_free_mem_cgroup_pages returns' \
  "$keep" "$keep" \
  --carried try_to_free_mem_cgroup_pages:mm_vmscan_memcg_reclaim_begin:mm_vmscan_memcg_reclaim_end

# The report checker (check_report.py): the fixture run's --report file and
# stderr, each changed one way, against its raw trace (changed too, where a
# case says so). case NAME EXPECT RAW_SED REPORT_SED [ERR_SED [OPTION...]]:
# REPORT_SED changes the report in both files, ERR_SED stderr alone.
python=/usr/bin/python3
report_case() {
  name=$1 expect=$2
  sed "$3" fixtures/report-raw.trace >"$tmp/raw"
  sed "$4" fixtures/report-good.txt >"$tmp/report"
  sed "$4" fixtures/report-good.err | sed "${5:-}" >"$tmp/err"
  shift 4
  [ $# -gt 0 ] && shift
  $python check_report.py "$@" 100 "$tmp/raw" "$tmp/report" "$tmp/err" >"$tmp/log" 2>&1
  verdict "report checker: $name" "$expect" $?
}
# verdict NAME EXPECT STATUS: the checker's log in $tmp/log.
verdict() {
  if [ "$2" = pass ]; then
    [ "$3" = 0 ] && ! grep -q '^FAIL' "$tmp/log"
  else
    [ "$3" = 1 ] && grep '^FAIL' "$tmp/log" | grep -qF "$2"
  fi
  if [ $? = 0 ]; then
    passed=$((passed + 1))
  else
    failed=$((failed + 1))
    echo "FAIL $1 (expected: $2)"
    sed 's/^/  | /' "$tmp/log"
  fi
}
report_case correct pass "$keep" "$keep"
report_case 'a return with its value (funcgraph-retval)' pass \
  's|} /\* try_to_free_pages \*/|} /* try_to_free_pages = 0x28 */|' "$keep"
report_case 'no report' 'the stall report is in the --report file' "$keep" \
  '/^allocwatch: stalls/,/^allocwatch: reclaim/d'
report_case 'stderr without the report' 'stderr holds the same report' "$keep" "$keep" \
  '/^allocwatch: stalls/,/^  \[512, 1K)/d'
report_case 'stderr cut to the top rows' 'stderr holds the same report' "$keep" "$keep" \
  's/^  cat-300 .*/  ... 1 more rows (--report FILE has them all)/'
report_case 'no direct reclaim rows' 'direct reclaim rows present' "$keep" \
  '/direct reclaim  try_to/d'
report_case 'no memcg rows' 'memcg reclaim rows present' "$keep" '/memcg reclaim   try_to/d'
report_case 'top rows only, memcg cut' 'memcg reclaim rows present' "$keep" \
  's/^  cat-300 .*/  ... 1 more rows (--report FILE has them all)/'
report_case 'a count wrong' 'memcg reclaim rows equal' "$keep" \
  's/\(try_to_free_mem_cgroup_pages *\)2/\13/'
report_case 'a total wrong' 'direct reclaim rows equal' "$keep" \
  's/\(try_to_free_pages *1 *\)2.002/\12.003/'
report_case 'a row the trace has not' 'direct reclaim rows equal' "$keep" \
  '/memhog-301  direct reclaim/p; s/memhog-301  direct reclaim/memhog-302  direct reclaim/'
report_case 'direct reclaim under another span' 'direct reclaim rows equal' "$keep" \
  '/memhog-301  direct reclaim/p; s/\(memhog-301  direct reclaim  \)try_to_free_pages/\1direct_reclaim   /'
report_case 'a histogram short' 'memcg reclaim histogram counts' "$keep" \
  's/^\(  \[512, 1K)  *\)1 |/\10 |/'
report_case 'an order row short' 'memcg reclaim order rows count' "$keep" \
  's/^\(  memcg reclaim  *0  GFP_HIGHUSER_MOVABLE|__GFP_COMP  *\)2 /\11 /'
report_case 'no direct reclaim in what reclaim got' 'direct reclaim in what slow reclaim got' \
  "$keep" '/^  direct reclaim   *1  /d'
report_case 'pages scanned miscounted' 'memcg reclaim in what slow reclaim got' "$keep" \
  's/^\(  memcg reclaim .* 1\.323 *\)96 /\195 /'
report_case 'pages reclaimed miscounted' 'direct reclaim in what slow reclaim got' "$keep" \
  's/^\(  direct reclaim .* 2\.002 *48 *\)40 /\141 /'
report_case 'direct reclaim scanned nothing' 'direct reclaim scanned and reclaimed pages' \
  '/memhog-301 .*lru_shrink_inactive/d' 's/^\(  direct reclaim .* 2\.002 *\)48 /\1 0 /'
report_case 'no scan events, as the kernel said' pass '/lru_shrink_inactive/d' \
  's/^\(  direct reclaim .* 2\.002 *\)48 /\1 0 /; s/^\(  memcg reclaim .* 1\.323 *\)96 /\1 0 /' \
  "$keep" --no-scan-events 'MGLRU before 6.7'
report_case 'scan events where the kernel should print none' 'no mm_vmscan_lru_shrink_inactive in the raw trace' \
  "$keep" "$keep" "$keep" --no-scan-events 'MGLRU before 6.7'
report_case 'no scan events and nothing reclaimed' 'direct reclaim reclaimed pages' \
  '/lru_shrink_inactive/d; s/nr_reclaimed=40/nr_reclaimed=0/' \
  's/^\(  direct reclaim .* 2\.002 *\)48  *40 /\1 0  0 /; s/^\(  memcg reclaim .* 1\.323 *\)96 /\1 0 /' \
  "$keep" --no-scan-events 'MGLRU before 6.7'
$python check_report.py 100 fixtures/report-raw.trace "$tmp/no-such-report" fixtures/report-good.err \
  >"$tmp/log" 2>&1
verdict 'report checker: no --report file' 'the --report file can be read' $?

# A stand-in trace-cmd for the checkers that read a trace.dat
# (tests/e2e/tracedat.py): it prints what the real one printed for it, kept
# as FILE.report (`trace-cmd report -t -i FILE`), FILE.report-R (with -R)
# and FILE.report-f (`-f`).
mkdir -p "$tmp/bin"
cat >"$tmp/bin/trace-cmd" <<'FAKE'
#!/bin/sh
raw=""
while [ $# -gt 0 ]; do
  case $1 in -R | -f) raw=$1 ;; -i) file=$2; shift ;; esac
  shift
done
exec cat "$file.report$raw"
FAKE
chmod +x "$tmp/bin/trace-cmd"

# The cgroup checker (check_cgroups.py): fixtures/cgroups is what a 6.1
# guest's JSON run left of it (the cgroups made, memstress.txt, the cgroup
# workers' slow reclaim returns of raw.trace, the report's cgroup part, the
# cgroup and memcg records of out.txt), changed one way each.
# cgroup_case NAME EXPECT SETUP [text]: SETUP is shell run in a copy of
# fixtures/cgroups first; "text" checks the report without the JSON.
cgroup_case() {
  rm -rf "$tmp/cgroups"
  cp -R fixtures/cgroups "$tmp/cgroups"
  (cd "$tmp/cgroups" && eval "$3")
  c=$tmp/cgroups
  json=$c/out.json
  raw=$c/raw.trace
  [ "${4:-}" = text ] && json=
  [ "${4:-}" = dat ] && raw=$c/raw.dat
  # shellcheck disable=SC2086 # no JSON: no word
  PATH=$tmp/bin:$PATH $python check_cgroups.py 100 "$c/cgroups" "$c/memstress.txt" "$raw" \
    "$c/report.txt" $json >"$tmp/log" 2>&1
  verdict "cgroup checker: $1" "$2" $?
}
kube=/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod5f0c3a9e_7d21_4b6e_9c8a_1e2f3a4b5c6d.slice
cgroup_case correct pass :
cgroup_case 'the report alone' pass : text
# The same returns as a trace.dat holds them (through the stand-in
# trace-cmd below): the stalls come out the same, in exact ns.
as_dat() { # TEXT_TRACE DAT: DAT.report and DAT.report-R of TEXT_TRACE's returns
  $python - "$1" "$2" <<'PY'
import re, sys
line = re.compile(r"^\s*(\d+)\.(\d{6}) \|\s*(\d+)\)\s*(.*)-(\d+)\s*\|[^|\d]*([\d.]+) us\s*\|\s*} /\* (\w+) \*/$")
printed, raw = ["cpus=2"], ["cpus=2"]
for text in open(sys.argv[1]):
    m = line.match(text)
    if m:
        secs, us, cpu, comm, pid, d, func = m.groups()
        end = (int(secs) * 1_000_000 + int(us)) * 1000
        whole, _, frac = d.partition(".")
        start = end - (int(whole) * 1000 + int((frac + "000")[:3]))
        head = f"{comm.strip():>16}-{pid:<7} [{int(cpu):03d}] {end // 10**9}.{end % 10**9:09d}: funcgraph_exit:"
        printed.append(f"{head}       ! {d} us |  }}")
        raw.append(f"{head}        func={func} depth=0 overrun=0 calltime={start:x} rettime={end:x}")
open(sys.argv[2] + ".report", "w").write("\n".join(printed) + "\n")
open(sys.argv[2] + ".report-R", "w").write("\n".join(raw) + "\n")
PY
}
cgroup_case 'the trace as a trace.dat' pass 'as_dat raw.trace raw.dat' dat
cgroup_case "a culprit's stall attributed to the bystander in the trace.dat" \
  "the culprit's reclaim records are the raw trace's" \
  "as_dat raw.trace raw.dat && sed -i '2s/culprit-1160/bystand-1161/' raw.dat.report raw.dat.report-R" dat
cgroup_case 'the bystander made no memcg reclaim' "the bystander's pids made memcg reclaim stalls" \
  "sed -i '/bystand-1161.*try_to_free_mem_cgroup_pages/d' raw.trace"
cgroup_case 'the culprit lived to the end' 'the culprit ended' \
  "sed -i 's/culprit pid 1160 ended after 7.0 s/culprit pid 1160 ended after 10.1 s/' memstress.txt"
cgroup_case 'no cgroup table' 'the --report file has the cgroup table' \
  "sed -i '/^allocwatch: stalls by memory cgroup/,/^allocwatch: memory limits/{/^allocwatch: memory limits/!d}' report.txt" text
cgroup_case 'a container id cut wrong' "the table's culprit rows" \
  "sed -i 's/3f4ae8b2c1d0  5f0c3a9e/3f4ae8b2c1d1  5f0c3a9e/' report.txt" text
cgroup_case 'no pod uid' "the table's culprit rows" \
  "sed -i 's/3f4ae8b2c1d0  5f0c3a9e/3f4ae8b2c1d0          /' report.txt" text
cgroup_case 'a count wrong on text' "the table's culprit reclaim rows are the raw trace's" \
  "sed -i 's/\\(memcg reclaim  *\\)165 /\\1166 /' report.txt" text
cgroup_case 'the bystander first on text' "the table puts the cgroups largest total first" \
  "awk '/docker-9a8b7c6d5e4f.scope  *9a8b7c6d5e4f/ { next } { print }
    /^  CGROUP  *CONTAINER/ { while ((getline l <\"report.txt\") > 0)
      if (l ~ /docker-9a8b7c6d5e4f.scope  *9a8b7c6d5e4f/) print l }' report.txt >r && mv r report.txt" text
cgroup_case 'the quiet cgroup on text' 'the table has no memcg reclaim row for the quiet cgroup' \
  "sed -i 's|^  /system.slice/docker-9a8b7c6d5e4f.scope\\(  *\\)9a8b7c6d5e4f\\(.*memcg reclaim.*\\)|&\\n  /system.slice/docker-0123456789ab.scope\\10123456789ab\\2|' report.txt" text
cgroup_case "max events in the pod slice's child, not in it" "the limits show the culprit's cgroup without a limit or max events" \
  "sed -i 's|^\\(  $kube  *16.0MiB .*\\)+161 |\\1  +0 |' report.txt" text
cgroup_case "no limit shown for the bystander" "the limits show the bystander's cgroup with its" \
  "sed -i 's|^\\(  /system.slice/docker-9a8b7c6d5e4f.scope  \\)8.0MiB|\\1   max|' report.txt" text
cgroup_case 'a limit table for the quiet cgroup' 'the limits have no table for the quiet cgroup' \
  "printf '  CGROUP  LIMIT  HIGH  EVENTS_HIGH  EVENTS_MAX  OOM  OOM_KILL\n  /system.slice/docker-0123456789ab.scope  max  max  +0  +0  +0  +0\n' >>report.txt" text
cgroup_case 'no cgroup records' 'the JSON has cgroup and memcg records' ': >out.json'
cgroup_case 'a container id wrong' "the culprit's cgroup records" \
  "sed -i 's/\"container_id\":\"3f4ae8b2c1d0e9/\"container_id\":\"3f4ae8b2c1d0e8/' out.json"
cgroup_case "a pod uid as the path writes it" "the culprit's cgroup records" \
  "sed -i 's/\"pod_uid\":\"5f0c3a9e-7d21-4b6e-9c8a-1e2f3a4b5c6d\"/\"pod_uid\":\"5f0c3a9e_7d21_4b6e_9c8a_1e2f3a4b5c6d\"/' out.json"
cgroup_case "a culprit's stall attributed to the bystander" "the culprit's reclaim records are the raw trace's" \
  "sed -i '1s/culprit-1160/bystand-1161/' raw.trace"
cgroup_case 'the bystander first' "the cgroup records come largest total first" \
  "{ grep '\"type\":\"cgroup\".*docker-9a8b' out.json; grep -v '\"type\":\"cgroup\".*docker-9a8b' out.json; } >o && mv o out.json"
cgroup_case 'a record of the quiet cgroup' 'no memcg reclaim record and no memcg record of the quiet cgroup' \
  "sed -n 's/docker-9a8b7c6d5e4f30211203f4e5d6c7b8a99a8b7c6d5e4f30211203f4e5d6c7b8a9/docker-0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef/gp' out.json | tail -n 1 >>out.json"
cgroup_case "the limit on the culprit's own cgroup" "the culprit's memcg records are version 2" \
  "sed -i 's|^\\(.*\"cgroup\":\"$kube/[^\"]*\",\"stalled\".*\\)\"limit\":null|\\1\"limit\":16777216|' out.json"
cgroup_case "no max events in the pod slice" "the culprit's stalls are its pod slice's memory.max" \
  "sed -i 's|^\\(.*\"cgroup\":\"$kube\",.*\\)\"max\":161|\\1\"max\":0|' out.json"
cgroup_case "no max events in the bystander's cgroup" "the bystander's stalls are its own memory.max" \
  "sed -i 's|^\\(.*\"cgroup\":\"/system.slice/docker-[^\"]*\",\"stalled\".*\\)\"max\":2|\\1\"max\":0|' out.json"

# The trace.dat checker (check_dat.py), through the stand-in trace-cmd:
# fixtures/dat/graph.report, graph.report-R and graph.report-f are
# `trace-cmd report -t`, `-t -R` and `-f` of a graph trace trace-cmd
# recorded in a 7.2 guest, cut to four tasks over 50 ms and a slow kswapd
# shrink pair
# (trace-cmd 3.1.6 cannot parse 7.2's vmscan print formats: those records
# print their raw fields, and a shrinker prints as an address), and to the
# symbols they name; good.out, good-report.txt and good.json are those
# records as a raw graph run prints them (text in src/ring/event_decoder.cpp's
# columns: its trace lines are, in order, those allocwatch -i printed of the
# whole file; --report and JSON made for them by hand: orders and p99 are
# made up, columns the checker does not read), each changed one way.
# dat NAME EXPECT SETUP [json|json+report|THRESHOLD_US]: SETUP is shell run
# in a copy of fixtures/dat first.
dat() {
  name=$1 expect=$2
  rm -rf "$tmp/dat"
  cp -R fixtures/dat "$tmp/dat"
  (cd "$tmp/dat" && eval "$3")
  d=$tmp/dat threshold=100
  case ${4:-} in
    json) set -- "$d/good.json" ;;
    json+report) set -- "$d/good.json" "$d/good-report.txt" ;;
    '') set -- "$d/good.out" "$d/good-report.txt" ;;
    *) threshold=$4; set -- "$d/good.out" "$d/good-report.txt" ;;
  esac
  PATH=$tmp/bin:$PATH $python check_dat.py ../../configs/default.yaml "$threshold" "$d/graph" "$@" \
    >"$tmp/log" 2>&1
  verdict "trace.dat checker: $name" "$expect" $?
}
dat correct pass :
dat 'correct, JSON' pass : json
dat 'correct, JSON and its --report file' pass : json+report
dat 'a shrinker instance total 1 ns off, JSON' 'shrinker totals equal' \
  "sed -i 's/\"total_ns\":1494701,\"max_ns\":1494701,\"calls\":1}/\"total_ns\":1494702,\"max_ns\":1494701,\"calls\":1}/' good.json" json
dat 'a row counts one more in the --report file of a JSON run' 'task rows are the trace.dat' \
  "sed -i 's/^\(  culprit-1336 .*try_to_free_mem_cgroup_pages  *\)4 /\15 /' good-report.txt" json+report
# A kind whose function claims no reclaim event (memcg soft limit reclaim
# in graph mode: its pair is an events-mode one) has no order nor reclaim row.
dat 'a stall of a kind that is no reclaim in graph mode' pass \
  "sed -i '103s/func=__alloc_frozen_pages_noprof/func=mem_cgroup_soft_limit_reclaim/' graph.report-R
   sed -i '69s/__alloc_frozen_pages_noprof/mem_cgroup_soft_limit_reclaim/' good.out
   sed -i 's/^  culprit-1336  allocation         __alloc_frozen_pages_noprof  /  culprit-1336  memcg soft limit reclaim  mem_cgroup_soft_limit_reclaim  /
     s/^allocwatch: latency of allocation stalls (12)/allocwatch: latency of allocation stalls (11)/
     s/^  \[64, 128)            12 /  [64, 128)            11 /' good-report.txt
   printf '%s\n' 'allocwatch: latency of memcg soft limit reclaim stalls (1), usecs:' \
     '  [4K, 8K)  1 |@|' >>good-report.txt"
dat 'a return printed twice' 'is a record of the trace.dat, printed once' "sed -i '66p' good.out"
dat 'a slow return left out' 'returns over the threshold in the trace.dat print their own lines' \
  "sed -i '77d' good.out"
dat 'a duration 1 ns off' 'is a record of the trace.dat' \
  "sed -i '77s/303.097 us/303.098 us/' good.out"
dat 'a return a microsecond late' 'is a record of the trace.dat' \
  "sed -i '66s/40.472220/40.472221/' good.out"
dat 'a task named as it was before its exec' pass "sed -i '66s/reader1-1340/memstre-1340/' good.out"
dat 'a return of another pid' 'is a record of the trace.dat' \
  "sed -i '66s/reader1-1340/reader1-1341/' good.out"
dat 'a return on another cpu' 'is a record of the trace.dat' \
  "sed -i '66s/|   0)  reader1/|   1)  reader1/' good.out"
dat 'returns under the threshold printed' 'no return under the threshold is printed' : 400
dat "a tracepoint's fields as trace-cmd does not print them" 'is a record of the trace.dat' \
  "sed -i '65s/nr_reclaimed=0x20/nr_reclaimed=0x21/' good.out"
dat 'a bound tracepoint left out' 'records the profile lets a span claim' "sed -i '65d' good.out"
dat "a tracepoint printed with another task's span" 'is of its pid and inside its [start, end]' \
  "sed -n '54p' good.out >line && sed -i '54d' good.out && sed -i '65r line' good.out"
dat 'a tracepoint printed with no span' 'printed with no span' \
  "sed -n '65p' good.out >line && sed -i '65d' good.out && sed -i '/^super_cache_scan : /{
r line
N
}' good.out"
dat 'a line of no kind' 'every line of the output is a trace line' "sed -i '66s/^/x/' good.out"
dat 'a slow shrink pair left out, JSON' 'pairs over the threshold in the trace.dat print their own lines' \
  "sed -i '/\"name\":\"shrinker\",\"pid\":50,/d' good.json" json
dat 'a slow shrink pair left out' 'pairs over the threshold in the trace.dat print their own lines' \
  "sed -i '/kswapd0-50 .*mm_shrink_slab_/d' good.out"
dat 'a shrinker total wrong' 'shrinker totals equal' \
  "sed -i 's/^super_cache_scan : total time = 7.454478/super_cache_scan : total time = 7.454479/' good.out"
dat 'calls miscounted' 'shrinker totals equal' \
  "sed -i 's/^\(super_cache_scan\[0xff259b300243c780\].*calls = \)1/\12/' good.out"
dat "a shrinker the trace.dat's symbols do not name" 'shrinker totals equal' ': >graph.report-f'
dat 'a row counts one more' 'task rows are the trace.dat' \
  "sed -i 's/^\(  culprit-1336 .*try_to_free_mem_cgroup_pages  *\)4 /\15 /' good-report.txt"
dat 'a total 1 us off' 'task rows are the trace.dat' \
  "sed -i 's/^\(  reader1-1340 .*try_to_free_pages .*\)8.101 /\18.102 /' good-report.txt"
dat 'a task row missing' 'tasks and kinds with no row' "sed -i '/^  culprit-1336 .*allocation/d' good-report.txt"
dat 'a background row missing' 'tasks and kinds with no row' "sed -i '/^  kswapd0-50 /d' good-report.txt"
dat "kswapd's shrinker as a stall" 'task rows are the trace.dat' \
  "sed -i '/^  kswapd0-50 /{h;d};/^allocwatch: stalls of/{n;G}' good-report.txt"
dat 'a histogram short' 'histogram 3, stall rows 4' \
  "sed -i '/latency of memcg reclaim/{n;s/  4 |/  3 |/}' good-report.txt"
dat 'an order row short' 'memcg reclaim: order 3, stall rows 4' \
  "sed -i 's/^\(  memcg reclaim  .*GFP_HIGHUSER_MOVABLE  *\)4 /\13 /' good-report.txt"
dat 'no reclaim row' 'memcg reclaim: no reclaim row' "sed -i '/^  memcg reclaim    /d' good-report.txt"
dat 'pages scanned miscounted' 'the pages scanned and reclaimed of each reclaim row' \
  "sed -i 's/^\(  memcg reclaim  .*  \)180 /\1181 /' good-report.txt"
dat 'pages reclaimed miscounted, JSON' 'the pages scanned and reclaimed of each reclaim row' \
  "sed -i 's/\"pages_reclaimed\":32/\"pages_reclaimed\":33/' good.json" json
dat "a task's reclaim counted once more" 'slow reclaim and compaction got counts its stalls' \
  "sed -i 's/^\(  culprit-1336  memcg reclaim  *\)4  0=4 /\15  0=5 /' good-report.txt"
dat "a task's stall in two orders" 'its orders count 2 of 1 stalls' \
  "sed -i 's/^\(  reader1-1340  direct reclaim  *1  \)0=1   /\10=1 ?=1/' good-report.txt"
dat "a task's pages scanned miscounted" 'slow reclaim and compaction got counts its stalls' \
  "sed -i 's/^\(  culprit-1336  memcg reclaim .*  \)180  /\1179  /' good-report.txt"
dat 'a task with reclaim stalls and no row' 'tasks with reclaim stalls and no row' \
  "sed -i '/^  reader1-1340  direct reclaim  *1  0=1/d' good-report.txt"
dat "a task's orders short, JSON" 'its orders count 3 of 4 stalls' \
  "sed -i 's/\"orders\":{\"0\":4}/\"orders\":{\"0\":3}/' good.json" json
dat "a task's pages reclaimed miscounted, JSON" 'slow reclaim and compaction got counts its stalls' \
  "sed -i 's/\"pages_reclaimed\":184,\"pages_written\"/\"pages_reclaimed\":183,\"pages_written\"/' good.json" json
dat 'a span 1 ns early, JSON' 'is a record of the trace.dat' \
  "sed -i 's/\"start_ns\":40464119638,/\"start_ns\":40464119637,/' good.json" json
dat 'a tracepoint 1 ns late, JSON' 'is a record of the trace.dat' \
  "sed -i '0,/\"event\":\"mm_vmscan_direct_reclaim_end\",\"ts_ns\":\([0-9]*\)/s//\"event\":\"mm_vmscan_direct_reclaim_end\",\"ts_ns\":\11/' good.json" json
dat 'a total 1 ns off, JSON' 'task rows are the trace.dat' \
  "sed -i 's/\"total_ns\":8100540,\"max_ns\":8100540,\"p99/\"total_ns\":8100541,\"max_ns\":8100540,\"p99/' good.json" json
dat 'a reclaim total 1 ns off, JSON' 'direct reclaim: reclaim total_ns 8100541' \
  "sed -i 's/\(\"type\":\"reclaim\",\"kind\":\"direct reclaim\",\"count\":1,\"total_ns\":\)8100540/\18100541/' good.json" json
dat 'a shrinker stall of another instance, JSON' 'task rows are the trace.dat' \
  "sed -i 's/\"instance\":\"0xff259b300243c080\"/\"instance\":\"0xff259b300243c780\"/' good.json" json

# In events mode: fixtures/dat/events.report and events.report-R are a 6.1
# guest's trace.dat of an instance's vmscan and compaction events (trace-cmd
# record -B allocwatch-e2e) cut to two tasks over 320 ms and to the
# profile's events, shrinkers left out; good-events.out what allocwatch -i
# printed of that file for those records.
events_dat() { # NAME EXPECT SED [OPTION...]: OPTIONs instead of --events --buffer
  name=$1 expect=$2
  sed "$3" fixtures/dat/good-events.out >"$tmp/events.out"
  shift 3
  [ $# -gt 0 ] || set -- --events --buffer allocwatch-e2e
  PATH=$tmp/bin:$PATH $python check_dat.py "$@" ../../configs/default.yaml 100 fixtures/dat/events \
    "$tmp/events.out" >"$tmp/log" 2>&1
  verdict "trace.dat checker, events mode: $name" "$expect" $?
}
events_dat correct pass ''
events_dat "a slow pair's end left out" 'pairs over the threshold in the trace.dat print their own lines' \
  '/71.687325: mm_vmscan_direct_reclaim_end/d'
events_dat 'a claimed tracepoint left out' 'records the profile lets a span claim' \
  '/71.873404: mm_compaction_migratepages/d'
events_dat 'a time a microsecond off' 'is a record of the trace.dat' \
  's/71.873404: mm_compaction_migratepages/71.873405: mm_compaction_migratepages/'
events_dat 'a pair as graph mode reads it' 'every line of the output is a trace line' '' \
  --buffer allocwatch-e2e
events_dat "the top level's records, not the instance's" 'is a record of the trace.dat' '' --events

# A trace.dat trace-cmd cannot read: no verdict on the run, exit 2.
rm -f "$tmp/dat/graph.report-R"
PATH=$tmp/bin:$PATH $python check_dat.py ../../configs/default.yaml 100 "$tmp/dat/graph" \
  "$tmp/dat/good.out" >"$tmp/log" 2>&1
if [ $? = 2 ] && grep -q '^check_dat.py: trace-cmd report -t -R -i .* exited 1: ' "$tmp/log"; then
  passed=$((passed + 1))
else
  failed=$((failed + 1))
  echo "FAIL trace.dat checker: a trace.dat trace-cmd cannot read is not exit 2"
  sed 's/^/  | /' "$tmp/log"
fi

# The checks of a guest's results (check_run.sh): fixtures/results is a
# trimmed copy of what a 6.1 guest left, with run1 of its runs. Those checks
# that need neither allocwatch nor the kernel's package run here.
# results_case NAME EXPECT SETUP run|kernel=KERNEL CHECK...: SETUP is shell
# run in a copy of fixtures/results first.
results_case() {
  name=$1 expect=$2 setup=$3 what=$4
  shift 4
  rm -rf "$tmp/results"
  cp -R fixtures/results "$tmp/results"
  (cd "$tmp/results" && eval "$setup")
  r=$tmp/results
  case $what in
    run) ./check_run.sh run "../../$build/allocwatch" "$check" 100 "$r/run1" "$@" ;;
    kernel=*) ./check_run.sh kernel "../../$build/allocwatch" "$check" "${what#kernel=}" "$r" \
      "$r/console.log" "$r" "$@" ;;
  esac >"$tmp/log" 2>&1
  verdict "results checker: $name" "$expect" $?
}
run_checks="check_graph_mode check_statuses check_restored check_no_journal"
kernel_checks="check_console check_functions check_events check_restore_after_kill check_made_run"
# shellcheck disable=SC2086 # the lists of checks are split into words
{
  results_case 'a good run' pass : run $run_checks
  # A raw run: its trace.dat (the stand-in trace-cmd prints fixtures/dat's)
  # judged by check_dat.py.
  f=$PWD/fixtures/dat
  raw_run="cp $f/graph.report run1/trace.dat.report && cp $f/graph.report-R run1/trace.dat.report-R &&
    cp $f/graph.report-f run1/trace.dat.report-f && : >run1/trace.dat &&
    cp $f/good.out run1/out.txt && cp $f/good-report.txt run1/report.txt"
  PATH=$tmp/bin:$PATH results_case 'a good raw run' pass "$raw_run" run check_dat
  PATH=$tmp/bin:$PATH results_case 'a raw run that printed a return twice' \
    'is a record of the trace.dat, printed once' "$raw_run && sed -i '66p' run1/out.txt" run check_dat
  PATH=$tmp/bin:$PATH results_case 'a raw run whose trace.dat trace-cmd cannot read' \
    'check_dat.py could not check' "$raw_run && rm run1/trace.dat.report-R" run check_dat
  results_case 'events mode' 'allocwatch chose graph mode' \
    "sed -i 's/graph mode/events mode/' run1/err.txt" run $run_checks
  results_case 'allocwatch failed after SIGINT' 'allocwatch exited 0 after SIGINT' \
    'echo 1 >run1/allocwatch.status' run $run_checks
  results_case 'the workload did not end' 'the workload ran to its end' \
    'rm run1/memstress.status' run $run_checks
  results_case 'tracefs not restored' 'tracefs after the run differs from before' \
    "sed -i '2s/nop/function_graph/' run1/tracefs.after" run $run_checks
  results_case 'ring buffer left as allocwatch set it' \
    "buffer_size_kb '7 (expanded: 1408)' is back as '16384'" \
    "sed -i 's/^1410\$/16384/' run1/tracefs.after" run $run_checks
  results_case 'ring buffer back as it was' pass \
    "sed -i 's/^7 (expanded: 1408)\$/2048/' run1/tracefs.before
     sed -i 's/^1410\$/2048/' run1/tracefs.after" run $run_checks
  results_case 'ring buffer back in whole pages' pass \
    "sed -i 's/^7 (expanded: 1408)\$/2048/' run1/tracefs.before
     sed -i 's/^1410\$/2051/' run1/tracefs.after" run $run_checks
  results_case 'a journal left behind' 'no journal is left behind' \
    'echo 1061.state >run1/journals' run $run_checks

  results_case 'a good kernel' pass : kernel=6.1 $kernel_checks
  results_case 'a BUG on the console' 'no kernel BUG, Oops, panic' \
    "echo '[   12.500000] BUG: kernel NULL pointer dereference' >>console.log" \
    kernel=6.1 $kernel_checks
  results_case 'a page allocation failure with its call trace' pass \
    "cat $PWD/fixtures/warn_alloc.txt >>console.log" \
    kernel=6.1 $kernel_checks
  results_case 'a call trace of its own after a page allocation failure' 'call trace' \
    "cat $PWD/fixtures/warn_alloc.txt >>console.log
     echo '[   95.000000] Call Trace:' >>console.log" kernel=6.1 $kernel_checks
  results_case 'a role not given its first available name' \
    'got the first name available_filter_functions lists' \
    "sed -i 's/^  shrink_lruvec  (/  shrink_node_memcg  (/' check.txt" kernel=6.1 $kernel_checks
  results_case 'a name tests/e2e/expected-functions does not give' \
    'the one tests/e2e/expected-functions gives 6.1' \
    "sed -i 's/^__alloc_pages\$/__alloc_pages_nodemask/' available-functions
     sed -i 's/^  __alloc_pages  (/  __alloc_pages_nodemask  (/' check.txt" kernel=6.1 $kernel_checks
  results_case 'a kernel tests/e2e/expected-functions does not know' \
    'has no column for kernel 9.9' : kernel=9.9 $kernel_checks
  results_case 'an event missing' 'every event of the default profile is in' \
    "sed -i 's|^  ok       vmscan/mm_vmscan_memcg_reclaim_end|  MISSING  vmscan/mm_vmscan_memcg_reclaim_end|' check.txt" \
    kernel=6.1 $kernel_checks
  results_case 'allocwatch --check failed' 'allocwatch --check -p default exits 0' \
    'echo 2 >check.status' kernel=6.1 $kernel_checks
  results_case 'allocwatch --restore failed' 'allocwatch --restore exits 0' \
    'echo 1 >restore/restore.status' kernel=6.1 $kernel_checks
  results_case 'a SIGKILLed run left no journal' 'a SIGKILLed run had changed tracefs' \
    ': >restore/journals.killed' kernel=6.1 $kernel_checks
  results_case 'tracefs not restored by --restore' 'tracefs after --restore differs from before' \
    "sed -i '2s/nop/function_graph/' restore/tracefs.after" kernel=6.1 $kernel_checks
  results_case 'a /run open to all' 'without /run, allocwatch made /run 0755' \
    "sed -i 's|^/run/allocwatch 700 0|/run/allocwatch 755 0|' run-dir" kernel=6.1 $kernel_checks
  results_case 'a guest with /run' pass 'echo /run exists >run-dir' kernel=6.1 $kernel_checks
}

# --forms counts each line form of a thresh-0 trace, arguments included.
forms() { "$check" --forms "$tmp/forms" | grep -qF "forms: $1"; }
printf '%s\n' \
  '  52.141007 |   1)  memstre-93   |               |  __alloc_frozen_pages_noprof(gfp=0x140cca, order=0) {' \
  '  52.141012 |   1)  memstre-93   |   2.312 us    |    shrink_slab(gfp_mask=0xcc0, nid=0);' \
  '  52.141020 |   1)  memstre-93   | + 13.020 us   |  }' \
  '  52.141030 |   1)  memstre-93   | + 13.020 us   |  } /* f = 0x0 */' >"$tmp/forms"
for want in '1 entry with arguments f(a=1)' '1 leaf with arguments f(a=1)' '1 return }' \
  '1 return with a value'; do
  if forms "$want"; then
    passed=$((passed + 1))
  else
    failed=$((failed + 1))
    echo "FAIL --forms does not count '$want':"
    "$check" --forms "$tmp/forms" | sed 's/^/  | /'
  fi
done
# same_output.py, which holds a replay of a raw run's trace.dat to what the
# run printed: `<...>` of a task the run could not name may be a comm in the
# replay, one comm per pid, the columns padded to fit; nothing else may
# differ.
printf '%s\n' '  76.778643 |   0)  <...>-1084   | ! 434.645 us  |  } /* __alloc_pages */' \
  '{"type":"span","pid":1084,"comm":"<...>","duration_ns":434645}' \
  '  <...>-1084       allocation   2     0.953' >"$tmp/live"
printf '%s\n' '  76.778643 |   0)   cat-1084    | ! 434.645 us  |  } /* __alloc_pages */' \
  '{"type":"span","pid":1084,"comm":"cat","duration_ns":434645}' \
  '  cat-1084         allocation   2     0.953' >"$tmp/replay"
# same_output NAME STATUS SAYS FROM [SED]: FROM (edited by SED) as the
# replay of the live output.
same_output() {
  cp "$tmp/$4" "$tmp/replay.case"
  [ -n "${5:-}" ] && sed -i "$5" "$tmp/replay.case"
  out=$(python3 same_output.py "$tmp/live" "$tmp/replay.case")
  if [ $? = "$2" ] && printf '%s\n' "$out" | grep -qF -- "$3"; then
    passed=$((passed + 1))
  else
    failed=$((failed + 1))
    echo "FAIL same_output.py, $1: $out"
  fi
}
same_output 'an unnamed task named in the replay' 0 'same but 3 lines of unnamed tasks (1084=cat)' replay
same_output 'the live output itself' 0 'same' live
same_output 'one pid, two comms' 1 'first difference: line 2' replay '2s/cat/dd/'
same_output 'a duration 1 ns off' 1 'first difference: line 2' replay '2s/434645/434646/'
same_output 'a line of another pid' 1 'first difference: line 1' replay '1s/cat-1084 /cat-1085 /'
same_output 'a line left out' 1 'first difference: 3 lines against 2' replay '3d'
# A run that handed records on late may print the same lines in another
# order; only then, and only the same lines.
late_output() {
  out=$(python3 same_output.py --late "$2" "$tmp/live" "$tmp/replay.case")
  if [ $? = "$3" ] && printf '%s\n' "$out" | grep -qF -- "$4"; then
    passed=$((passed + 1))
  else
    failed=$((failed + 1))
    echo "FAIL same_output.py --late, $1: $out"
  fi
}
sed '1h;1d;2G' "$tmp/replay" >"$tmp/replay.case" # lines 1 and 2 swapped
late_output 'two lines swapped, none late' 0 1 'first difference: line 1'
late_output 'two lines swapped, one late' 1 0 'same lines, 2 in another order'
sed -i '2s/434.645/434.646/' "$tmp/replay.case"
late_output 'swapped and one changed, one late' 1 1 'first difference: line 1'
sed '1h;1d;2G' "$tmp/replay" | sed '$d' >"$tmp/replay.case"
late_output 'swapped and one left out, one late' 1 1 'first difference: line 1'
sed -i '2s/<...>/cat/;1d;3d' "$tmp/live"
same_output '<...> in the replay where the run named the task' 1 'first difference: line 1' replay \
  '2s/"cat"/"<...>"/;1d;3d'

echo "e2e-check: $passed passed, $failed failed"
[ $failed = 0 ]

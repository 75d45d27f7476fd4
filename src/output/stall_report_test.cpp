#include "cgroup/task_cgroups.h"
#include "output/stall_report.h"
#include "tracepoints.h"

#include <doctest/doctest.h>
#include <sstream>
#include <string>
#include <vector>

using namespace allocwatch;

namespace {

constexpr Nanos ms = kMilli;
constexpr Nanos us = kMicro;

void feed(StallStats& stats, std::string_view span, std::string_view kind, std::int32_t pid,
          std::string_view comm, Nanos start, Nanos end, std::vector<std::string> lines = {"x"},
          bool background = false) {
  std::vector<std::string_view> views(lines.begin(), lines.end());
  const std::vector<Tracepoint> tracepoints = tracepoints_of_lines(views);
  stats.incident(Incident{span, kind, background, pid, comm, start, end, views, tracepoints});
}

std::string text(const StallStats& stats, std::size_t max_rows = ReportTextOptions{}.max_rows) {
  std::ostringstream out;
  write_report_text(out, stats, {ms, max_rows, {"kswapd", "kcompactd"}});
  return out.str();
}

std::string json(const StallStats& stats) {
  std::ostringstream out;
  write_report_json(out, stats);
  return out.str();
}

const std::string kBegin = "  1.000000 |   1)   memhog-170   |               |  /* "
                           "mm_vmscan_direct_reclaim_begin: order=0 gfp_flags=GFP_KERNEL */";
const std::string kEnd = "  1.002000 |   1)   memhog-170   |               |  /* "
                         "mm_vmscan_direct_reclaim_end: nr_reclaimed=34 */";

} // namespace

TEST_CASE("report text: nothing to report") {
  StallStats stats;
  CHECK(text(stats) == "allocwatch: no stall of 1ms or more\n");
  CHECK(json(stats).empty());
}

TEST_CASE("report text: every table, aligned, with histograms") {
  StallStats stats;
  feed(stats, "__alloc_pages", "allocation", 170, "memhog", 0, 3 * ms);
  feed(stats, "__alloc_pages", "allocation", 170, "memhog", 0, 1500 * us);
  feed(stats, "try_to_free_pages", "direct reclaim", 170, "memhog", 1 * ms, 3 * ms,
       {kBegin, kEnd, "x"});
  feed(stats, "shrink_slab", "shrinker", 44, "kswapd0", 0, 2 * ms, {"x"}, true);
  CHECK(text(stats) ==
        "allocwatch: stalls of 1ms or more, by task and kind, largest total first:\n"
        "  TASK        KIND            SPAN               COUNT  TOTAL_MS  MAX_MS  P99_MS\n"
        "  memhog-170  allocation      __alloc_pages          2     4.500   3.000   3.000\n"
        "  memhog-170  direct reclaim  try_to_free_pages      1     2.000   2.000   2.000\n"
        "allocwatch: background work of 1ms or more (kswapd, kcompactd), by task:\n"
        "  TASK        KIND      SPAN         COUNT  TOTAL_MS  MAX_MS  P99_MS\n"
        "  kswapd0-44  shrinker  shrink_slab      1     2.000   2.000   2.000\n"
        "allocwatch: reclaim and compaction stalls by order and gfp flags:\n"
        "  KIND            ORDER  GFP_FLAGS   COUNT  TOTAL_MS  MAX_MS\n"
        "  direct reclaim      0  GFP_KERNEL      1     2.000   2.000\n"
        "allocwatch: what each task's slow reclaim got: its orders, pages scanned, reclaimed and "
        "written, times throttled and ms waited:\n"
        "  TASK        KIND            COUNT  ORDERS  PAGES_SCANNED  PAGES_RECLAIMED  "
        "PAGES_WRITTEN  SYNC_WRITES  THROTTLED  WAITED_MS\n"
        "  memhog-170  direct reclaim      1  0=1                 0               34              "
        "0            0          0      0.000\n"
        "allocwatch: what slow reclaim got for its time (pages and shrinker calls printed inside "
        "it):\n"
        "  KIND            COUNT  TOTAL_MS  PAGES_SCANNED  PAGES_RECLAIMED  SHRINKERS_MS  "
        "SHRINKERS_SHARE\n"
        "  direct reclaim      1     2.000              0               34         0.000         "
        "    0.0%\n"
        "allocwatch: latency of allocation stalls (2), usecs:\n"
        "  [1K, 2K)                1 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|\n"
        "  [2K, 4K)                1 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|\n"
        "allocwatch: latency of direct reclaim stalls (1), usecs:\n"
        "  [1K, 2K)                1 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|\n");
}

TEST_CASE("report text: a terminal shows the top rows and says how many more") {
  StallStats stats;
  for (int pid = 1; pid <= 13; ++pid)
    feed(stats, "__alloc_pages", "allocation", pid, "dd", 0, pid * ms);
  const std::string top = text(stats, kTerminalReportRows);
  CHECK(top.find("  dd-13 ") != std::string::npos);
  CHECK(top.find("  dd-4 ") != std::string::npos);
  CHECK(top.find("  dd-3 ") == std::string::npos);
  CHECK(top.find("  ... 3 more rows (--report FILE has them all)\n") != std::string::npos);
  const std::string all = text(stats);
  CHECK(all.find("  dd-1 ") != std::string::npos);
  CHECK(all.find("more rows") == std::string::npos);
}

TEST_CASE("report text: untrusted bytes are escaped, never sent to the terminal") {
  StallStats stats;
  feed(stats, "f\x1b[2J", "allocation", 6, "evil\x1b]0;x\x07", 0, 2 * ms);
  const std::string out = text(stats);
  CHECK(out.find('\x1b') == std::string::npos);
  CHECK(out.find('\x07') == std::string::npos);
  CHECK(out.find("evil\\x1b]0;x\\x07-6") != std::string::npos);
  CHECK(out.find("f\\x1b[2J") != std::string::npos);
  // JSON escapes them its own way.
  CHECK(json(stats).find("\"comm\":\"evil\\u001b]0;x\\u0007\"") != std::string::npos);
}

TEST_CASE("report json: one record per row, with the issue's keys") {
  StallStats stats;
  feed(stats, "__alloc_pages", "allocation", 170, "memhog", 0, 3 * ms);
  feed(stats, "try_to_free_pages", "direct reclaim", 170, "memhog", 1 * ms, 3 * ms,
       {kBegin, kEnd, "x"});
  feed(stats, "shrink_slab", "shrinker", 44, "kswapd0", 0, 2 * ms, {"x"}, true);
  CHECK(json(stats) ==
        "{\"type\":\"stall\",\"pid\":170,\"comm\":\"memhog\",\"kind\":\"allocation\","
        "\"span\":\"__alloc_pages\",\"count\":1,\"total_ns\":3000000,\"max_ns\":3000000,"
        "\"p99_ns\":3000000}\n"
        "{\"type\":\"stall\",\"pid\":170,\"comm\":\"memhog\",\"kind\":\"direct reclaim\","
        "\"span\":\"try_to_free_pages\",\"count\":1,\"total_ns\":2000000,\"max_ns\":2000000,"
        "\"p99_ns\":2000000,\"orders\":{\"0\":1},\"pages_scanned\":0,\"pages_reclaimed\":34,"
        "\"pages_written\":0,\"sync_writes\":0,\"throttled\":0,\"throttled_ns\":0}\n"
        "{\"type\":\"background\",\"pid\":44,\"comm\":\"kswapd0\",\"kind\":\"shrinker\","
        "\"span\":\"shrink_slab\",\"count\":1,\"total_ns\":2000000,\"max_ns\":2000000,"
        "\"p99_ns\":2000000}\n"
        "{\"type\":\"order\",\"kind\":\"direct reclaim\",\"order\":0,\"gfp_flags\":\"GFP_KERNEL\","
        "\"count\":1,\"total_ns\":2000000,\"max_ns\":2000000}\n"
        "{\"type\":\"reclaim\",\"kind\":\"direct reclaim\",\"count\":1,\"total_ns\":2000000,"
        "\"pages_scanned\":0,\"pages_reclaimed\":34,\"shrinker_ns\":0,\"pages_written\":0,"
        "\"sync_writes\":0,\"throttled\":0,\"throttled_ns\":0}\n"
        "{\"type\":\"histogram\",\"kind\":\"allocation\",\"unit\":\"us\",\"buckets\":["
        "{\"low\":2048,\"high\":4096,\"count\":1}]}\n"
        "{\"type\":\"histogram\",\"kind\":\"direct reclaim\",\"unit\":\"us\",\"buckets\":["
        "{\"low\":1024,\"high\":2048,\"count\":1}]}\n");
}

TEST_CASE("report json: a row names its task's cgroup as of its newest stall, where known") {
  StallStats stats;
  const std::string id(64, 'c');
  TaskCgroup first{CgroupVersion::V1, "/allocwatch-test-a", {}};
  TaskCgroup moved{CgroupVersion::V2, "/docker/" + id, {Runtime::Docker, id, "", ""}};
  const auto stall = [&](std::int32_t pid, const TaskCgroup* cgroup, Nanos start) {
    const std::vector<std::string_view> lines = {"x"};
    const std::vector<Tracepoint> tracepoints = tracepoints_of_lines(lines);
    Incident incident{"__alloc_pages", "allocation",   false, pid,        "memhog",
                      start,           start + 2 * ms, lines, tracepoints};
    incident.cgroup = cgroup;
    stats.incident(incident);
  };
  stall(170, &first, 0);
  stall(171, nullptr, 0); // not looked up: no keys
  CHECK(json(stats).find("\"pid\":170,\"comm\":\"memhog\",\"cgroup\":\"/allocwatch-test-a\","
                         "\"kind\"") != std::string::npos);
  stall(170, &moved, 10 * ms);
  moved.path = "/elsewhere"; // the row keeps its own copy
  const std::string out = json(stats);
  CHECK(out.find("\"pid\":170,\"comm\":\"memhog\",\"cgroup\":\"/docker/" + id +
                 "\",\"container_id\":\"" + id + "\",\"kind\"") != std::string::npos);
  CHECK(out.find("allocwatch-test-a") == std::string::npos);
  CHECK(out.find("\"pid\":171,\"comm\":\"memhog\",\"kind\"") != std::string::npos);
  stall(170, nullptr, 20 * ms); // unknown this time: the newest known stays
  CHECK(json(stats).find("\"cgroup\":\"/docker/" + id) != std::string::npos);
}

TEST_CASE("report json: folded rows say so") {
  StallStats stats(StallStats::Limits{.task_rows = 1, .order_rows = 0});
  feed(stats, "t", "direct reclaim", 1, "a", 0, 1 * ms, {kBegin, "x"});
  feed(stats, "t", "direct reclaim", 2, "b", 0, 2 * ms, {kBegin, "x"});
  const std::string out = json(stats);
  CHECK(out.find("\"pid\":-1,\"comm\":\"(other tasks)\",\"kind\":\"direct reclaim\","
                 "\"span\":\"t\",\"count\":1,\"total_ns\":1000000") != std::string::npos);
  CHECK(out.find("\"order\":-1,\"gfp_flags\":\"(other)\",\"count\":2") != std::string::npos);
  CHECK(text(stats).find("  (other tasks)  ") != std::string::npos);
}

TEST_CASE("report text: histogram bounds as bpftrace writes them, bars to the largest") {
  StallStats stats;
  for (int i = 0; i < 4; ++i)
    feed(stats, "a", "allocation", 1, "a", 0, 300 * us);
  feed(stats, "a", "allocation", 1, "a", 0, 2 * kSecond);
  feed(stats, "a", "allocation", 1, "a", 0, 500); // under 1 us
  const std::string out = text(stats);
  CHECK(
      out.find(
          "  [0, 1)                  1 |@@@@@@@@@@@@@                                       |\n"
          "  [1, 2)                  0 |                                                    |\n") !=
      std::string::npos);
  CHECK(
      out.find(
          "  [256, 512)              4 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|\n") !=
      std::string::npos);
  CHECK(out.find("  [512K, 1M)              0 |") != std::string::npos);
  CHECK(out.find("  [1M, 2M)                1 |") != std::string::npos);
}

TEST_CASE("report: what the background tasks did, in text and JSON") {
  BackgroundWork work;
  work.add(44, "kswapd0", EventRole::KswapdWake, "nid=0 order=0", 10 * ms);
  work.add(44, "kswapd0", EventRole::LruShrinkInactive, "nid=0 nr_scanned=40 nr_reclaimed=30",
           11 * ms);
  work.add(44, "kswapd0", EventRole::KswapdSleep, "nid=0", 12 * ms + 500 * us);
  StallStats stats;
  std::ostringstream out;
  ReportTextOptions options{ms, ReportTextOptions{}.max_rows, {"kswapd"}};
  options.work = &work;
  write_report_text(out, stats, options);
  CHECK(out.str() == "allocwatch: no stall of 1ms or more\n"
                     "allocwatch: what the background tasks did, every run, slow or not:\n"
                     "  TASK        WAKES  REWAKES  AWAKE_MS  PAGES_SCANNED  PAGES_RECLAIMED\n"
                     "  kswapd0-44      1        0     2.500             40               30\n");
  std::ostringstream records;
  write_report_json(records, stats, &work);
  CHECK(records.str() == "{\"type\":\"background_work\",\"pid\":44,\"comm\":\"kswapd0\","
                         "\"wakes\":1,\"rewakes\":0,\"awake_ns\":2500000,\"pages_scanned\":40,"
                         "\"pages_reclaimed\":30}\n");
  CHECK(text(stats).find("background tasks did") == std::string::npos); // not counted: not shown
}

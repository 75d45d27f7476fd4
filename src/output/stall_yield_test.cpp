#include "output/stall_report.h"
#include "output/stall_stats.h"
#include "output/stall_yield.h"
#include "tracepoints.h"

#include <cstdio>
#include <doctest/doctest.h>
#include <sstream>
#include <string>
#include <vector>

using namespace allocwatch;

namespace {

constexpr Nanos us = kMicro;
constexpr Nanos ms = kMilli;

void feed(StallStats& stats, std::string_view span, std::string_view kind, std::int32_t pid,
          Nanos start, Nanos end, std::vector<std::string> lines) {
  std::vector<std::string_view> views(lines.begin(), lines.end());
  const std::vector<Tracepoint> tracepoints = tracepoints_of_lines(views);
  stats.incident(Incident{span, kind, false, pid, "dd", start, end, views, tracepoints});
}

// An events-mode line of dd-`pid` at `ts` ns: "NAME: FIELDS".
std::string line(std::int32_t pid, Nanos ts, std::string_view rest) {
  char stamp[32];
  std::snprintf(stamp, sizeof stamp, "%lld.%06lld", static_cast<long long>(ts / kSecond),
                static_cast<long long>(ts % kSecond / kMicro));
  return "   dd-" + std::to_string(pid) + " [001] .....  " + stamp + ": " + std::string(rest);
}

std::string return_line(std::string_view function) {
  return "  1.000000 |   1)   dd-160   | ! 100.000 us  |  } /* " + std::string(function) + " */";
}

const StallRow& row_of(const StallStats& stats, std::string_view kind) {
  for (const StallRow* row : stats.rows(StallTable::Tasks))
    if (row->kind == kind)
      return *row;
  FAIL("no row of " << kind);
  throw;
}

} // namespace

TEST_CASE("stall yield: orders by order, the unknown last, bounded") {
  OrderCounts orders;
  orders.add(9);
  orders.add(std::nullopt);
  orders.add(0);
  orders.add(9, 2);
  REQUIRE(orders.counts().size() == 3);
  CHECK(orders.counts()[0].order == 0);
  CHECK(orders.counts()[1].order == 9);
  CHECK(orders.counts()[1].count == 3);
  CHECK_FALSE(orders.counts()[2].order.has_value());
  // A hostile trace prints any order: past kOrders, they count as other.
  for (std::int64_t order = 100; order < 130; ++order)
    orders.add(order);
  CHECK(orders.counts().size() == OrderCounts::kOrders);
  CHECK(orders.other() == 30 - (OrderCounts::kOrders - 3));
  OrderCounts merged;
  merged.merge(orders);
  CHECK(merged.other() == orders.other());
  CHECK(merged.counts().size() == OrderCounts::kOrders);
}

TEST_CASE("stall yield: what a write, a throttle and a compaction line say") {
  const ReclaimFigures write =
      reclaim_figures(*known_event("mm_vmscan_write_folio"),
                      "page=0000000012345678 pfn=0x1f00 flags=RECLAIM_WB_FILE|RECLAIM_WB_ASYNC");
  CHECK(write.pages_written == 1);
  CHECK(write.sync_writes == 0);
  CHECK(write.any());
  // 5.10's name, and a sync write (an older or patched kernel).
  CHECK(reclaim_figures(*known_event("mm_vmscan_writepage"),
                        "page=00000000deadbeef pfn=7936 flags=RECLAIM_WB_ANON|RECLAIM_WB_SYNC")
            .sync_writes == 1);
  const ReclaimFigures throttle = reclaim_figures(
      *known_event("mm_vmscan_throttled"),
      "nid=0 usec_timeout=100000 usect_delayed=2500 reason=VMSCAN_THROTTLE_WRITEBACK");
  CHECK(throttle.throttled == 1);
  CHECK(throttle.throttled_time == 2500 * us);
  CHECK_FALSE(
      reclaim_figures(*known_event("mm_vmscan_direct_reclaim_end"), "nr_reclaimed=3").any());

  CompactionYield yield;
  CHECK(yield.read(*known_event("mm_compaction_migratepages"), "nr_migrated=30 nr_failed=2"));
  CHECK(yield.read(*known_event("mm_compaction_end"),
                   "zone_start=0x1 migrate_pfn=0x2 free_pfn=0x3 zone_end=0x4, mode=sync "
                   "status=complete"));
  CHECK(yield.read(*known_event("mm_compaction_end"),
                   "zone_start=0x1 migrate_pfn=0x2 free_pfn=0x3 zone_end=0x4, mode=async "
                   "status=partial"));
  CHECK_FALSE(yield.read(*known_event("mm_compaction_begin"), "zone_start=0x1"));
  CHECK(yield.pages_migrated == 30);
  CHECK(yield.migrate_failed == 2);
  CHECK(CompactionYield::kOtherEnd == compaction_statuses().size());
  CHECK(yield.ends[5] == 1); // complete
  CHECK(compaction_statuses()[5] == "complete");
  CHECK(yield.ends[CompactionYield::kOtherEnd] == 1); // "partial": early 4.x
}

TEST_CASE("stall stats: a task's reclaim yield, from its lines and those nested in it") {
  StallStats stats({}, StallSpans{.ordered = {"try_to_free_pages"},
                                  .reclaim = {"try_to_free_pages"},
                                  .compaction = {},
                                  .ended = {}});
  // Graph mode: shrink_lruvec (no stall) closes first with an LRU scan, a
  // write and a throttle; then the reclaim with its own begin and end.
  feed(stats, "shrink_lruvec", "", 160, 2 * ms, 6 * ms,
       {line(160, 3 * ms, "mm_vmscan_lru_shrink_inactive: nid=0 nr_scanned=32 nr_reclaimed=30"),
        line(160, 4 * ms, "mm_vmscan_write_folio: page=0 pfn=0x1 flags=RECLAIM_WB_FILE"),
        line(160, 5 * ms,
             "mm_vmscan_throttled: nid=0 usec_timeout=100000 usect_delayed=1500 "
             "reason=VMSCAN_THROTTLE_WRITEBACK"),
        return_line("shrink_lruvec")});
  feed(stats, "try_to_free_pages", "direct reclaim", 160, 1 * ms, 10 * ms,
       {line(160, 1 * ms, "mm_vmscan_direct_reclaim_begin: order=9 gfp_flags=GFP_TRANSHUGE"),
        line(160, 7 * ms, "mm_vmscan_write_folio: page=0 pfn=0x2 flags=RECLAIM_WB_ANON"),
        line(160, 10 * ms, "mm_vmscan_direct_reclaim_end: nr_reclaimed=31"),
        return_line("try_to_free_pages")});
  // A second one whose begin was not claimed: its order is `?`.
  feed(stats, "try_to_free_pages", "direct reclaim", 160, 20 * ms, 21 * ms,
       {line(160, 21 * ms, "mm_vmscan_direct_reclaim_end: nr_reclaimed=1"),
        return_line("try_to_free_pages")});
  const StallRow& row = row_of(stats, "direct reclaim");
  CHECK(row.yield.reclaim);
  CHECK_FALSE(row.yield.compaction);
  REQUIRE(row.yield.orders.counts().size() == 2);
  CHECK(row.yield.orders.counts()[0].order == 9);
  CHECK_FALSE(row.yield.orders.counts()[1].order.has_value());
  CHECK(row.yield.figures.pages_scanned == 32);
  CHECK(row.yield.pages_reclaimed == 32);
  CHECK(row.yield.figures.pages_written == 2);
  CHECK(row.yield.figures.throttled == 1);
  CHECK(row.yield.figures.throttled_time == 1500 * us);
  // The reclaim table's totals are the rows' sums.
  const auto reclaim = stats.reclaim();
  REQUIRE(reclaim.size() == 1);
  CHECK(reclaim[0].figures.pages_written == 2);
  CHECK(reclaim[0].figures.throttled_time == 1500 * us);

  std::ostringstream out;
  write_report_text(out, stats, {ms, ReportTextOptions{}.max_rows, {}});
  CHECK(out.str().find("allocwatch: what each task's slow reclaim got: its orders, pages scanned, "
                       "reclaimed and written, times throttled and ms waited:\n"
                       "  TASK    KIND            COUNT  ORDERS   PAGES_SCANNED  PAGES_RECLAIMED  "
                       "PAGES_WRITTEN  SYNC_WRITES  THROTTLED  WAITED_MS\n"
                       "  dd-160  direct reclaim      2  9=1 ?=1             32               32  "
                       "            2            0          1      1.500\n") != std::string::npos);
}

TEST_CASE("stall stats: a task's compaction yield, from its own lines") {
  StallStats stats({},
                   StallSpans{.ordered = {"try_to_compact_pages"},
                              .reclaim = {},
                              .compaction = {"compaction", "try_to_compact_pages", "compact_zone"},
                              .ended = {"compaction", "compact_zone"}});
  const std::string end = "mm_compaction_end: zone_start=0x1 migrate_pfn=0x2 free_pfn=0x3 "
                          "zone_end=0x4, mode=sync status=";
  // Events mode: two compaction pairs, with their migrations.
  feed(stats, "compaction", "compaction", 160, 1 * ms, 3 * ms,
       {line(160, 1 * ms, "mm_compaction_begin: zone_start=0x1"),
        line(160, 2 * ms, "mm_compaction_migratepages: nr_migrated=30 nr_failed=2"),
        line(160, 3 * ms, end + "success")});
  feed(stats, "compaction", "compaction", 160, 4 * ms, 6 * ms,
       {line(160, 4 * ms, "mm_compaction_begin: zone_start=0x1"),
        line(160, 5 * ms, "mm_compaction_migratepages: nr_migrated=1 nr_failed=0"),
        line(160, 6 * ms, end + "complete")});
  // A direct compaction whose line was not claimed: an order `?`, nothing else.
  feed(stats, "try_to_compact_pages", "direct compaction", 160, 0, 7 * ms,
       {return_line("try_to_compact_pages")});
  // Graph mode: a compact_zone return whose end line is not in the trace.
  feed(stats, "compact_zone", "compaction", 170, 8 * ms, 9 * ms, {return_line("compact_zone")});
  const StallRow& row = row_of(stats, "compaction");
  CHECK(row.yield.compaction);
  CHECK_FALSE(row.yield.reclaim);
  CHECK(row.yield.orders.empty());
  CHECK(row.yield.compacted.pages_migrated == 31);
  CHECK(row.yield.compacted.migrate_failed == 2);
  for (const StallRow* other : stats.rows(StallTable::Tasks))
    if (other->pid == 170) {
      CHECK(other->yield.compacted.ends[CompactionYield::kUnknownEnd] == 1);
      CHECK(other->yield.compacted.pages_migrated == 0);
    }
  const StallRow& direct = row_of(stats, "direct compaction");
  CHECK(direct.yield.compaction);
  REQUIRE(direct.yield.orders.counts().size() == 1);
  CHECK_FALSE(direct.yield.orders.counts()[0].order.has_value());

  std::ostringstream out;
  write_report_text(out, stats, {ms, ReportTextOptions{}.max_rows, {}});
  CHECK(out.str().find("allocwatch: what each task's slow compaction got: its orders, pages "
                       "migrated and failed, how each run ended:\n"
                       "  TASK    KIND               COUNT  ORDERS  PAGES_MIGRATED  "
                       "MIGRATE_FAILED  ENDED\n"
                       "  dd-160  direct compaction      1  ?=1                  0               0"
                       "  -\n"
                       "  dd-160  compaction             2  -                   31               2"
                       "  complete=1 success=1\n") != std::string::npos);
  std::ostringstream records;
  write_report_json(records, stats);
  CHECK(records.str().find("\"kind\":\"compaction\",\"span\":\"compaction\",\"count\":2,"
                           "\"total_ns\":4000000,\"max_ns\":2000000,\"p99_ns\":2000000,"
                           "\"pages_migrated\":31,\"migrate_failed\":2,"
                           "\"ends\":{\"complete\":1,\"success\":1}}") != std::string::npos);
  CHECK(records.str().find("\"span\":\"try_to_compact_pages\",\"count\":1,\"total_ns\":7000000,"
                           "\"max_ns\":7000000,\"p99_ns\":7000000,\"orders\":{\"?\":1},"
                           "\"pages_migrated\":0,\"migrate_failed\":0,\"ends\":{}}") !=
        std::string::npos);
}

TEST_CASE("stall stats: folded rows keep their yield; an 80-column terminal fits the tables") {
  StallStats stats(StallStats::Limits{.task_rows = 1});
  for (std::int32_t pid = 1; pid <= 3; ++pid)
    feed(stats, "try_to_free_pages", "direct reclaim", pid, 0, pid * ms,
         {line(pid, 0, "mm_vmscan_direct_reclaim_begin: order=0 gfp_flags=GFP_KERNEL"),
          line(pid, 0, "mm_vmscan_write_folio: page=0 pfn=0x2 flags=RECLAIM_WB_ANON"),
          line(pid, pid * ms, "mm_vmscan_direct_reclaim_end: nr_reclaimed=4")});
  std::uint64_t written = 0;
  std::uint64_t reclaimed = 0;
  for (const StallRow* row : stats.rows(StallTable::Tasks)) {
    written += row->yield.figures.pages_written;
    reclaimed += row->yield.pages_reclaimed;
  }
  CHECK(written == 3);
  CHECK(reclaimed == 12);
  std::ostringstream out;
  ReportTextOptions options{ms, ReportTextOptions{}.max_rows, {}};
  options.width = 80;
  write_report_text(out, stats, options);
  std::istringstream lines(out.str());
  for (std::string text; std::getline(lines, text);) {
    CAPTURE(text);
    CHECK(text.size() <= 80);
  }
  CHECK(out.str().find("  (columns left out to fit the terminal: --report FILE has them)") !=
        std::string::npos);
}

// The stall report: StallStats written for people (text, at the end of every
// run, on stderr and with --report FILE) and for programs (JSON records after
// the span records of --format json).
//
// Text, with every untrusted byte escaped for the terminal (util/escape.h):
//   allocwatch: stalls of 1ms or more, by task and kind, largest total first:
//     TASK        KIND            SPAN               COUNT  TOTAL_MS  MAX_MS  P99_MS
//     memhog-171  allocation      __alloc_pages        102  1234.567  88.215  61.000
//     ... 12 more rows (--report FILE has them all)
//   allocwatch: background work of 1ms or more (kswapd, kcompactd), by task: ...
//   allocwatch: what the background tasks did, every run, slow or not:
//     TASK          WAKES  REWAKES  AWAKE_MS  PAGES_SCANNED  PAGES_RECLAIMED
//   allocwatch: reclaim and compaction stalls by order and gfp flags: ...
//   allocwatch: what each task's slow reclaim got: its orders, pages scanned, ...
//     TASK       KIND            COUNT  ORDERS  PAGES_SCANNED  PAGES_RECLAIMED
//       PAGES_WRITTEN  SYNC_WRITES  THROTTLED  WAITED_MS       (one line each)
//     dd-14572   memcg reclaim      13  0=13            19183             1228
//       284  0  68  80.000
//   allocwatch: what each task's slow compaction got: its orders, pages migrated ...
//     TASK        KIND        COUNT  ORDERS  PAGES_MIGRATED  MIGRATE_FAILED  ENDED
//     memhog-173  compaction     39  -                    0               0  complete=27
//       partial_skipped=6 contended=1 success=4 ?=1
//   (`?`: a stall whose begin, or end, line was not claimed)
//   allocwatch: what slow reclaim got for its time: ...
//   allocwatch: shrinkers, every call (slow or not), largest total first: ...
//   allocwatch: latency of allocation stalls, usecs:
//     [1K, 2K)             3 |@@@@@@                                              |
// A shrinker call's SPAN is its shrinker ("super_cache_scan", with
// "[instance]" where the rows name several). On a terminal every line fits
// its width (ReportTextOptions::width).
//
// JSON Lines (after write_run_json's record), one record per row:
//   {"type":"stall","pid":171,"comm":"memhog-","kind":"allocation","span":"__alloc_pages",
//    "count":102,"total_ns":1234567000,"max_ns":88215000,"p99_ns":61000000}
//   {"type":"background", ...the same keys...}
//   (a shrinker call's also "shrinker":"super_cache_scan","instance":"0000000052cfc56b")
//   (a row with orders also "orders":{"9":16,"?":1}; a reclaim's
//    "pages_scanned","pages_reclaimed","pages_written","sync_writes","throttled",
//    "throttled_ns"; a compaction's "pages_migrated","migrate_failed",
//    "ends":{"complete":27,"success":4,"?":1}: StallRow::yield)
//   {"type":"order","kind":"direct reclaim","order":0,"gfp_flags":"GFP_HIGHUSER_MOVABLE",
//    "count":21,"total_ns":...,"max_ns":...}
//   {"type":"reclaim","kind":"direct reclaim","count":21,"total_ns":...,"pages_scanned":...,
//    "pages_reclaimed":...,"shrinker_ns":...,"pages_written":...,"sync_writes":...,
//    "throttled":...,"throttled_ns":...}
//   {"type":"background_work","pid":35,"comm":"kswapd0","wakes":149,"rewakes":3,
//    "awake_ns":...,"pages_scanned":...,"pages_reclaimed":...}
//   {"type":"histogram","kind":"direct reclaim","unit":"us",
//    "buckets":[{"low":256,"high":512,"count":12}, ...]}
// Tasks folded into "other tasks" have pid -1 and comm "(other tasks)";
// folded order rows have order -1 and gfp_flags "(other)"; the stalls whose
// begin line was not claimed, order and gfp_flags null (`?` in text).
#pragma once

#include "bind/background_work.h"
#include "bind/run_stats.h"
#include "output/stall_stats.h"
#include "profile/profile.h"

#include <cstddef>
#include <iosfwd>
#include <limits>
#include <optional>
#include <string>
#include <vector>

namespace allocwatch {

struct ReportTextOptions {
  Nanos threshold = 0;
  // Rows per table; the rest are counted ("... 12 more rows"). A terminal
  // shows the top ones, a file all of them.
  std::size_t max_rows = std::numeric_limits<std::size_t>::max();
  std::vector<std::string> background; // the profile's background tasks, for a heading
  // A terminal's columns, which every line fits (tables give way, other
  // lines are cut at their spaces); the largest value (text_table.h's
  // kWhole): everything whole (a file).
  std::size_t width = std::numeric_limits<std::size_t>::max();
  // What the background tasks did (their wakes, runs and pages); null: the
  // run did not count it.
  const BackgroundWork* work = nullptr;
};

// Rows per table on a terminal.
constexpr std::size_t kTerminalReportRows = 10;

void write_report_text(std::ostream& out, const StallStats& stats,
                       const ReportTextOptions& options);
void write_report_json(std::ostream& out, const StallStats& stats,
                       const BackgroundWork* work = nullptr);

// The run itself, for the JSON records (before the report's):
//   {"type":"run","profile":"default","mode":"graph","threshold_ns":1000000,
//    "kernel":"6.1.0-56-amd64","lines_read":25963,"not_understood":0,
//    "lost_events":0,"lost_lines":0,"lost_uncounted":0,"held_expired":0,
//    "held_dropped_per_task":0,"held_dropped_bound":0,"held_released":0,
//    "unmatched_ends":3,"replaced_begins":4,"orphan_returns":0}
// "mode" and "kernel" are null when unknown (no trace line; a replay).
struct RunRecord {
  std::string_view profile;
  std::optional<Mode> mode;
  Nanos threshold = 0;
  std::string_view kernel; // uname's release; empty: unknown
  const RunStats& stats;
};
void write_run_json(std::ostream& out, const RunRecord& run);

} // namespace allocwatch

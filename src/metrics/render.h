// The metrics allocwatch exports, in Prometheus' text format: one function
// from the run's state to the text that the metrics file holds and
// /metrics serves. Names and labels follow Prometheus' conventions (base
// units, _seconds, _total); every family is listed in allocwatch(8).
#pragma once

#include "bind/run_stats.h"
#include "bind/shrinker_stats.h"
#include "metrics/stall_metrics.h"
#include "util/duration.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace allocwatch {

// One of the tables a run keeps for as long as it runs, for
// allocwatch_table_entries and allocwatch_table_max_entries.
struct TableSize {
  std::string_view table; // "task_rows"
  std::uint64_t entries = 0;
  std::uint64_t max = 0; // its bound; 0: none by count (the binder's tasks, by time)
};

struct MetricsSources {
  std::string_view version;
  std::string_view mode;    // "events" or "graph"; empty while unknown (a replay's start)
  std::string_view profile; // its name
  Nanos threshold = 0;
  const StallMetrics& stalls;
  const ShrinkerStats& shrinkers;
  const RunStats& run;
  std::uint64_t metrics_file_errors = 0; // failed rewrites of --metrics-file
  // Tables the sources above do not hold (the stall report's), listed after theirs.
  std::vector<TableSize> more_tables = {};
};

std::string render_metrics(const MetricsSources& sources);

} // namespace allocwatch

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

namespace allocwatch {

struct MetricsSources {
  std::string_view version;
  std::string_view mode;    // "events" or "graph"; empty while unknown (a replay's start)
  std::string_view profile; // its name
  Nanos threshold = 0;
  const StallMetrics& stalls;
  const ShrinkerStats& shrinkers;
  const RunStats& run;
  std::uint64_t metrics_file_errors = 0; // failed rewrites of --metrics-file
};

std::string render_metrics(const MetricsSources& sources);

} // namespace allocwatch

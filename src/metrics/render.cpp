#include "metrics/render.h"

#include "bind/shrinker_keys.h"

namespace allocwatch {

namespace {

using Type = Exposition::Type;

void info(Exposition& out, const MetricsSources& s) {
  out.family("allocwatch_info", Type::Gauge,
             "allocwatch's version, tracing mode (events or graph) and profile; always 1.");
  out.sample("allocwatch_info", {{"version", s.version}, {"mode", s.mode}, {"profile", s.profile}},
             1);
  out.family("allocwatch_threshold_seconds", Type::Gauge,
             "The threshold: spans at least this long are stalls, counted below.");
  out.sample_seconds("allocwatch_threshold_seconds", {}, s.threshold);
}

// Both families have the same series: per kind, the cgroups that stalled
// longest (at most --metrics-cgroups of them) and cgroup="other".
void cgroups(Exposition& out, const StallMetrics& stalls) {
  static const Container kNoContainer;
  const auto each = [&](auto write) {
    for (const StallMetrics::Kind& kind : stalls.kinds()) {
      for (const TopCgroups::Series& s : kind.cgroups.series())
        write(kind.name, s.name, container_of(s.name), s.totals);
      write(kind.name, TopCgroups::kOther, kNoContainer, kind.cgroups.other());
    }
  };
  constexpr std::string_view count = "allocwatch_cgroup_stalls_total";
  out.family(count, Type::Counter,
             "Stalls at or above the threshold, by kind and the task's memory cgroup (with its "
             "container and pod): the cgroups that stalled longest have a series each, the rest "
             "are cgroup=\"other\".");
  each([&](std::string_view kind, std::string_view cgroup, const Container& container,
           const TopCgroups::Totals& totals) {
    out.sample(count,
               {{"kind", kind},
                {"cgroup", cgroup},
                {"container_id", container.id},
                {"pod_uid", container.pod_uid}},
               totals.stalls);
  });
  constexpr std::string_view time = "allocwatch_cgroup_stall_seconds_total";
  out.family(time, Type::Counter,
             "Time in stalls at or above the threshold, by kind and memory cgroup, as "
             "allocwatch_cgroup_stalls_total.");
  each([&](std::string_view kind, std::string_view cgroup, const Container& container,
           const TopCgroups::Totals& totals) {
    out.sample_seconds(time,
                       {{"kind", kind},
                        {"cgroup", cgroup},
                        {"container_id", container.id},
                        {"pod_uid", container.pod_uid}},
                       totals.weight);
  });
}

void stalls(Exposition& out, const StallMetrics& stalls) {
  out.family("allocwatch_stall_duration_seconds", Type::Histogram,
             "Stalls at or above the threshold, by kind (tasks other than the background ones).");
  for (const StallMetrics::Kind& kind : stalls.kinds())
    out.histogram("allocwatch_stall_duration_seconds", {{"kind", kind.name}}, kind.stalls);
  out.family("allocwatch_background_duration_seconds", Type::Histogram,
             "Spans at or above the threshold of the background tasks (kswapd, kcompactd), by "
             "kind.");
  for (const StallMetrics::Kind& kind : stalls.kinds())
    out.histogram("allocwatch_background_duration_seconds", {{"kind", kind.name}}, kind.background);
  out.family("allocwatch_stalls_total", Type::Counter,
             "Stalls at or above the threshold, by kind and task name: the busiest task names "
             "have a series each, the rest are comm=\"other\".");
  for (const StallMetrics::Kind& kind : stalls.kinds()) {
    for (const TopComms::Series& series : kind.comms.series())
      out.sample("allocwatch_stalls_total", {{"kind", kind.name}, {"comm", series.name}},
                 series.totals.stalls);
    out.sample("allocwatch_stalls_total", {{"kind", kind.name}, {"comm", TopComms::kOther}},
               kind.comms.other().stalls);
  }
  cgroups(out, stalls);
}

void shrinkers(Exposition& out, const ShrinkerStats& shrinkers) {
  const std::vector<ShrinkerSummary> summary = shrinkers.summary();
  out.family("allocwatch_shrinker_seconds_total", Type::Counter,
             "Time spent in each shrinker, over every call (mm_shrink_slab_start/end pairs).");
  for (const ShrinkerSummary& s : summary)
    out.sample_seconds("allocwatch_shrinker_seconds_total", {{"shrinker", s.symbol}},
                       s.totals.total);
  out.family("allocwatch_shrinker_calls_total", Type::Counter, "Calls of each shrinker.");
  for (const ShrinkerSummary& s : summary)
    out.sample("allocwatch_shrinker_calls_total", {{"shrinker", s.symbol}}, s.totals.calls);
}

void counter(Exposition& out, std::string_view name, std::string_view help, std::uint64_t value) {
  out.family(name, Type::Counter, help);
  out.sample(name, {}, value);
}

void input(Exposition& out, const MetricsSources& s) {
  counter(out, "allocwatch_trace_lines_read_total", "Trace lines read.", s.run.lines_read);
  counter(out, "allocwatch_trace_lines_malformed_total",
          "Trace lines not understood (counted and skipped).", s.run.lines_malformed);
  counter(out, "allocwatch_events_lost_total",
          "Events the kernel lost (its ring buffer was full), from its LOST lines.",
          s.run.lost_events);
  counter(out, "allocwatch_held_lines_dropped_total",
          "Held tracepoint lines dropped before a span could claim them (over the per-task "
          "cap or the bound on all held lines).",
          s.run.held_over_cap + s.run.held_dropped);
  counter(out, "allocwatch_metrics_file_errors_total",
          "Rewrites of the metrics file that failed (allocwatch goes on tracing).",
          s.metrics_file_errors);
}

// The bounded tables and their bounds: allocwatch(8), METRICS, names each.
void tables(Exposition& out, const MetricsSources& s) {
  std::vector<TableSize> sizes = {
      {"tasks", s.run.tasks_known, 0},
      {"shrinker_keys", s.run.shrinker_keys, ShrinkerKeys::kMaxKeys},
      {"shrinker_instances", s.shrinkers.instances(), ShrinkerStats::kMaxInstances},
  };
  TableSize series{"comm_series"}, candidates{"comm_candidates"};
  for (const StallMetrics::Kind& kind : s.stalls.kinds()) {
    series.entries += kind.comms.series().size();
    series.max += kind.comms.top();
    candidates.entries += kind.comms.candidates();
    candidates.max += kind.comms.max_candidates();
  }
  sizes.push_back(series);
  sizes.push_back(candidates);
  sizes.insert(sizes.end(), s.more_tables.begin(), s.more_tables.end());
  out.family("allocwatch_table_entries", Type::Gauge,
             "Entries in each table allocwatch keeps for as long as it runs.");
  for (const TableSize& table : sizes)
    out.sample("allocwatch_table_entries", {{"table", table.table}}, table.entries);
  out.family("allocwatch_table_max_entries", Type::Gauge,
             "The bound of each table with one (the tasks are bounded by the profile's window).");
  for (const TableSize& table : sizes)
    if (table.max != 0)
      out.sample("allocwatch_table_max_entries", {{"table", table.table}}, table.max);
}

} // namespace

std::string render_metrics(const MetricsSources& sources) {
  Exposition out;
  info(out, sources);
  stalls(out, sources.stalls);
  shrinkers(out, sources.shrinkers);
  input(out, sources);
  tables(out, sources);
  return out.text();
}

} // namespace allocwatch

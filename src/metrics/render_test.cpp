#include "metrics/render.h"

#include <doctest/doctest.h>
#include <string>
#include <utility>

using namespace allocwatch;

namespace {

Profile two_kinds() {
  Profile profile;
  profile.name = "watch";
  profile.stalls = {StallKind{"direct reclaim", {"try_to_free_pages"}, {"direct_reclaim"}, {}},
                    StallKind{"shrinker", {}, {"shrink_slab"}, {}}};
  return profile;
}

Incident span(std::string_view kind, std::string_view comm, Nanos duration,
              bool background = false) {
  return Incident{"direct_reclaim", kind, background, 7, comm, 1000, 1000 + duration, {}};
}

bool has_line(const std::string& text, const std::string& line) {
  return text.find("\n" + line + "\n") != std::string::npos || text.starts_with(line + "\n");
}

} // namespace

TEST_CASE("metrics: every kind of the profile has its series from the start, at zero") {
  const Profile profile = two_kinds();
  StallMetrics stalls(profile);
  ShrinkerStats shrinkers;
  RunStats run;
  const std::string text = render_metrics(
      MetricsSources{"0.1.0", "events", "watch", 100 * kMicro, stalls, shrinkers, run, 0});
  CHECK(has_line(text, "allocwatch_info{version=\"0.1.0\",mode=\"events\",profile=\"watch\"} 1"));
  CHECK(has_line(text, "allocwatch_threshold_seconds 0.0001"));
  CHECK(has_line(text, "allocwatch_stall_duration_seconds_count{kind=\"direct reclaim\"} 0"));
  CHECK(has_line(text, "allocwatch_stall_duration_seconds_count{kind=\"shrinker\"} 0"));
  CHECK(has_line(text, "allocwatch_background_duration_seconds_count{kind=\"shrinker\"} 0"));
  CHECK(has_line(text, "allocwatch_stalls_total{kind=\"direct reclaim\",comm=\"other\"} 0"));
  CHECK(has_line(text, "# TYPE allocwatch_shrinker_seconds_total counter"));
  CHECK(has_line(text, "allocwatch_trace_lines_read_total 0"));
}

TEST_CASE("metrics: stalls by kind and comm, background apart, inner calls not at all") {
  const Profile profile = two_kinds();
  StallMetrics stalls(profile);
  stalls.incident(span("direct reclaim", "postgres", 12 * kMilli));
  stalls.incident(span("direct reclaim", "postgres", 150 * kMicro));
  stalls.incident(span("shrinker", "kswapd0", 3 * kMilli, true));
  stalls.incident(span("", "postgres", 50 * kMilli));   // shrink_node inside a stall
  stalls.incident(span("compaction", "java", kSecond)); // a kind the profile did not list
  ShrinkerStats shrinkers;
  shrinkers.add("super_cache_scan", "00000000ce7941b5", 400'000);
  shrinkers.add("super_cache_scan", "00000000c60de79d", 1'100'001);
  RunStats run;
  run.lines_read = 25963;
  run.lost_events = 600;
  run.held_over_cap = 3;
  run.held_dropped = 4;
  const std::string text = render_metrics(
      MetricsSources{"0.1.0", "events", "watch", 100 * kMicro, stalls, shrinkers, run, 2});
  CHECK(has_line(
      text, "allocwatch_stall_duration_seconds_bucket{kind=\"direct reclaim\",le=\"0.0001\"} 0"));
  CHECK(has_line(
      text, "allocwatch_stall_duration_seconds_bucket{kind=\"direct reclaim\",le=\"0.00025\"} 1"));
  CHECK(has_line(
      text, "allocwatch_stall_duration_seconds_bucket{kind=\"direct reclaim\",le=\"0.01\"} 1"));
  CHECK(has_line(
      text, "allocwatch_stall_duration_seconds_bucket{kind=\"direct reclaim\",le=\"0.025\"} 2"));
  CHECK(has_line(text, "allocwatch_stall_duration_seconds_sum{kind=\"direct reclaim\"} 0.01215"));
  CHECK(has_line(text, "allocwatch_stall_duration_seconds_count{kind=\"direct reclaim\"} 2"));
  CHECK(has_line(text, "allocwatch_stall_duration_seconds_count{kind=\"shrinker\"} 0"));
  CHECK(has_line(text, "allocwatch_background_duration_seconds_count{kind=\"shrinker\"} 1"));
  CHECK(has_line(text, "allocwatch_stall_duration_seconds_count{kind=\"compaction\"} 1"));
  CHECK(has_line(text, "allocwatch_stalls_total{kind=\"direct reclaim\",comm=\"postgres\"} 2"));
  CHECK(has_line(text, "allocwatch_stalls_total{kind=\"compaction\",comm=\"java\"} 1"));
  CHECK(text.find("kswapd0") == std::string::npos);
  CHECK(has_line(text,
                 "allocwatch_shrinker_seconds_total{shrinker=\"super_cache_scan\"} 0.001500001"));
  CHECK(has_line(text, "allocwatch_shrinker_calls_total{shrinker=\"super_cache_scan\"} 2"));
  CHECK(has_line(text, "allocwatch_trace_lines_read_total 25963"));
  CHECK(has_line(text, "allocwatch_events_lost_total 600"));
  CHECK(has_line(text, "allocwatch_held_lines_dropped_total 7"));
  CHECK(has_line(text, "allocwatch_metrics_file_errors_total 2"));
}

TEST_CASE("metrics: each table's size and bound; thousands of comms and shrinkers keep the "
          "series bounded") {
  const Profile profile = two_kinds();
  StallMetrics stalls(profile);
  ShrinkerStats shrinkers;
  RunStats run;
  run.tasks_known = 1234;
  run.shrinker_keys = 17;
  auto series = [&] {
    const std::string text = render_metrics(MetricsSources{"0.1.0",
                                                           "events",
                                                           "watch",
                                                           100 * kMicro,
                                                           stalls,
                                                           shrinkers,
                                                           run,
                                                           0,
                                                           {{"task_rows", 999, 1000}}});
    std::size_t samples = 0;
    for (std::size_t at = 0; at < text.size(); at = text.find('\n', at) + 1)
      samples += text[at] != '#';
    return std::pair{text, samples};
  };
  const std::size_t empty = series().second;
  // Ten series and "other" per kind, one series per shrinker function, the
  // tables fixed: past every bound, the series of the two kinds and two
  // functions are all there are.
  for (int i = 0; i < 5000; ++i) {
    const std::string comm = "task" + std::to_string(i);
    stalls.incident(span("direct reclaim", comm, 2 * kMilli));
    stalls.incident(span("shrinker", comm, 2 * kMilli));
    shrinkers.add(i % 2 ? "super_cache_scan" : "ext4_es_scan", std::to_string(i), 1'000);
    if (i % 1000 == 500)
      stalls.rebalance();
  }
  const auto [text, full] = series();
  CHECK(full == empty + 2 * StallMetrics::kTopComms + 2 * 2);
  CHECK(has_line(text, "# TYPE allocwatch_table_entries gauge"));
  CHECK(has_line(text, "allocwatch_table_entries{table=\"tasks\"} 1234"));
  CHECK(has_line(text, "allocwatch_table_entries{table=\"shrinker_keys\"} 17"));
  CHECK(has_line(text, "allocwatch_table_max_entries{table=\"shrinker_keys\"} 4096"));
  CHECK(has_line(text, "allocwatch_table_entries{table=\"shrinker_instances\"} 4096"));
  CHECK(has_line(text, "allocwatch_table_max_entries{table=\"shrinker_instances\"} 4096"));
  CHECK(has_line(text, "allocwatch_table_entries{table=\"comm_series\"} 20"));
  CHECK(has_line(text, "allocwatch_table_max_entries{table=\"comm_series\"} 20"));
  CHECK(has_line(text, "allocwatch_table_entries{table=\"comm_candidates\"} 80"));
  CHECK(has_line(text, "allocwatch_table_max_entries{table=\"comm_candidates\"} 80"));
  CHECK(has_line(text, "allocwatch_table_entries{table=\"task_rows\"} 999"));
  CHECK(has_line(text, "allocwatch_table_max_entries{table=\"task_rows\"} 1000"));
  // The tasks are bounded by the window, not by a count: no bound to publish.
  CHECK(text.find("allocwatch_table_max_entries{table=\"tasks\"}") == std::string::npos);
}

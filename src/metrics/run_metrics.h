// RunMetrics: one run's Prometheus metrics: the observer that counts its
// stalls (StallMetrics, fed by the FanoutSink) and the publisher that puts
// them in --metrics-file and serves them at --listen. Until start(), it
// does nothing: tick() and finish() are free to call.
#pragma once

#include "bind/run_stats.h"
#include "bind/shrinker_stats.h"
#include "metrics/publisher.h"
#include "metrics/render.h"
#include "metrics/stall_metrics.h"
#include "profile/profile.h"

#include <chrono>
#include <functional>
#include <iosfwd>
#include <memory>
#include <optional>
#include <vector>

namespace allocwatch {

class RunMetrics {
public:
  using Tables = std::function<std::vector<TableSize>()>;
  // The run's counts, read at every rendering; all must outlive it, and
  // what `more_tables` reads too (the sizes of the stall report's tables).
  RunMetrics(const Profile& profile, const ShrinkerStats& shrinkers, const RunStats& stats,
             Tables more_tables = {})
      : profile_(profile), shrinkers_(shrinkers), stats_(stats),
        more_tables_(std::move(more_tables)), stalls_(profile) {}

  // Binds --listen and writes the file once: a mistake in either is a
  // FatalError, before tracing starts. `mode`: the one planned (none in a
  // replay, until its end).
  void start(const PublisherOptions& options, std::optional<Mode> mode, std::ostream& messages,
             bool quiet);
  bool started() const { return publisher_ != nullptr; }
  // The mode in use, once known (graph mode may fall back to events).
  void set_mode(std::optional<Mode> mode) { mode_ = mode; }
  // How many cgroups have series of their own per kind (--metrics-cgroups):
  // before the first incident.
  void set_top_cgroups(std::size_t top) { stalls_ = StallMetrics(profile_, top); }

  // Sees every incident, after the trace's own output.
  Sink& observer() { return stalls_; }
  // From the live loop, between reads: the file when due, --listen's
  // clients, and now and then the choice of task names and cgroups. Never waits.
  void tick();
  // The final numbers to the file.
  void finish();

private:
  using Clock = MetricsPublisher::Clock;
  // How often the busiest task names and cgroups are reconsidered for their
  // own series.
  static constexpr std::chrono::minutes kRebalanceInterval{5};

  std::string render(std::uint64_t file_errors) const;

  const Profile& profile_;
  const ShrinkerStats& shrinkers_;
  const RunStats& stats_;
  Tables more_tables_;
  StallMetrics stalls_;
  std::optional<Mode> mode_;
  std::unique_ptr<MetricsPublisher> publisher_;
  Clock::time_point next_rebalance_;
};

} // namespace allocwatch

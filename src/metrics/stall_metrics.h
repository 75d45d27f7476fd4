// StallMetrics: an observer of the run's incidents (FanoutSink) that keeps
// what the Prometheus metrics need, in memory that does not grow with time:
// per kind of stall, a duration histogram of the stalls at or above the
// threshold, one of the background tasks' spans (kswapd, kcompactd), and the
// stall counts of the busiest task names (TopComms).
#pragma once

#include "bind/incident.h"
#include "metrics/exposition.h"
#include "metrics/top_comms.h"
#include "profile/profile.h"

#include <string>
#include <vector>

namespace allocwatch {

class StallMetrics : public Sink {
public:
  static constexpr std::size_t kTopComms = 10;

  // Every kind the profile names has its series from the start, at zero:
  // Prometheus' increase() misses the first count of a series that appears
  // with it.
  explicit StallMetrics(const Profile& profile);

  void incident(const Incident& incident) override;
  void passthrough(std::string_view, Nanos) override {}
  void finish(const ShrinkerStats&) override {}

  // See TopComms::rebalance: called every few minutes by a long run.
  void rebalance_comms();

  struct Kind {
    std::string name;             // "direct reclaim"
    DurationHistogram stalls;     // tasks that stalled
    DurationHistogram background; // the profile's background tasks
    TopComms comms{kTopComms};    // the stalls, by task name
  };
  // In the profile's order, then any kind seen that it did not name.
  const std::vector<Kind>& kinds() const { return kinds_; }

private:
  Kind& kind(std::string_view name);
  std::vector<Kind> kinds_;
};

} // namespace allocwatch

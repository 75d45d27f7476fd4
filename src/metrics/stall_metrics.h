// StallMetrics: an observer of the run's incidents (FanoutSink) that keeps
// what the Prometheus metrics need, in memory that does not grow with time:
// per kind of stall, a duration histogram of the stalls at or above the
// threshold, one of the background tasks' spans (kswapd, kcompactd), the
// stall counts of the busiest task names (TopComms), and the stall counts
// and times of the memory cgroups that stalled longest (TopCgroups, from
// the cgroup an AttributingSink gave each incident).
#pragma once

#include "bind/incident.h"
#include "metrics/exposition.h"
#include "metrics/top_cgroups.h"
#include "metrics/top_comms.h"
#include "profile/profile.h"

#include <string>
#include <vector>

namespace allocwatch {

class StallMetrics : public Sink {
public:
  static constexpr std::size_t kTopComms = 10;
  static constexpr std::size_t kCommCandidates = 40;
  static constexpr std::size_t kTopCgroups = 10;

  // Every kind the profile names has its series from the start, at zero:
  // Prometheus' increase() misses the first count of a series that appears
  // with it. `top_cgroups`: how many cgroups have series of their own, per
  // kind (--metrics-cgroups).
  explicit StallMetrics(const Profile& profile, std::size_t top_cgroups = kTopCgroups);

  void incident(const Incident& incident) override;
  void passthrough(std::string_view, Nanos) override {}
  void finish(const ShrinkerStats&) override {}

  // See TopComms::rebalance and TopCgroups::rebalance: called every few
  // minutes by a long run.
  void rebalance();

  struct Kind {
    std::string name;                           // "direct reclaim"
    DurationHistogram stalls;                   // tasks that stalled
    DurationHistogram background;               // the profile's background tasks
    TopComms comms{kTopComms, kCommCandidates}; // the stalls, by task name
    TopCgroups cgroups;                         // the stalls, by memory cgroup
  };
  // In the profile's order, then any kind seen that it did not name.
  const std::vector<Kind>& kinds() const { return kinds_; }

private:
  Kind& kind(std::string_view name);
  std::size_t top_cgroups_;
  std::vector<Kind> kinds_;
};

} // namespace allocwatch

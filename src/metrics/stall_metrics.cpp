#include "metrics/stall_metrics.h"

#include <algorithm>

namespace allocwatch {

StallMetrics::StallMetrics(const Profile& profile, std::size_t top_cgroups)
    : top_cgroups_(top_cgroups) {
  for (const StallKind& stall : profile.stalls)
    kind(stall.kind);
}

StallMetrics::Kind& StallMetrics::kind(std::string_view name) {
  auto found =
      std::find_if(kinds_.begin(), kinds_.end(), [&](const Kind& k) { return k.name == name; });
  if (found != kinds_.end())
    return *found;
  kinds_.push_back(Kind{std::string(name),
                        {},
                        {},
                        TopComms{kTopComms, kCommCandidates},
                        make_top_cgroups(top_cgroups_)});
  return kinds_.back();
}

void StallMetrics::incident(const Incident& incident) {
  // Not a stall (a call inside one), or a span with no time of its own.
  if (incident.kind.empty() || incident.start < 0 || incident.end < incident.start)
    return;
  Kind& k = kind(incident.kind);
  const Nanos duration = incident.end - incident.start;
  if (incident.background) {
    k.background.add(duration);
    return;
  }
  k.stalls.add(duration);
  add_comm_stall(k.comms, incident.comm);
  add_cgroup_stall(k.cgroups, incident.cgroup, duration);
}

void StallMetrics::rebalance() {
  for (Kind& k : kinds_) {
    k.comms.rebalance();
    k.cgroups.rebalance();
  }
}

} // namespace allocwatch

#include "metrics/top_cgroups.h"

#include "metrics/exposition.h"

#include <algorithm>

namespace allocwatch {

void TopCgroups::add(const TaskCgroup* cgroup, Nanos duration) {
  if (cgroup != nullptr && cgroup->path.starts_with('/')) {
    const std::string path = valid_utf8(cgroup->path);
    auto own = std::find_if(series_.begin(), series_.end(),
                            [&](const Series& s) { return s.path == path; });
    if (own != series_.end()) {
      ++own->totals.stalls;
      own->totals.time += duration;
      own->recent += duration;
      return;
    }
    if (series_.size() < top_) {
      series_.push_back(Series{path, cgroup->container, {1, duration}, duration});
      return;
    }
    count_candidate(path, duration);
  }
  ++other_.stalls;
  other_.time += duration;
}

void TopCgroups::count_candidate(std::string_view path, Nanos duration) {
  auto found = std::find_if(candidates_.begin(), candidates_.end(),
                            [&](const Candidate& c) { return c.path == path; });
  if (found != candidates_.end()) {
    found->time += duration;
    return;
  }
  if (candidates_.size() < capacity_) {
    candidates_.push_back(Candidate{std::string(path), duration});
    return;
  }
  if (candidates_.empty()) // no slot to take (top 0)
    return;
  // Space-Saving: the newcomer replaces the one with the least time, and
  // may have stalled as long as it, unseen.
  auto least =
      std::min_element(candidates_.begin(), candidates_.end(),
                       [](const Candidate& a, const Candidate& b) { return a.time < b.time; });
  least->path.assign(path);
  least->time += duration;
}

void TopCgroups::rebalance() {
  std::sort(candidates_.begin(), candidates_.end(), [](const Candidate& a, const Candidate& b) {
    return a.time != b.time ? a.time > b.time : a.path < b.path;
  });
  for (const Candidate& candidate : candidates_) {
    auto quietest =
        std::min_element(series_.begin(), series_.end(),
                         [](const Series& a, const Series& b) { return a.recent < b.recent; });
    if (quietest == series_.end() || candidate.time <= 2 * quietest->recent)
      break;
    other_.stalls += quietest->totals.stalls;
    other_.time += quietest->totals.time;
    // Its earlier stalls are in "other": the new series starts at zero.
    *quietest = Series{candidate.path, container_of(candidate.path), {}, candidate.time};
  }
  candidates_.clear();
  for (Series& s : series_)
    s.recent = 0;
}

} // namespace allocwatch

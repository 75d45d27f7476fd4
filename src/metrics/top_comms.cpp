#include "metrics/top_comms.h"

#include <algorithm>

namespace allocwatch {

void TopComms::add(std::string_view comm) {
  auto own =
      std::find_if(series_.begin(), series_.end(), [&](const Series& s) { return s.comm == comm; });
  if (own != series_.end()) {
    ++own->total;
    ++own->recent;
    return;
  }
  if (series_.size() < top_ && comm != kOther) {
    series_.push_back(Series{std::string(comm), 1, 1});
    return;
  }
  ++other_;
  if (comm != kOther)
    count_candidate(comm);
}

void TopComms::count_candidate(std::string_view comm) {
  auto found = std::find_if(candidates_.begin(), candidates_.end(),
                            [&](const Candidate& c) { return c.comm == comm; });
  if (found != candidates_.end()) {
    ++found->count;
    return;
  }
  if (candidates_.size() < capacity_) {
    candidates_.push_back(Candidate{std::string(comm), 1});
    return;
  }
  // Space-Saving: the newcomer replaces the smallest and may have had as
  // many stalls as it, unseen.
  auto smallest =
      std::min_element(candidates_.begin(), candidates_.end(),
                       [](const Candidate& a, const Candidate& b) { return a.count < b.count; });
  smallest->comm.assign(comm);
  ++smallest->count;
}

void TopComms::rebalance() {
  std::sort(candidates_.begin(), candidates_.end(), [](const Candidate& a, const Candidate& b) {
    return a.count != b.count ? a.count > b.count : a.comm < b.comm;
  });
  for (const Candidate& candidate : candidates_) {
    auto quietest =
        std::min_element(series_.begin(), series_.end(),
                         [](const Series& a, const Series& b) { return a.recent < b.recent; });
    if (quietest == series_.end() || candidate.count <= 2 * quietest->recent)
      break;
    other_ += quietest->total;
    // Its earlier stalls are in "other": the new series starts at zero.
    *quietest = Series{candidate.comm, 0, candidate.count};
  }
  candidates_.clear();
  for (Series& s : series_)
    s.recent = 0;
}

} // namespace allocwatch

// TopSeries: stalls under names (task names, cgroup paths) with bounded
// label cardinality, for one kind of stall: at most `top` names have a series
// of their own, every other stall is summed under "other".
//
// Prometheus counters must never go down, and a series per name ever seen
// would grow for weeks. So:
// - a name gets its own series the first time it stalls while a slot is
//   free, and counts from then on;
// - once the slots are full, the stalls of other names go to "other" and to
//   a bounded table of candidates (the Space-Saving sketch, by weight: when
//   it is full, a new name takes the place of the lightest, inheriting its
//   weight);
// - rebalance(), every few minutes, gives a slot to a candidate whose weight
//   over the last period is more than twice that of the quietest name with a
//   slot: the quiet name's series ends and its totals move into "other"; the
//   newcomer counts from zero (its earlier stalls are in "other" already).
// Every stall is counted exactly once: the series and "other" sum to the
// stalls seen. A weight is what ranks names: 1 per stall (a count), or the
// stall's duration.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace allocwatch {

template <class Weight> class TopSeries {
public:
  // The series name of everything else: a name "other" is counted there
  // too, never given a series that would merge with it.
  static constexpr std::string_view kOther = "other";

  TopSeries(std::size_t top, std::size_t candidates) : top_(top), capacity_(candidates) {}

  struct Totals {
    std::uint64_t stalls = 0;
    Weight weight{};
  };
  struct Series {
    std::string name;
    Totals totals;   // since it got its series
    Weight recent{}; // this period
  };

  // A stall of `weight` under `name`.
  void add(std::string_view name, Weight weight) {
    if (name == kOther) {
      add_other(weight);
      return;
    }
    auto own = std::find_if(series_.begin(), series_.end(),
                            [&](const Series& s) { return s.name == name; });
    if (own != series_.end()) {
      ++own->totals.stalls;
      own->totals.weight += weight;
      own->recent += weight;
      return;
    }
    if (series_.size() < top_) {
      series_.push_back(Series{std::string(name), {1, weight}, weight});
      return;
    }
    count_candidate(name, weight);
    add_other(weight);
  }
  // A stall of `weight` that no name of its own may have.
  void add_other(Weight weight) {
    ++other_.stalls;
    other_.weight += weight;
  }

  // Swaps quiet names for heavier candidates (see above); starts a new period.
  void rebalance() {
    std::sort(candidates_.begin(), candidates_.end(), [](const Candidate& a, const Candidate& b) {
      return a.weight != b.weight ? a.weight > b.weight : a.name < b.name;
    });
    for (const Candidate& candidate : candidates_) {
      auto quietest =
          std::min_element(series_.begin(), series_.end(),
                           [](const Series& a, const Series& b) { return a.recent < b.recent; });
      if (quietest == series_.end() || candidate.weight <= 2 * quietest->recent)
        break;
      other_.stalls += quietest->totals.stalls;
      other_.weight += quietest->totals.weight;
      // Its earlier stalls are in "other": the new series starts at zero.
      *quietest = Series{candidate.name, {}, candidate.weight};
    }
    candidates_.clear();
    for (Series& s : series_)
      s.recent = Weight{};
  }

  // The names with series of their own, in the order they got them.
  const std::vector<Series>& series() const { return series_; }
  const Totals& other() const { return other_; }
  std::size_t top() const { return top_; }
  std::size_t candidates() const { return candidates_.size(); }
  std::size_t max_candidates() const { return capacity_; }

private:
  struct Candidate {
    std::string name;
    Weight weight{}; // an upper bound of its weight this period
  };

  void count_candidate(std::string_view name, Weight weight) {
    auto found = std::find_if(candidates_.begin(), candidates_.end(),
                              [&](const Candidate& c) { return c.name == name; });
    if (found != candidates_.end()) {
      found->weight += weight;
      return;
    }
    if (candidates_.size() < capacity_) {
      candidates_.push_back(Candidate{std::string(name), weight});
      return;
    }
    if (candidates_.empty()) // no candidate kept at all
      return;
    // Space-Saving: the newcomer replaces the lightest and may have weighed
    // as much as it, unseen.
    auto lightest = std::min_element(
        candidates_.begin(), candidates_.end(),
        [](const Candidate& a, const Candidate& b) { return a.weight < b.weight; });
    lightest->name.assign(name);
    lightest->weight += weight;
  }

  std::size_t top_;
  std::size_t capacity_;
  std::vector<Series> series_;
  Totals other_;
  std::vector<Candidate> candidates_;
};

} // namespace allocwatch

// TopComms: stalls counted per task name (comm) with bounded label
// cardinality, for one kind of stall: at most `top` comms have a series of
// their own, every other stall is counted as "other".
//
// Prometheus counters must never go down, and a series per comm ever seen
// would grow for weeks. So:
// - a comm gets its own series the first time it stalls while a slot is
//   free, and counts from then on;
// - once the slots are full, the stalls of other comms go to "other" and to
//   a bounded table of candidates (the Space-Saving sketch: when it is full,
//   a new comm takes the place of the smallest, inheriting its count);
// - rebalance(), every few minutes, gives a slot to a candidate that stalled
//   more than twice as often as the quietest comm with a slot, over the last
//   period: the quiet comm's series ends and its total moves into "other"; the
//   newcomer counts from zero (its earlier stalls are in "other" already).
// Every stall is counted exactly once: the counts sum to the stalls seen.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace allocwatch {

class TopComms {
public:
  // The series name of everything else. A task really named "other" is
  // counted there too, never given a series that would merge with it.
  static constexpr std::string_view kOther = "other";

  explicit TopComms(std::size_t top = 10, std::size_t candidates = 40)
      : top_(top), capacity_(candidates) {}

  void add(std::string_view comm);
  // Swaps quiet comms for busier candidates (see above); starts a new period.
  void rebalance();

  struct Series {
    std::string comm;
    std::uint64_t total = 0;  // stalls since it got its series
    std::uint64_t recent = 0; // stalls this period
  };
  // The comms with a series of their own, in the order they got it.
  const std::vector<Series>& series() const { return series_; }
  std::uint64_t other() const { return other_; }
  // The bounds: comms with a series, and candidates kept.
  std::size_t top() const { return top_; }
  std::size_t max_candidates() const { return capacity_; }
  std::size_t candidates() const { return candidates_.size(); }

private:
  struct Candidate {
    std::string comm;
    std::uint64_t count = 0; // an upper bound of its stalls this period
  };
  void count_candidate(std::string_view comm);

  std::size_t top_;
  std::size_t capacity_;
  std::vector<Series> series_;
  std::uint64_t other_ = 0;
  std::vector<Candidate> candidates_;
};

} // namespace allocwatch

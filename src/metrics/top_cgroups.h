// TopCgroups: stalls counted and timed per memory cgroup with bounded label
// cardinality, for one kind of stall: at most `top` cgroups have series of
// their own, chosen by stall time; every other stall is summed under "other".
//
// As TopComms (metrics/top_comms.h), for counters that never go down:
// - a cgroup gets its series the first time it stalls while a slot is free,
//   and counts from then on;
// - once the slots are full, the stalls of other cgroups go to "other" and
//   to a bounded table of candidates (the Space-Saving sketch, weighted by
//   stall time: when it is full, a new cgroup takes the place of the one
//   with the least time, inheriting it);
// - rebalance(), every few minutes, gives a slot to a candidate whose stall
//   time over the last period is more than twice that of the quietest cgroup
//   with a slot: the quiet cgroup's series end and their totals move into
//   "other"; the newcomer counts from zero (its earlier stalls are in
//   "other" already).
// Stalls of tasks whose cgroup is unknown (gone before it was read, or a
// replay of a trace without a live run's cgroups) are "other" too. Every
// stall is counted exactly once: the series sum to the stalls seen.
//
// A cgroup is its path as a label value (valid_utf8: paths are any bytes
// but '/' and NUL), so that no two series ever have the same labels: paths
// that differ only in invalid bytes share one series, and a path must
// start with '/' (anything else is "other").
#pragma once

#include "cgroup/task_cgroups.h"
#include "util/duration.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace allocwatch {

class TopCgroups {
public:
  // The series name of everything else: no cgroup path is, they all start
  // with '/'.
  static constexpr std::string_view kOther = "other";

  explicit TopCgroups(std::size_t top = 10) : top_(top), capacity_(4 * top) {}

  // A stall of `duration` of a task in `cgroup` (null: unknown).
  void add(const TaskCgroup* cgroup, Nanos duration);
  // Swaps quiet cgroups for busier candidates (see above); starts a new
  // period.
  void rebalance();

  struct Totals {
    std::uint64_t stalls = 0;
    Nanos time = 0;
  };
  struct Series {
    std::string path; // as /proc/PID/cgroup names it, made valid UTF-8
    Container container;
    Totals totals;    // since it got its series
    Nanos recent = 0; // stall time this period
  };
  // The cgroups with series of their own, in the order they got them.
  const std::vector<Series>& series() const { return series_; }
  const Totals& other() const { return other_; }
  std::size_t top() const { return top_; }

private:
  struct Candidate {
    std::string path;
    Nanos time = 0; // an upper bound of its stall time this period
  };
  void count_candidate(std::string_view path, Nanos duration);

  std::size_t top_;
  std::size_t capacity_;
  std::vector<Series> series_;
  Totals other_;
  std::vector<Candidate> candidates_;
};

} // namespace allocwatch

// BackgroundWork: what the background tasks (kswapd, kcompactd) did, from
// their own tracepoints, whether or not a slow span claimed them: each
// task's runs (a wake line starts one, the task's next sleep line ends it),
// the time they took, and the pages its inactive LRU scans scanned and
// reclaimed. The binder feeds it the lines of the profile's background tasks
// whose event has one of these roles in the kernel table
// (kernel/vocabulary.h); the stall report prints it.
#pragma once

#include "kernel/vocabulary.h"
#include "util/duration.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace allocwatch {

struct BackgroundTask {
  std::int32_t pid = -1;
  std::string comm; // the newest its lines printed
  // Wake lines; `rewakes` of them came while the task was awake already
  // (kswapd found more to do instead of sleeping).
  std::uint64_t wakes = 0;
  std::uint64_t rewakes = 0;
  // From each wake that found the task asleep to its next sleep line: the
  // run's time. A run still open at the end, or one whose wake came before
  // the trace, is not counted.
  Nanos awake = 0;
  std::uint64_t pages_scanned = 0;   // mm_vmscan_lru_shrink_inactive nr_scanned
  std::uint64_t pages_reclaimed = 0; // and its nr_reclaimed
  Nanos woke_at = -1;                // the open run's wake; -1: asleep or unknown
};

class BackgroundWork {
public:
  // Whether a line of an event of `role` tells this table anything.
  static bool counts(EventRole role) {
    return role == EventRole::KswapdWake || role == EventRole::KswapdSleep ||
           role == EventRole::KcompactdWake || role == EventRole::KcompactdSleep ||
           role == EventRole::LruShrinkInactive;
  }
  // A line of a background task: its event's role (one counts() accepts),
  // its fields, its time (-1: none).
  void add(std::int32_t pid, std::string_view comm, EventRole role, std::string_view fields,
           Nanos ts);
  // By pid.
  const std::vector<BackgroundTask>& tasks() const { return tasks_; }

private:
  BackgroundTask& task(std::int32_t pid, std::string_view comm);
  std::vector<BackgroundTask> tasks_; // a handful: one kswapd and kcompactd per node
  std::size_t last_ = 0;              // the task of the last line, a cache
};

} // namespace allocwatch

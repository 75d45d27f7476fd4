// StallStats' held figures: what the lines of quicker spans printed (LRU
// scans, shrinker calls), held per task until the reclaim stall whose window
// holds them takes them, bounded by kHeldFigures and aged out by the window.
#include "output/stall_stats.h"

#include <algorithm>

namespace allocwatch {

namespace {

// The held figures of a task (by their first timestamp) whose first line
// lies in an incident's window, [start - 1 us, end]: that window is the
// binding rule's (DESIGN.md), the microsecond for truncated timestamps.
template <class Held>
std::pair<typename std::vector<Held>::iterator, typename std::vector<Held>::iterator>
starting_in_window(std::vector<Held>& held, const Incident& incident) {
  const auto first = std::lower_bound(held.begin(), held.end(), incident.start - kMicro,
                                      [](const Held& h, Nanos ts) { return h.first < ts; });
  const auto last = std::upper_bound(first, held.end(), incident.end,
                                     [](Nanos ts, const Held& h) { return ts < h.first; });
  return {first, last};
}

} // namespace

// Takes the figures held for this reclaim stall: those whose lines lie in
// its window (a call nested in it, or a sibling's last line within the
// microsecond before it), as one, over its window: a reclaim whose window
// holds this one's takes them again.
StallStats::HeldFigures StallStats::take_held(const Incident& incident) {
  HeldFigures sum{incident.start - kMicro, incident.end, {}};
  std::vector<HeldFigures>* const held = held_for(incident.pid, IfMissing::Nothing);
  if (held == nullptr)
    return sum;
  const auto [first, last] = starting_in_window(*held, incident);
  const auto kept = std::remove_if(first, last, [&](const HeldFigures& h) {
    if (h.last > incident.end)
      return false;
    sum.figures.add(h.figures);
    return true;
  });
  held_figures_ -= static_cast<std::size_t>(last - kept);
  held->erase(kept, last); // an empty one stays until the sweep: tasks come back
  return sum;
}

// A stall that is not a reclaim has no reclaim around it (an allocation is
// around a reclaim, not inside one): what the reclaims inside it took would
// only fill the held figures of every task.
void StallStats::drop_counted(const Incident& incident) {
  std::vector<HeldFigures>* const held = held_for(incident.pid, IfMissing::Nothing);
  if (held == nullptr)
    return;
  const auto [first, last] = starting_in_window(*held, incident);
  const auto kept = std::remove_if(
      first, last, [&](const HeldFigures& h) { return h.counted && h.last <= incident.end; });
  held_figures_ -= static_cast<std::size_t>(last - kept);
  held->erase(kept, last);
}

std::vector<StallStats::HeldFigures>* StallStats::held_for(std::int32_t pid, IfMissing missing) {
  // Consecutive spans are mostly of one task: its list is remembered
  // (the map holds pointers to the lists, which stay put; the sweep forgets
  // it).
  if (held_task_ != nullptr && held_pid_ == pid)
    return held_task_;
  std::vector<HeldFigures>* found = held_.find(pid);
  if (found == nullptr) {
    if (missing == IfMissing::Nothing)
      return nullptr;
    found = &held_.insert(pid, std::make_unique<std::vector<HeldFigures>>());
  }
  held_pid_ = pid;
  held_task_ = found;
  return held_task_;
}

void StallStats::hold(std::int32_t pid, const HeldFigures& figures) {
  if (held_figures_ >= kHeldFigures)
    sweep_held(Sweep::MakeRoom);
  std::vector<HeldFigures>& held = *held_for(pid, IfMissing::Create);
  // Lines come nearly in time order: the place is at or near the end.
  auto at = held.end();
  while (at != held.begin() && std::prev(at)->first > figures.first)
    --at;
  held.insert(at, figures);
  ++held_figures_;
}

// Drops the figures that aged out of the window; Sweep::MakeRoom: also the
// oldest, until a quarter of kHeldFigures is free (a long-running stall around
// them, if any, misses them), so that the held figures of thousands of tasks
// stay bounded all together.
void StallStats::sweep_held(Sweep sweep) {
  Nanos cut = newest_end_ - limits_.window;
  if (sweep == Sweep::MakeRoom) {
    std::vector<Nanos>& ends = scratch_ends_; // reused, as the room it makes is
    ends.clear();
    held_.for_each([&ends](const std::unique_ptr<std::vector<HeldFigures>>& held) {
      for (const HeldFigures& h : *held)
        ends.push_back(h.last);
    });
    const std::size_t drop = ends.size() - kHeldFigures * 3 / 4;
    std::nth_element(ends.begin(), ends.begin() + static_cast<std::ptrdiff_t>(drop), ends.end());
    cut = std::max(cut, ends[drop]);
  }
  held_task_ = nullptr;
  held_.forget_if([this, cut](const std::unique_ptr<std::vector<HeldFigures>>& task) {
    std::vector<HeldFigures>& held = *task;
    const auto kept = std::remove_if(held.begin(), held.end(),
                                     [cut](const HeldFigures& h) { return h.last < cut; });
    held_figures_ -= static_cast<std::size_t>(held.end() - kept);
    held.erase(kept, held.end());
    if (held.capacity() > 64 && held.size() < held.capacity() / 4)
      held.shrink_to_fit(); // a burst is over: give its room back
    return held.empty();
  });
}

void StallStats::hold_lines(const Incident& incident) {
  for (const HeldFigures& line : lines_)
    if (line.first >= 0)
      hold(incident.pid, line);
}

} // namespace allocwatch

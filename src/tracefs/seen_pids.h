// SeenPids: which pids a run has met, so that a task's first record can
// have it named (RawSource asks /proc or saved_cmdlines then).
//
//   SeenPids seen;                 // remembers up to kCapacity pids
//   if (seen.first(pid)) ...       // true the first time pid comes
//   for (pid : seen.pids()) ...    // the pids remembered
//
// Memory is bounded: the pid that would make kCapacity + 1 forgets every
// pid before it, which then comes "first" again (a forgotten pid only costs
// a name read again). A record stream interleaves the records of a few
// tasks: the last pids asked about are answered from a small table of
// slots before the set is looked in.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <unordered_set>

namespace allocwatch {

class SeenPids {
public:
  static constexpr std::size_t kCapacity = 4096;

  SeenPids() { recent_.fill(kEmpty); }

  // True the first time `pid` comes since it was last forgotten.
  bool first(std::int32_t pid) {
    std::int32_t& recent = recent_[static_cast<std::uint32_t>(pid) % kRecent];
    if (recent == pid && pid != kEmpty)
      return false;
    if (pids_.size() >= kCapacity && pids_.find(pid) == pids_.end()) {
      pids_.clear();
      recent_.fill(kEmpty); // a slot holds only a pid in the set
    }
    recent = pid;
    return pids_.insert(pid).second;
  }

  const std::unordered_set<std::int32_t>& pids() const { return pids_; }

private:
  static constexpr std::size_t kRecent = 64;
  static constexpr std::int32_t kEmpty = -1;
  std::unordered_set<std::int32_t> pids_;
  std::array<std::int32_t, kRecent> recent_; // by pid: one that is in pids_, or kEmpty
};

} // namespace allocwatch

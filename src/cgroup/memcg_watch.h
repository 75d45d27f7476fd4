// MemcgWatch: whose limit a memcg reclaim stall hit. A memcg reclaim says
// that some memory cgroup reached its limit, not which: the task's own, or an
// ancestor's. For each cgroup with such stalls (at most kMaxCgroups; later
// ones are counted) it reads the cgroup's and each ancestor's limits and
// counters (cgroup/memcg.h) when it is first noted, and again at the end, so
// that the report shows what happened at each level during the run.
#pragma once

#include "cgroup/file_reader.h"
#include "cgroup/memcg.h"

#include <cstdint>
#include <string>
#include <vector>

namespace allocwatch {

// One level of a noted cgroup's hierarchy: the cgroup itself, then its
// ancestors up to the root, each that has memory files when first read (not
// v2's root).
struct MemcgLevel {
  std::string path;
  MemcgState first; // when the cgroup was first noted
  MemcgState last;  // at the end (not readable: the cgroup is gone)
};

struct MemcgChain {
  CgroupVersion version;
  std::vector<MemcgLevel> levels; // the cgroup first, the root last
};

class MemcgWatch {
public:
  static constexpr std::size_t kMaxCgroups = 64;

  // `files` must outlive this object.
  MemcgWatch(const FileReader& files, CgroupMounts mounts);
  // The chains a live run watched, from its --save file: nothing is read,
  // note() adds nothing, finish() gives them as they were.
  explicit MemcgWatch(std::vector<MemcgChain> saved);

  // A memcg reclaim stall in cgroup `path`: the first time, its hierarchy's
  // counters are read.
  void note(CgroupVersion version, const std::string& path);
  // Reads every noted hierarchy again; the chains, in the order noted.
  const std::vector<MemcgChain>& finish();

  std::uint64_t not_kept() const { return not_kept_; }
  // Cgroups noted, at most kMaxCgroups.
  std::size_t cgroups() const { return chains_.size(); }

private:
  MemcgState read(CgroupVersion version, const std::string& path) const;

  const FileReader* files_; // null: the chains were saved
  CgroupMounts mounts_;
  std::vector<MemcgChain> chains_;
  std::uint64_t not_kept_ = 0;
};

} // namespace allocwatch

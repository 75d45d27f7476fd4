#include "cgroup/memcg_watch.h"

#include <algorithm>

namespace allocwatch {

MemcgWatch::MemcgWatch(const FileReader& files, CgroupMounts mounts)
    : files_(&files), mounts_(std::move(mounts)) {}

MemcgWatch::MemcgWatch(std::vector<MemcgChain> saved)
    : files_(nullptr), chains_(std::move(saved)) {}

MemcgState MemcgWatch::read(CgroupVersion version, const std::string& path) const {
  const std::string dir = cgroup_dir(mounts_, version, path);
  return dir.empty() ? MemcgState{} : read_memcg(*files_, dir, version);
}

void MemcgWatch::note(CgroupVersion version, const std::string& path) {
  if (files_ == nullptr)
    return;
  const auto known = std::find_if(chains_.begin(), chains_.end(), [&](const MemcgChain& chain) {
    return chain.version == version && chain.levels.front().path == path;
  });
  if (known != chains_.end())
    return;
  if (chains_.size() >= kMaxCgroups) {
    ++not_kept_;
    return;
  }
  MemcgChain chain{version, {}};
  for (std::string_view level = path; !level.empty(); level = parent_cgroup(level)) {
    MemcgState first = read(version, std::string(level));
    // Not a memory cgroup here: v2's root has no memory files.
    if (first.readable)
      chain.levels.push_back(MemcgLevel{std::string(level), first, {}});
  }
  if (!chain.levels.empty())
    chains_.push_back(std::move(chain));
}

const std::vector<MemcgChain>& MemcgWatch::finish() {
  if (files_ == nullptr)
    return chains_;
  for (MemcgChain& chain : chains_)
    for (MemcgLevel& level : chain.levels)
      level.last = read(chain.version, level.path);
  return chains_;
}

} // namespace allocwatch

// A memory cgroup's limits and what its counters say, read from its files
// (Documentation/admin-guide/cgroup-v2.rst, "Memory Interface Files";
// Documentation/admin-guide/cgroup-v1/memory.rst), and where the memory
// hierarchies are mounted (proc(5), /proc/PID/mountinfo).
//
//   v2: memory.max, memory.high ("max": no limit), memory.events
//       ("high N", "max N", "oom N", "oom_kill N", one per line)
//   v1: memory.limit_in_bytes (no limit: PAGE_COUNTER_MAX pages, shown as a
//       number near 2^63), memory.failcnt, memory.max_usage_in_bytes
#pragma once

#include "cgroup/file_reader.h"
#include "cgroup/proc_cgroup.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace allocwatch {

// The mount points of the v1 memory controller's hierarchy and of the
// unified (v2) hierarchy; empty where it is not mounted (or only a subtree
// of it is, as inside a container).
struct CgroupMounts {
  std::string v1_memory; // "/sys/fs/cgroup/memory"
  std::string unified;   // "/sys/fs/cgroup", "/sys/fs/cgroup/unified"
};
CgroupMounts cgroup_mounts(std::string_view mountinfo);

// The directory of cgroup `path` ("/a/b", as /proc/PID/cgroup names it) of
// `version`; empty when that hierarchy is not mounted.
std::string cgroup_dir(const CgroupMounts& mounts, CgroupVersion version, std::string_view path);

struct MemcgState {
  bool readable = false;              // the cgroup existed and its files could be read
  std::optional<std::uint64_t> limit; // v2 memory.max, v1 limit_in_bytes; none: no limit
  std::optional<std::uint64_t> high;  // v2 memory.high; none: no limit (or v1)
  // v2 memory.events
  std::uint64_t high_events = 0;
  std::uint64_t max_events = 0;
  std::uint64_t oom = 0;
  std::uint64_t oom_kill = 0;
  // v1
  std::uint64_t failcnt = 0;
  std::uint64_t max_usage = 0;
};

// The state of the cgroup whose directory is `dir`.
MemcgState read_memcg(const FileReader& files, const std::string& dir, CgroupVersion version);

// "/a/b/c" -> "/a/b"; "/a" -> "/"; "/" -> "" (no parent).
std::string_view parent_cgroup(std::string_view path);

} // namespace allocwatch

// What /proc/PID/cgroup and /proc/PID/stat say of a task, parsed. Both are
// read from tasks allocwatch does not control: any bytes, any length.
//
// /proc/PID/cgroup (cgroups(7)): one line per hierarchy,
// "hierarchy-ID:controller-list:cgroup-path"; cgroup v2's is "0::/path".
//   v1:      4:memory:/kubepods/burstable/pod.../...
//   v2:      0::/system.slice/docker-<id>.scope
//   hybrid:  both; the memory controller's v1 line is the one whose limits
//            apply, so it wins.
// /proc/PID/stat (proc(5)): field 22, starttime, in clock ticks since boot;
// field 2, the comm in parentheses, may itself hold spaces and ')'.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace allocwatch {

enum class CgroupVersion : unsigned char { V1, V2 };

struct MemoryCgroup {
  CgroupVersion version;
  std::string_view path; // a view into the text parsed
};

// The memory cgroup a task's /proc/PID/cgroup names, if it names one.
std::optional<MemoryCgroup> memory_cgroup_of(std::string_view proc_cgroup);

// Field 22 of /proc/PID/stat: the task's start time, which tells a pid
// reused by a later task from the task first seen with it.
std::optional<std::uint64_t> start_time_of(std::string_view proc_stat);

} // namespace allocwatch

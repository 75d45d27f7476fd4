// --cgroup PATH: the cgroup a run is scoped to, and the tasks in it and in
// every cgroup below it when tracing starts (their cgroup.procs files;
// cgroups(7)). Later children of those tasks are followed by the kernel
// (event-fork); tasks moved into the cgroup later are not.
#pragma once

#include "cgroup/memcg.h"
#include "util/result.h"

#include <string>
#include <string_view>
#include <sys/types.h>
#include <vector>

namespace allocwatch {

// At most this many tasks, and cgroups below it, are read.
constexpr std::size_t kMaxScopeTasks = 65536;
constexpr std::size_t kMaxScopeCgroups = 4096;

// The directory of `path`: `path` itself when it is a cgroup directory (it
// holds cgroup.procs: /sys/fs/cgroup/system.slice/x.service), else `path`
// as /proc/PID/cgroup names it (/system.slice/x.service) in the memory
// controller's v1 hierarchy, else in the unified one.
Result<std::string> resolve_cgroup_dir(std::string_view path, const CgroupMounts& mounts);

// The tasks of the cgroup at `dir` and of every cgroup below it, each once,
// in the order read. An error when it holds none.
Result<std::vector<pid_t>> tasks_in_cgroup(const std::string& dir);

} // namespace allocwatch

#include "cgroup/cgroup_tasks.h"

#include "util/escape.h"

#include <algorithm>
#include <charconv>
#include <filesystem>
#include <fstream>
#include <unordered_set>

namespace allocwatch {

namespace {

namespace fs = std::filesystem;

bool is_cgroup_dir(const fs::path& dir) {
  std::error_code error;
  return fs::is_directory(dir, error) && fs::exists(dir / "cgroup.procs", error);
}

} // namespace

Result<std::string> resolve_cgroup_dir(std::string_view path, const CgroupMounts& mounts) {
  if (path.empty() || path.find("..") != std::string_view::npos)
    return Error{"--cgroup " + quote(path) + ": not a cgroup path"};
  if (is_cgroup_dir(fs::path(path)))
    return std::string(path);
  std::string tried;
  for (CgroupVersion version : {CgroupVersion::V1, CgroupVersion::V2}) {
    const std::string dir =
        cgroup_dir(mounts, version, path.starts_with('/') ? path : "/" + std::string(path));
    if (dir.empty())
      continue;
    if (is_cgroup_dir(dir))
      return dir;
    tried += (tried.empty() ? "" : ", ") + escaped(dir);
  }
  return Error{"--cgroup " + quote(path) + ": no such cgroup" +
               (tried.empty() ? std::string(" (no memory cgroup hierarchy is mounted)")
                              : " (looked for " + tried + ")")};
}

Result<std::vector<pid_t>> tasks_in_cgroup(const std::string& dir) {
  std::vector<fs::path> cgroups{fs::path(dir)};
  std::error_code error;
  for (fs::recursive_directory_iterator it(dir, fs::directory_options::none, error), end;
       !error && it != end; it.increment(error)) {
    if (it->is_directory(error) && !it->is_symlink(error))
      cgroups.push_back(it->path());
    if (cgroups.size() > kMaxScopeCgroups)
      return Error{"--cgroup " + escaped(dir) + ": more than " + std::to_string(kMaxScopeCgroups) +
                   " cgroups below it"};
  }
  if (error)
    return Error{"--cgroup " + escaped(dir) + ": " + error.message()};
  std::vector<pid_t> pids;
  std::unordered_set<pid_t> seen;
  for (const fs::path& cgroup : cgroups) {
    std::ifstream procs(cgroup / "cgroup.procs");
    std::string line;
    while (std::getline(procs, line)) {
      pid_t pid = 0;
      const auto [end, parse_error] = std::from_chars(line.data(), line.data() + line.size(), pid);
      if (parse_error != std::errc{} || end != line.data() + line.size() || pid <= 0)
        continue;
      if (!seen.insert(pid).second)
        continue;
      if (pids.size() == kMaxScopeTasks)
        return Error{"--cgroup " + escaped(dir) + ": more than " + std::to_string(kMaxScopeTasks) +
                     " tasks in it"};
      pids.push_back(pid);
    }
  }
  if (pids.empty())
    return Error{"--cgroup " + escaped(dir) + ": no task in it or below it"};
  return pids;
}

} // namespace allocwatch

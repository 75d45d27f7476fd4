#include "cgroup/proc_cgroup.h"

#include <charconv>

namespace allocwatch {

namespace {

bool lists_memory(std::string_view controllers) {
  while (!controllers.empty()) {
    const std::size_t comma = controllers.find(',');
    if (controllers.substr(0, comma) == "memory")
      return true;
    if (comma == std::string_view::npos)
      break;
    controllers.remove_prefix(comma + 1);
  }
  return false;
}

} // namespace

std::optional<MemoryCgroup> memory_cgroup_of(std::string_view proc_cgroup) {
  std::optional<MemoryCgroup> unified;
  while (!proc_cgroup.empty()) {
    const std::size_t end = proc_cgroup.find('\n');
    const std::string_view line = proc_cgroup.substr(0, end);
    proc_cgroup = end == std::string_view::npos ? std::string_view{} : proc_cgroup.substr(end + 1);
    const std::size_t first = line.find(':');
    const std::size_t second = first == std::string_view::npos ? first : line.find(':', first + 1);
    if (second == std::string_view::npos)
      continue;
    const std::string_view id = line.substr(0, first);
    const std::string_view controllers = line.substr(first + 1, second - first - 1);
    const std::string_view path = line.substr(second + 1);
    if (!path.starts_with('/'))
      continue;
    if (lists_memory(controllers))
      return MemoryCgroup{CgroupVersion::V1, path};
    if (id == "0" && controllers.empty() && !unified)
      unified = MemoryCgroup{CgroupVersion::V2, path};
  }
  return unified;
}

std::optional<std::uint64_t> start_time_of(std::string_view proc_stat) {
  const std::size_t comm_end = proc_stat.rfind(')');
  if (comm_end == std::string_view::npos)
    return std::nullopt;
  std::string_view rest = proc_stat.substr(comm_end + 1);
  // Fields 3 (state) to 21 precede starttime, each after one space.
  for (int field = 3; field <= 22; ++field) {
    if (!rest.starts_with(' '))
      return std::nullopt;
    rest.remove_prefix(1);
    const std::size_t space = rest.find(' ');
    const std::string_view value = rest.substr(0, space);
    if (field == 22) {
      std::uint64_t ticks = 0;
      const auto [end, error] = std::from_chars(value.data(), value.data() + value.size(), ticks);
      if (error != std::errc{} || end != value.data() + value.size() || value.empty())
        return std::nullopt;
      return ticks;
    }
    if (space == std::string_view::npos)
      return std::nullopt;
    rest.remove_prefix(space);
  }
  return std::nullopt;
}

} // namespace allocwatch

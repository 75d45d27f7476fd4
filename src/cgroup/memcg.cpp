#include "cgroup/memcg.h"

#include <charconv>
#include <vector>

namespace allocwatch {

namespace {

// v1's "no limit": PAGE_COUNTER_MAX pages in bytes, just under 2^63.
constexpr std::uint64_t kV1Unlimited = std::uint64_t{1} << 62;

std::vector<std::string_view> words_of(std::string_view line) {
  std::vector<std::string_view> words;
  while (!line.empty()) {
    const std::size_t start = line.find_first_not_of(' ');
    if (start == std::string_view::npos)
      break;
    line.remove_prefix(start);
    const std::size_t end = line.find(' ');
    words.push_back(line.substr(0, end));
    line = end == std::string_view::npos ? std::string_view{} : line.substr(end);
  }
  return words;
}

std::optional<std::uint64_t> number(std::string_view text) {
  while (!text.empty() && (text.back() == '\n' || text.back() == ' '))
    text.remove_suffix(1);
  std::uint64_t value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || error != std::errc{} || end != text.data() + text.size())
    return std::nullopt;
  return value;
}

// "max" or a number of bytes: nothing for no limit (or an unreadable file).
std::optional<std::uint64_t> limit_of(const std::optional<std::string>& text) {
  return text ? number(*text) : std::nullopt;
}

// "key value" lines.
std::optional<std::uint64_t> keyed(std::string_view text, std::string_view key) {
  while (!text.empty()) {
    const std::size_t end = text.find('\n');
    const std::string_view line = text.substr(0, end);
    text = end == std::string_view::npos ? std::string_view{} : text.substr(end + 1);
    if (line.starts_with(key) && line.size() > key.size() && line[key.size()] == ' ')
      return number(line.substr(key.size() + 1));
  }
  return std::nullopt;
}

} // namespace

CgroupMounts cgroup_mounts(std::string_view mountinfo) {
  CgroupMounts mounts;
  while (!mountinfo.empty()) {
    const std::size_t end = mountinfo.find('\n');
    const std::string_view line = mountinfo.substr(0, end);
    mountinfo = end == std::string_view::npos ? std::string_view{} : mountinfo.substr(end + 1);
    // id parent major:minor root mount-point options [optional...] - type source super-options
    const std::vector<std::string_view> words = words_of(line);
    std::size_t dash = 6;
    while (dash < words.size() && words[dash] != "-")
      ++dash;
    if (words.size() < 7 || dash + 1 >= words.size())
      continue;
    const std::string_view root = words[3];
    const std::string_view point = words[4];
    const std::string_view type = words[dash + 1];
    const std::string_view options = dash + 3 < words.size() ? words[dash + 3] : "";
    if (root != "/" || point.find('\\') != std::string_view::npos)
      continue; // a subtree, or a mount point with escaped bytes: not followed
    if (type == "cgroup2" && mounts.unified.empty()) {
      mounts.unified = point;
    } else if (type == "cgroup" && mounts.v1_memory.empty()) {
      std::string_view rest = options;
      while (!rest.empty()) {
        const std::size_t comma = rest.find(',');
        if (rest.substr(0, comma) == "memory")
          mounts.v1_memory = point;
        rest = comma == std::string_view::npos ? std::string_view{} : rest.substr(comma + 1);
      }
    }
  }
  return mounts;
}

std::string cgroup_dir(const CgroupMounts& mounts, CgroupVersion version, std::string_view path) {
  const std::string& root = version == CgroupVersion::V1 ? mounts.v1_memory : mounts.unified;
  if (root.empty() || !path.starts_with('/') || path.find("/..") != std::string_view::npos)
    return {};
  return path == "/" ? root : root + std::string(path);
}

MemcgState read_memcg(const FileReader& files, const std::string& dir, CgroupVersion version) {
  MemcgState state;
  if (version == CgroupVersion::V2) {
    const std::optional<std::string> events = files.read(dir + "/memory.events");
    if (!events)
      return state;
    state.readable = true;
    state.limit = limit_of(files.read(dir + "/memory.max"));
    state.high = limit_of(files.read(dir + "/memory.high"));
    state.high_events = keyed(*events, "high").value_or(0);
    state.max_events = keyed(*events, "max").value_or(0);
    state.oom = keyed(*events, "oom").value_or(0);
    state.oom_kill = keyed(*events, "oom_kill").value_or(0);
    return state;
  }
  const std::optional<std::string> failcnt = files.read(dir + "/memory.failcnt");
  if (!failcnt)
    return state;
  state.readable = true;
  state.failcnt = number(*failcnt).value_or(0);
  state.limit = limit_of(files.read(dir + "/memory.limit_in_bytes"));
  if (state.limit && *state.limit >= kV1Unlimited)
    state.limit.reset();
  const std::optional<std::string> max_usage = files.read(dir + "/memory.max_usage_in_bytes");
  state.max_usage = max_usage ? number(*max_usage).value_or(0) : 0;
  return state;
}

std::string_view parent_cgroup(std::string_view path) {
  if (path.empty() || path == "/")
    return {};
  while (path.size() > 1 && path.back() == '/')
    path.remove_suffix(1);
  const std::size_t slash = path.rfind('/');
  if (slash == std::string_view::npos)
    return {};
  return slash == 0 ? std::string_view("/") : path.substr(0, slash);
}

} // namespace allocwatch

#include "cgroup/saved_cgroups.h"

#include <charconv>
#include <sys/stat.h>
#include <unistd.h>

namespace allocwatch {

namespace {

constexpr std::string_view kCgroup = "# allocwatch cgroup ";
constexpr std::string_view kMemcg = "# allocwatch memcg ";
constexpr std::string_view kEnd = "# allocwatch cgroups ";

std::string encode(std::string_view path) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string text;
  for (unsigned char c : path) {
    if (c <= ' ' || c == '%' || c >= 0x7f) {
      text += '%';
      text += kHex[c >> 4];
      text += kHex[c & 15];
    } else {
      text += static_cast<char>(c);
    }
  }
  return text;
}

std::optional<std::string> decode(std::string_view text) {
  std::string path;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '%') {
      path += text[i];
      continue;
    }
    unsigned value = 0;
    if (i + 2 >= text.size())
      return std::nullopt;
    const auto [end, error] = std::from_chars(text.data() + i + 1, text.data() + i + 3, value, 16);
    if (error != std::errc{} || end != text.data() + i + 3)
      return std::nullopt;
    path += static_cast<char>(value);
    i += 2;
  }
  return path;
}

template <class T> std::optional<T> number(std::string_view text) {
  T value{};
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || error != std::errc{} || end != text.data() + text.size())
    return std::nullopt;
  return value;
}

std::vector<std::string_view> split(std::string_view text, char separator) {
  std::vector<std::string_view> parts;
  for (;;) {
    const std::size_t at = text.find(separator);
    parts.push_back(text.substr(0, at));
    if (at == std::string_view::npos)
      return parts;
    text.remove_prefix(at + 1);
  }
}

std::string limit_text(const std::optional<std::uint64_t>& limit) {
  return limit ? std::to_string(*limit) : "max";
}

std::string state_text(const MemcgState& s) {
  if (!s.readable)
    return "-";
  return "R," + limit_text(s.limit) + ',' + limit_text(s.high) + ',' +
         std::to_string(s.high_events) + ',' + std::to_string(s.max_events) + ',' +
         std::to_string(s.oom) + ',' + std::to_string(s.oom_kill) + ',' +
         std::to_string(s.failcnt) + ',' + std::to_string(s.max_usage);
}

std::optional<std::optional<std::uint64_t>> limit_of(std::string_view text) {
  if (text == "max")
    return std::optional<std::uint64_t>{};
  if (const auto value = number<std::uint64_t>(text))
    return std::optional<std::uint64_t>{*value};
  return std::nullopt;
}

std::optional<MemcgState> state_of(std::string_view text) {
  MemcgState state;
  if (text == "-")
    return state;
  const std::vector<std::string_view> f = split(text, ',');
  if (f.size() != 9 || f[0] != "R")
    return std::nullopt;
  const auto limit = limit_of(f[1]);
  const auto high = limit_of(f[2]);
  std::uint64_t* counters[] = {&state.high_events, &state.max_events, &state.oom,
                               &state.oom_kill,    &state.failcnt,    &state.max_usage};
  if (!limit || !high)
    return std::nullopt;
  for (std::size_t i = 0; i < std::size(counters); ++i) {
    const auto value = number<std::uint64_t>(f[3 + i]);
    if (!value)
      return std::nullopt;
    *counters[i] = *value;
  }
  state.readable = true;
  state.limit = *limit;
  state.high = *high;
  return state;
}

std::optional<CgroupVersion> version_of(std::string_view text) {
  if (text == "v1")
    return CgroupVersion::V1;
  if (text == "v2")
    return CgroupVersion::V2;
  return std::nullopt;
}

std::string_view version_text(CgroupVersion version) {
  return version == CgroupVersion::V1 ? "v1" : "v2";
}

Error bad_line(std::size_t number) {
  return Error{"its cgroup records are damaged (record " + std::to_string(number) + ")"};
}

} // namespace

std::string write_saved_cgroups(const SavedCgroups& saved) {
  std::string text;
  for (const auto& [pid, cgroup] : saved.tasks)
    text += std::string(kCgroup) + std::to_string(pid) + ' ' +
            std::string(version_text(cgroup.version)) + ' ' + encode(cgroup.path) + '\n';
  for (std::size_t i = 0; i < saved.chains.size(); ++i)
    for (const MemcgLevel& level : saved.chains[i].levels)
      text += std::string(kMemcg) + std::to_string(i) + ' ' +
              std::string(version_text(saved.chains[i].version)) + ' ' + encode(level.path) + ' ' +
              state_text(level.first) + ' ' + state_text(level.last) + '\n';
  return text + std::string(kEnd) + std::to_string(text.size()) + '\n';
}

Result<SavedCgroups> parse_saved_cgroups(std::string_view text) {
  SavedCgroups saved;
  std::size_t record = 0;
  while (!text.empty()) {
    ++record;
    const std::size_t end = text.find('\n');
    if (end == std::string_view::npos)
      return bad_line(record);
    std::string_view line = text.substr(0, end);
    text.remove_prefix(end + 1);
    if (line.starts_with(kCgroup)) {
      const std::vector<std::string_view> f = split(line.substr(kCgroup.size()), ' ');
      const auto pid = f.size() == 3 ? number<std::int32_t>(f[0]) : std::nullopt;
      const auto version = f.size() == 3 ? version_of(f[1]) : std::nullopt;
      const auto path = f.size() == 3 ? decode(f[2]) : std::nullopt;
      if (!pid || !version || !path || !path->starts_with('/'))
        return bad_line(record);
      TaskCgroup& cgroup = saved.tasks[*pid];
      cgroup.version = *version;
      cgroup.path = *path;
      cgroup.container = container_of(*path);
    } else if (line.starts_with(kMemcg)) {
      const std::vector<std::string_view> f = split(line.substr(kMemcg.size()), ' ');
      if (f.size() != 5)
        return bad_line(record);
      const auto chain = number<std::size_t>(f[0]);
      const auto version = version_of(f[1]);
      const auto path = decode(f[2]);
      const auto first = state_of(f[3]);
      const auto last = state_of(f[4]);
      // Chains come in order, each level after the one before.
      if (!chain || !version || !path || !first || !last || *chain > saved.chains.size() ||
          *chain + 1 < saved.chains.size())
        return bad_line(record);
      if (*chain == saved.chains.size()) {
        if (saved.chains.size() == MemcgWatch::kMaxCgroups)
          return bad_line(record);
        saved.chains.push_back(MemcgChain{*version, {}});
      }
      saved.chains.back().levels.push_back(MemcgLevel{*path, *first, *last});
    } else {
      return bad_line(record);
    }
  }
  return saved;
}

Result<std::optional<SavedCgroups>> read_saved_cgroups(int fd) {
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))
    return std::optional<SavedCgroups>{};
  const auto size = static_cast<std::uint64_t>(st.st_size);
  // The ending line: kEnd, at most 20 digits, '\n'.
  char tail[64];
  const std::size_t tail_size = std::min<std::uint64_t>(size, sizeof tail);
  if (tail_size == 0 || ::pread(fd, tail, tail_size, static_cast<off_t>(size - tail_size)) !=
                            static_cast<ssize_t>(tail_size))
    return std::optional<SavedCgroups>{};
  std::string_view last(tail, tail_size);
  if (!last.ends_with('\n'))
    return std::optional<SavedCgroups>{};
  last.remove_suffix(1);
  const std::size_t start = last.rfind('\n');
  last = start == std::string_view::npos ? last : last.substr(start + 1);
  if (!last.starts_with(kEnd))
    return std::optional<SavedCgroups>{};
  const auto bytes = number<std::uint64_t>(last.substr(kEnd.size()));
  const std::uint64_t ending = last.size() + 1;
  if (!bytes || *bytes > kMaxSavedCgroupBytes || *bytes + ending > size)
    return Error{"its cgroup records are damaged (their size)"};
  std::string text(*bytes, '\0');
  if (::pread(fd, text.data(), text.size(), static_cast<off_t>(size - ending - *bytes)) !=
      static_cast<ssize_t>(text.size()))
    return Error{"its cgroup records cannot be read"};
  Result<SavedCgroups> parsed = parse_saved_cgroups(text);
  if (!parsed)
    return parsed.error();
  return std::optional<SavedCgroups>{std::move(*parsed)};
}

} // namespace allocwatch

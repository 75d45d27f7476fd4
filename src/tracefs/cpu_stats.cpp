#include "tracefs/cpu_stats.h"

#include <charconv>

namespace allocwatch {

namespace {

// The number after "key: " on the line that starts with `key`, if any.
std::uint64_t counter(std::string_view text, std::string_view key) {
  std::size_t at = 0;
  while (at < text.size()) {
    std::size_t end = text.find('\n', at);
    if (end == std::string_view::npos)
      end = text.size();
    const std::string_view line = text.substr(at, end - at);
    at = end + 1;
    if (!line.starts_with(key) || line.size() < key.size() + 2 || line[key.size()] != ':')
      continue;
    std::string_view value = line.substr(key.size() + 1);
    while (!value.empty() && value.front() == ' ')
      value.remove_prefix(1);
    std::uint64_t number = 0;
    const auto [ptr, ec] = std::from_chars(value.data(), value.data() + value.size(), number);
    return ec == std::errc() && ptr == value.data() + value.size() ? number : 0;
  }
  return 0;
}

} // namespace

CpuStats parse_cpu_stats(std::string_view text) {
  return CpuStats{counter(text, "overrun"), counter(text, "dropped events")};
}

} // namespace allocwatch

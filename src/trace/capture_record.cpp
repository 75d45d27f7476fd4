#include "trace/capture_record.h"

#include <array>
#include <charconv>
#include <limits>
#include <unistd.h>

namespace allocwatch {

namespace {

constexpr std::string_view kPrefix = "# allocwatch tracing_thresh_us ";
// tracing_thresh is an unsigned long of microseconds: 20 digits at most.
constexpr std::size_t kMaxRecord = 64;

} // namespace

std::string capture_record(std::uint64_t tracing_thresh_us) {
  return std::string(kPrefix) + std::to_string(tracing_thresh_us) + '\n';
}

std::optional<Nanos> parse_capture_record(std::string_view text) {
  if (!text.starts_with(kPrefix))
    return std::nullopt;
  text.remove_prefix(kPrefix.size());
  const std::size_t end = text.find('\n');
  if (end == std::string_view::npos)
    return std::nullopt;
  std::uint64_t us = 0;
  const auto [ptr, error] = std::from_chars(text.data(), text.data() + end, us);
  if (error != std::errc() || ptr != text.data() + end ||
      us > static_cast<std::uint64_t>(std::numeric_limits<Nanos>::max() / kMicro))
    return std::nullopt;
  return static_cast<Nanos>(us) * kMicro;
}

std::optional<Nanos> read_capture_record(int fd) {
  std::array<char, kMaxRecord> buffer{};
  const ssize_t got = ::pread(fd, buffer.data(), buffer.size(), 0);
  if (got <= 0)
    return std::nullopt;
  return parse_capture_record(std::string_view(buffer.data(), static_cast<std::size_t>(got)));
}

} // namespace allocwatch

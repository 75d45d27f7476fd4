#include "tracefs/saved_comms.h"

#include "kernel/vocabulary.h"

#include <charconv>
#include <functional>
#include <string>

namespace allocwatch {

std::size_t update_comms(std::string_view text,
                         const std::function<bool(std::int32_t, std::string_view)>& name) {
  std::size_t changed = 0;
  while (!text.empty()) {
    std::size_t end = text.find('\n');
    if (end == std::string_view::npos)
      end = text.size();
    const std::string_view line = text.substr(0, end);
    text.remove_prefix(end < text.size() ? end + 1 : end);
    int pid = 0;
    const auto [ptr, ec] = std::from_chars(line.data(), line.data() + line.size(), pid);
    if (ec != std::errc() || pid <= 0 || ptr == line.data() + line.size() || *ptr != ' ' ||
        ptr + 1 == line.data() + line.size())
      continue;
    if (name(pid, std::string_view(
                      ptr + 1, static_cast<std::size_t>(line.data() + line.size() - (ptr + 1)))))
      ++changed;
  }
  return changed;
}

std::string_view task_comm_of(std::string_view text) {
  if (text.ends_with('\n'))
    text.remove_suffix(1);
  if (text.starts_with("kworker/"))
    if (const std::size_t colon = text.find(':'); colon != std::string_view::npos)
      text = text.substr(0, text.find_first_of("+-", colon));
  return text.size() > kTaskCommBytes ? std::string_view() : text;
}

} // namespace allocwatch

#include "tracefs/saved_comms.h"

#include "kernel/vocabulary.h"

#include <charconv>
#include <functional>
#include <string>
#include <unordered_set>

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

std::string with_run_names(std::string_view saved_cmdlines,
                           const std::vector<std::pair<std::int32_t, std::string>>& names) {
  std::string text;
  std::unordered_set<std::int32_t> named;
  for (const auto& [pid, comm] : names) {
    if (comm.find('\n') != std::string::npos)
      continue; // a line of its own would follow: the kernel's name stays
    text.append(std::to_string(pid)).append(" ").append(comm).push_back('\n');
    named.insert(pid);
  }
  while (!saved_cmdlines.empty()) {
    std::size_t end = saved_cmdlines.find('\n');
    end = end == std::string_view::npos ? saved_cmdlines.size() : end + 1;
    const std::string_view line = saved_cmdlines.substr(0, end);
    saved_cmdlines.remove_prefix(end);
    int pid = 0;
    const auto [ptr, ec] = std::from_chars(line.data(), line.data() + line.size(), pid);
    if (ec == std::errc() && ptr != line.data() + line.size() && *ptr == ' ' &&
        named.count(pid) != 0)
      continue;
    text.append(line);
    if (!line.ends_with('\n'))
      text.push_back('\n');
  }
  return text;
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

#include "tracefs/saved_comms.h"

#include "kernel/vocabulary.h"

#include <charconv>
#include <functional>
#include <string>
#include <unordered_set>

namespace allocwatch {

namespace {

// One line of saved_cmdlines: its pid and comm, or pid 0 when it is not a
// "PID COMM" line.
struct Entry {
  std::int32_t pid = 0;
  std::string_view comm;
};

Entry entry_of(std::string_view line) {
  if (line.ends_with('\n'))
    line.remove_suffix(1);
  int pid = 0;
  const auto [ptr, ec] = std::from_chars(line.data(), line.data() + line.size(), pid);
  const char* const end = line.data() + line.size();
  if (ec != std::errc() || pid <= 0 || ptr == end || *ptr != ' ' || ptr + 1 == end)
    return {};
  return {pid, std::string_view(ptr + 1, static_cast<std::size_t>(end - (ptr + 1)))};
}

// The next line of `text`, with its '\n' if it has one; `text` loses it.
std::string_view next_line(std::string_view& text) {
  const std::size_t end = text.find('\n');
  const std::size_t size = end == std::string_view::npos ? text.size() : end + 1;
  const std::string_view line = text.substr(0, size);
  text.remove_prefix(size);
  return line;
}

} // namespace

std::size_t update_comms(std::string_view text,
                         const std::function<bool(std::int32_t, std::string_view)>& name,
                         std::string_view previous) {
  std::size_t changed = 0;
  while (!text.empty()) {
    const std::string_view line = next_line(text);
    if (line == next_line(previous))
      continue;
    if (const Entry entry = entry_of(line); entry.pid != 0 && name(entry.pid, entry.comm))
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
    const std::string_view line = next_line(saved_cmdlines);
    if (const Entry entry = entry_of(line); entry.pid != 0 && named.count(entry.pid) != 0)
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

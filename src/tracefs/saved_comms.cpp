#include "tracefs/saved_comms.h"

#include <charconv>
#include <string>

extern "C" {
#include <event-parse.h>
}

namespace allocwatch {

std::size_t update_comms(tep_handle* tep, std::string_view text) {
  std::size_t changed = 0;
  std::string comm;
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
    comm.assign(ptr + 1, line.data() + line.size());
    // Unknown pids read as "<...>", which no task is named.
    const char* known = tep_data_comm_from_pid(tep, pid);
    if (known != nullptr && comm == known)
      continue;
    if (tep_override_comm(tep, comm.c_str(), pid) == 0)
      ++changed;
  }
  return changed;
}

} // namespace allocwatch

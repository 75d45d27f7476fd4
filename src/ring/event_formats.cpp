#include "ring/event_formats.h"

namespace allocwatch {

std::string parsable_format(std::string_view format) {
  static constexpr std::string_view kMember = "REC->ent.pid";
  static constexpr std::string_view kField = "REC->common_pid";
  std::string out;
  out.reserve(format.size());
  for (std::size_t at = 0;;) {
    const std::size_t found = format.find(kMember, at);
    if (found == std::string_view::npos) {
      out.append(format.substr(at));
      return out;
    }
    out.append(format.substr(at, found - at));
    out.append(kField);
    at = found + kMember.size();
  }
}

} // namespace allocwatch

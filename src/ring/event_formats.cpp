#include "ring/event_formats.h"

#include "ring/print_names.h"

#include <charconv>

extern "C" {
#include <event-parse.h>
}

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

int format_id(std::string_view format) {
  static constexpr std::string_view kId = "\nID: ";
  const std::size_t at = format.find(kId);
  if (at == std::string_view::npos)
    return -1;
  const char* const digits = format.data() + at + kId.size();
  const char* const end = format.data() + format.size();
  int id = -1;
  const auto [after, ec] = std::from_chars(digits, end, id);
  if (ec != std::errc() || id < 0 || (after != end && *after != '\n'))
    return -1;
  return id;
}

bool PendingFormats::add(std::string system, std::string format) {
  const int id = format_id(format);
  if (id < 0)
    return false;
  pending_.insert_or_assign(id, Format{std::move(system), std::move(format)});
  return true;
}

bool PendingFormats::parse(tep_handle* tep, int id) {
  const auto found = pending_.find(id);
  if (found == pending_.end())
    return false;
  const Format format = std::move(found->second);
  pending_.erase(found);
  if (tep_parse_event(tep, format.text.data(), format.text.size(), format.system.c_str()) != 0)
    return false;
  if (symbols_ != nullptr)
    if (const tep_event* event = tep_find_event(tep, id); event != nullptr)
      register_print_names(tep, *event, *symbols_);
  return true;
}

} // namespace allocwatch

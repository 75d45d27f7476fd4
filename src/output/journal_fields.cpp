#include "output/journal_fields.h"

#include <algorithm>
#include <array>

namespace allocwatch {

namespace {

// journald's own fields, and those sd_journal_send callers give meaning to.
constexpr std::array<std::string_view, 14> kReserved = {
    "MESSAGE",    "MESSAGE_ID",       "PRIORITY",
    "CODE_FILE",  "CODE_LINE",        "CODE_FUNC",
    "ERRNO",      "SYSLOG_FACILITY",  "SYSLOG_IDENTIFIER",
    "SYSLOG_PID", "SYSLOG_TIMESTAMP", "DOCUMENTATION",
    "TID",        "INVOCATION_ID"};

// The field of member `key` of the object whose field is `prefix` (empty:
// the record itself).
std::string member_name(const std::string& prefix, std::string_view key) {
  if (prefix.empty())
    return journal_field_name(key);
  std::string joined = prefix;
  joined.append("_").append(key);
  return journal_field_name(joined);
}

} // namespace

std::string journal_field_name(std::string_view key) {
  std::string name;
  for (char c : key.substr(0, 64)) {
    if (c >= 'a' && c <= 'z')
      name += static_cast<char>(c - 'a' + 'A');
    else if ((c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'))
      name += c;
    else
      name += '_';
  }
  // Not empty, not starting with '_' (journald's trusted fields) or a digit.
  if (name.empty() || name[0] == '_' || (name[0] >= '0' && name[0] <= '9'))
    name.insert(0, "F");
  if (std::find(kReserved.begin(), kReserved.end(), name) != kReserved.end())
    name.insert(0, "ALLOCWATCH_");
  return name.substr(0, 64);
}

void journal_fields(const RecordValue& record, std::vector<JournalField>& out,
                    std::vector<EventField>& scratch) {
  using Kind = RecordValue::Kind;
  out.clear();
  // For each open object or list, outermost first: the field it is (an
  // object's members are named after it, a list's elements are it), and
  // whether it is a list. The record itself is the object of no field.
  struct Open {
    std::string field;
    bool list;
  };
  std::vector<Open> open = {{{}, false}};
  for (const RecordValue::Value& value : record.values()) {
    if (value.kind == Kind::End) {
      open.pop_back();
      continue;
    }
    std::string field =
        open.back().list ? open.back().field : member_name(open.back().field, value.name);
    switch (value.kind) {
    case Kind::String:
      out.push_back({std::move(field), std::string(value.text)});
      break;
    case Kind::Integer:
      out.push_back({std::move(field), std::to_string(value.integer)});
      break;
    case Kind::Count:
      out.push_back({std::move(field), std::to_string(value.count)});
      break;
    case Kind::Fields:
      parse_event_fields(value.event, value.text, scratch);
      for (const EventField& event_field : scratch)
        out.push_back({member_name(field, event_field.key),
                       event_field.number ? std::to_string(*event_field.number)
                                          : std::string(event_field.value)});
      break;
    case Kind::Object:
    case Kind::List:
      open.push_back({std::move(field), value.kind == Kind::List});
      break;
    case Kind::End:
      break;
    }
  }
}

} // namespace allocwatch

// The fields of a journal entry from one record of JsonSink (one JSON
// object): every key, upper-cased, becomes a field (journald's field names
// are A-Z, 0-9 and '_'):
//
//   {"type":"span","name":"memcg_reclaim","pid":170,"lines":["a","b"]}
//   -> TYPE=span NAME=memcg_reclaim PID=170 LINES=a LINES=b
//
// Nested objects join their keys with '_' (EVENTS_FIELDS_ORDER=0); an array
// gives its field once per element (journald keeps repeated fields).
// Strings are unescaped back to the trace's own bytes; numbers are kept as
// written. A key whose name journald reserves for itself (MESSAGE,
// PRIORITY, ...) is prefixed ALLOCWATCH_.
#pragma once

#include "util/result.h"

#include <string>
#include <string_view>
#include <vector>

namespace allocwatch {

struct JournalField {
  std::string name;
  std::string value;
};

Result<std::vector<JournalField>> journal_fields(std::string_view json_object);

// "comm" -> "COMM", "start_ns" -> "START_NS", "a-b" -> "A_B"; at most 64 bytes.
std::string journal_field_name(std::string_view key);

} // namespace allocwatch

// The fields of a journal entry from one record (output/record_value.h):
// every value, its name upper-cased, becomes a field (journald's field names
// are A-Z, 0-9 and '_'):
//
//   {"type":"span","name":"memcg_reclaim","pid":170,"lines":["a","b"]}
//   -> TYPE=span NAME=memcg_reclaim PID=170 LINES=a LINES=b
//
// Nested objects join their names with '_' (TRACEPOINTS_FIELDS_ORDER=0); a
// list gives its field once per element (journald keeps repeated fields).
// Strings are the trace's own bytes; numbers are written as in the JSON
// record. A name journald reserves for itself (MESSAGE, PRIORITY, ...) is
// prefixed ALLOCWATCH_.
#pragma once

#include "output/record_value.h"
#include "trace/event_fields.h"

#include <string>
#include <string_view>
#include <vector>

namespace allocwatch {

struct JournalField {
  std::string name;
  std::string value;
};

// The record's fields, in its order, into `out` (cleared first). `scratch`
// is reused between calls.
void journal_fields(const RecordValue& record, std::vector<JournalField>& out,
                    std::vector<EventField>& scratch);

// "comm" -> "COMM", "start_ns" -> "START_NS", "a-b" -> "A_B"; at most 64 bytes.
std::string journal_field_name(std::string_view key);

} // namespace allocwatch

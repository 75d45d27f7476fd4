// JSON text for the outputs that write JSON (the JSON Lines sink, the
// journal's fallback, the report's records, the timeline): escaped strings,
// and a record (output/record_value.h) as one JSON object.
#pragma once

#include "bind/incident.h"
#include "output/record_value.h"
#include "trace/event_fields.h"

#include <iosfwd>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace allocwatch {

// `text` as a JSON string: the trace's bytes with '"', '\' and control
// characters (and DEL) escaped. Other bytes are copied, so valid UTF-8 stays
// valid.
void write_json_string(std::ostream& out, std::string_view text);
void append_json_string(std::string& out, std::string_view text);

// The record as one JSON object, appended to `out`: strings and lines as
// JSON strings, integers as JSON numbers, a tracepoint's fields as an object
// of its parsed fields (numbers as numbers, the rest as strings).
// `scratch` is reused between calls. At most 63 objects and lists deep.
void append_json(std::string& out, const RecordValue& record, std::vector<EventField>& scratch);

// Records as JSON Lines, each written to the stream at once from a buffer
// reused from one record to the next.
class JsonWriter {
public:
  void write_line(std::ostream& out, const RecordValue& record);

private:
  std::string text_;
  std::vector<EventField> fields_;
};

// The tracepoints of a span's lines as the JSON array of trace_records.h's
// "tracepoints" (lines that print none, such as graph returns, are left
// out). `scratch` is reused between calls.
void write_json_tracepoints(std::ostream& out, std::span<const Tracepoint> tracepoints,
                            std::vector<EventField>& scratch);

} // namespace allocwatch

#include "report/json_text.h"

#include <ostream>

namespace allocwatch {

void write_json_string(std::ostream& out, std::string_view text) {
  static constexpr char kHex[] = "0123456789abcdef";
  out.put('"');
  for (char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    if (c == '"' || c == '\\') {
      out.put('\\');
      out.put(c);
    } else if (byte < 0x20 || byte == 0x7f) {
      out << "\\u00" << kHex[byte >> 4] << kHex[byte & 0xf];
    } else {
      out.put(c);
    }
  }
  out.put('"');
}

void write_json_tracepoints(std::ostream& out, std::span<const Tracepoint> tracepoints,
                            std::vector<EventField>& scratch) {
  out.put('[');
  const char* separator = "";
  for (const Tracepoint& tracepoint : tracepoints) {
    if (tracepoint.name.empty())
      continue;
    out << separator << "{\"event\":";
    write_json_string(out, tracepoint.name);
    out << ",\"ts_ns\":" << tracepoint.ts << ",\"fields\":{";
    parse_event_fields(tracepoint.name, tracepoint.fields, scratch);
    const char* field_separator = "";
    for (const EventField& field : scratch) {
      out << field_separator;
      write_json_string(out, field.key);
      out.put(':');
      if (field.number)
        out << *field.number;
      else
        write_json_string(out, field.value);
      field_separator = ",";
    }
    out << "}}";
    separator = ",";
  }
  out.put(']');
}

} // namespace allocwatch

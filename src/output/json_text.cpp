#include "output/json_text.h"

#include "output/trace_records.h"

#include <charconv>
#include <cstdint>
#include <ostream>

namespace allocwatch {

namespace {

// Hands `text` to `put` (a callable taking a string_view) JSON-escaped, in
// runs: the bytes that need no escape at once, each escape on its own.
template <class Put> void escape_json(std::string_view text, Put put) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::size_t run = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    const auto byte = static_cast<unsigned char>(c);
    if (c != '"' && c != '\\' && byte >= 0x20 && byte != 0x7f)
      continue;
    put(text.substr(run, i - run));
    run = i + 1;
    if (c == '"' || c == '\\') {
      const char escaped[] = {'\\', c};
      put({escaped, sizeof escaped});
    } else {
      const char escaped[] = {'\\', 'u', '0', '0', kHex[byte >> 4], kHex[byte & 0xf]};
      put({escaped, sizeof escaped});
    }
  }
  put(text.substr(run));
}

template <class Integer> void append_number(std::string& out, Integer value) {
  char digits[24];
  const auto [end, error] = std::to_chars(digits, digits + sizeof digits, value);
  out.append(digits, end);
}

void append_fields(std::string& out, const RecordValue::Value& value,
                   std::vector<EventField>& scratch) {
  out += '{';
  parse_event_fields(value.event, value.text, scratch);
  const char* separator = "";
  for (const EventField& field : scratch) {
    out += separator;
    append_json_string(out, field.key);
    out += ':';
    if (field.number)
      append_number(out, *field.number);
    else
      append_json_string(out, field.value);
    separator = ",";
  }
  out += '}';
}

// `values` as JSON, appended to `out`: the members of an object (each with
// its name) if `members`, else a list's elements.
void append_values(std::string& out, std::span<const RecordValue::Value> values, bool members,
                   std::vector<EventField>& scratch) {
  using Kind = RecordValue::Kind;
  std::uint64_t lists = members ? 0 : 1; // bit n: the container n deep is a list
  int depth = 0;
  bool first = true;
  for (const RecordValue::Value& value : values) {
    const bool in_list = (lists >> depth & 1) != 0;
    if (value.kind == Kind::End) {
      out += in_list ? ']' : '}';
      --depth;
      first = false;
      continue;
    }
    if (!first)
      out += ',';
    first = false;
    if (!in_list) {
      append_json_string(out, value.name);
      out += ':';
    }
    switch (value.kind) {
    case Kind::String:
      append_json_string(out, value.text);
      break;
    case Kind::Integer:
      append_number(out, value.integer);
      break;
    case Kind::Count:
      append_number(out, value.count);
      break;
    case Kind::Fields:
      append_fields(out, value, scratch);
      break;
    case Kind::Object:
    case Kind::List:
      ++depth;
      lists = value.kind == Kind::List ? lists | std::uint64_t{1} << depth
                                       : lists & ~(std::uint64_t{1} << depth);
      out += value.kind == Kind::List ? '[' : '{';
      first = true;
      break;
    case Kind::End:
      break;
    }
  }
}

} // namespace

void write_json_string(std::ostream& out, std::string_view text) {
  out.put('"');
  escape_json(text, [&out](std::string_view run) {
    out.write(run.data(), static_cast<std::streamsize>(run.size()));
  });
  out.put('"');
}

void append_json_string(std::string& out, std::string_view text) {
  out += '"';
  escape_json(text, [&out](std::string_view run) { out.append(run); });
  out += '"';
}

void append_json(std::string& out, const RecordValue& record, std::vector<EventField>& scratch) {
  out += '{';
  append_values(out, record.values(), true, scratch);
  out += '}';
}

void JsonWriter::write_line(std::ostream& out, const RecordValue& record) {
  text_.clear();
  append_json(text_, record, fields_);
  text_ += '\n';
  out.write(text_.data(), static_cast<std::streamsize>(text_.size()));
}

void write_json_tracepoints(std::ostream& out, std::span<const Tracepoint> tracepoints,
                            std::vector<EventField>& scratch) {
  // Reused from call to call: a warm list and text allocate nothing.
  thread_local RecordValue list;
  thread_local std::string text;
  list.clear();
  add_tracepoints({}, tracepoints, list);
  text.clear();
  append_values(text, list.values(), false, scratch);
  out.write(text.data(), static_cast<std::streamsize>(text.size()));
}

} // namespace allocwatch

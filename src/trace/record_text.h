// The text of a Record: its line and fields as read, or, for a record of
// the binary ring buffer, as its formatter prints them from its blob.
#pragma once

#include "trace/record.h"

#include <string>
#include <string_view>

namespace allocwatch {

struct RecordText {
  std::string_view line;
  std::string_view fields;
};

// Text records: views into the record's line. Binary ones: formatted into
// `scratch` (cleared first), which the views then point into.
inline RecordText text_of(const Record& record, std::string& scratch) {
  if (record.formatter == nullptr)
    return {record.line, record.fields};
  scratch.clear();
  std::size_t at = 0;
  std::size_t size = 0;
  record.formatter->format(record.blob, scratch, at, size);
  const std::string_view line = scratch;
  return {line, line.substr(at, size)};
}

// The fields of a shrink_slab record, or at least their start up to the
// ':' after the shrinker's instance: what parse_shrinker_id reads. Never
// prints a binary record.
inline std::string_view shrinker_fields(const Record& record) {
  return record.formatter == nullptr ? record.fields : record.shrinker;
}

// What a keeper of the record copies: the line, or the blob it prints from.
inline std::string_view kept_bytes(const Record& record) {
  return record.formatter == nullptr ? record.line : record.blob;
}

} // namespace allocwatch

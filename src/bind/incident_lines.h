// IncidentLines: the lines of one incident as the binder kept them (a text
// line, or a ring-buffer record's bytes) turned into the lines and
// tracepoints a Sink reads.
//
//   lines.clear();
//   lines.add_opening(bytes, is_pair_begin);   // its tracepoint read from its text
//   lines.add(bytes, tracepoint);              // as the binder parsed it
//   lines.print(formatter);                    // null: the bytes are text
//   sink.incident({..., lines.lines(), lines.tracepoints()});
//
// The added bytes must live until print() returns; the views print() makes
// live until the next clear().
#pragma once

#include "bind/incident.h"
#include "trace/record.h"

#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace allocwatch {

class IncidentLines {
public:
  void clear() { kept_.clear(); }
  // A span's opening line: a function's entry (no tracepoint) or a pair's
  // begin, whose tracepoint is read from its text once it is printed.
  void add_opening(std::string_view bytes, bool pair_begin) {
    kept_.push_back({bytes, {}, pair_begin});
  }
  void add(std::string_view bytes, const Tracepoint& tracepoint) {
    kept_.push_back({bytes, tracepoint, false});
  }
  // Makes the lines: the kept text itself, or what `formatter` prints from
  // the kept bytes (then each tracepoint's fields are those printed).
  void print(const RecordFormatter* formatter);

  std::span<const std::string_view> lines() const { return lines_; }
  std::span<const Tracepoint> tracepoints() const { return tracepoints_; }

private:
  struct Kept {
    std::string_view bytes;
    Tracepoint tracepoint;
    bool parse;
  };
  struct Place {
    std::size_t at, size, fields_at, fields_size;
  };
  std::vector<Kept> kept_;
  std::string printed_;
  std::vector<Place> places_; // where each line is in printed_
  std::vector<std::string_view> lines_;
  std::vector<Tracepoint> tracepoints_;
};

} // namespace allocwatch

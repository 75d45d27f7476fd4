// Record: one trace line, as the parser understood it.
//
// Every string_view in a Record points into the line it was parsed from, and
// lives exactly as long as that line: for lines from LineReader, until the
// next call to LineReader::next(). Whoever keeps a line longer copies it.
#pragma once

#include "util/duration.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace allocwatch {

// The longest line allocwatch reads. The kernel's lines are a few hundred
// bytes (an event's fields are cut at a page); anything longer is not a
// trace line, and holding it whole would let one input grow without bound.
constexpr std::size_t kMaxLineBytes = 64 * 1024;

// Formats records read from the binary ring buffer (ring/event_decoder.h):
// such a record carries its event's bytes as an opaque `blob`, and its line
// and fields are made only when something needs them (a line that prints,
// a shrinker's name). Whoever keeps such a record keeps its blob.
class RecordFormatter {
public:
  virtual ~RecordFormatter() = default;
  // Appends the line the kernel's trace_pipe would print for `blob` to
  // `out`; `fields_at` and `fields_size` get where its tracepoint's fields
  // are in `out` (0 and 0 for a line without). Never throws on bad bytes: a
  // blob it cannot read gives a line that says so.
  virtual void format(std::string_view blob, std::string& out, std::size_t& fields_at,
                      std::size_t& fields_size) const = 0;
};

enum class LineKind : std::uint8_t {
  Skip,        // blank, '#' header, context-switch banner, irq marker
  Lost,        // "CPU:N [LOST M EVENTS]": passed through and counted
  Malformed,   // not understood: counted and skipped
  GraphEntry,  // "f() {"           (function_graph, no threshold)
  GraphLeaf,   // "f();"            (function_graph, no threshold)
  GraphReturn, // "}" or "} /* f */" (function_graph)
  Event,       // a tracepoint, in either trace format
};

// Which tracer wrote the line: function_graph columns, or the nop tracer's
// "comm-pid [cpu] flags ts: event: fields".
enum class TraceFormat : std::uint8_t { Unknown, Graph, Events };

struct Record {
  LineKind kind = LineKind::Malformed;
  TraceFormat format = TraceFormat::Unknown;
  std::string_view line;   // the whole line, without its '\n'
  Nanos ts = -1;           // timestamp (graph: abstime); -1 if the line has none
  std::int32_t pid = -1;   // -1 if the line has none
  std::int32_t cpu = -1;   // -1 if the line has no cpu column
  std::string_view comm;   // as printed: graph traces cut it to 7 chars, may be "<...>"
  Nanos duration = -1;     // graph returns and leaves with a duration column; else -1
  std::uint16_t depth = 0; // graph body indentation: leading spaces / 2
  // Function name (entry, leaf, return "} /* f */"; empty for a bare "}") or
  // event name (without its subsystem, e.g. "mm_shrink_slab_start").
  std::string_view name;
  std::string_view fields; // event fields, without a trailing " */"
  std::uint64_t lost = 0;  // Lost: the M of "[LOST M EVENTS]"; 0 for "[LOST EVENTS]" (no count)
  // Records from the binary ring buffer: the event's bytes, which `formatter`
  // turns into `line` and `fields` on demand; `line` and `fields` are then
  // empty (but for Lost records, whose line is set). Empty for text lines.
  std::string_view blob;
  const RecordFormatter* formatter = nullptr;
  // Binary mm_shrink_slab_start/end records: their fields up to and with the
  // ':' after the shrinker's instance ("super_cache_scan+0x0
  // 0xffff888102b24780:"), as the formatter prints them, made without
  // printing the rest: what names the shrinker, read on every shrinker call.
  // Empty otherwise (a text line's fields start so themselves).
  std::string_view shrinker;
};

} // namespace allocwatch

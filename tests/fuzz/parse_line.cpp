// libFuzzer harness: one line through parse_line. The line is copied to a
// buffer of exactly its size, so that ASan sees any read past its end, and
// every view the Record holds must lie inside it. parse_line's fixed-layout
// shortcuts must answer exactly what the general walk alone
// (parse_line_general) does: every field, every view at the same place.
#include "trace/parser.h"

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>

using namespace allocwatch;

namespace {

void require_inside(std::string_view part, std::string_view line) {
  if (part.empty())
    return;
  if (part.data() < line.data() || part.data() + part.size() > line.data() + line.size())
    std::abort();
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::unique_ptr<char[]> copy(new char[size > 0 ? size : 1]);
  std::memcpy(copy.get(), data, size);
  const std::string_view line(copy.get(), size);
  const Record r = parse_line(line);
  if (r.line.data() != line.data() || r.line.size() != line.size())
    std::abort();
  for (std::string_view part : {r.comm, r.name, r.fields})
    require_inside(part, line);
  // What the binder relies on: spans and events come with a format; the
  // rest with none; a graph return's duration is never negative but -1.
  const bool traced = r.kind == LineKind::GraphEntry || r.kind == LineKind::GraphLeaf ||
                      r.kind == LineKind::GraphReturn || r.kind == LineKind::Event;
  if (traced == (r.format == TraceFormat::Unknown))
    std::abort();
  if (r.duration < -1)
    std::abort();
  if (size > kMaxLineBytes && r.kind != LineKind::Malformed)
    std::abort();
  const Record general = parse_line_general(line);
  const auto same = [](std::string_view a, std::string_view b) {
    return a.size() == b.size() && (a.empty() || a.data() == b.data());
  };
  if (r.kind != general.kind || r.format != general.format || r.ts != general.ts ||
      r.pid != general.pid || r.cpu != general.cpu || r.duration != general.duration ||
      r.depth != general.depth || r.lost != general.lost || !same(r.line, general.line) ||
      !same(r.comm, general.comm) || !same(r.name, general.name) || !same(r.fields, general.fields))
    std::abort();
  return 0;
}

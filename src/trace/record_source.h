// RecordSource: where the binder's records come from, one at a time, in the
// order they happened: lines of a text trace through parse_line
// (TextRecords), or the kernel's binary ring buffer decoded in user space
// (ring/, tracefs/raw_source).
#pragma once

#include "trace/line_reader.h"
#include "trace/parser.h"
#include "trace/record.h"

namespace allocwatch {

class RecordSource {
public:
  virtual ~RecordSource() = default;
  // The next record, or nullptr at the end. The record, and every view in
  // it, lives until the next call.
  virtual const Record* next() = 0;
  // Whether its records are the ring buffer's, which a keeper keeps as their
  // bytes (a blob) rather than as lines: some 2.5 times smaller.
  virtual bool blobs() const { return false; }
};

// The lines of a LineReader, each through parse_line. The reader must
// outlive it.
class TextRecords final : public RecordSource {
public:
  explicit TextRecords(LineReader& reader) : reader_(reader) {}
  const Record* next() override {
    std::string_view line;
    if (!reader_.next(line))
      return nullptr;
    record_ = parse_line(line);
    return &record_;
  }

private:
  LineReader& reader_;
  Record record_;
};

} // namespace allocwatch

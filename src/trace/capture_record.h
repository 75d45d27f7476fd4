// The capture record: the first line of a live graph run's --save file, a
// '#' line the parser skips, that says which tracing_thresh the run set, so
// that a replay of the file knows that no shorter function call is in it:
//
//   # allocwatch tracing_thresh_us 100
#pragma once

#include "util/duration.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace allocwatch {

// The record, with its newline.
std::string capture_record(std::uint64_t tracing_thresh_us);

// The tracing_thresh the record at the start of `text` gives; nothing when
// `text` does not start with one.
std::optional<Nanos> parse_capture_record(std::string_view text);

// parse_capture_record() of the start of the file open as `fd`, read with
// pread (the offset left alone); nothing when it cannot be read that way
// (a pipe) or has no record.
std::optional<Nanos> read_capture_record(int fd);

} // namespace allocwatch

// ByteSource: where trace bytes come from (trace_pipe, a saved file, stdin).
// The parser's LineReader reads lines from one.
#pragma once

#include <cstddef>

namespace allocwatch {

class ByteSource {
public:
  virtual ~ByteSource() = default;
  // Fills up to n bytes; returns bytes read, 0 at end of input. Throws FatalError on I/O error.
  virtual std::size_t read(char* buf, std::size_t n) = 0;
};

} // namespace allocwatch

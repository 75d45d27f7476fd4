// PageSink: where a reader of the binary ring buffer hands each sub-buffer
// page as it read it (per_cpu/cpuN/trace_pipe_raw), for a copy to keep:
// DatWriter, the trace.dat of --save in raw mode.
//
// The page is whole (`size` is the buffer's sub-buffer size, header
// included) and is read only during the call. A sink keeps its first error
// for its own end (DatWriter::finish()); good() turns false at it, so that a
// reader may stop early.
#pragma once

#include <cstddef>

namespace allocwatch {

class PageSink {
public:
  virtual ~PageSink() = default;
  virtual void add_page(int cpu, const void* page, std::size_t size) = 0;
  virtual bool good() const = 0;
};

} // namespace allocwatch

// RawEvent: one record of the kernel's ring buffer as a sub-buffer page
// holds it (read live from per_cpu/cpuN/trace_pipe_raw, or from a
// trace.dat), before it is decoded.
#pragma once

#include <cstdint>

namespace allocwatch {

struct RawEvent {
  std::int32_t cpu = -1;
  // The record's timestamp: nanoseconds of the buffer's trace clock (keep
  // trace_clock at "local" so that function_graph's calltime and rettime
  // agree with it).
  std::uint64_t ts = 0;
  // The event's payload, common fields first (as tep_record::data); it lives
  // as long as the page it was read from, which its reader keeps.
  const void* data = nullptr;
  std::uint32_t size = 0;
};

} // namespace allocwatch

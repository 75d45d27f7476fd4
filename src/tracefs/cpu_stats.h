// CpuStats: what a CPU's per_cpu/cpuN/stats says its ring buffer lost.
//
// In overwrite mode (options/overwrite 1, the kernel's default, which
// allocwatch keeps) a full buffer overwrites its oldest records and counts
// them in `overrun`; the reader's next page then reports them as missed
// events. With overwrite off, a full buffer drops new records and counts
// them in `dropped events`, and no page reports them.
#pragma once

#include <cstdint>
#include <string_view>

namespace allocwatch {

struct CpuStats {
  std::uint64_t overrun = 0;
  std::uint64_t dropped = 0;
  // Both: every record the buffer lost.
  std::uint64_t lost() const { return overrun + dropped; }
};

// The counters of a stats file's text; a line missing or not understood
// counts 0 (kernels before 3.x have no "dropped events").
CpuStats parse_cpu_stats(std::string_view text);

} // namespace allocwatch

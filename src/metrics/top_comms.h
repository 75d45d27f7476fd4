// TopComms: stalls counted per task name (comm), at most `top` names with a
// series of their own (metrics/top_series.h), ranked by their stall count.
#pragma once

#include "metrics/top_series.h"

#include <cstdint>

namespace allocwatch {

using TopComms = TopSeries<std::uint64_t>;

// A stall of a task named `comm`.
inline void add_comm_stall(TopComms& top, std::string_view comm) {
  top.add(comm, 1);
}

} // namespace allocwatch

// The vmscan and compaction tracepoints a profile may name. The list is built
// in so a profile can be checked without touching tracefs (and on a machine
// other than the one it will run on); the session still checks that each
// event exists on the live kernel before enabling it.
#pragma once

#include <span>
#include <string_view>

namespace allocwatch {

struct KnownEvent {
  std::string_view system; // "vmscan"
  std::string_view name;   // "mm_vmscan_direct_reclaim_begin"
};

// Every event of the vmscan and compaction systems that kernels 4.x to 6.18
// define, including names later kernels renamed or dropped. Static storage.
std::span<const KnownEvent> known_events();

// The system `name` belongs to ("vmscan", "compaction"), or empty when no
// kernel we know of has an event of that name. Static storage.
std::string_view known_event_system(std::string_view name);

} // namespace allocwatch

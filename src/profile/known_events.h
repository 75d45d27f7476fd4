// The vmscan and compaction tracepoints allocwatch knows of. Not a limit:
// kernels add events, and the running kernel's available_events decides (a
// live run refuses a profile event the kernel lacks, with the kernel's
// nearest names). The loader uses this list only to help: to suggest a name
// for a likely typo, and to say which system a name belongs to.
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

// The kernel's vocabulary that allocwatch relies on, each fact once, with the
// kernel source that states it: the vmscan and compaction tracepoints (their
// names, systems, what they print and what each means to allocwatch), the
// phrases mm_shrink_slab_start/end print, and the widths of a comm.
//
// The running kernel has the last word where it can say it: its
// available_events decides which events exist (a live run refuses a profile
// event it lacks), and its events/SYSTEM/NAME/format says what an event
// prints (the plan warns when it lacks a field this table says allocwatch
// reads). This table is what replays, profile checks and messages use
// without a kernel to ask.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

namespace allocwatch {

// What allocwatch reads of an event's line besides its name and time.
enum class EventRole : std::uint8_t {
  None,              // nothing: a profile binds, claims or pairs it as it says
  ReclaimBegin,      // a reclaim starts: its order and gfp flags
  ReclaimEnd,        // a reclaim ends: the pages it reclaimed
  LruShrinkInactive, // pages scanned from an inactive LRU list
  ShrinkSlabStart,   // a shrinker call starts ("%pS %p:", then phrases)
  ShrinkSlabEnd,     // a shrinker call ends (the same prefix)
  CompactPages,      // direct compaction starts: its order and gfp flags
  KswapdWake,        // kswapd starts a run of balance_pgdat
  KswapdSleep,       // kswapd goes to sleep
  KcompactdWake,     // kcompactd starts a run of compaction
  KcompactdSleep,    // kcompactd goes to sleep
  ReclaimWrite,      // reclaim starts writeback of a dirty page (a folio from 5.18)
  ReclaimThrottled,  // reclaim waited for writeback or progress: how long, why
  CompactMigrate,    // compaction migrated a batch of pages: how many, how many failed
  CompactEnd,        // a compaction run ends: how (its status)
};

struct KnownEvent {
  std::string_view system = {}; // "vmscan": events/vmscan/ in tracefs
  std::string_view name = {};   // "mm_vmscan_direct_reclaim_begin"
  // Its TP_printk format as 6.18 prints it (events/SYSTEM/NAME/format);
  // empty for an event 6.18 no longer has.
  std::string_view printed = {};
  EventRole role = EventRole::None;
  // The other event of its begin/end (start/end) pair, if it is one.
  std::string_view pairs_with = {};
  // The keys of the "key=value" fields allocwatch reads, by what they tell;
  // empty: not read.
  std::string_view order_key = {}; // the allocation's order
  std::string_view gfp_key = {};   // its gfp flags
  std::string_view pages_key = {}; // pages scanned or reclaimed
  // Pages reclaimed, by an event whose pages_key counts those scanned.
  std::string_view reclaimed_key = {};
  // Pages that failed, by an event whose pages_key counts those that did not.
  std::string_view failed_key = {};
  std::string_view flags_key = {};  // RECLAIM_WB_* flags ("RECLAIM_WB_FILE|RECLAIM_WB_ASYNC")
  std::string_view delay_key = {};  // microseconds waited
  std::string_view status_key = {}; // how it ended: a compaction_statuses() name
  std::string_view source = {};     // the kernel header that defines it
  std::string_view history = {};    // renamed or dropped, and when; empty: none
};

// Every event of the vmscan and compaction systems that kernels 4.x to 6.18
// define, including names later kernels renamed or dropped, each once.
// Static storage.
std::span<const KnownEvent> known_events();

// The event called `name` (without its system), or nullptr.
const KnownEvent* known_event(std::string_view name);

// The system `name` belongs to ("vmscan", "compaction"), or empty when no
// kernel we know of has an event of that name. Static storage.
std::string_view known_event_system(std::string_view name);

// Whether some known event belongs to `system`.
bool is_known_event_system(std::string_view system);

// The keys of every field allocwatch reads of `event` (empty ones left out).
std::vector<std::string_view> read_keys(const KnownEvent& event);

// The first event of `role`, which is not None: the one event of
// ShrinkSlabStart, ShrinkSlabEnd or CompactPages.
const KnownEvent& event_of_role(EventRole role);

// The role of the event called `name`; None for an unknown one.
EventRole event_role(std::string_view name);

// The names mm_compaction_end prints as its status= (enum compact_result in
// include/linux/compaction.h), in the enum's order, from COMPACTION_STATUS in
// include/trace/events/mmflags.h (events/compaction/mm_compaction_end/format
// here, 6.18); early 4.x kernels print "partial" where these print
// "success". Static storage.
std::span<const std::string_view> compaction_statuses();

// A write by reclaim that was synchronous: its flags name RECLAIM_WB_SYNC.
// Since 3.x every kernel traces its writes RECLAIM_WB_ASYNC
// (trace_reclaim_flags() in include/trace/events/vmscan.h: "Unused, all
// reclaim async"), so a sync write means an older or patched kernel.
bool is_sync_write(std::string_view flags);

// A phrase mm_shrink_slab_start/end print before a value, and the name of
// the tracepoint field it prints ("objects to shrink" 5 is
// nr_objects_to_shrink=5).
struct ShrinkSlabPhrase {
  std::string_view text;
  std::string_view key;
};
// Every kernel's since 4.x (pgs_scanned and lru_pgs before 4.16), from
// include/trace/events/vmscan.h. Static storage.
std::span<const ShrinkSlabPhrase> shrink_slab_phrases();

// A memory cgroup reached its limit: the begin of try_to_free_mem_cgroup_pages'
// reclaim (include/trace/events/vmscan.h). The cgroup attribution reads the
// limits of the cgroups whose spans begin with it, or are bound to it.
inline constexpr std::string_view kMemcgReclaimBegin = "mm_vmscan_memcg_reclaim_begin";

// function_graph prints at most this many bytes of a comm:
// kernel/trace/trace_functions_graph.c, print_graph_proc() ("comm[7] = '\0'").
// Not in tracefs: the running kernel cannot be asked.
inline constexpr std::size_t kGraphCommBytes = 7;

// A task's comm is at most this many bytes: TASK_COMM_LEN (16) less its NUL,
// include/linux/sched.h.
inline constexpr std::size_t kTaskCommBytes = 15;

} // namespace allocwatch

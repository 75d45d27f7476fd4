// What the kernel traces: the tracepoints and functions of the default
// profile, which tracepoints each span claims, and the names each kernel
// generation gives the functions.
#pragma once

#include "common.h"

#include <cstdint>
#include <iterator>
#include <string>
#include <string_view>
#include <vector>

namespace gentrace {

enum class Format : std::uint8_t { Graph, Events };

enum Ev : std::uint8_t {
  kDirectBegin,
  kDirectEnd,
  kMemcgBegin,
  kMemcgEnd,
  kSoftBegin,
  kSoftEnd,
  kNodeBegin,
  kNodeEnd,
  kLruInactive,
  kCompactBegin,
  kCompactEnd,
  kTryCompact,
  kSlabStart,
  kSlabEnd,
  kWriteFolio,
  kThrottled,
  kMigratePages,
  // Enabled but bound to nothing: allocwatch must leave them alone.
  kKswapdWake,
  kKswapdSleep,
  kWakeupKswapd,
  kKcompactdWake,
  kKcompactdSleep,
  kCompactFinished,
  kIsolateMigrate,
  kEvCount,
};

inline constexpr std::string_view kEventName[kEvCount] = {
    "mm_vmscan_direct_reclaim_begin",
    "mm_vmscan_direct_reclaim_end",
    "mm_vmscan_memcg_reclaim_begin",
    "mm_vmscan_memcg_reclaim_end",
    "mm_vmscan_memcg_softlimit_reclaim_begin",
    "mm_vmscan_memcg_softlimit_reclaim_end",
    "mm_vmscan_node_reclaim_begin",
    "mm_vmscan_node_reclaim_end",
    "mm_vmscan_lru_shrink_inactive",
    "mm_compaction_begin",
    "mm_compaction_end",
    "mm_compaction_try_to_compact_pages",
    "mm_shrink_slab_start",
    "mm_shrink_slab_end",
    "mm_vmscan_write_folio",
    "mm_vmscan_throttled",
    "mm_compaction_migratepages",
    "mm_vmscan_kswapd_wake",
    "mm_vmscan_kswapd_sleep",
    "mm_vmscan_wakeup_kswapd",
    "mm_compaction_kcompactd_wake",
    "mm_compaction_kcompactd_sleep",
    "mm_compaction_finished",
    "mm_compaction_isolate_migratepages",
};

constexpr std::uint32_t bit(Ev e) {
  return 1U << e;
}

enum Fn : std::uint8_t {
  kAlloc,
  kTryToFreePages,
  kTryToFreeMemcg,
  kShrinkNode,
  kShrinkLruvec,
  kShrinkInactiveList,
  kTryToCompact,
  kCompactZone,
  // Traced by the default profile but bound to nothing: their returns print
  // alone when over the threshold.
  kShrinkSlab,
  kShrinkActiveList,
  kSoftLimitReclaim,
  kFnCount,
};

// Graph mode: the tracepoints each function's over-threshold return claims
// (configs/default.yaml's bindings). The allocator, shrink_node, shrink_slab,
// shrink_active_list and the soft limit reclaim claim none. A reclaim claims
// the LRU scans, writes and throttles its inner calls were too quick to print.
inline constexpr std::uint32_t kScan = bit(kLruInactive) | bit(kWriteFolio) | bit(kThrottled);
inline constexpr std::uint32_t kBinding[kFnCount] = {
    0,
    bit(kDirectBegin) | bit(kDirectEnd) | kScan,
    bit(kMemcgBegin) | bit(kMemcgEnd) | kScan,
    0,
    kScan,
    kScan,
    bit(kTryCompact),
    bit(kCompactBegin) | bit(kCompactEnd) | bit(kMigratePages),
    0,
    0,
    0,
};

// Spans made of a begin and an end tracepoint of the same task.
struct Pair {
  Ev begin;
  Ev end;
  std::uint32_t claims;
  bool shrinker; // matched by shrinker instance too; feeds the shrinker report
  bool in_graph; // also a span in graph mode (else events mode only)
};

inline constexpr Pair kPairs[] = {
    {kDirectBegin, kDirectEnd, kScan, false, false},
    {kMemcgBegin, kMemcgEnd, kScan, false, false},
    {kSoftBegin, kSoftEnd, kScan, false, false},
    {kNodeBegin, kNodeEnd, kScan, false, false},
    {kCompactBegin, kCompactEnd, bit(kMigratePages), false, false},
    {kSlabStart, kSlabEnd, 0, true, true},
};
inline constexpr std::size_t kPairCount = std::size(kPairs);

constexpr std::uint32_t claimable(Format format) {
  std::uint32_t mask = 0;
  if (format == Format::Graph) {
    for (std::uint32_t m : kBinding)
      mask |= m;
  }
  for (const Pair& p : kPairs) {
    if (format == Format::Events || p.in_graph)
      mask |= p.claims;
  }
  return mask;
}

// The names one kernel generation gives the traced functions.
struct Era {
  std::string_view alloc;
  std::string_view lruvec;
  std::string_view soft_limit;
  bool inactive_list_traced; // shrink_inactive_list not yet inlined
  bool old_direct_begin;     // "order may_writepage gfp_flags classzone_idx" (< 5.2)
  std::string_view super_offset;
};

inline constexpr Era kEras[] = {
    {"__alloc_pages_nodemask", "shrink_node_memcg", "mem_cgroup_soft_limit_reclaim", true, true,
     "+0x0/0x1e0"},
    {"__alloc_pages", "shrink_lruvec", "mem_cgroup_soft_limit_reclaim", false, false, "+0x0/0x1f0"},
    {"__alloc_pages_noprof", "evict_folios", "mem_cgroup_soft_limit_reclaim", false, false,
     "+0x0/0x210"},
    {"__alloc_frozen_pages_noprof", "shrink_lruvec", "memcg1_soft_limit_reclaim", false, false,
     "+0x0/0x210"},
};

struct Shrinker {
  std::string symbol;   // "super_cache_scan"
  std::string instance; // "00000000ce7941b5"
  std::string text;     // "super_cache_scan+0x0/0x210 00000000ce7941b5"
};

struct World {
  Format format = Format::Graph;
  Nanos max_span = 0; // --max-span-us: 0, no limit
  bool no_span = false;
  Nanos threshold = 0;     // allocwatch's -t
  Nanos kernel_thresh = 0; // graph: the tracing_thresh the trace was "taken" with
  const Era* era = nullptr;
  int cpus = 2;
  std::vector<Shrinker> shrinkers;

  std::string_view fn_name(Fn fn) const {
    switch (fn) {
    case kAlloc:
      return era->alloc;
    case kTryToFreePages:
      return "try_to_free_pages";
    case kTryToFreeMemcg:
      return "try_to_free_mem_cgroup_pages";
    case kShrinkNode:
      return "shrink_node";
    case kShrinkLruvec:
      return era->lruvec;
    case kShrinkInactiveList:
      return "shrink_inactive_list";
    case kTryToCompact:
      return "try_to_compact_pages";
    case kCompactZone:
      return "compact_zone";
    case kShrinkSlab:
      return "shrink_slab";
    case kShrinkActiveList:
      return "shrink_active_list";
    case kSoftLimitReclaim:
      return era->soft_limit;
    case kFnCount:
      break;
    }
    return "?";
  }
};

} // namespace gentrace

// What stalls got for their time, as the kernel's lines inside them say: for
// a task's reclaim stalls of one kind, the orders they were for, the pages
// scanned, reclaimed and written, and how often and how long reclaim was
// throttled; for its compaction stalls, the orders, the pages migrated and
// those that failed, and how each run ended. What
// Documentation/trace/postprocess/trace-vmscan-postprocess.pl prints per
// process ("direct-0=1 direct-9=10", pages scanned, reclaimed, sync and
// async writes), and what it does not (throttling, compaction's yield).
//
// Each line is read through the kernel table's roles and keys
// (kernel/vocabulary.h); the bounds are fixed (at most kOrders orders and
// one counter per compaction status), so that a thousand task rows stay
// small whatever a trace prints.
#pragma once

#include "kernel/vocabulary.h"
#include "util/duration.h"

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

namespace allocwatch {

// The value of the key=value field `key` of a line's fields, if it is a
// positive number; else 0 (absent, negative, not a number, no key).
std::uint64_t positive_field(std::string_view fields, std::string_view key);

// A count of stalls by the order their begin line printed; nullopt: a stall
// whose begin line was not claimed (`?`).
struct OrderCount {
  std::optional<std::int64_t> order;
  std::uint64_t count = 0;
};

// Stalls by order: at most kOrders distinct orders (the kernel's are 0 to
// MAX_PAGE_ORDER, 10 on x86-64), the stalls of any further order counted
// together as other().
class OrderCounts {
public:
  static constexpr std::size_t kOrders = 16;
  void add(std::optional<std::int64_t> order, std::uint64_t count = 1);
  void merge(const OrderCounts& other);
  // By order, the unknown order last.
  const std::vector<OrderCount>& counts() const { return counts_; }
  std::uint64_t other() const { return other_; }
  bool empty() const { return counts_.empty() && other_ == 0; }

private:
  std::vector<OrderCount> counts_;
  std::uint64_t other_ = 0;
};

// What a reclaim stall's lines (and those of the calls inside it that were
// too quick to print their own) add up to: the figures StallStats holds for
// a reclaim stall around them.
struct ReclaimFigures {
  std::uint64_t pages_scanned = 0; // mm_vmscan_lru_shrink_inactive nr_scanned
  Nanos shrinker_time = 0;         // shrink_slab start..end pairs
  std::uint64_t pages_written = 0; // mm_vmscan_write_folio (writepage) lines
  std::uint64_t sync_writes = 0;   // of them, flags RECLAIM_WB_SYNC
  std::uint64_t throttled = 0;     // mm_vmscan_throttled lines
  Nanos throttled_time = 0;        // their usect_delayed
  bool any() const;
  void add(const ReclaimFigures& other);
};

// The figures one line of `event` adds (an LRU scan, a write, a throttle);
// none for a line of another role. Shrinker calls span two lines: the
// caller pairs them.
ReclaimFigures reclaim_figures(const KnownEvent& event, std::string_view fields);

// A compaction stall's own lines: pages migrated and failed, and how it
// ended, by status.
struct CompactionYield {
  std::uint64_t pages_migrated = 0; // mm_compaction_migratepages nr_migrated
  std::uint64_t migrate_failed = 0; // and nr_failed
  // mm_compaction_end's status, by compaction_statuses()' index; then a
  // status no kernel we know of prints; then the stalls of a span that
  // claims the end line whose end line was not claimed (`?`).
  std::array<std::uint64_t, 11> ends{};
  static constexpr std::size_t kOtherEnd = 9;
  static constexpr std::size_t kUnknownEnd = 10;
  bool any() const;
  void add(const CompactionYield& other);
  // Adds what a line of `event` says (a migratepages or end line); false for
  // a line of another role.
  bool read(const KnownEvent& event, std::string_view fields);
};

// A task row's yield: its stalls' orders, and what their reclaims and
// compactions got.
struct StallYield {
  bool reclaim = false;    // the row's stalls are reclaims
  bool compaction = false; // the row's stalls are compactions
  OrderCounts orders;
  ReclaimFigures figures;            // reclaims: what their windows held
  std::uint64_t pages_reclaimed = 0; // reclaims: their end lines' nr_reclaimed
  CompactionYield compacted;         // compactions: their own lines
  void merge(const StallYield& other);
};

} // namespace allocwatch

#include "kernel/vocabulary.h"

#include "util/flat_map.h"

#include <array>

namespace allocwatch {

namespace {

constexpr std::string_view kVmscan = "include/trace/events/vmscan.h";
constexpr std::string_view kCompaction = "include/trace/events/compaction.h";

constexpr std::string_view kReclaimBegin = "order=%d gfp_flags=%s";
constexpr std::string_view kReclaimEnd = "nr_reclaimed=%lu";
constexpr std::string_view kDeferred =
    "node=%d zone=%-8s order=%d order_failed=%d consider=%u limit=%lu";
constexpr std::string_view kIsolate = "range=(0x%lx ~ 0x%lx) nr_scanned=%lu nr_taken=%lu";
constexpr std::string_view kKcompactdWake = "nid=%d order=%d classzone_idx=%-8s";
constexpr std::string_view kSuitable = "node=%d zone=%-8s order=%d ret=%s";

// `printed` is this machine's 6.18 events/*/format; the older names stay so
// that a profile written for an older kernel still loads.
constexpr std::array kEvents{
    KnownEvent{.system = "vmscan",
               .name = "mm_vmscan_kswapd_sleep",
               .printed = "nid=%d",
               .role = EventRole::KswapdSleep,
               .source = kVmscan},
    KnownEvent{.system = "vmscan",
               .name = "mm_vmscan_kswapd_wake",
               .printed = "nid=%d order=%d",
               .role = EventRole::KswapdWake,
               .source = kVmscan},
    KnownEvent{.system = "vmscan",
               .name = "mm_vmscan_wakeup_kswapd",
               .printed = "nid=%d order=%d gfp_flags=%s",
               .source = kVmscan},
    KnownEvent{.system = "vmscan",
               .name = "mm_vmscan_direct_reclaim_begin",
               .printed = kReclaimBegin,
               .role = EventRole::ReclaimBegin,
               .pairs_with = "mm_vmscan_direct_reclaim_end",
               .order_key = "order",
               .gfp_key = "gfp_flags",
               .source = kVmscan,
               .history = "printed order=%d may_writepage=%d gfp_flags=%s classzone_idx=%d "
                          "before 5.2"},
    KnownEvent{.system = "vmscan",
               .name = "mm_vmscan_direct_reclaim_end",
               .printed = kReclaimEnd,
               .role = EventRole::ReclaimEnd,
               .pairs_with = "mm_vmscan_direct_reclaim_begin",
               .pages_key = "nr_reclaimed",
               .source = kVmscan},
    KnownEvent{.system = "vmscan",
               .name = kMemcgReclaimBegin,
               .printed = kReclaimBegin,
               .role = EventRole::ReclaimBegin,
               .pairs_with = "mm_vmscan_memcg_reclaim_end",
               .order_key = "order",
               .gfp_key = "gfp_flags",
               .source = kVmscan},
    KnownEvent{.system = "vmscan",
               .name = "mm_vmscan_memcg_reclaim_end",
               .printed = kReclaimEnd,
               .role = EventRole::ReclaimEnd,
               .pairs_with = "mm_vmscan_memcg_reclaim_begin",
               .pages_key = "nr_reclaimed",
               .source = kVmscan},
    KnownEvent{.system = "vmscan",
               .name = "mm_vmscan_memcg_softlimit_reclaim_begin",
               .printed = kReclaimBegin,
               .role = EventRole::ReclaimBegin,
               .pairs_with = "mm_vmscan_memcg_softlimit_reclaim_end",
               .order_key = "order",
               .gfp_key = "gfp_flags",
               .source = kVmscan},
    KnownEvent{.system = "vmscan",
               .name = "mm_vmscan_memcg_softlimit_reclaim_end",
               .printed = kReclaimEnd,
               .role = EventRole::ReclaimEnd,
               .pairs_with = "mm_vmscan_memcg_softlimit_reclaim_begin",
               .pages_key = "nr_reclaimed",
               .source = kVmscan},
    KnownEvent{.system = "vmscan",
               .name = "mm_vmscan_node_reclaim_begin",
               .printed = "nid=%d order=%d gfp_flags=%s",
               .role = EventRole::ReclaimBegin,
               .pairs_with = "mm_vmscan_node_reclaim_end",
               .order_key = "order",
               .gfp_key = "gfp_flags",
               .source = kVmscan},
    KnownEvent{.system = "vmscan",
               .name = "mm_vmscan_node_reclaim_end",
               .printed = kReclaimEnd,
               .role = EventRole::ReclaimEnd,
               .pairs_with = "mm_vmscan_node_reclaim_begin",
               .pages_key = "nr_reclaimed",
               .source = kVmscan},
    KnownEvent{.system = "vmscan",
               .name = "mm_shrink_slab_start",
               .printed = "%pS %p: nid: %d objects to shrink %ld gfp_flags %s cache items %ld "
                          "delta %lld total_scan %ld priority %d",
               .role = EventRole::ShrinkSlabStart,
               .pairs_with = "mm_shrink_slab_end",
               .source = kVmscan,
               .history = "printed pgs_scanned %ld lru_pgs %ld before 4.16"},
    KnownEvent{.system = "vmscan",
               .name = "mm_shrink_slab_end",
               .printed = "%pS %p: nid: %d unused scan count %ld new scan count %ld total_scan "
                          "%ld last shrinker return val %d",
               .role = EventRole::ShrinkSlabEnd,
               .pairs_with = "mm_shrink_slab_start",
               .source = kVmscan},
    KnownEvent{.system = "vmscan",
               .name = "mm_vmscan_lru_isolate",
               .printed = "classzone=%d order=%d nr_requested=%lu nr_scanned=%lu nr_skipped=%lu "
                          "nr_taken=%lu lru=%s",
               .source = kVmscan},
    KnownEvent{.system = "vmscan",
               .name = "mm_vmscan_lru_shrink_inactive",
               .printed = "nid=%d nr_scanned=%ld nr_reclaimed=%ld nr_dirty=%ld nr_writeback=%ld "
                          "nr_congested=%ld nr_immediate=%ld nr_activate_anon=%d "
                          "nr_activate_file=%d nr_ref_keep=%ld nr_unmap_fail=%ld priority=%d "
                          "flags=%s",
               .role = EventRole::LruShrinkInactive,
               .pages_key = "nr_scanned",
               .reclaimed_key = "nr_reclaimed",
               .source = kVmscan,
               .history = "also emitted by MGLRU's evict_folios (6.1)"},
    KnownEvent{.system = "vmscan",
               .name = "mm_vmscan_lru_shrink_active",
               .printed = "nid=%d nr_taken=%ld nr_active=%ld nr_deactivated=%ld "
                          "nr_referenced=%ld priority=%d flags=%s",
               .source = kVmscan},
    // pageout(): one line per page (a folio from 5.18) that reclaim writes.
    KnownEvent{.system = "vmscan",
               .name = "mm_vmscan_write_folio",
               .printed = "page=%p pfn=0x%lx flags=%s",
               .role = EventRole::ReclaimWrite,
               .flags_key = "flags",
               .source = kVmscan,
               .history = "was mm_vmscan_writepage before 5.18"},
    KnownEvent{.system = "vmscan",
               .name = "mm_vmscan_writepage",
               .role = EventRole::ReclaimWrite,
               .flags_key = "flags", // "page=%p pfn=%lu flags=%s" (5.10)
               .source = kVmscan,
               .history = "renamed mm_vmscan_write_folio in 5.18"},
    // reclaim_throttle(), since 5.16. The kernel prints usec_delayed as
    // "usect_delayed".
    KnownEvent{.system = "vmscan",
               .name = "mm_vmscan_throttled",
               .printed = "nid=%d usec_timeout=%d usect_delayed=%d reason=%s",
               .role = EventRole::ReclaimThrottled,
               .delay_key = "usect_delayed",
               .source = kVmscan,
               .history = "new in 5.16"},
    KnownEvent{.system = "vmscan",
               .name = "mm_vmscan_reclaim_pages",
               .printed = "nid=%d nr_scanned=%ld nr_reclaimed=%ld nr_dirty=%ld nr_writeback=%ld "
                          "nr_congested=%ld nr_immediate=%ld nr_activate_anon=%d "
                          "nr_activate_file=%d nr_ref_keep=%ld nr_unmap_fail=%ld",
               .source = kVmscan},
    KnownEvent{.system = "vmscan",
               .name = "mm_vmscan_memcg_isolate",
               .source = kVmscan,
               .history = "dropped in 4.10"},
    KnownEvent{.system = "vmscan",
               .name = "mm_vmscan_inactive_list_is_low",
               .source = kVmscan,
               .history = "dropped in 5.5"},
    KnownEvent{.system = "compaction",
               .name = "mm_compaction_isolate_migratepages",
               .printed = kIsolate,
               .source = kCompaction},
    KnownEvent{.system = "compaction",
               .name = "mm_compaction_isolate_freepages",
               .printed = kIsolate,
               .source = kCompaction},
    KnownEvent{.system = "compaction",
               .name = "mm_compaction_fast_isolate_freepages",
               .printed = kIsolate,
               .source = kCompaction},
    KnownEvent{.system = "compaction",
               .name = "mm_compaction_migratepages",
               .printed = "nr_migrated=%lu nr_failed=%lu",
               .role = EventRole::CompactMigrate,
               .pages_key = "nr_migrated",
               .failed_key = "nr_failed",
               .source = kCompaction},
    KnownEvent{.system = "compaction",
               .name = "mm_compaction_begin",
               .printed = "zone_start=0x%lx migrate_pfn=0x%lx free_pfn=0x%lx zone_end=0x%lx, "
                          "mode=%s",
               .pairs_with = "mm_compaction_end",
               .source = kCompaction},
    KnownEvent{.system = "compaction",
               .name = "mm_compaction_end",
               .printed = "zone_start=0x%lx migrate_pfn=0x%lx free_pfn=0x%lx zone_end=0x%lx, "
                          "mode=%s status=%s",
               .role = EventRole::CompactEnd,
               .pairs_with = "mm_compaction_begin",
               .status_key = "status",
               .source = kCompaction},
    KnownEvent{.system = "compaction",
               .name = "mm_compaction_try_to_compact_pages",
               .printed = "order=%d gfp_mask=%s priority=%d",
               .role = EventRole::CompactPages,
               .order_key = "order",
               .gfp_key = "gfp_mask",
               .source = kCompaction},
    KnownEvent{.system = "compaction",
               .name = "mm_compaction_finished",
               .printed = kSuitable,
               .source = kCompaction},
    KnownEvent{.system = "compaction",
               .name = "mm_compaction_suitable",
               .printed = kSuitable,
               .source = kCompaction},
    KnownEvent{.system = "compaction",
               .name = "mm_compaction_deferred",
               .printed = kDeferred,
               .source = kCompaction},
    KnownEvent{.system = "compaction",
               .name = "mm_compaction_defer_compaction",
               .printed = kDeferred,
               .source = kCompaction},
    KnownEvent{.system = "compaction",
               .name = "mm_compaction_defer_reset",
               .printed = kDeferred,
               .source = kCompaction},
    KnownEvent{.system = "compaction",
               .name = "mm_compaction_kcompactd_sleep",
               .printed = "nid=%d",
               .role = EventRole::KcompactdSleep,
               .source = kCompaction},
    KnownEvent{.system = "compaction",
               .name = "mm_compaction_wakeup_kcompactd",
               .printed = kKcompactdWake,
               .source = kCompaction},
    KnownEvent{.system = "compaction",
               .name = "mm_compaction_kcompactd_wake",
               .printed = kKcompactdWake,
               .role = EventRole::KcompactdWake,
               .source = kCompaction},
};

constexpr std::array<std::string_view, 9> kCompactionStatuses = {
    "not_suitable_zone", "skipped",         "deferred",  "no_suitable_page", "continue",
    "complete",          "partial_skipped", "contended", "success",
};

constexpr std::array<ShrinkSlabPhrase, 12> kShrinkSlabPhrases = {{
    {"nid:", "nid"},
    {"objects to shrink", "nr_objects_to_shrink"},
    {"gfp_flags", "gfp_flags"},
    {"pgs_scanned", "pgs_scanned"},
    {"lru_pgs", "lru_pgs"},
    {"cache items", "cache_items"},
    {"delta", "delta"},
    {"total_scan", "total_scan"},
    {"priority", "priority"},
    {"unused scan count", "unused_scan"},
    {"new scan count", "new_scan"},
    {"last shrinker return val", "retval"},
}};

// The events by name: looked up for every tracepoint a report reads.
const NameTable<const KnownEvent>& events_by_name() {
  static const NameTable<const KnownEvent> table = [] {
    NameTable<const KnownEvent> by_name;
    for (const KnownEvent& event : kEvents)
      by_name.insert(event.name, &event);
    return by_name;
  }();
  return table;
}

} // namespace

std::span<const KnownEvent> known_events() {
  return kEvents;
}

const KnownEvent* known_event(std::string_view name) {
  return events_by_name().find(name);
}

std::string_view known_event_system(std::string_view name) {
  const KnownEvent* event = known_event(name);
  return event != nullptr ? event->system : std::string_view{};
}

bool is_known_event_system(std::string_view system) {
  for (const KnownEvent& event : kEvents)
    if (event.system == system)
      return true;
  return false;
}

std::vector<std::string_view> read_keys(const KnownEvent& event) {
  std::vector<std::string_view> keys;
  for (const std::string_view key :
       {event.order_key, event.gfp_key, event.pages_key, event.reclaimed_key, event.failed_key,
        event.flags_key, event.delay_key, event.status_key})
    if (!key.empty())
      keys.push_back(key);
  return keys;
}

const KnownEvent& event_of_role(EventRole role) {
  for (const KnownEvent& event : kEvents)
    if (event.role == role)
      return event;
  return kEvents.front(); // None: every event but those above
}

EventRole event_role(std::string_view name) {
  const KnownEvent* event = known_event(name);
  return event != nullptr ? event->role : EventRole::None;
}

std::span<const std::string_view> compaction_statuses() {
  return kCompactionStatuses;
}

bool is_sync_write(std::string_view flags) {
  return flags.find("RECLAIM_WB_SYNC") != std::string_view::npos;
}

std::span<const ShrinkSlabPhrase> shrink_slab_phrases() {
  return kShrinkSlabPhrases;
}

} // namespace allocwatch

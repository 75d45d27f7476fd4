#include "profile/known_events.h"

#include <array>

namespace allocwatch {

namespace {

// From include/trace/events/{vmscan,compaction}.h and this machine's
// available_events (6.18). Older names stay so that a profile written for an
// older kernel still loads: mm_vmscan_writepage became mm_vmscan_write_folio,
// mm_vmscan_memcg_isolate was dropped in 4.10, mm_vmscan_inactive_list_is_low
// in 5.5.
constexpr std::array kEvents{
    KnownEvent{"vmscan", "mm_vmscan_kswapd_sleep"},
    KnownEvent{"vmscan", "mm_vmscan_kswapd_wake"},
    KnownEvent{"vmscan", "mm_vmscan_wakeup_kswapd"},
    KnownEvent{"vmscan", "mm_vmscan_direct_reclaim_begin"},
    KnownEvent{"vmscan", "mm_vmscan_direct_reclaim_end"},
    KnownEvent{"vmscan", "mm_vmscan_memcg_reclaim_begin"},
    KnownEvent{"vmscan", "mm_vmscan_memcg_reclaim_end"},
    KnownEvent{"vmscan", "mm_vmscan_memcg_softlimit_reclaim_begin"},
    KnownEvent{"vmscan", "mm_vmscan_memcg_softlimit_reclaim_end"},
    KnownEvent{"vmscan", "mm_vmscan_node_reclaim_begin"},
    KnownEvent{"vmscan", "mm_vmscan_node_reclaim_end"},
    KnownEvent{"vmscan", "mm_shrink_slab_start"},
    KnownEvent{"vmscan", "mm_shrink_slab_end"},
    KnownEvent{"vmscan", "mm_vmscan_lru_isolate"},
    KnownEvent{"vmscan", "mm_vmscan_lru_shrink_inactive"},
    KnownEvent{"vmscan", "mm_vmscan_lru_shrink_active"},
    KnownEvent{"vmscan", "mm_vmscan_write_folio"},
    KnownEvent{"vmscan", "mm_vmscan_writepage"},
    KnownEvent{"vmscan", "mm_vmscan_throttled"},
    KnownEvent{"vmscan", "mm_vmscan_reclaim_pages"},
    KnownEvent{"vmscan", "mm_vmscan_memcg_isolate"},
    KnownEvent{"vmscan", "mm_vmscan_inactive_list_is_low"},
    KnownEvent{"compaction", "mm_compaction_isolate_migratepages"},
    KnownEvent{"compaction", "mm_compaction_isolate_freepages"},
    KnownEvent{"compaction", "mm_compaction_fast_isolate_freepages"},
    KnownEvent{"compaction", "mm_compaction_migratepages"},
    KnownEvent{"compaction", "mm_compaction_begin"},
    KnownEvent{"compaction", "mm_compaction_end"},
    KnownEvent{"compaction", "mm_compaction_try_to_compact_pages"},
    KnownEvent{"compaction", "mm_compaction_finished"},
    KnownEvent{"compaction", "mm_compaction_suitable"},
    KnownEvent{"compaction", "mm_compaction_deferred"},
    KnownEvent{"compaction", "mm_compaction_defer_compaction"},
    KnownEvent{"compaction", "mm_compaction_defer_reset"},
    KnownEvent{"compaction", "mm_compaction_kcompactd_sleep"},
    KnownEvent{"compaction", "mm_compaction_wakeup_kcompactd"},
    KnownEvent{"compaction", "mm_compaction_kcompactd_wake"},
};

} // namespace

std::span<const KnownEvent> known_events() {
  return kEvents;
}

std::string_view known_event_system(std::string_view name) {
  for (const KnownEvent& event : kEvents)
    if (event.name == name)
      return event.system;
  return {};
}

} // namespace allocwatch

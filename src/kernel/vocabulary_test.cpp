#include "kernel/vocabulary.h"

#include <doctest/doctest.h>
#include <set>
#include <string>
#include <vector>

using namespace allocwatch;

TEST_CASE("kernel vocabulary: each event once, found by its name, citing its system's header") {
  std::set<std::string_view> names;
  for (const KnownEvent& event : known_events()) {
    CAPTURE(event.name);
    CHECK(names.insert(event.name).second);
    CHECK(known_event(event.name) == &event);
    CHECK(known_event_system(event.name) == event.system);
    CHECK(is_known_event_system(event.system));
    CHECK(event.source == "include/trace/events/" + std::string(event.system) + ".h");
    CHECK((!event.printed.empty() || !event.history.empty()));
  }
  CHECK(known_event("mm_page_alloc") == nullptr);
  CHECK(known_event("") == nullptr);
  CHECK(event_role("mm_page_alloc") == EventRole::None);
  CHECK_FALSE(is_known_event_system("kmem"));
}

TEST_CASE("kernel vocabulary: pairs name each other, and what is read is printed") {
  for (const KnownEvent& event : known_events()) {
    CAPTURE(event.name);
    if (!event.pairs_with.empty()) {
      const KnownEvent* other = known_event(event.pairs_with);
      REQUIRE(other != nullptr);
      CHECK(other->pairs_with == event.name);
      CHECK(other->system == event.system);
    }
    // An event 6.18 no longer has (printed empty) says what it printed in
    // its history.
    for (const std::string_view key : read_keys(event))
      if (!event.printed.empty())
        CHECK(event.printed.find(std::string(key) + "=") != std::string_view::npos);
  }
  CHECK(event_role("mm_vmscan_memcg_reclaim_begin") == EventRole::ReclaimBegin);
  CHECK(event_role("mm_vmscan_node_reclaim_end") == EventRole::ReclaimEnd);
  CHECK(event_role("mm_vmscan_lru_shrink_inactive") == EventRole::LruShrinkInactive);
  CHECK(event_role("mm_compaction_try_to_compact_pages") == EventRole::CompactPages);
  CHECK(event_role("mm_vmscan_write_folio") == EventRole::ReclaimWrite);
  CHECK(event_role("mm_vmscan_writepage") == EventRole::ReclaimWrite);
  CHECK(event_role("mm_vmscan_throttled") == EventRole::ReclaimThrottled);
  CHECK(event_role("mm_compaction_migratepages") == EventRole::CompactMigrate);
  CHECK(event_role("mm_compaction_end") == EventRole::CompactEnd);
  CHECK(read_keys(*known_event("mm_compaction_migratepages")) ==
        std::vector<std::string_view>{"nr_migrated", "nr_failed"});
  // The kernel's own spelling of usec_delayed.
  CHECK(read_keys(*known_event("mm_vmscan_throttled")) ==
        std::vector<std::string_view>{"usect_delayed"});
  CHECK(event_of_role(EventRole::ShrinkSlabStart).name == "mm_shrink_slab_start");
  CHECK(event_of_role(EventRole::ShrinkSlabEnd).name == "mm_shrink_slab_end");
}

TEST_CASE("kernel vocabulary: compaction statuses and reclaim's write flags") {
  // The nine of COMPACTION_STATUS, as 6.18's mm_compaction_end/format prints
  // them: {1, "skipped"}, {2, "deferred"}, ... {0, "not_suitable_zone"}.
  const std::set<std::string_view> statuses(compaction_statuses().begin(),
                                            compaction_statuses().end());
  CHECK(statuses == std::set<std::string_view>{"skipped", "deferred", "continue", "success",
                                               "partial_skipped", "complete", "no_suitable_page",
                                               "not_suitable_zone", "contended"});
  CHECK(compaction_statuses().front() == "not_suitable_zone"); // 0
  CHECK(compaction_statuses().back() == "success");            // 8
  CHECK(is_sync_write("RECLAIM_WB_FILE|RECLAIM_WB_SYNC"));
  CHECK_FALSE(is_sync_write("RECLAIM_WB_FILE|RECLAIM_WB_ASYNC"));
  CHECK_FALSE(is_sync_write("RECLAIM_WB_NONE"));
}

TEST_CASE("kernel vocabulary: the shrink_slab phrases are those start and end print") {
  const std::string printed = std::string(event_of_role(EventRole::ShrinkSlabStart).printed) + " " +
                              std::string(event_of_role(EventRole::ShrinkSlabEnd).printed);
  for (const ShrinkSlabPhrase& phrase : shrink_slab_phrases()) {
    CAPTURE(phrase.text);
    // pgs_scanned and lru_pgs: printed before 4.16 only.
    if (phrase.key != "pgs_scanned" && phrase.key != "lru_pgs")
      CHECK(printed.find(std::string(phrase.text) + " %") != std::string::npos);
  }
}

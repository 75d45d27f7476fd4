#include "kernel/vocabulary.h"

#include <doctest/doctest.h>
#include <set>
#include <string>

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
    for (const std::string_view key : {event.order_key, event.gfp_key, event.pages_key})
      if (!key.empty())
        CHECK(event.printed.find(std::string(key) + "=") != std::string_view::npos);
  }
  CHECK(event_role("mm_vmscan_memcg_reclaim_begin") == EventRole::ReclaimBegin);
  CHECK(event_role("mm_vmscan_node_reclaim_end") == EventRole::ReclaimEnd);
  CHECK(event_role("mm_vmscan_lru_shrink_inactive") == EventRole::LruShrinkInactive);
  CHECK(event_role("mm_compaction_try_to_compact_pages") == EventRole::CompactPages);
  CHECK(event_of_role(EventRole::ShrinkSlabStart).name == "mm_shrink_slab_start");
  CHECK(event_of_role(EventRole::ShrinkSlabEnd).name == "mm_shrink_slab_end");
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

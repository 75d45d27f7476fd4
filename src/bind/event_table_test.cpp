#include "bind/event_table.h"

#include <doctest/doctest.h>
#include <string>
#include <vector>

using namespace allocwatch;

TEST_CASE("event names are equal exactly when their bytes are, at every length") {
  for (std::size_t n = 0; n <= 40; ++n) {
    const std::string a(n, 'm');
    std::string b = a;
    CHECK(EventName{a} == EventName{b});
    CHECK(EventNameHash{}(EventName{a}) == EventNameHash{}(EventName{b}));
    for (std::size_t i = 0; i < n; ++i) { // one byte differs, wherever it is
      b[i] = 'x';
      CHECK_FALSE(EventName{a} == EventName{b});
      b[i] = 'm';
    }
    CHECK_FALSE(EventName{a} == EventName{a + "m"});
  }
}

TEST_CASE("the event table finds every known name and nothing else") {
  const std::vector<std::string> names = {"mm_shrink_slab_start",
                                          "mm_shrink_slab_end",
                                          "mm_vmscan_direct_reclaim_begin",
                                          "mm_vmscan_direct_reclaim_end",
                                          "mm_vmscan_memcg_reclaim_begin",
                                          "mm_vmscan_memcg_reclaim_end",
                                          "mm_vmscan_node_reclaim_begin",
                                          "mm_vmscan_lru_shrink_inactive",
                                          "mm_compaction_begin",
                                          "mm_compaction_end",
                                          "a",
                                          ""};
  std::vector<int> values(names.size());
  EventTable<int> table;
  for (std::size_t i = 0; i < names.size(); ++i)
    table.insert(EventName{names[i]}, &values[i]);
  for (std::size_t i = 0; i < names.size(); ++i) {
    const std::string copy = names[i]; // other bytes, same text
    CHECK(table.find(EventName{copy}) == &values[i]);
  }
  CHECK(table.find(EventName{"mm_shrink_slab_stare"}) == nullptr);
  CHECK(table.find(EventName{"mm_vmscan_memcg_reclaim_begiN"}) == nullptr);
  CHECK(table.find(EventName{"b"}) == nullptr);
  CHECK(table.find(EventName{"mm_compaction_begin "}) == nullptr);
}

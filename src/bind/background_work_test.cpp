#include "bind/background_work.h"

#include <doctest/doctest.h>

using namespace allocwatch;

TEST_CASE("background work: runs from wake to sleep, re-wakes, pages, one row per pid") {
  BackgroundWork work;
  constexpr Nanos ms = kMilli;
  work.add(44, "kswapd0", EventRole::KswapdSleep, "nid=0", 1 * ms); // its wake came before
  work.add(44, "kswapd0", EventRole::KswapdWake, "nid=0 order=0", 10 * ms);
  work.add(44, "<...>", EventRole::LruShrinkInactive, "nid=0 nr_scanned=44890 nr_reclaimed=1",
           11 * ms);
  work.add(44, "kswapd0", EventRole::KswapdWake, "nid=0 order=3", 12 * ms);
  work.add(44, "kswapd0", EventRole::LruShrinkInactive, "nid=0 nr_scanned=11 nr_reclaimed=11",
           13 * ms);
  work.add(44, "kswapd0", EventRole::KswapdSleep, "nid=0", 20 * ms);
  work.add(44, "kswapd0", EventRole::KswapdWake, "nid=0 order=0", 30 * ms); // still running
  work.add(35, "kcompactd0", EventRole::KcompactdSleep, "nid=0", 5 * ms);
  const auto& tasks = work.tasks();
  REQUIRE(tasks.size() == 2);
  CHECK(tasks[0].pid == 35);
  CHECK(tasks[0].wakes == 0);
  CHECK(tasks[0].awake == 0);
  CHECK(tasks[1].comm == "kswapd0"); // not the kernel's "<...>"
  CHECK(tasks[1].wakes == 3);
  CHECK(tasks[1].rewakes == 1);
  CHECK(tasks[1].awake == 10 * ms);
  CHECK(tasks[1].pages_scanned == 44901);
  CHECK(tasks[1].pages_reclaimed == 12);
}

TEST_CASE("background work: the events it counts are those of its roles") {
  CHECK(BackgroundWork::counts(event_role("mm_vmscan_kswapd_wake")));
  CHECK(BackgroundWork::counts(event_role("mm_compaction_kcompactd_sleep")));
  CHECK(BackgroundWork::counts(event_role("mm_vmscan_lru_shrink_inactive")));
  CHECK_FALSE(BackgroundWork::counts(event_role("mm_vmscan_wakeup_kswapd")));
  CHECK_FALSE(BackgroundWork::counts(event_role("mm_vmscan_direct_reclaim_end")));
}

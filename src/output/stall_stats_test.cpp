#include "output/stall_stats.h"
#include "tracepoints.h"

#include <algorithm>
#include <doctest/doctest.h>
#include <set>
#include <string>
#include <tuple>
#include <vector>

using namespace allocwatch;

namespace {

constexpr Nanos us = kMicro;
constexpr Nanos ms = kMilli;

// Feeds incidents as the binder makes them (lines in output order, the
// span's own line last) and keeps their lines alive.
struct Feed {
  StallStats stats;
  explicit Feed(StallStats::Limits limits = {}, const StallSpans& spans = {})
      : stats(limits, spans) {}

  void span(std::string_view span, std::string_view kind, std::int32_t pid, std::string_view comm,
            Nanos start, Nanos end, std::vector<std::string> lines = {"} /* x */"},
            bool background = false) {
    std::vector<std::string_view> views(lines.begin(), lines.end());
    const std::vector<Tracepoint> tracepoints = tracepoints_of_lines(views);
    stats.incident(Incident{span, kind, background, pid, comm, start, end, views, tracepoints});
  }
};

// A graph event line of `comm`-`pid` at `ts` ns.
std::string event(std::int32_t pid, Nanos ts, std::string_view name, std::string_view fields) {
  char stamp[32];
  std::snprintf(stamp, sizeof stamp, "%5lld.%06lld", static_cast<long long>(ts / kSecond),
                static_cast<long long>(ts % kSecond / kMicro));
  return std::string(stamp) + " |   1)   memhog-" + std::to_string(pid) +
         "   |               |  /* " + std::string(name) + ": " + std::string(fields) + " */";
}

std::string return_line(std::string_view function) {
  return "  1.000000 |   1)   memhog-170   | ! 100.000 us  |  } /* " + std::string(function) +
         " */";
}

} // namespace

TEST_CASE("stall stats: a row per task, kind and span, largest total first") {
  Feed f;
  f.span("__alloc_pages", "allocation", 170, "memhog", 0, 2 * ms);
  f.span("__alloc_pages", "allocation", 170, "memhog", 10 * ms, 13 * ms);
  f.span("try_to_free_pages", "direct reclaim", 170, "memhog", 20 * ms, 21 * ms);
  f.span("__alloc_pages", "allocation", 160, "dd", 0, 9 * ms);
  f.span("shrink_node", "", 160, "dd", 0, 8 * ms); // not a stall: no row
  const auto rows = f.stats.rows(StallTable::Tasks);
  REQUIRE(rows.size() == 3);
  CHECK(rows[0]->comm == "dd");
  CHECK(rows[0]->durations.total() == 9 * ms);
  CHECK(rows[1]->comm == "memhog");
  CHECK(rows[1]->kind == "allocation");
  CHECK(rows[1]->span == "__alloc_pages");
  CHECK(rows[1]->durations.count() == 2);
  CHECK(rows[1]->durations.total() == 5 * ms);
  CHECK(rows[1]->durations.max() == 3 * ms);
  CHECK(rows[1]->durations.percentile(99) == 3 * ms);
  CHECK(rows[2]->kind == "direct reclaim");
  CHECK(f.stats.rows(StallTable::Background).empty());
  CHECK(f.stats.stalls() == 4);
  REQUIRE(f.stats.worst());
  CHECK(f.stats.worst()->comm == "dd");
  CHECK(f.stats.worst()->pid == 160);
  CHECK(f.stats.worst()->duration == 9 * ms);
}

TEST_CASE("stall stats: a pid is one task, named by its newest comm (after exec)") {
  Feed f;
  f.span("__alloc_pages", "allocation", 171, "init", 0, 1 * ms);
  f.span("try_to_free_pages", "direct reclaim", 171, "init", 0, 1 * ms);
  f.span("__alloc_pages", "allocation", 171, "memhog", 5 * ms, 7 * ms);
  const auto rows = f.stats.rows(StallTable::Tasks);
  REQUIRE(rows.size() == 2);
  CHECK(rows[0]->comm == "memhog");
  CHECK(rows[0]->durations.count() == 2);
  CHECK(rows[1]->comm == "memhog"); // every row of the pid
}

TEST_CASE("stall stats: lines printed as <...> belong to their pid's task and name") {
  Feed f;
  // The kernel had not saved the comm yet: `<...>` first, then its name.
  f.span("__alloc_pages", "allocation", 179, "<...>", 0, 1 * ms);
  f.span("__alloc_pages", "allocation", 179, "dd", 2 * ms, 4 * ms);
  f.span("__alloc_pages", "allocation", 179, "<...>", 5 * ms, 6 * ms);
  // A new row of the task while its lines print `<...>`: the task's name.
  f.span("try_to_free_pages", "direct reclaim", 179, "<...>", 5 * ms, 6 * ms);
  // A pid seen only as `<...>` keeps it.
  f.span("__alloc_pages", "allocation", 156, "<...>", 0, 1 * ms);
  const auto rows = f.stats.rows(StallTable::Tasks);
  REQUIRE(rows.size() == 3);
  CHECK(rows[0]->comm == "dd");
  CHECK(rows[0]->durations.count() == 3);
  // Equal totals: by comm, "<...>" first.
  CHECK(rows[1]->comm == "<...>");
  CHECK(rows[1]->pid == 156);
  CHECK(rows[2]->comm == "dd");
  CHECK(rows[2]->kind == "direct reclaim");
  REQUIRE(f.stats.worst());
  CHECK(f.stats.worst()->comm == "dd");
}

TEST_CASE("stall stats: background work has its own rows, and nothing else") {
  Feed f;
  f.span("shrink_slab", "shrinker", 44, "kswapd0", 0, 5 * ms, {"x"}, true);
  f.span("shrink_slab", "shrinker", 44, "kswapd0", 10 * ms, 12 * ms, {"x"}, true);
  f.span("shrink_node", "", 44, "kswapd0", 0, 20 * ms, {"x"}, true);
  const auto background = f.stats.rows(StallTable::Background);
  REQUIRE(background.size() == 1);
  CHECK(background[0]->background);
  CHECK(background[0]->durations.count() == 2);
  CHECK(f.stats.rows(StallTable::Tasks).empty());
  CHECK(f.stats.histograms().empty());
  CHECK(f.stats.stalls() == 0);
  CHECK_FALSE(f.stats.worst());
}

TEST_CASE("stall stats: spans without timestamps are not counted") {
  Feed f;
  f.span("__alloc_pages", "allocation", 1, "a", -1, -1);
  CHECK(f.stats.rows(StallTable::Tasks).empty());
  CHECK(f.stats.stalls() == 0);
}

TEST_CASE("stall stats: one histogram per kind of task stalls, largest total first") {
  Feed f;
  f.span("a", "allocation", 1, "a", 0, 150 * us);
  f.span("a", "allocation", 1, "a", 0, 130 * us);
  f.span("a", "allocation", 2, "b", 0, 5 * ms);
  f.span("t", "direct reclaim", 2, "b", 0, 300 * us);
  const auto histograms = f.stats.histograms();
  REQUIRE(histograms.size() == 2);
  CHECK(histograms[0]->kind == "allocation");
  CHECK(histograms[0]->histogram.count() == 3);
  CHECK(histograms[0]->histogram[8] == 2); // [128, 256) us
  CHECK(histograms[0]->histogram[13] == 1);
  CHECK(histograms[1]->kind == "direct reclaim");
  CHECK(histograms[1]->histogram[9] == 1);
}

TEST_CASE("stall stats: rows stay bounded; the smallest task is folded into 'other tasks'") {
  Feed f(StallStats::Limits{.task_rows = 3});
  f.span("a", "allocation", 1, "big", 0, 50 * ms);
  f.span("a", "allocation", 2, "small", 0, 1 * ms);
  f.span("a", "allocation", 3, "mid", 0, 20 * ms);
  // A fourth task: the smallest (2) is folded away.
  f.span("a", "allocation", 4, "new", 0, 2 * ms);
  auto rows = f.stats.rows(StallTable::Tasks);
  REQUIRE(rows.size() == 4);
  CHECK(rows[0]->pid == 1);
  CHECK(rows[1]->pid == 3);
  CHECK(rows[2]->pid == 4);
  CHECK(rows[3]->other);
  CHECK(rows[3]->durations.total() == 1 * ms);
  CHECK(f.stats.folded_rows() == 1);
  // The folded task stalls again: a new row, made room for by folding the
  // smallest (4, 2 ms) into the same "other tasks" row.
  f.span("a", "allocation", 2, "small", 0, 7 * ms);
  rows = f.stats.rows(StallTable::Tasks);
  REQUIRE(rows.size() == 4);
  CHECK(rows[2]->pid == 2);
  CHECK(rows[3]->other);
  CHECK(rows[3]->durations.count() == 2);
  CHECK(rows[3]->durations.total() == 3 * ms);
  // Whatever was folded, the totals per kind are exact.
  Nanos total = 0;
  std::uint64_t count = 0;
  for (const StallRow* row : rows) {
    total += row->durations.total();
    count += row->durations.count();
  }
  CHECK(total == 80 * ms);
  CHECK(count == 5);
  CHECK(f.stats.histograms()[0]->histogram.count() == 5);
}

TEST_CASE("stall stats: many tasks, bounded rows") {
  Feed f(StallStats::Limits{.task_rows = 100});
  for (int pid = 1; pid <= 5000; ++pid)
    f.span("a", "allocation", pid, "t", 0, pid * us);
  const auto rows = f.stats.rows(StallTable::Tasks);
  // Folded an eighth at a time: between 88 and 100 task rows, and one other.
  REQUIRE(rows.size() >= 89);
  REQUIRE(rows.size() <= 101);
  // The largest tasks came last, and were never folded.
  for (std::size_t i = 0; i + 1 < rows.size(); ++i)
    CHECK(rows[i]->pid == 5000 - static_cast<int>(i));
  CHECK(rows.back()->other);
  CHECK(rows.back()->durations.count() == 5000 - (rows.size() - 1));
  Nanos total = 0;
  for (const StallRow* row : rows)
    total += row->durations.total();
  CHECK(total == Nanos{5000} * 5001 / 2 * us);
  CHECK(f.stats.folded_rows() == 5000 - (rows.size() - 1));
}

TEST_CASE("stall stats: reclaim and compaction stalls by order and gfp flags") {
  Feed f;
  f.span("try_to_free_pages", "direct reclaim", 170, "memhog", 1 * ms, 3 * ms,
         {event(170, 1 * ms, "mm_vmscan_direct_reclaim_begin",
                "order=0 gfp_flags=GFP_HIGHUSER_MOVABLE|__GFP_COMP"),
          event(170, 3 * ms, "mm_vmscan_direct_reclaim_end", "nr_reclaimed=34"),
          return_line("try_to_free_pages")});
  f.span("try_to_free_pages", "direct reclaim", 170, "memhog", 5 * ms, 10 * ms,
         {event(170, 5 * ms, "mm_vmscan_direct_reclaim_begin",
                "order=0 gfp_flags=GFP_HIGHUSER_MOVABLE|__GFP_COMP"),
          return_line("try_to_free_pages")});
  f.span("try_to_compact_pages", "direct compaction", 170, "memhog", 20 * ms, 21 * ms,
         {event(170, 20 * ms, "mm_compaction_try_to_compact_pages",
                "order=9 gfp_mask=GFP_TRANSHUGE priority=2"),
          return_line("try_to_compact_pages")});
  // No begin line printed, and no profile to say try_to_free_pages prints
  // one: not in this table.
  f.span("try_to_free_pages", "direct reclaim", 170, "memhog", 30 * ms, 40 * ms);
  const auto orders = f.stats.order_rows();
  REQUIRE(orders.size() == 2);
  CHECK(orders[0]->kind == "direct reclaim");
  CHECK(orders[0]->order == 0);
  CHECK(orders[0]->gfp_flags == "GFP_HIGHUSER_MOVABLE|__GFP_COMP");
  CHECK(orders[0]->count == 2);
  CHECK(orders[0]->total == 7 * ms);
  CHECK(orders[0]->max == 5 * ms);
  CHECK(orders[1]->kind == "direct compaction");
  CHECK(orders[1]->order == 9);
  CHECK(orders[1]->gfp_flags == "GFP_TRANSHUGE");
}

TEST_CASE("stall stats: a stall whose begin or end was not claimed counts in every table") {
  Profile profile;
  profile.functions = {{{"try_to_free_pages"}, {}},
                       {{"__alloc_pages_noprof", "__alloc_pages"}, {}}};
  profile.bindings = {{{"try_to_free_pages"},
                       {"mm_vmscan_direct_reclaim_begin", "mm_vmscan_direct_reclaim_end"},
                       {}},
                      {{"__alloc_pages"}, {"mm_compaction_try_to_compact_pages"}, {}}};
  profile.pairs = {{"compaction", "mm_compaction_begin", "mm_compaction_end", {}, false, {}, {}}};
  const StallSpans spans = stall_spans(profile);
  CHECK(spans.reclaim == std::vector<std::string>{"try_to_free_pages"});
  // Every kernel name of a bound function.
  CHECK(spans.ordered ==
        std::vector<std::string>{"try_to_free_pages", "__alloc_pages_noprof", "__alloc_pages"});

  Feed f({}, spans);
  f.span("try_to_free_pages", "direct reclaim", 170, "memhog", 1 * ms, 3 * ms,
         {event(170, 1 * ms, "mm_vmscan_direct_reclaim_begin", "order=0 gfp_flags=GFP_KERNEL"),
          event(170, 3 * ms, "mm_vmscan_direct_reclaim_end", "nr_reclaimed=34"),
          return_line("try_to_free_pages")});
  // Its return came late: the begin lies before the computed start.
  f.span("try_to_free_pages", "direct reclaim", 170, "memhog", 5 * ms, 6 * ms,
         {event(170, 6 * ms, "mm_vmscan_direct_reclaim_end", "nr_reclaimed=2"),
          return_line("try_to_free_pages")});
  // Later still: neither line claimed.
  f.span("try_to_free_pages", "direct reclaim", 170, "memhog", 8 * ms, 12 * ms);
  f.span("compaction", "compaction", 170, "memhog", 20 * ms, 30 * ms);

  const auto orders = f.stats.order_rows();
  REQUIRE(orders.size() == 2);
  CHECK(orders[0]->kind == "direct reclaim");
  CHECK(!orders[0]->order); // `?`
  CHECK(orders[0]->count == 2);
  CHECK(orders[0]->total == 5 * ms);
  CHECK(orders[1]->order == 0);
  CHECK(orders[1]->count == 1);
  const auto reclaim = f.stats.reclaim();
  REQUIRE(reclaim.size() == 1);
  CHECK(reclaim[0].count == 3);
  CHECK(reclaim[0].total == 7 * ms);
  CHECK(reclaim[0].pages_reclaimed == 36);
  CHECK(f.stats.histograms().size() == 2);
}

TEST_CASE("stall stats: order rows stay bounded") {
  Feed f(StallStats::Limits{.order_rows = 2});
  for (int order = 0; order < 5; ++order)
    f.span("t", "direct reclaim", 1, "a", 0, (order + 1) * ms,
           {event(1, 0, "mm_vmscan_direct_reclaim_begin",
                  "order=" + std::to_string(order) + " gfp_flags=GFP_KERNEL"),
            return_line("t")});
  const auto orders = f.stats.order_rows();
  REQUIRE(orders.size() == 3);
  CHECK(orders[2]->other);
  CHECK(orders[2]->count == 3);
  CHECK(orders[2]->total == 12 * ms);
}

TEST_CASE("stall stats: what reclaim got, from its lines and from the spans nested in it") {
  Feed f;
  // Graph mode: shrink_lruvec (not a stall) closes first with its LRU line,
  // then a slow shrinker call (a pair of its own), then the reclaim stall
  // with its begin and end.
  f.span("shrink_lruvec", "", 170, "memhog", 2 * ms, 4 * ms,
         {event(170, 3 * ms, "mm_vmscan_lru_shrink_inactive",
                "nid=0 nr_scanned=32 nr_reclaimed=30 priority=12"),
          return_line("shrink_lruvec")});
  f.span("shrink_slab", "shrinker", 170, "memhog", 5 * ms, 8 * ms,
         {event(170, 5 * ms, "mm_shrink_slab_start",
                "super_cache_scan+0x0/0x1f0 0000000099ad4c05: nid: 0 objects to shrink 0"),
          event(170, 8 * ms, "mm_shrink_slab_end",
                "super_cache_scan+0x0/0x1f0 0000000099ad4c05: nid: 0 unused scan count 0")});
  // Another task's LRU line, inside the same time: not this stall's.
  f.span("shrink_lruvec", "", 999, "other", 2 * ms, 4 * ms,
         {event(999, 3 * ms, "mm_vmscan_lru_shrink_inactive", "nr_scanned=1000"),
          return_line("shrink_lruvec")});
  f.span("try_to_free_pages", "direct reclaim", 170, "memhog", 1 * ms, 10 * ms,
         {event(170, 1 * ms, "mm_vmscan_direct_reclaim_begin", "order=0 gfp_flags=GFP_KERNEL"),
          event(170, 9 * ms, "mm_vmscan_lru_shrink_inactive", "nr_scanned=8 nr_reclaimed=8"),
          event(170, 10 * ms, "mm_vmscan_direct_reclaim_end", "nr_reclaimed=38"),
          return_line("try_to_free_pages")});
  // The allocation around it is a stall, not a reclaim stall: the figures
  // were taken by the reclaim already.
  f.span("__alloc_pages", "allocation", 170, "memhog", 0, 11 * ms, {return_line("__alloc_pages")});
  const auto reclaim = f.stats.reclaim();
  REQUIRE(reclaim.size() == 1);
  CHECK(reclaim[0].kind == "direct reclaim");
  CHECK(reclaim[0].count == 1);
  CHECK(reclaim[0].total == 9 * ms);
  CHECK(reclaim[0].figures.pages_scanned == 40);
  CHECK(reclaim[0].pages_reclaimed == 38);
  CHECK(reclaim[0].figures.shrinker_time == 3 * ms);
}

TEST_CASE("stall stats: a line counts for the reclaim whose window holds it, not by nesting") {
  Feed f;
  // The stall's return came late: its computed start, 1 ms, is after the
  // start of the calls nested in it. Their lines decide by their own time.
  f.span("shrink_lruvec", "", 9, "x", 1 * ms - 5 * us, 1 * ms + 400 * us,
         {event(9, 1 * ms - 3 * us, "mm_vmscan_lru_shrink_inactive", "nr_scanned=7"),
          event(9, 1 * ms + 300 * us, "mm_vmscan_lru_shrink_inactive", "nr_scanned=64"),
          return_line("shrink_lruvec")});
  // A call inside the stall's time whose line is before its window.
  f.span("shrink_lruvec", "", 9, "x", 1 * ms + 500 * us, 1 * ms + 600 * us,
         {event(9, 1 * ms - 2 * us, "mm_vmscan_lru_shrink_inactive", "nr_scanned=5"),
          return_line("shrink_lruvec")});
  // A sibling's line within the microsecond before it.
  f.span("shrink_node", "", 9, "x", 0, 1 * ms,
         {event(9, 1 * ms - 1 * us, "mm_vmscan_lru_shrink_inactive", "nr_scanned=1"),
          return_line("shrink_node")});
  f.span("try_to_free_mem_cgroup_pages", "memcg reclaim", 9, "x", 1 * ms, 2 * ms,
         {event(9, 2 * ms, "mm_vmscan_memcg_reclaim_end", "nr_reclaimed=64"),
          return_line("try_to_free_mem_cgroup_pages")});
  REQUIRE(f.stats.reclaim().size() == 1);
  CHECK(f.stats.reclaim()[0].figures.pages_scanned == 65);
  // A later reclaim whose window holds the lines left: they are its, once.
  f.span("try_to_free_mem_cgroup_pages", "memcg reclaim", 9, "x", 1 * ms - 10 * us, 3 * ms,
         {event(9, 3 * ms, "mm_vmscan_memcg_reclaim_end", "nr_reclaimed=1"),
          return_line("try_to_free_mem_cgroup_pages")});
  // 7 + 5 never taken, and the first reclaim's 65 (nested in this one).
  CHECK(f.stats.reclaim()[0].figures.pages_scanned == 65 + 77);
}

TEST_CASE("stall stats: events mode, a reclaim pair with its claimed lines and shrinker pairs") {
  Feed f;
  auto line = [](Nanos ts, std::string_view rest) {
    char stamp[32];
    std::snprintf(stamp, sizeof stamp, "%lld.%06lld", static_cast<long long>(ts / kSecond),
                  static_cast<long long>(ts % kSecond / kMicro));
    return "   cat-27508 [001] .....  " + std::string(stamp) + ": " + std::string(rest);
  };
  // A shrinker pair whose start another span printed: its end line alone.
  f.span("shrink_slab", "shrinker", 27508, "cat", 2 * ms, 3 * ms,
         {line(3 * ms, "mm_shrink_slab_end: s+0x0/0x1 00000000000000aa: nid: 0")});
  f.span("memcg_reclaim", "memcg reclaim", 27508, "cat", 1 * ms, 5 * ms,
         {line(1 * ms, "mm_vmscan_memcg_reclaim_begin: order=0 gfp_flags=GFP_KERNEL"),
          line(2 * ms, "mm_vmscan_lru_shrink_inactive: nid=0 nr_scanned=100 nr_reclaimed=90"),
          line(4 * ms, "mm_vmscan_lru_shrink_inactive: nid=0 nr_scanned=-1 nr_reclaimed=9"),
          line(5 * ms, "mm_vmscan_memcg_reclaim_end: nr_reclaimed=99")});
  const auto reclaim = f.stats.reclaim();
  REQUIRE(reclaim.size() == 1);
  CHECK(reclaim[0].kind == "memcg reclaim");
  CHECK(reclaim[0].figures.pages_scanned == 100); // a negative count is no count
  CHECK(reclaim[0].pages_reclaimed == 99);
  CHECK(reclaim[0].figures.shrinker_time == 1 * ms);
  REQUIRE(f.stats.order_rows().size() == 1);
  CHECK(f.stats.order_rows()[0]->kind == "memcg reclaim");
}

TEST_CASE("stall stats: claimed shrinker pairs inside a span count as shrinker time") {
  Feed f;
  f.span("try_to_free_pages", "direct reclaim", 1, "a", 0, 10 * ms,
         {event(1, 0, "mm_vmscan_direct_reclaim_begin", "order=0 gfp_flags=GFP_KERNEL"),
          event(1, 1 * ms, "mm_shrink_slab_start", "a+0x0/0x1 00000000000000aa: nid: 0"),
          event(1, 2 * ms, "mm_shrink_slab_start", "b+0x0/0x1 00000000000000bb: nid: 0"),
          event(1, 3 * ms, "mm_shrink_slab_end", "b+0x0/0x1 00000000000000bb: nid: 0"),
          event(1, 5 * ms, "mm_shrink_slab_end", "a+0x0/0x1 00000000000000aa: nid: 0"),
          event(1, 6 * ms, "mm_shrink_slab_end", "c+0x0/0x1 00000000000000cc: nid: 0"),
          return_line("try_to_free_pages")});
  const auto reclaim = f.stats.reclaim();
  REQUIRE(reclaim.size() == 1);
  // a: 1..5 ms, b: 2..3 ms; c's start was never printed: not counted.
  CHECK(reclaim[0].figures.shrinker_time == 5 * ms);
}

TEST_CASE("stall stats: held figures age out and stay bounded") {
  Feed f;
  for (int i = 0; i < 1000; ++i) // kswapd-like spans nothing reclaims around
    f.span("shrink_lruvec", "", 7, "x", i * ms, i * ms + 500 * us,
           {event(7, i * ms + 100 * us, "mm_vmscan_lru_shrink_inactive", "nr_scanned=1"),
            return_line("shrink_lruvec")});
  // Much later, a reclaim stall of the same task around none of them.
  f.span("try_to_free_pages", "direct reclaim", 7, "x", 60 * kSecond, 60 * kSecond + ms,
         {event(7, 60 * kSecond, "mm_vmscan_direct_reclaim_begin", "order=0")});
  REQUIRE(f.stats.reclaim().size() == 1);
  CHECK(f.stats.reclaim()[0].figures.pages_scanned == 0);
}

TEST_CASE("stall stats: a reclaim around more quick calls than are held still gets them all") {
  Feed f;
  // 1000 slow shrinker calls whose shrink_slab caller was too quick to print.
  for (int i = 0; i < 1000; ++i)
    f.span("shrink_slab", "shrinker", 5, "x", 1 * ms + i * 10 * us, 1 * ms + i * 10 * us + 4 * us,
           {event(5, 1 * ms + i * 10 * us, "mm_shrink_slab_start", "a+0x0/0x1 00000000000000aa: x"),
            event(5, 1 * ms + i * 10 * us + 4 * us, "mm_shrink_slab_end",
                  "a+0x0/0x1 00000000000000aa: x")});
  f.span("try_to_free_pages", "direct reclaim", 5, "x", 1 * ms, 20 * ms,
         {event(5, 1 * ms, "mm_vmscan_direct_reclaim_begin", "order=0"), return_line("t")});
  REQUIRE(f.stats.reclaim().size() == 1);
  CHECK(f.stats.reclaim()[0].figures.shrinker_time == 1000 * 4 * us);
}

TEST_CASE("stall stats: a reclaim nested in another counts for both; reclaimed pages are its own") {
  Feed f;
  // A cgroup v1 soft limit reclaim inside a direct reclaim (events mode).
  f.span("memcg_softlimit_reclaim", "memcg soft limit reclaim", 3, "x", 2 * ms, 4 * ms,
         {event(3, 2 * ms, "mm_vmscan_memcg_softlimit_reclaim_begin", "order=0"),
          event(3, 3 * ms, "mm_vmscan_lru_shrink_inactive", "nr_scanned=50 nr_reclaimed=40"),
          event(3, 4 * ms, "mm_vmscan_memcg_softlimit_reclaim_end", "nr_reclaimed=40")});
  f.span("direct_reclaim", "direct reclaim", 3, "x", 1 * ms, 9 * ms,
         {event(3, 1 * ms, "mm_vmscan_direct_reclaim_begin", "order=0"),
          event(3, 5 * ms, "mm_vmscan_lru_shrink_inactive", "nr_scanned=10 nr_reclaimed=5"),
          // The kernel adds the soft limit reclaim's pages to its own.
          event(3, 9 * ms, "mm_vmscan_direct_reclaim_end", "nr_reclaimed=45")});
  const auto reclaim = f.stats.reclaim();
  REQUIRE(reclaim.size() == 2);
  CHECK(reclaim[0].kind == "direct reclaim");
  CHECK(reclaim[0].figures.pages_scanned == 60);
  CHECK(reclaim[0].pages_reclaimed == 45);
  CHECK(reclaim[1].kind == "memcg soft limit reclaim");
  CHECK(reclaim[1].figures.pages_scanned == 50);
  CHECK(reclaim[1].pages_reclaimed == 40);
}

TEST_CASE("stall stats: a comm that looks like an event name does not fool the report") {
  Feed f;
  f.span("direct_reclaim", "direct reclaim", 8, "mm_vmscan_x", 0, 2 * ms,
         {"  mm_vmscan_x-8 [000] ..... 1.000000: mm_vmscan_direct_reclaim_begin: order=3",
          "  mm_vmscan_x-8 [000] ..... 1.001000: mm_vmscan_lru_shrink_inactive: nr_scanned=7",
          "  mm_vmscan_x-8 [000] ..... 1.002000: mm_vmscan_direct_reclaim_end: nr_reclaimed=5"});
  REQUIRE(f.stats.reclaim().size() == 1);
  CHECK(f.stats.reclaim()[0].figures.pages_scanned == 7);
  CHECK(f.stats.reclaim()[0].pages_reclaimed == 5);
  REQUIRE(f.stats.order_rows().size() == 1);
  CHECK(f.stats.order_rows()[0]->order == 3);
}

TEST_CASE("stall stats: the figures held for thousands of tasks stay bounded, newest kept") {
  Feed f;
  const int tasks = static_cast<int>(StallStats::kHeldFigures) * 2;
  for (int pid = 1; pid <= tasks; ++pid)
    f.span("shrink_lruvec", "", pid, "x", pid * us, pid * us + 500,
           {event(pid, pid * us, "mm_vmscan_lru_shrink_inactive", "nr_scanned=2"),
            return_line("shrink_lruvec")});
  CHECK(f.stats.held_figures() <= StallStats::kHeldFigures);
  CHECK(f.stats.held_figures() >= StallStats::kHeldFigures * 3 / 4);
  // The newest task's figures are still there for the reclaim around them.
  f.span("try_to_free_pages", "direct reclaim", tasks, "x", tasks * us - 1, tasks * us + 1000,
         {event(tasks, tasks * us, "mm_vmscan_direct_reclaim_begin", "order=0"),
          return_line("try_to_free_pages")});
  REQUIRE(f.stats.reclaim().size() == 1);
  CHECK(f.stats.reclaim()[0].figures.pages_scanned == 2);
}

TEST_CASE("stall stats: thousands of tasks coming back find their rows through every fold") {
  Feed f(StallStats::Limits{.task_rows = 64});
  // Each task stalls three times, far apart: by then most rows were folded
  // (a task whose row was folded gets a new one). The same pid under two
  // comms and two kinds are four rows.
  std::uint64_t stalls = 0;
  Nanos total = 0;
  for (int round = 0; round < 3; ++round)
    for (int pid = 1; pid <= 3000; ++pid) {
      const Nanos duration = (pid % 7 + 1) * us;
      f.span(pid % 2 ? "a" : "b", pid % 3 ? "allocation" : "direct reclaim", pid,
             round == 2 && pid % 5 == 0 ? "exec'd" : "t", 0, duration);
      ++stalls;
      total += duration;
    }
  const auto rows = f.stats.rows(StallTable::Tasks);
  std::set<std::tuple<std::int32_t, std::string, std::string_view, std::string_view>> seen;
  std::uint64_t count = 0;
  Nanos sum = 0;
  std::size_t task_rows = 0;
  for (const StallRow* row : rows) {
    count += row->durations.count();
    sum += row->durations.total();
    if (row->other)
      continue;
    ++task_rows;
    CHECK(seen.insert({row->pid, row->comm, row->kind, row->span}).second); // one row per key
  }
  CHECK(task_rows <= 64);
  CHECK(count == stalls);
  CHECK(sum == total);
  // Every row made was kept or folded: a row is made only for a new key.
  CHECK(f.stats.folded_rows() > 0);
  CHECK(f.stats.folded_rows() + task_rows <= stalls);
}

TEST_CASE("stall stats: a shrinker call's row names its shrinker; the totals of every call") {
  Feed f;
  const auto call = [&](std::string_view instance, Nanos start, Nanos end) {
    const std::string id = "super_cache_scan+0x0/0x1f0 " + std::string(instance) + ": nid: 0";
    f.span("shrinker", "shrinker", 170, "memhog", start, end,
           {event(170, start, "mm_shrink_slab_start", id + " objects to shrink 0"),
            event(170, end, "mm_shrink_slab_end", id + " unused scan count 0")});
  };
  call("0000000099ad4c05", 0, 5 * ms);
  call("0000000052cfc56b", 10 * ms, 12 * ms);
  call("0000000099ad4c05", 20 * ms, 21 * ms);
  // The function shrink_slab, of the same kind: a row of its own.
  f.span("shrink_slab", "shrinker", 170, "memhog", 30 * ms, 31 * ms);
  const auto rows = f.stats.rows(StallTable::Tasks);
  REQUIRE(rows.size() == 3);
  CHECK(rows[0]->span == "shrinker");
  CHECK(rows[0]->shrinker == "super_cache_scan");
  CHECK(rows[0]->instance == "0000000099ad4c05");
  CHECK(rows[0]->durations.count() == 2);
  CHECK(rows[1]->instance == "0000000052cfc56b");
  CHECK(rows[2]->span == "shrink_slab");
  CHECK(rows[2]->shrinker.empty());
  CHECK(f.stats.several_instances("super_cache_scan"));

  ShrinkerStats shrinkers;
  shrinkers.add("super_cache_scan", "0000000099ad4c05", 6 * ms);
  shrinkers.add("super_cache_scan", "0000000052cfc56b", 2 * ms);
  shrinkers.add("kfree_rcu_shrink_scan", "00000000367b3020", 1 * ms);
  f.stats.finish(shrinkers);
  const auto& totals = f.stats.shrinkers();
  REQUIRE(totals.size() == 4);
  CHECK(totals[0].symbol == "super_cache_scan");
  CHECK(totals[0].instance.empty());
  CHECK(totals[0].totals.total == 8 * ms);
  CHECK(totals[1].instance == "0000000099ad4c05");
  CHECK(totals[2].instance == "0000000052cfc56b");
  CHECK(totals[3].symbol == "kfree_rcu_shrink_scan"); // one instance: no row of it
}

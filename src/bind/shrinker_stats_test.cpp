#include "bind/shrinker_stats.h"

#include <algorithm>
#include <doctest/doctest.h>
#include <sstream>
#include <string>

using namespace allocwatch;

namespace {
std::string printed(const ShrinkerStats& stats) {
  std::ostringstream out;
  stats.print(out);
  return out.str();
}
} // namespace

TEST_CASE("nothing is printed without a complete pair") {
  ShrinkerStats stats;
  CHECK(stats.empty());
  CHECK(printed(stats).empty());
}

TEST_CASE("one line per shrinker function, largest total first, exact milliseconds") {
  ShrinkerStats stats;
  stats.add("ext4_es_scan", "0000000080e23003", 1'507'000);
  stats.add("super_cache_scan", "00000000ce7941b5", 466'000);
  stats.add("super_cache_scan", "00000000ce7941b5", 1);
  stats.add("scan_shadow_nodes", "00000000ee93bcbd", 480'000);
  stats.add("scan_shadow_nodes", "00000000ee93bcbd", 483'000);
  CHECK(printed(stats) ==
        "ext4_es_scan : total time = 1.507000 ms, max latency = 1.507000 ms\n"
        "scan_shadow_nodes : total time = 0.963000 ms, max latency = 0.483000 ms\n"
        "super_cache_scan : total time = 0.466001 ms, max latency = 0.466000 ms\n");
}

TEST_CASE("equal totals are ordered by name") {
  ShrinkerStats stats;
  stats.add("zs_shrinker_scan", "1", 1000);
  stats.add("deferred_split_scan", "2", 1000);
  CHECK(printed(stats) ==
        "deferred_split_scan : total time = 0.001000 ms, max latency = 0.001000 ms\n"
        "zs_shrinker_scan : total time = 0.001000 ms, max latency = 0.001000 ms\n");
}

TEST_CASE("functions with several instances get one line per instance, after the totals") {
  ShrinkerStats stats;
  stats.add("super_cache_scan", "00000000ce7941b5", 400'000);
  stats.add("super_cache_scan", "00000000ce7941b5", 800'000);
  stats.add("super_cache_scan", "00000000c60de79d", 2'000'000);
  stats.add("super_cache_scan", "000000003518cc3c", 1'200'000);
  stats.add("kfree_rcu_shrink_scan", "00000000ecb61676", 250'000);
  stats.add("count_shadow_nodes", "a", 5'000'000);
  stats.add("count_shadow_nodes", "b", 3'000'000);
  CHECK(printed(stats) ==
        "count_shadow_nodes : total time = 8.000000 ms, max latency = 5.000000 ms\n"
        "super_cache_scan : total time = 4.400000 ms, max latency = 2.000000 ms\n"
        "kfree_rcu_shrink_scan : total time = 0.250000 ms, max latency = 0.250000 ms\n"
        "count_shadow_nodes[a] : total time = 5.000000 ms, max latency = 5.000000 ms, calls = 1\n"
        "count_shadow_nodes[b] : total time = 3.000000 ms, max latency = 3.000000 ms, calls = 1\n"
        "super_cache_scan[00000000c60de79d] : total time = 2.000000 ms, max latency = 2.000000 "
        "ms, calls = 1\n"
        "super_cache_scan[000000003518cc3c] : total time = 1.200000 ms, max latency = 1.200000 "
        "ms, calls = 1\n"
        "super_cache_scan[00000000ce7941b5] : total time = 1.200000 ms, max latency = 0.800000 "
        "ms, calls = 2\n");
}

TEST_CASE("an instance address reused by another shrinker stays apart") {
  ShrinkerStats stats;
  stats.add("super_cache_scan", "00000000ce7941b5", 2'000);
  stats.add("ext4_es_scan", "00000000ce7941b5", 1'000);
  stats.add("super_cache_scan", "00000000ce7941b5", 2'000);
  CHECK(printed(stats) == "super_cache_scan : total time = 0.004000 ms, max latency = 0.002000 ms\n"
                          "ext4_es_scan : total time = 0.001000 ms, max latency = 0.001000 ms\n");
}

TEST_CASE("totals() hands out totals that stay put and add up with add()") {
  ShrinkerStats stats;
  ShrinkerTotals& super = stats.totals("super_cache_scan", "00000000ce7941b5");
  super.add(1'000);
  // Other shrinkers, and the same address under another symbol, come after:
  // the reference is still the same totals.
  for (int i = 0; i < 100; ++i)
    stats.add("ext4_es_scan", std::to_string(i), 1);
  ShrinkerTotals& reused = stats.totals("other_scan", "00000000ce7941b5");
  CHECK(&reused != &super);
  for (int i = 0; i < 100; ++i)
    stats.totals("other_scan" + std::to_string(i), "00000000ce7941b5");
  super.add(2'000);
  stats.add("super_cache_scan", "00000000ce7941b5", 3'000);
  CHECK(&stats.totals("super_cache_scan", "00000000ce7941b5") == &super);
  CHECK(super.calls == 3);
  CHECK(super.total == 6'000);
  CHECK(super.max == 3'000);
}

TEST_CASE("past kMaxInstances, new instances count in their function's (other); totals stay "
          "exact") {
  ShrinkerStats stats;
  const std::size_t past = ShrinkerStats::kMaxInstances + 100;
  for (std::size_t i = 0; i < past; ++i)
    stats.add("super_cache_scan", std::to_string(i), 1'000);
  stats.add("ext4_es_scan", "e", 5'000);
  stats.add("super_cache_scan", "0", 1'000); // known: still its own
  CHECK(stats.instances() == ShrinkerStats::kMaxInstances);
  const std::vector<ShrinkerSummary> summary = stats.summary();
  REQUIRE(summary.size() == 2);
  const ShrinkerSummary& super = summary[0];
  CHECK(super.symbol == "super_cache_scan");
  CHECK(super.totals.calls == past + 1);
  CHECK(super.totals.total == static_cast<Nanos>(past + 1) * 1'000);
  CHECK(super.instances.size() == ShrinkerStats::kMaxInstances + 1);
  auto instance = [&super](std::string_view name) {
    return std::find_if(super.instances.begin(), super.instances.end(),
                        [name](const auto& i) { return i.name == name; });
  };
  REQUIRE(instance("0") != super.instances.end());
  CHECK(instance("0")->totals.calls == 2);
  REQUIRE(instance("(other)") != super.instances.end());
  CHECK(instance("(other)")->totals.calls == 100);
  // A function first seen past the bound has its calls in its own (other).
  CHECK(summary[1].symbol == "ext4_es_scan");
  CHECK(summary[1].totals.calls == 1);
  CHECK(summary[1].instances.size() == 1);
  CHECK(summary[1].instances[0].name == "(other)");
}

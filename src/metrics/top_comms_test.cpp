#include "metrics/stall_metrics.h"
#include "metrics/top_comms.h"

#include <doctest/doctest.h>
#include <map>
#include <random>
#include <string>

using namespace allocwatch;

namespace {
std::uint64_t sum(const TopComms& top) {
  std::uint64_t total = top.other().stalls;
  for (const TopComms::Series& s : top.series())
    total += s.totals.stalls;
  return total;
}
std::map<std::string, std::uint64_t> values(const TopComms& top) {
  std::map<std::string, std::uint64_t> v{{"other", top.other().stalls}};
  for (const TopComms::Series& s : top.series())
    v[s.name] = s.totals.stalls;
  return v;
}
} // namespace

TEST_CASE("top comms: the first comms get series, the rest is other") {
  TopComms top(2, StallMetrics::kCommCandidates);
  for (const char* comm : {"a", "b", "c", "a", "c", "d"})
    add_comm_stall(top, comm);
  REQUIRE(top.series().size() == 2);
  CHECK(top.series()[0].name == "a");
  CHECK(top.series()[0].totals.stalls == 2);
  CHECK(top.series()[1].name == "b");
  CHECK(top.series()[1].totals.stalls == 1);
  CHECK(top.other().stalls == 3);
}

TEST_CASE("top comms: a task named other is counted in other, never a series of its own") {
  TopComms top(2, StallMetrics::kCommCandidates);
  add_comm_stall(top, "other");
  add_comm_stall(top, "other");
  CHECK(top.series().empty());
  CHECK(top.other().stalls == 2);
  top.rebalance();
  CHECK(top.series().empty());
}

TEST_CASE("top comms: a busier comm takes the quietest's slot; no counter goes down") {
  TopComms top(2, StallMetrics::kCommCandidates);
  add_comm_stall(top, "early");
  add_comm_stall(top, "steady");
  top.rebalance();
  for (int i = 0; i < 5; ++i)
    add_comm_stall(top, "busy");
  add_comm_stall(top, "steady");
  const std::uint64_t other_before = top.other().stalls;
  CHECK(other_before == 5);
  top.rebalance(); // busy: 5 > 2 * early's 0
  REQUIRE(top.series().size() == 2);
  CHECK(top.series()[0].name == "busy");
  CHECK(top.series()[0].totals.stalls == 0); // its 5 are in other already
  CHECK(top.series()[1].name == "steady");
  CHECK(top.series()[1].totals.stalls == 2);
  CHECK(top.other().stalls == other_before + 1); // early's 1
  CHECK(sum(top) == 8);
}

TEST_CASE("top comms: no swap unless more than twice as busy") {
  TopComms top(1, StallMetrics::kCommCandidates);
  add_comm_stall(top, "kept");
  top.rebalance();
  add_comm_stall(top, "kept");
  add_comm_stall(top, "kept");
  for (int i = 0; i < 4; ++i)
    add_comm_stall(top, "rival");
  top.rebalance();
  CHECK(top.series()[0].name == "kept");
}

TEST_CASE("top comms: random streams: bounded, exact sum, every counter monotonic") {
  std::mt19937 rng(7);
  TopComms top(5, 12);
  std::map<std::string, std::uint64_t> last;
  std::uint64_t added = 0;
  for (int round = 0; round < 200; ++round) {
    // A heavy-tailed mix: a few busy names, many rare ones, shifting over time.
    std::geometric_distribution<int> pick(0.15);
    for (int i = 0; i < 100; ++i) {
      add_comm_stall(top, "task" + std::to_string((pick(rng) + round / 40) % 300));
      ++added;
    }
    if (round % 3 == 0)
      top.rebalance();
    CHECK(top.series().size() <= 5);
    CHECK(sum(top) == added);
    const auto now = values(top);
    // A series may end (and a later one start at zero): a comm in two
    // snapshots in a row had the same series, and it never went down.
    for (const auto& [comm, value] : now) {
      auto before = last.find(comm);
      if (before != last.end())
        CHECK(value >= before->second);
    }
    last = now;
  }
}

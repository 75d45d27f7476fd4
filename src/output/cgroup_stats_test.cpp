#include "output/cgroup_stats.h"

#include <doctest/doctest.h>
#include <string>
#include <vector>

using namespace allocwatch;

namespace {

Incident stall(const TaskCgroup* cgroup, Nanos duration) {
  Incident incident{"memcg_reclaim", "memcg reclaim", false, 7, "cat", 1000, 1000 + duration, {}};
  incident.cgroup = cgroup;
  return incident;
}

} // namespace

TEST_CASE("cgroup stats: past max_rows cgroups, later ones share one (other cgroups) row") {
  CgroupStats stats;
  const std::size_t past = CgroupStats::kDefaultRows + 100;
  std::vector<TaskCgroup> cgroups(past);
  for (std::size_t i = 0; i < past; ++i) {
    cgroups[i].path = "/allocwatch-test-" + std::to_string(i);
    stats.incident(stall(&cgroups[i], 1'000));
  }
  stats.incident(stall(&cgroups[0], 1'000)); // known: still its own row
  stats.incident(stall(nullptr, 1'000));     // its cgroup could not be read
  const std::vector<const CgroupRow*> rows = stats.rows();
  REQUIRE(rows.size() == CgroupStats::kDefaultRows + 2);
  CHECK(rows[0]->path == "/allocwatch-test-0");
  CHECK(rows[0]->kinds.at(0).durations.count() == 2);
  const CgroupRow& other = *rows[CgroupStats::kDefaultRows];
  CHECK(other.of == CgroupRow::Of::Other);
  CHECK(other.kinds.at(0).durations.count() == 100);
  CHECK(rows.back()->of == CgroupRow::Of::Unknown);
  CHECK(rows.back()->kinds.at(0).durations.count() == 1);
}

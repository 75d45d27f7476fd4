#include "metrics/top_cgroups.h"

#include <algorithm>
#include <doctest/doctest.h>
#include <map>
#include <random>
#include <string>

using namespace allocwatch;

namespace {

TaskCgroup cgroup(const std::string& path) {
  return TaskCgroup{CgroupVersion::V2, path, container_of(path)};
}

TopCgroups::Totals sum(const TopCgroups& top) {
  TopCgroups::Totals total = top.other();
  for (const TopCgroups::Series& s : top.series()) {
    total.stalls += s.totals.stalls;
    total.weight += s.totals.weight;
  }
  return total;
}

// Label value -> its time: what the metrics say.
std::map<std::string, Nanos> times(const TopCgroups& top) {
  std::map<std::string, Nanos> t{{"other", top.other().weight}};
  for (const TopCgroups::Series& s : top.series())
    t[s.name] = s.totals.weight;
  return t;
}

} // namespace

TEST_CASE("top cgroups: the first cgroups get series with their container, the rest is other") {
  const std::string id(64, 'c');
  const TaskCgroup a = cgroup("/kubepods/burstable/pod8b1e1f2c-4d3a-4f5e-9a8b-7c6d5e4f3a2b/" + id);
  const TaskCgroup b = cgroup("/system.slice/nginx.service");
  const TaskCgroup c = cgroup("/docker/" + id);
  TopCgroups top = make_top_cgroups(2);
  add_cgroup_stall(top, &a, 5 * kMilli);
  add_cgroup_stall(top, nullptr, 7 * kMilli); // unknown: other, and takes no slot
  add_cgroup_stall(top, &b, kMilli);
  add_cgroup_stall(top, &c, 2 * kMilli);
  add_cgroup_stall(top, &a, 3 * kMilli);
  REQUIRE(top.series().size() == 2);
  CHECK(top.series()[0].name == a.path);
  CHECK(container_of(top.series()[0].name).id == id);
  CHECK(container_of(top.series()[0].name).pod_uid == "8b1e1f2c-4d3a-4f5e-9a8b-7c6d5e4f3a2b");
  CHECK(top.series()[0].totals.stalls == 2);
  CHECK(top.series()[0].totals.weight == 8 * kMilli);
  CHECK(top.series()[1].name == b.path);
  CHECK(container_of(top.series()[1].name).unit == "nginx.service");
  CHECK(top.other().stalls == 2);
  CHECK(top.other().weight == 9 * kMilli);
}

TEST_CASE("top cgroups: with no slot at all everything is other") {
  const TaskCgroup a = cgroup("/a");
  TopCgroups top = make_top_cgroups(0);
  add_cgroup_stall(top, &a, kMilli);
  top.rebalance();
  add_cgroup_stall(top, &a, kMilli);
  CHECK(top.series().empty());
  CHECK(top.other().stalls == 2);
}

TEST_CASE("top cgroups: paths are label values: invalid UTF-8 made valid, never \"other\"") {
  const TaskCgroup x = cgroup("/x\xff");
  const TaskCgroup y = cgroup("/x\xfe");
  const TaskCgroup other = cgroup("other"); // not a path
  TopCgroups top = make_top_cgroups(3);
  add_cgroup_stall(top, &x, kMilli);
  add_cgroup_stall(top, &y, kMilli);
  add_cgroup_stall(top, &other, kMilli);
  REQUIRE(top.series().size() == 1); // one series, not two with the same labels
  CHECK(top.series()[0].name == "/x\xef\xbf\xbd");
  CHECK(top.series()[0].totals.stalls == 2);
  CHECK(top.other().stalls == 1);
}

TEST_CASE("top cgroups: a cgroup that stalls longer takes the quietest's slot; no counter goes "
          "down") {
  const TaskCgroup early = cgroup("/early"), steady = cgroup("/steady"), busy = cgroup("/busy");
  TopCgroups top = make_top_cgroups(2);
  add_cgroup_stall(top, &early, kMilli);
  add_cgroup_stall(top, &steady, kMilli);
  top.rebalance();
  // Ranked by time, not count: one long stall beats many short ones.
  add_cgroup_stall(top, &busy, 50 * kMilli);
  for (int i = 0; i < 10; ++i)
    add_cgroup_stall(top, &steady, kMilli);
  CHECK(top.other().weight == 50 * kMilli);
  const auto before = times(top);
  top.rebalance(); // busy: 50 ms > 2 * early's 0
  REQUIRE(top.series().size() == 2);
  CHECK(top.series()[0].name == "/busy");
  CHECK(top.series()[0].totals.stalls == 0); // its stall is in other already
  CHECK(top.series()[1].name == "/steady");
  CHECK(top.other().weight == 51 * kMilli); // early's time moved there
  for (const auto& [label, time] : before)
    if (label != "/early")
      CHECK(times(top)[label] >= time);
  add_cgroup_stall(top, &busy, kMilli);
  CHECK(top.series()[0].totals.weight == kMilli);
}

TEST_CASE("top cgroups: filled far past N, the series stay N plus other, every stall counted "
          "once, and the longest staller ends up with a series") {
  constexpr std::size_t kTop = 5;
  TopCgroups top = make_top_cgroups(kTop);
  std::mt19937 random(7);
  std::vector<TaskCgroup> cgroups;
  for (int i = 0; i < 500; ++i)
    cgroups.push_back(cgroup("/pod" + std::to_string(i)));
  const TaskCgroup hog = cgroup("/hog");
  std::uint64_t stalls = 0;
  Nanos time = 0;
  for (int period = 0; period < 20; ++period) {
    for (int i = 0; i < 2000; ++i) {
      const Nanos duration = static_cast<Nanos>(random() % 1000 + 1) * kMicro;
      add_cgroup_stall(top, &cgroups[random() % cgroups.size()], duration);
      ++stalls;
      time += duration;
      if (i % 10 == 0) {
        add_cgroup_stall(top, &hog, 20 * kMilli);
        ++stalls;
        time += 20 * kMilli;
      }
    }
    CHECK(top.series().size() <= kTop);
    const TopCgroups::Totals total = sum(top);
    CHECK(total.stalls == stalls);
    CHECK(total.weight == time);
    top.rebalance();
  }
  const auto has_hog = std::find_if(top.series().begin(), top.series().end(),
                                    [](const TopCgroups::Series& s) { return s.name == "/hog"; });
  CHECK(has_hog != top.series().end());
}

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
    total.time += s.totals.time;
  }
  return total;
}

// Label value -> its time: what the metrics say.
std::map<std::string, Nanos> times(const TopCgroups& top) {
  std::map<std::string, Nanos> t{{"other", top.other().time}};
  for (const TopCgroups::Series& s : top.series())
    t[s.path] = s.totals.time;
  return t;
}

} // namespace

TEST_CASE("top cgroups: the first cgroups get series with their container, the rest is other") {
  const std::string id(64, 'c');
  const TaskCgroup a = cgroup("/kubepods/burstable/pod8b1e1f2c-4d3a-4f5e-9a8b-7c6d5e4f3a2b/" + id);
  const TaskCgroup b = cgroup("/system.slice/nginx.service");
  const TaskCgroup c = cgroup("/docker/" + id);
  TopCgroups top(2);
  top.add(&a, 5 * kMilli);
  top.add(nullptr, 7 * kMilli); // unknown: other, and takes no slot
  top.add(&b, kMilli);
  top.add(&c, 2 * kMilli);
  top.add(&a, 3 * kMilli);
  REQUIRE(top.series().size() == 2);
  CHECK(top.series()[0].path == a.path);
  CHECK(top.series()[0].container.id == id);
  CHECK(top.series()[0].container.pod_uid == "8b1e1f2c-4d3a-4f5e-9a8b-7c6d5e4f3a2b");
  CHECK(top.series()[0].totals.stalls == 2);
  CHECK(top.series()[0].totals.time == 8 * kMilli);
  CHECK(top.series()[1].path == b.path);
  CHECK(top.series()[1].container.unit == "nginx.service");
  CHECK(top.other().stalls == 2);
  CHECK(top.other().time == 9 * kMilli);
}

TEST_CASE("top cgroups: with no slot at all everything is other") {
  const TaskCgroup a = cgroup("/a");
  TopCgroups top(0);
  top.add(&a, kMilli);
  top.rebalance();
  top.add(&a, kMilli);
  CHECK(top.series().empty());
  CHECK(top.other().stalls == 2);
}

TEST_CASE("top cgroups: paths are label values: invalid UTF-8 made valid, never \"other\"") {
  const TaskCgroup x = cgroup("/x\xff");
  const TaskCgroup y = cgroup("/x\xfe");
  const TaskCgroup other = cgroup("other"); // not a path
  TopCgroups top(3);
  top.add(&x, kMilli);
  top.add(&y, kMilli);
  top.add(&other, kMilli);
  REQUIRE(top.series().size() == 1); // one series, not two with the same labels
  CHECK(top.series()[0].path == "/x\xef\xbf\xbd");
  CHECK(top.series()[0].totals.stalls == 2);
  CHECK(top.other().stalls == 1);
}

TEST_CASE("top cgroups: a cgroup that stalls longer takes the quietest's slot; no counter goes "
          "down") {
  const TaskCgroup early = cgroup("/early"), steady = cgroup("/steady"), busy = cgroup("/busy");
  TopCgroups top(2);
  top.add(&early, kMilli);
  top.add(&steady, kMilli);
  top.rebalance();
  // Ranked by time, not count: one long stall beats many short ones.
  top.add(&busy, 50 * kMilli);
  for (int i = 0; i < 10; ++i)
    top.add(&steady, kMilli);
  CHECK(top.other().time == 50 * kMilli);
  const auto before = times(top);
  top.rebalance(); // busy: 50 ms > 2 * early's 0
  REQUIRE(top.series().size() == 2);
  CHECK(top.series()[0].path == "/busy");
  CHECK(top.series()[0].totals.stalls == 0); // its stall is in other already
  CHECK(top.series()[1].path == "/steady");
  CHECK(top.other().time == 51 * kMilli); // early's time moved there
  for (const auto& [label, time] : before)
    if (label != "/early")
      CHECK(times(top)[label] >= time);
  top.add(&busy, kMilli);
  CHECK(top.series()[0].totals.time == kMilli);
}

TEST_CASE("top cgroups: filled far past N, the series stay N plus other, every stall counted "
          "once, and the longest staller ends up with a series") {
  constexpr std::size_t kTop = 5;
  TopCgroups top(kTop);
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
      top.add(&cgroups[random() % cgroups.size()], duration);
      ++stalls;
      time += duration;
      if (i % 10 == 0) {
        top.add(&hog, 20 * kMilli);
        ++stalls;
        time += 20 * kMilli;
      }
    }
    CHECK(top.series().size() <= kTop);
    const TopCgroups::Totals total = sum(top);
    CHECK(total.stalls == stalls);
    CHECK(total.time == time);
    top.rebalance();
  }
  const auto has_hog = std::find_if(top.series().begin(), top.series().end(),
                                    [](const TopCgroups::Series& s) { return s.path == "/hog"; });
  CHECK(has_hog != top.series().end());
}

#include "metrics/render.h"
#include "metrics/stall_metrics.h"

#include <doctest/doctest.h>
#include <string>

using namespace allocwatch;

namespace {

Profile memcg_profile() {
  Profile profile;
  profile.name = "watch";
  profile.stalls = {StallKind{"memcg reclaim", {}, {"memcg_reclaim"}, {}}};
  return profile;
}

Incident stall(const TaskCgroup* cgroup, Nanos duration, std::string_view kind = "memcg reclaim",
               bool background = false) {
  Incident incident{"memcg_reclaim", kind, background, 7, "cat", 1000, 1000 + duration, {}};
  incident.cgroup = cgroup;
  return incident;
}

std::string render(const StallMetrics& stalls) {
  static const ShrinkerStats shrinkers;
  static const RunStats run;
  return render_metrics(
      MetricsSources{"0.1.0", "events", "watch", 100 * kMicro, stalls, shrinkers, run, 0});
}

bool has_line(const std::string& text, const std::string& line) {
  return text.find("\n" + line + "\n") != std::string::npos;
}

std::size_t count_lines(const std::string& text, const std::string& prefix) {
  std::size_t n = 0;
  for (std::size_t at = text.find("\n" + prefix); at != std::string::npos;
       at = text.find("\n" + prefix, at + 1))
    ++n;
  return n;
}

} // namespace

TEST_CASE("stall metrics: every kind has its cgroup=\"other\" series from the start, at zero") {
  const StallMetrics stalls(memcg_profile());
  const std::string text = render(stalls);
  CHECK(has_line(text, "# TYPE allocwatch_cgroup_stalls_total counter"));
  CHECK(has_line(text, "# TYPE allocwatch_cgroup_stall_seconds_total counter"));
  CHECK(has_line(text, "allocwatch_cgroup_stalls_total{kind=\"memcg reclaim\",cgroup=\"other\","
                       "container_id=\"\",pod_uid=\"\"} 0"));
  CHECK(has_line(text, "allocwatch_cgroup_stall_seconds_total{kind=\"memcg reclaim\","
                       "cgroup=\"other\",container_id=\"\",pod_uid=\"\"} 0"));
}

TEST_CASE("stall metrics: stalls by cgroup with its container and pod; background tasks and "
          "calls inside a stall are no cgroup's; labels escaped") {
  const std::string id(64, 'e');
  const std::string uid = "8b1e1f2c-4d3a-4f5e-9a8b-7c6d5e4f3a2b";
  const std::string pod_path = "/kubepods/burstable/pod" + uid + "/" + id;
  const TaskCgroup pod{CgroupVersion::V1, pod_path, container_of(pod_path)};
  const TaskCgroup odd{CgroupVersion::V2, "/a\"b\\c\nd\xff", {}};
  StallMetrics stalls(memcg_profile());
  stalls.incident(stall(&pod, 12 * kMilli));
  stalls.incident(stall(&pod, 150 * kMicro));
  stalls.incident(stall(&odd, kMilli));
  stalls.incident(stall(nullptr, 2 * kMilli));
  stalls.incident(stall(&pod, 3 * kMilli, "memcg reclaim", true)); // background
  stalls.incident(stall(&pod, 50 * kMilli, ""));                   // shrink_node inside a stall
  const std::string text = render(stalls);
  const std::string labels = "kind=\"memcg reclaim\",cgroup=\"" + pod_path + "\",container_id=\"" +
                             id + "\",pod_uid=\"" + uid + "\"";
  CHECK(has_line(text, "allocwatch_cgroup_stalls_total{" + labels + "} 2"));
  CHECK(has_line(text, "allocwatch_cgroup_stall_seconds_total{" + labels + "} 0.01215"));
  const std::string odd_labels =
      "kind=\"memcg "
      "reclaim\",cgroup=\"/a\\\"b\\\\c\\nd\xef\xbf\xbd\",container_id=\"\",pod_uid=\"\"";
  CHECK(has_line(text, "allocwatch_cgroup_stalls_total{" + odd_labels + "} 1"));
  CHECK(has_line(text, "allocwatch_cgroup_stall_seconds_total{" + odd_labels + "} 0.001"));
  const std::string other =
      "kind=\"memcg reclaim\",cgroup=\"other\",container_id=\"\",pod_uid=\"\"";
  CHECK(has_line(text, "allocwatch_cgroup_stalls_total{" + other + "} 1"));
  CHECK(has_line(text, "allocwatch_cgroup_stall_seconds_total{" + other + "} 0.002"));
}

TEST_CASE("stall metrics: past --metrics-cgroups N cgroups, each kind has N + 1 series, summing "
          "to its stalls") {
  constexpr std::size_t kTop = 3;
  Profile profile = memcg_profile();
  profile.stalls.push_back(StallKind{"direct reclaim", {}, {"direct_reclaim"}, {}});
  StallMetrics stalls(profile, kTop);
  std::vector<TaskCgroup> cgroups;
  for (int i = 0; i < 50; ++i)
    cgroups.push_back(TaskCgroup{CgroupVersion::V2, "/c" + std::to_string(i), {}});
  for (int round = 0; round < 3; ++round) {
    for (const TaskCgroup& cgroup : cgroups) {
      stalls.incident(stall(&cgroup, kMilli));
      stalls.incident(stall(&cgroup, kMilli, "direct reclaim"));
    }
    stalls.rebalance();
  }
  const std::string text = render(stalls);
  for (const char* kind : {"memcg reclaim", "direct reclaim"}) {
    CAPTURE(kind);
    const std::string prefix = std::string("allocwatch_cgroup_stalls_total{kind=\"") + kind + "\"";
    CHECK(count_lines(text, prefix) == kTop + 1);
    CHECK(count_lines(text, std::string("allocwatch_cgroup_stall_seconds_total{kind=\"") + kind +
                                "\"") == kTop + 1);
  }
  for (const StallMetrics::Kind& kind : stalls.kinds()) {
    std::uint64_t total = kind.cgroups.other().stalls;
    for (const TopCgroups::Series& s : kind.cgroups.series())
      total += s.totals.stalls;
    CHECK(total == kind.stalls.count());
  }
}

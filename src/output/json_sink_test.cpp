#include "bind/shrinker_stats.h"
#include "cgroup/task_cgroups.h"
#include "output/json_sink.h"
#include "tracepoints.h"

#include <doctest/doctest.h>
#include <sstream>
#include <string>
#include <vector>

using namespace allocwatch;

TEST_CASE("json: a span is one object with its lines, escaped") {
  std::ostringstream out;
  JsonSink sink(out);
  const std::vector<std::string_view> lines = {
      "  16.466577 |   1)   memhog-170   |               |  /* mm_vmscan_direct_reclaim_begin: "
      "order=0 gfp_flags=GFP_KERNEL */",
      "a \"quoted\" \\ back\tslash\x01"};
  std::vector<Tracepoint> tracepoints;
  sink.incident(with_tracepoints(Incident{"try_to_free_pages", "direct reclaim", false, 170,
                                          "memhog-", 16'466'558'000, 16'516'484'000, lines},
                                 tracepoints));
  CHECK(out.str() ==
        "{\"type\":\"span\",\"name\":\"try_to_free_pages\",\"pid\":170,\"comm\":\"memhog-\","
        "\"start_ns\":16466558000,\"end_ns\":16516484000,\"duration_ns\":49926000,\"lines\":["
        "\"  16.466577 |   1)   memhog-170   |               |  /* "
        "mm_vmscan_direct_reclaim_begin: order=0 gfp_flags=GFP_KERNEL */\","
        "\"a \\\"quoted\\\" \\\\ back\\u0009slash\\u0001\"],"
        // The tracepoint lines, parsed; the other line is not one.
        "\"tracepoints\":[{\"event\":\"mm_vmscan_direct_reclaim_begin\",\"ts_ns\":16466577000,"
        "\"fields\":{\"order\":0,\"gfp_flags\":\"GFP_KERNEL\"}}]}\n");
}

TEST_CASE("json: a span of a task whose cgroup is known names it, and its container and pod "
          "where the path does; unknown, the keys are left out") {
  const std::string_view lines[] = {"cat-4242 [001] ..... 10.000100: "
                                    "mm_vmscan_memcg_reclaim_begin: order=0 gfp_flags=GFP_KERNEL"};
  const std::string id(64, 'a');
  const std::string uid = "8b1e1f2c-4d3a-4f5e-9a8b-7c6d5e4f3a2b";
  TaskCgroup pod{CgroupVersion::V1, "/kubepods/burstable/pod" + uid + "/" + id, {}};
  pod.container = container_of(pod.path);
  TaskCgroup docker{CgroupVersion::V2, "/docker/" + id, {}};
  docker.container = container_of(docker.path);
  // A path is the task's bytes: escaped as any string.
  const TaskCgroup odd{CgroupVersion::V2, "/a\"b\n", {}};
  std::ostringstream out;
  JsonSink sink(out);
  const TaskCgroup* const cgroups[] = {&pod, &docker, &odd, nullptr};
  for (const TaskCgroup* cgroup : cgroups) {
    Incident incident{"memcg_reclaim", "memcg reclaim", false, 4242, "cat", 10, 20, lines};
    incident.cgroup = cgroup;
    std::vector<Tracepoint> tracepoints;
    sink.incident(with_tracepoints(incident, tracepoints));
  }
  std::istringstream records(out.str());
  std::string record;
  const std::string head =
      "{\"type\":\"span\",\"name\":\"memcg_reclaim\",\"pid\":4242,\"comm\":\"cat\",";
  const std::string times = "\"start_ns\":10,";
  for (const std::string& keys :
       {"\"cgroup\":\"/kubepods/burstable/pod" + uid + "/" + id + "\",\"container_id\":\"" + id +
            "\",\"pod_uid\":\"" + uid + "\",",
        "\"cgroup\":\"/docker/" + id + "\",\"container_id\":\"" + id + "\",",
        std::string("\"cgroup\":\"/a\\\"b\\u000a\","), std::string()}) {
    REQUIRE(std::getline(records, record));
    CHECK(record.starts_with(head + keys + times));
  }
}

TEST_CASE("json: tracepoint fields are numbers or escaped strings, in either line format") {
  std::ostringstream out;
  JsonSink sink(out);
  const std::vector<std::string_view> lines = {
      "  cat-27508 [001] ..... 3946.345293: mm_vmscan_memcg_reclaim_begin: order=0 "
      "gfp_flags=GFP_HIGHUSER_MOVABLE|__GFP_COMP",
      "  cat-27508 [001] ..... 3946.345453: mm_shrink_slab_start: super_cache_scan+0x0/0x210 "
      "00000000ce7941b5: nid: 0 objects to shrink -3 gfp_flags GFP_KERNEL",
      "  cat-27508 [001] ..... 3946.345500: mm_x: odd=\"q\"\x1b[31m pfn=0x10",
      "  cat-27508 [001] ..... 3946.345805: mm_vmscan_memcg_reclaim_end: nr_reclaimed=978"};
  std::vector<Tracepoint> tracepoints;
  sink.incident(with_tracepoints(Incident{"memcg_reclaim", "memcg reclaim", false, 27508, "cat",
                                          3946345293000, 3946345805000, lines},
                                 tracepoints));
  const std::string text = out.str();
  const std::size_t at = text.find("\"tracepoints\":");
  REQUIRE(at != std::string::npos);
  CHECK(text.substr(at) ==
        "\"tracepoints\":["
        "{\"event\":\"mm_vmscan_memcg_reclaim_begin\",\"ts_ns\":3946345293000,\"fields\":"
        "{\"order\":0,\"gfp_flags\":\"GFP_HIGHUSER_MOVABLE|__GFP_COMP\"}},"
        "{\"event\":\"mm_shrink_slab_start\",\"ts_ns\":3946345453000,\"fields\":"
        "{\"symbol\":\"super_cache_scan\",\"instance\":\"00000000ce7941b5\",\"nid\":0,"
        "\"nr_objects_to_shrink\":-3,\"gfp_flags\":\"GFP_KERNEL\"}},"
        "{\"event\":\"mm_x\",\"ts_ns\":3946345500000,\"fields\":"
        "{\"odd\":\"\\\"q\\\"\\u001b[31m\",\"pfn\":\"0x10\"}},"
        "{\"event\":\"mm_vmscan_memcg_reclaim_end\",\"ts_ns\":3946345805000,\"fields\":"
        "{\"nr_reclaimed\":978}}]}\n");
}

TEST_CASE("json: a span of a line with no timestamp has no duration") {
  std::ostringstream out;
  JsonSink sink(out);
  const std::vector<std::string_view> lines = {"x"};
  sink.incident(Incident{"", "", false, 1, "", -1, -1, lines});
  CHECK(out.str().find("\"duration_ns\":-1") != std::string::npos);
}

TEST_CASE("json: LOST lines and shrinker totals, in ShrinkerStats' order") {
  std::ostringstream out;
  JsonSink sink(out);
  sink.passthrough("CPU:0 [LOST 600 EVENTS]", 0);
  sink.passthrough("CPU:3 [LOST EVENTS]", 0); // no count: no "events"
  ShrinkerStats stats;
  stats.add("super_cache_scan", "00000000ce7941b5", 400'000);
  stats.add("super_cache_scan", "00000000c60de79d", 100'000);
  stats.add("kfree_rcu_shrink_scan", "00000000ecb61676", 300'000);
  sink.finish(stats);
  CHECK(out.str() ==
        "{\"type\":\"lost\",\"line\":\"CPU:0 [LOST 600 EVENTS]\",\"cpu\":0,\"events\":600}\n"
        "{\"type\":\"lost\",\"line\":\"CPU:3 [LOST EVENTS]\",\"cpu\":3}\n"
        "{\"type\":\"shrinker\",\"symbol\":\"super_cache_scan\",\"total_ns\":500000,"
        "\"max_ns\":400000,\"calls\":2,\"instances\":["
        "{\"instance\":\"00000000ce7941b5\",\"total_ns\":400000,\"max_ns\":400000,\"calls\":1},"
        "{\"instance\":\"00000000c60de79d\",\"total_ns\":100000,\"max_ns\":100000,\"calls\":1}]}\n"
        "{\"type\":\"shrinker\",\"symbol\":\"kfree_rcu_shrink_scan\",\"total_ns\":300000,"
        "\"max_ns\":300000,\"calls\":1,\"instances\":["
        "{\"instance\":\"00000000ecb61676\",\"total_ns\":300000,\"max_ns\":300000,\"calls\":1}]}"
        "\n");
}

#include "bind/shrinker_stats.h"
#include "output/timeline_sink.h"
#include "tracepoints.h"

#include <doctest/doctest.h>
#include <sstream>
#include <string>
#include <vector>

using namespace allocwatch;

namespace {

constexpr Nanos us = kMicro;
constexpr Nanos ms = kMilli;

struct Timeline {
  std::ostringstream out;
  TimelineSink sink{out};

  void span(std::string_view span, std::string_view kind, std::int32_t pid, std::string_view comm,
            Nanos start, Nanos end, std::vector<std::string> lines = {"} /* x */"}) {
    std::vector<std::string_view> views(lines.begin(), lines.end());
    const std::vector<Tracepoint> tracepoints = tracepoints_of_lines(views);
    sink.incident(Incident{span, kind, false, pid, comm, start, end, views, tracepoints});
  }
  std::string finished() {
    sink.finish(ShrinkerStats{});
    return out.str();
  }
};

std::string event(std::int32_t pid, Nanos ts, std::string_view name, std::string_view fields) {
  char stamp[32];
  std::snprintf(stamp, sizeof stamp, "%lld.%06lld", static_cast<long long>(ts / kSecond),
                static_cast<long long>(ts % kSecond / kMicro));
  return "  memhog-" + std::to_string(pid) + " [001] ..... " + stamp + ": " + std::string(name) +
         ": " + std::string(fields);
}

} // namespace

TEST_CASE("timeline: an empty run is an empty array") {
  Timeline t;
  CHECK(t.finished() == "[\n]\n");
}

TEST_CASE("timeline: a named track per task, a complete event per span, args from its lines") {
  Timeline t;
  t.span("try_to_free_pages", "direct reclaim", 170, "memhog", 16'466'558'123, 16'516'484'000,
         {"  16.466577 |   1)   memhog-170   |               |  /* "
          "mm_vmscan_direct_reclaim_begin: order=0 gfp_flags=GFP_KERNEL */",
          "  16.516484 |   1)   memhog-170   | * 49926.22 us |    } /* try_to_free_pages */"});
  CHECK(t.finished() ==
        "[\n"
        "{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":170,\"tid\":170,\"args\":{\"name\":"
        "\"memhog-170\"}},\n"
        "{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":170,\"tid\":170,\"args\":{\"name\":"
        "\"memhog-170\"}},\n"
        "{\"name\":\"try_to_free_pages\",\"cat\":\"direct reclaim\",\"ph\":\"X\","
        "\"ts\":16466558.123,\"dur\":49925.877,\"pid\":170,\"tid\":170,\"args\":{"
        "\"kind\":\"direct reclaim\",\"duration_ns\":49925877,\"tracepoints\":["
        "{\"event\":\"mm_vmscan_direct_reclaim_begin\",\"ts_ns\":16466577000,\"fields\":"
        "{\"order\":0,\"gfp_flags\":\"GFP_KERNEL\"}}]}}\n"
        "]\n");
}

TEST_CASE("timeline: a task's track is named again when its comm changes") {
  Timeline t;
  t.span("a", "allocation", 171, "init", 0, 1 * ms);
  t.span("a", "allocation", 171, "init", 2 * ms, 3 * ms);
  t.span("a", "allocation", 171, "memhog", 4 * ms, 5 * ms);
  const std::string out = t.finished();
  CHECK(out.find("\"thread_name\",\"ph\":\"M\",\"pid\":171,\"tid\":171,\"args\":{\"name\":"
                 "\"init-171\"}") != std::string::npos);
  CHECK(out.find("{\"name\":\"memhog-171\"}") != std::string::npos);
  // Named twice: process and thread, per comm.
  std::size_t names = 0;
  for (std::size_t at = out.find("\"ph\":\"M\""); at != std::string::npos;
       at = out.find("\"ph\":\"M\"", at + 1))
    ++names;
  CHECK(names == 4);
}

TEST_CASE("timeline: a call is widened to cover the calls nested in it, by under 1 us") {
  Timeline t;
  // The inner call's start, computed from a truncated return time, lies
  // 0.5 us before its caller's.
  t.span("shrink_node", "", 1, "a", 999'500, 1'500'000);
  t.span("try_to_free_pages", "direct reclaim", 1, "a", 1'000'000, 2'000'000);
  const std::string out = t.finished();
  CHECK(out.find("\"name\":\"try_to_free_pages\",\"cat\":\"direct reclaim\",\"ph\":\"X\","
                 "\"ts\":999.500,\"dur\":1000.500,\"pid\":1,\"tid\":1,\"args\":{\"kind\":"
                 "\"direct reclaim\",\"duration_ns\":1000000,") != std::string::npos);
}

TEST_CASE("timeline: a span that overlaps another without nesting goes to an overlap track") {
  Timeline t;
  t.span("a", "allocation", 158, "dd", 366 * us, 469 * us);
  t.span("a", "allocation", 158, "dd", 399 * us, 936 * us); // across the first's end
  t.span("a", "allocation", 158, "dd", 950 * us, 960 * us); // after both: same track
  const std::string out = t.finished();
  const std::int32_t overlap = 158 + (1 << 22);
  CHECK(out.find("{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":158,\"tid\":" +
                 std::to_string(overlap) + ",\"args\":{\"name\":\"dd-158 (overlap 1)\"}}") !=
        std::string::npos);
  CHECK(out.find("\"ts\":399.000,\"dur\":537.000,\"pid\":158,\"tid\":" + std::to_string(overlap)) !=
        std::string::npos);
  CHECK(out.find("\"ts\":950.000,\"dur\":10.000,\"pid\":158,\"tid\":158,") != std::string::npos);
}

TEST_CASE("timeline: a caller whose return was stamped late goes to an overlap track") {
  Timeline t;
  // As in a generated trace: the allocation's return came late, so it seems
  // to start after its direct reclaim, and across the shrink_node in it.
  t.span("shrink_node", "", 5, "a", 96'930, 376'000);
  t.span("try_to_free_pages", "direct reclaim", 5, "a", 81'990, 379'000);
  t.span("__alloc_pages", "allocation", 5, "a", 98'614, 379'000);
  const std::string out = t.finished();
  CHECK(out.find("\"ts\":96.930,\"dur\":279.070,\"pid\":5,\"tid\":5,") != std::string::npos);
  CHECK(out.find("\"ts\":81.990,\"dur\":297.010,\"pid\":5,\"tid\":5,") != std::string::npos);
  CHECK(out.find("\"ts\":98.614,\"dur\":280.386,\"pid\":5,\"tid\":" +
                 std::to_string(5 + (1 << 22))) != std::string::npos);
}

TEST_CASE("timeline: a shrinker pair is named by its shrinker; claimed pairs nest in their span") {
  Timeline t;
  t.span("shrink_slab", "shrinker", 9, "memhog", 1 * ms, 2 * ms,
         {event(9, 1 * ms, "mm_shrink_slab_start",
                "super_cache_scan+0x0/0x1 00000000000000aa: nid: 0"),
          event(9, 2 * ms, "mm_shrink_slab_end",
                "super_cache_scan+0x0/0x1 00000000000000aa: nid: 0")});
  t.span("shrink_slab", "", 9, "memhog", 3 * ms, 9 * ms,
         {event(9, 4 * ms, "mm_shrink_slab_start",
                "ext4_es_scan+0x0/0x1 [ext4] 00000000000000bb: nid: 0"),
          event(9, 5 * ms, "mm_shrink_slab_end",
                "ext4_es_scan+0x0/0x1 [ext4] 00000000000000bb: nid: 0"),
          "  9.000000 |   1)   memhog-9   | * 6000.000 us |  } /* shrink_slab */"});
  const std::string out = t.finished();
  CHECK(out.find("{\"name\":\"shrink_slab: super_cache_scan\",\"cat\":\"shrinker\",\"ph\":\"X\","
                 "\"ts\":1000.000,\"dur\":1000.000,") != std::string::npos);
  CHECK(out.find("{\"name\":\"shrink_slab\",\"cat\":\"inner call\",\"ph\":\"X\",\"ts\":3000.000,"
                 "\"dur\":6000.000,") != std::string::npos);
  CHECK(out.find("{\"name\":\"shrink_slab: ext4_es_scan\",\"cat\":\"shrinker call\",\"ph\":\"X\","
                 "\"ts\":4000.000,\"dur\":1000.000,\"pid\":9,\"tid\":9,\"args\":{\"kind\":\"\","
                 "\"duration_ns\":1000000,\"tracepoints\":[{\"event\":\"mm_shrink_slab_start\"") !=
        std::string::npos);
}

TEST_CASE("timeline: LOST lines are global instants; spans without times are left out") {
  Timeline t;
  t.sink.passthrough("CPU:1 [LOST 600 EVENTS]", 5 * ms);
  t.span("a", "allocation", 1, "a", -1, -1);
  CHECK(t.finished() ==
        "[\n"
        "{\"name\":\"CPU:1 [LOST 600 EVENTS]\",\"cat\":\"lost\",\"ph\":\"i\",\"s\":\"g\","
        "\"ts\":5000.000,\"pid\":0,\"tid\":0,\"args\":{\"line\":\"CPU:1 [LOST 600 EVENTS]\"}}\n"
        "]\n");
}

TEST_CASE("timeline: untrusted names are JSON-escaped") {
  Timeline t;
  t.span("f\"x", "allocation", 1, "a\x1b\\", 0, 1 * ms);
  const std::string out = t.finished();
  CHECK(out.find("\"name\":\"a\\u001b\\\\-1\"") != std::string::npos);
  CHECK(out.find("\"name\":\"f\\\"x\"") != std::string::npos);
  CHECK(out.find('\x1b') == std::string::npos);
}

TEST_CASE("timeline: finishing twice closes the array once") {
  Timeline t;
  t.sink.finish(ShrinkerStats{});
  CHECK(t.finished() == "[\n]\n");
}

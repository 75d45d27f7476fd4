#include "bind/shrinker_stats.h"
#include "output/text_sink.h"

#include <doctest/doctest.h>
#include <sstream>
#include <string>
#include <vector>

using namespace allocwatch;

TEST_CASE("the text sink prints the trace's own lines") {
  std::ostringstream out;
  TextSink sink(out);
  const std::vector<std::string_view> lines = {
      "   16.180496 |   1)   kswapd0-44   |               |  /* mm_shrink_slab_start: x */",
      "   16.188253 |   1)   kswapd0-44   |               |  /* mm_shrink_slab_end: x */"};
  sink.incident(Incident{"shrink_slab", "shrinker", true, 44, "kswapd0", 16'180'496'000,
                         16'188'253'000, lines});
  sink.passthrough("CPU:0 [LOST 600 EVENTS]", 0);
  const std::vector<std::string_view> one = {
      "   13.218727 |   0)   <...>-156    | ! 431.377 us  |  } /* __alloc_pages */"};
  sink.incident(Incident{"__alloc_pages", "allocation", false, 156, "<...>", 0, 0, one});
  CHECK(out.str() ==
        "   16.180496 |   1)   kswapd0-44   |               |  /* mm_shrink_slab_start: x */\n"
        "   16.188253 |   1)   kswapd0-44   |               |  /* mm_shrink_slab_end: x */\n"
        "CPU:0 [LOST 600 EVENTS]\n"
        "   13.218727 |   0)   <...>-156    | ! 431.377 us  |  } /* __alloc_pages */\n");
}

TEST_CASE("the text sink ends with the shrinker totals") {
  std::ostringstream out;
  TextSink sink(out);
  sink.passthrough("CPU:1 [LOST 5 EVENTS]", 0);
  ShrinkerStats shrinkers;
  shrinkers.add("super_cache_scan", "00000000ce7941b5", 8'455'000);
  sink.finish(shrinkers);
  CHECK(out.str() == "CPU:1 [LOST 5 EVENTS]\n"
                     "super_cache_scan : total time = 8.455000 ms, max latency = 8.455000 ms\n");
}

namespace {

// A stream buffer that counts the flushes asked of it.
struct CountingBuf : std::stringbuf {
  int syncs = 0;
  int sync() override {
    ++syncs;
    return std::stringbuf::sync();
  }
};

} // namespace

TEST_CASE("the text sink flushes at the end") {
  CountingBuf counting;
  std::ostream out(&counting);
  TextSink sink(out);
  sink.finish(ShrinkerStats{});
  CHECK(counting.syncs == 1);
  CHECK(counting.str().empty());
}

TEST_CASE("the text sink stops at the first failed write and says so") {
  // Room for 40 bytes: the second line fails.
  struct SmallBuf : std::streambuf {
    char data[40];
    SmallBuf() { setp(data, data + sizeof data); }
    std::string written() const { return std::string(pbase(), pptr()); }
  } small;
  std::ostream out(&small);
  TextSink sink(out);
  const std::vector<std::string_view> lines = {"first line, 24 bytes ...",
                                               "second line, which does not fit"};
  sink.incident(Incident{"f", "", false, 1, "a", 0, 1, lines});
  CHECK(out.bad());
  CHECK(small.written().starts_with("first line, 24 bytes ...\n"));
  sink.passthrough("CPU:0 [LOST 1 EVENTS]", 0);
  CHECK(small.written().find("LOST") == std::string::npos);
}

TEST_CASE("the text sink flushes after each write when the stream asks (unitbuf)") {
  CountingBuf counting;
  std::ostream out(&counting);
  out << std::unitbuf;
  TextSink sink(out);
  const std::vector<std::string_view> lines = {"a", "b"};
  sink.incident(Incident{"f", "", false, 1, "a", 0, 1, lines});
  sink.passthrough("c", 0);
  CHECK(counting.str() == "a\nb\nc\n");
  CHECK(counting.syncs == 2);
}

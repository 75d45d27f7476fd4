#include "bind/shrinker_stats.h"
#include "output/status_line.h"

#include <doctest/doctest.h>
#include <sstream>
#include <string>
#include <vector>

using namespace allocwatch;
using namespace std::chrono_literals;

namespace {

struct Fixture {
  std::ostringstream out;
  RunStats stats;
  StallStats stalls;
  StatusLine::Clock::time_point t0{std::chrono::hours(1)};
  int width = 200;
  StatusLine line{out, stats, stalls, options(false)};

  StatusLine::Options options(bool erase_before_output) {
    StatusLine::Options o;
    o.threshold = kMilli;
    o.started = t0;
    o.erase_before_output = erase_before_output;
    o.width = [this] { return width; };
    return o;
  }
  void stall(std::string_view comm, std::int32_t pid, std::string_view kind, Nanos duration) {
    const std::string_view lines[] = {"x"};
    stalls.incident(Incident{"f", kind, false, pid, comm, 0, duration, lines});
  }
};

} // namespace

TEST_CASE("status line: what it says") {
  Fixture f;
  CHECK(f.line.text(f.t0 + 3s) ==
        "allocwatch: 3s, 0 lines, 0 stalls of 1ms or more, 0 events lost");
  f.stats.lines_read = 123456;
  f.stats.lost_events = 600;
  f.stall("memhog", 171, "direct reclaim", 49'926'220);
  f.stall("dd", 160, "allocation", 2'000'000);
  CHECK(f.line.text(f.t0 + 65s) ==
        "allocwatch: 1m05s, 123456 lines, 2 stalls of 1ms or more, worst memhog-171 direct "
        "reclaim 49.926ms, 600 events lost");
  f.stats.lost_uncounted = 1;
  CHECK(f.line.text(f.t0 + 3723s).find("1h02m03s") != std::string::npos);
  CHECK(f.line.text(f.t0 + 3723s).ends_with(", at least 600 events lost"));
}

TEST_CASE("status line: a comm cannot send escape sequences to the terminal") {
  Fixture f;
  f.stall("x\x1b]0;pwned\x07", 6, "allocation", 5'000'000);
  const std::string text = f.line.text(f.t0);
  CHECK(text.find('\x1b') == std::string::npos);
  CHECK(text.find("worst x\\x1b]0;pwned\\x07-6 allocation") != std::string::npos);
}

TEST_CASE("status line: drawn in place at most once a second, erased at the end") {
  Fixture f;
  f.line.update(f.t0);
  CHECK(f.out.str() == "\r\x1b[Kallocwatch: 0s, 0 lines, 0 stalls of 1ms or more, 0 events lost");
  f.out.str("");
  f.line.update(f.t0 + 500ms);
  f.line.update(f.t0 + 999ms);
  CHECK(f.out.str().empty());
  f.stats.lines_read = 7;
  f.line.update(f.t0 + 1s);
  CHECK(f.out.str() == "\r\x1b[Kallocwatch: 1s, 7 lines, 0 stalls of 1ms or more, 0 events lost");
  f.out.str("");
  f.line.finish(ShrinkerStats{});
  CHECK(f.out.str() == "\r\x1b[K");
  f.out.str("");
  f.line.erase(); // gone already: nothing
  CHECK(f.out.str().empty());
}

TEST_CASE("status line: cut to the terminal's width, so that it never wraps") {
  Fixture f;
  f.width = 20;
  f.line.update(f.t0);
  CHECK(f.out.str() == "\r\x1b[Kallocwatch: 0s, 0 l"); // 19 columns of 20
  Fixture unknown;
  unknown.width = 0; // no size: 80 columns
  unknown.stats.lines_read = 1'000'000'000'000;
  unknown.stall(std::string(15, 'c'), 4'000'000, "memcg soft limit reclaim", 9'999'999'999);
  unknown.line.update(unknown.t0);
  CHECK(unknown.out.str().size() == 4 + 79);
}

TEST_CASE("status line: erased before a trace line goes to the same terminal") {
  std::ostringstream out;
  RunStats stats;
  StallStats stalls;
  StatusLine::Options options;
  options.threshold = kMilli;
  options.started = StatusLine::Clock::time_point{};
  options.erase_before_output = true;
  StatusLine line(out, stats, stalls, options);
  const std::string_view lines[] = {"x"};
  line.incident(Incident{"f", "", false, 1, "a", 0, 1, lines}); // not drawn yet: nothing
  CHECK(out.str().empty());
  line.update(StatusLine::Clock::time_point{});
  out.str("");
  line.incident(Incident{"f", "", false, 1, "a", 0, 1, lines});
  CHECK(out.str() == "\r\x1b[K");
  out.str("");
  line.update(StatusLine::Clock::time_point{} + 2s);
  line.passthrough("CPU:0 [LOST 1 EVENTS]", 0);
  CHECK(out.str().ends_with("\r\x1b[K"));

  // Trace lines going elsewhere (a file): the line stays.
  options.erase_before_output = false;
  std::ostringstream out2;
  StatusLine stays(out2, stats, stalls, options);
  stays.update(StatusLine::Clock::time_point{});
  out2.str("");
  stays.incident(Incident{"f", "", false, 1, "a", 0, 1, lines});
  CHECK(out2.str().empty());
}

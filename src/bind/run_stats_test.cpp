#include "bind/run_stats.h"

#include <doctest/doctest.h>
#include <sstream>

using namespace allocwatch;

TEST_CASE("run stats: returns over threshold that could not be named are said in words") {
  RunStats stats;
  stats.functions_over_threshold["__alloc_pages"] = 3;
  stats.functions_over_threshold[""] = 7;
  std::ostringstream out;
  stats.print(out);
  CHECK(out.str().find("allocwatch: functions over threshold: ?=7 __alloc_pages=3\n") !=
        std::string::npos);
  CHECK(out.str().find("allocwatch: 7 returns over threshold could not be named (? above): a bare "
                       "\"}\" whose entry line is not in the trace") != std::string::npos);

  RunStats named;
  named.functions_over_threshold["__alloc_pages"] = 3;
  std::ostringstream quiet;
  named.print(quiet);
  CHECK(quiet.str().find("could not be named") == std::string::npos);
}

TEST_CASE("run stats: a threshold below what a trace of returns alone can hold is said") {
  RunStats stats;
  stats.threshold = 50 * kMicro;
  stats.shortest_return = 100'093; // ns: tracing_thresh was 100 us at most
  std::ostringstream out;
  stats.print(out);
  CHECK(out.str().find("allocwatch: the shortest return in this trace took 100.093us: ") !=
        std::string::npos);
  CHECK(out.str().find("so -t 50us finds no more function calls than -t 100us would\n") !=
        std::string::npos);

  // At the capture threshold, or with entries in the trace: nothing to say.
  for (const bool entries : {false, true}) {
    RunStats quiet = stats;
    quiet.threshold = entries ? 1 : 100 * kMicro;
    quiet.graph_entries = entries;
    std::ostringstream text;
    quiet.print(text);
    CHECK(text.str().find("shortest return") == std::string::npos);
  }
}

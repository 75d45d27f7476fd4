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

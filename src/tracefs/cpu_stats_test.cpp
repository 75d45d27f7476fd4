#include "tracefs/cpu_stats.h"

#include <doctest/doctest.h>

namespace allocwatch {
namespace {

TEST_CASE("parse_cpu_stats: overrun and dropped events, as 6.18 prints them") {
  // per_cpu/cpu1/stats of an instance overrun under memcg reclaim, here.
  const CpuStats stats = parse_cpu_stats("entries: 0\n"
                                         "overrun: 943\n"
                                         "commit overrun: 0\n"
                                         "bytes: 0\n"
                                         "oldest event ts: 11698.316321\n"
                                         "now ts: 11698.460211\n"
                                         "dropped events: 12\n"
                                         "read events: 1707\n");
  CHECK(stats.overrun == 943); // not "commit overrun"
  CHECK(stats.dropped == 12);
  CHECK(stats.lost() == 955);
}

TEST_CASE("parse_cpu_stats: what is missing or not a number counts 0") {
  CHECK(parse_cpu_stats("").lost() == 0);
  CHECK(parse_cpu_stats("overrun: 12x\ndropped events: -3\n").lost() == 0);
  CHECK(parse_cpu_stats("overrun:7").overrun == 7);
  CHECK(parse_cpu_stats("commit overrun: 5\noverrunning: 9\n").overrun == 0);
  CHECK(parse_cpu_stats("overrun: 99999999999999999999999\n").overrun == 0);
}

} // namespace
} // namespace allocwatch

#include "cgroup/proc_cgroup.h"

#include <doctest/doctest.h>
#include <string>

using namespace allocwatch;

TEST_CASE("proc_cgroup: the memory controller's line on v1, the unified line on v2") {
  const std::string v1 = "9:name=systemd:/\n8:pids:/\n4:memory:/process_api/63f5\n"
                         "3:cpuset:/\n0::/\n";
  const auto on_v1 = memory_cgroup_of(v1);
  REQUIRE(on_v1);
  CHECK(on_v1->version == CgroupVersion::V1);
  CHECK(on_v1->path == "/process_api/63f5");

  const auto on_v2 = memory_cgroup_of("0::/system.slice/nginx.service\n");
  REQUIRE(on_v2);
  CHECK(on_v2->version == CgroupVersion::V2);
  CHECK(on_v2->path == "/system.slice/nginx.service");

  // Controllers co-mounted on v1: "cpu,memory".
  const auto comounted = memory_cgroup_of("5:cpu,memory:/docker/x\n0::/\n");
  REQUIRE(comounted);
  CHECK(comounted->path == "/docker/x");
  // No trailing newline, the memory line last.
  const auto last = memory_cgroup_of("0::/\n4:memory:/a");
  REQUIRE(last);
  CHECK(last->path == "/a");
}

TEST_CASE("proc_cgroup: lines that name no memory cgroup") {
  CHECK_FALSE(memory_cgroup_of(""));
  CHECK_FALSE(memory_cgroup_of("8:pids:/\n"));
  CHECK_FALSE(memory_cgroup_of("4:memory\n"));
  CHECK_FALSE(memory_cgroup_of("4:memory:relative\n"));
  CHECK_FALSE(memory_cgroup_of("4:memoryx:/a\n1::/b\n"));
}

TEST_CASE("proc_cgroup: the start time from /proc/PID/stat") {
  const std::string stat = "5021 (cat) R 5016 5016 1283 0 -1 4194304 99 0 0 0 0 0 0 0 20 0 1 0 "
                           "52940 3133440 412 18446744073709551615\n";
  CHECK(start_time_of(stat) == 52940u);
  // A comm with spaces and parentheses.
  CHECK(start_time_of("7 (a) b (c) S 1 1 1 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 77 0") == 77u);
  CHECK_FALSE(start_time_of(""));
  CHECK_FALSE(start_time_of("5021 (cat) R 5016"));
  CHECK_FALSE(start_time_of("5021 (cat) R 1 1 1 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 x 0"));
  CHECK_FALSE(start_time_of("5021 cat R 1 1 1 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 5 0"));
}

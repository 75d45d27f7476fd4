#include "cgroup/memcg.h"
#include "fake_files.h"

#include <doctest/doctest.h>
#include <map>

using namespace allocwatch;

TEST_CASE("memcg: the memory hierarchies' mount points from mountinfo") {
  // This development machine's, hybrid: v1 controllers and a unified tree.
  const CgroupMounts hybrid =
      cgroup_mounts("31 23 0:28 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755\n"
                    "32 31 0:29 / /sys/fs/cgroup/cpu rw,relatime - cgroup cgroup rw,cpu\n"
                    "35 31 0:32 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory\n"
                    "41 31 0:38 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw\n");
  CHECK(hybrid.v1_memory == "/sys/fs/cgroup/memory");
  CHECK(hybrid.unified == "/sys/fs/cgroup/unified");
  // Debian's default since bullseye: v2 only, with an optional field.
  const CgroupMounts v2 = cgroup_mounts("27 22 0:24 / /sys/fs/cgroup rw,nosuid shared:9 - "
                                        "cgroup2 cgroup2 rw,nsdelegate,memory_recursiveprot\n");
  CHECK(v2.unified == "/sys/fs/cgroup");
  CHECK(v2.v1_memory.empty());
  // Co-mounted controllers; a subtree (inside a container) is not followed.
  CHECK(cgroup_mounts("1 0 0:1 / /cg rw - cgroup cgroup rw,cpu,memory\n").v1_memory == "/cg");
  CHECK(cgroup_mounts("1 0 0:1 /docker/x /cg rw - cgroup2 cgroup2 rw\n").unified.empty());
  CHECK(cgroup_mounts("garbage\n\n1 2 3\n - - -").unified.empty());
}

TEST_CASE("memcg: a cgroup's directory and its parents") {
  const CgroupMounts mounts{"/sys/fs/cgroup/memory", "/sys/fs/cgroup"};
  CHECK(cgroup_dir(mounts, CgroupVersion::V1, "/a/b") == "/sys/fs/cgroup/memory/a/b");
  CHECK(cgroup_dir(mounts, CgroupVersion::V2, "/") == "/sys/fs/cgroup");
  CHECK(cgroup_dir(mounts, CgroupVersion::V2, "/a/../../etc").empty());
  CHECK(cgroup_dir(mounts, CgroupVersion::V2, "relative").empty());
  CHECK(cgroup_dir(CgroupMounts{}, CgroupVersion::V2, "/a").empty());
  CHECK(parent_cgroup("/a/b/c") == "/a/b");
  CHECK(parent_cgroup("/a") == "/");
  CHECK(parent_cgroup("/a/") == "/");
  CHECK(parent_cgroup("/").empty());
  CHECK(parent_cgroup("").empty());
}

TEST_CASE("memcg: v2 limits and events") {
  FakeFiles files;
  files.files["/cg/memory.max"] = "67108864\n";
  files.files["/cg/memory.high"] = "max\n";
  files.files["/cg/memory.events"] = "low 0\nhigh 12\nmax 345\noom 2\noom_kill 1\n"
                                     "oom_group_kill 0\n";
  const MemcgState state = read_memcg(files, "/cg", CgroupVersion::V2);
  CHECK(state.readable);
  CHECK(state.limit == 67108864u);
  CHECK_FALSE(state.high);
  CHECK(state.high_events == 12);
  CHECK(state.max_events == 345);
  CHECK(state.oom == 2);
  CHECK(state.oom_kill == 1);
  CHECK_FALSE(read_memcg(files, "/gone", CgroupVersion::V2).readable);
}

TEST_CASE("memcg: v1 limit, failcnt and max usage; no limit is none") {
  FakeFiles files;
  files.files["/m/memory.failcnt"] = "5230\n";
  files.files["/m/memory.limit_in_bytes"] = "67108864\n";
  files.files["/m/memory.max_usage_in_bytes"] = "67112960\n";
  files.files["/root/memory.failcnt"] = "0\n";
  files.files["/root/memory.limit_in_bytes"] = "9223372036854771712\n";
  const MemcgState state = read_memcg(files, "/m", CgroupVersion::V1);
  CHECK(state.readable);
  CHECK(state.limit == 67108864u);
  CHECK(state.failcnt == 5230);
  CHECK(state.max_usage == 67112960);
  const MemcgState root = read_memcg(files, "/root", CgroupVersion::V1);
  CHECK(root.readable);
  CHECK_FALSE(root.limit);
  CHECK(root.max_usage == 0);
}

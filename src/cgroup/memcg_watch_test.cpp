#include "cgroup/memcg_watch.h"
#include "fake_files.h"

#include <doctest/doctest.h>
#include <map>

using namespace allocwatch;

namespace {

// With a cgroup v2 directory's memory files.
class V2Files final : public FakeFiles {
public:
  void v2(const std::string& dir, const std::string& max, int max_events) {
    files[dir + "/memory.max"] = max + "\n";
    files[dir + "/memory.high"] = "max\n";
    files[dir + "/memory.events"] =
        "low 0\nhigh 0\nmax " + std::to_string(max_events) + "\noom 0\noom_kill 0\n";
  }
};

} // namespace

TEST_CASE("memcg_watch: a stall under a parent slice's limit shows at the parent") {
  V2Files files;
  files.v2("/cg", "max", 0);
  files.v2("/cg/pods.slice", "104857600", 10);
  files.v2("/cg/pods.slice/app.scope", "max", 0);
  MemcgWatch watch(files, CgroupMounts{"", "/cg"});
  watch.note(CgroupVersion::V2, "/pods.slice/app.scope");
  watch.note(CgroupVersion::V2, "/pods.slice/app.scope"); // once
  files.v2("/cg/pods.slice", "104857600", 250);
  const std::vector<MemcgChain>& chains = watch.finish();
  REQUIRE(chains.size() == 1);
  const std::vector<MemcgLevel>& levels = chains[0].levels;
  REQUIRE(levels.size() == 3);
  CHECK(levels[0].path == "/pods.slice/app.scope");
  CHECK(levels[1].path == "/pods.slice");
  CHECK(levels[2].path == "/");
  CHECK_FALSE(levels[0].first.limit);
  CHECK(levels[1].first.limit == 104857600u);
  CHECK(levels[1].last.max_events - levels[1].first.max_events == 240);
  CHECK(levels[0].last.max_events == 0);
}

TEST_CASE("memcg_watch: a cgroup gone by the end, and the bound on cgroups") {
  FakeFiles files;
  files.files["/m/gone/memory.failcnt"] = "3\n";
  files.files["/m/gone/memory.limit_in_bytes"] = "1048576\n";
  MemcgWatch watch(files, CgroupMounts{"/m", ""});
  watch.note(CgroupVersion::V1, "/gone");
  files.files.erase("/m/gone/memory.failcnt");
  for (std::size_t i = 0; i < MemcgWatch::kMaxCgroups + 5; ++i) {
    files.files["/m/c" + std::to_string(i) + "/memory.failcnt"] = "0\n";
    watch.note(CgroupVersion::V1, "/c" + std::to_string(i));
  }
  CHECK(watch.not_kept() == 6);
  const std::vector<MemcgChain>& chains = watch.finish();
  CHECK(chains.size() == MemcgWatch::kMaxCgroups);
  CHECK(chains[0].levels[0].first.readable);
  CHECK(chains[0].levels[0].first.failcnt == 3);
  CHECK_FALSE(chains[0].levels[0].last.readable);
}

TEST_CASE("memcg_watch: levels without memory files (v2's root) are left out") {
  V2Files files;
  files.v2("/cg/a", "max", 0);
  MemcgWatch watch(files, CgroupMounts{"", "/cg"});
  watch.note(CgroupVersion::V2, "/a");
  watch.note(CgroupVersion::V2, "/not-a-cgroup");
  const std::vector<MemcgChain>& chains = watch.finish();
  REQUIRE(chains.size() == 1);
  REQUIRE(chains[0].levels.size() == 1);
  CHECK(chains[0].levels[0].path == "/a");
}

TEST_CASE("memcg_watch: saved chains are given back as they were, nothing read") {
  MemcgState readable;
  readable.readable = true;
  readable.failcnt = 9;
  MemcgWatch watch(std::vector<MemcgChain>{MemcgChain{CgroupVersion::V1, {{"/a", readable, {}}}}});
  watch.note(CgroupVersion::V1, "/b");
  const std::vector<MemcgChain>& chains = watch.finish();
  REQUIRE(chains.size() == 1);
  CHECK(chains[0].levels[0].path == "/a");
  CHECK(chains[0].levels[0].first.failcnt == 9);
  CHECK_FALSE(chains[0].levels[0].last.readable);
}

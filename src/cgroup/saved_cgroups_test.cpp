#include "cgroup/saved_cgroups.h"

#include <cstdio>
#include <doctest/doctest.h>
#include <string>
#include <unistd.h>

using namespace allocwatch;

namespace {

const std::string kId = "3f4ae8b2c1d04e6f9a7b5c3d2e1f0a9b8c7d6e5f4a3b2c1d0e9f8a7b6c5d4e3f";

SavedCgroups sample() {
  SavedCgroups saved;
  saved.tasks[4242] =
      TaskCgroup{CgroupVersion::V1, "/docker/" + kId, container_of("/docker/" + kId)};
  saved.tasks[7] = TaskCgroup{CgroupVersion::V2, "/odd name/%\n\x7f", {}};
  MemcgState first;
  first.readable = true;
  first.limit = 67108864;
  first.failcnt = 5;
  MemcgState last = first;
  last.failcnt = 260;
  last.max_usage = 67112960;
  saved.chains.push_back(MemcgChain{CgroupVersion::V1,
                                    {MemcgLevel{"/docker/" + kId, first, last},
                                     MemcgLevel{"/docker", MemcgState{}, MemcgState{}},
                                     MemcgLevel{"/", first, MemcgState{}}}});
  return saved;
}

// A file holding `text`, read back with read_saved_cgroups.
Result<std::optional<SavedCgroups>> read_back(const std::string& text) {
  FILE* file = std::tmpfile();
  REQUIRE(file != nullptr);
  REQUIRE(std::fwrite(text.data(), 1, text.size(), file) == text.size());
  std::fflush(file);
  auto result = read_saved_cgroups(fileno(file));
  std::fclose(file);
  return result;
}

} // namespace

TEST_CASE("saved_cgroups: what a live run writes, a replay reads back") {
  const SavedCgroups saved = sample();
  const std::string records = write_saved_cgroups(saved);
  CHECK(records.starts_with("# allocwatch cgroup 7 v2 /odd%20name/%25%0A%7F\n"));
  auto read = read_back("trace line one\ntrace line two\n" + records);
  REQUIRE(read);
  REQUIRE(read->has_value());
  const SavedCgroups& back = **read;
  REQUIRE(back.tasks.size() == 2);
  CHECK(back.tasks.at(4242).path == "/docker/" + kId);
  CHECK(back.tasks.at(4242).container.id == kId);
  CHECK(back.tasks.at(7).path == "/odd name/%\n\x7f");
  REQUIRE(back.chains.size() == 1);
  REQUIRE(back.chains[0].levels.size() == 3);
  CHECK(back.chains[0].levels[0].first.limit == 67108864u);
  CHECK(back.chains[0].levels[0].last.failcnt == 260);
  CHECK(back.chains[0].levels[0].last.max_usage == 67112960);
  CHECK_FALSE(back.chains[0].levels[1].first.readable);
  CHECK(back.chains[0].levels[2].first.readable);
  CHECK_FALSE(back.chains[0].levels[2].last.readable);
  CHECK(write_saved_cgroups(back) == records);
}

TEST_CASE("saved_cgroups: a trace without records has none; damaged records are an error") {
  auto none = read_back("a trace\n# a comment\n");
  REQUIRE(none);
  CHECK_FALSE(none->has_value());
  auto empty = read_back("");
  REQUIRE(empty);
  CHECK_FALSE(empty->has_value());

  const std::string records = write_saved_cgroups(sample());
  std::string damaged = records;
  damaged.replace(damaged.find("4242"), 4, "42x2");
  CHECK_FALSE(read_back("trace\n" + damaged));
  // A size larger than the file, or than the bound.
  CHECK_FALSE(read_back("# allocwatch cgroups 999\n"));
  CHECK_FALSE(read_back("# allocwatch cgroups 99999999999\n"));
  CHECK_FALSE(parse_saved_cgroups("# allocwatch cgroup 1 v3 /a\n"));
  CHECK_FALSE(parse_saved_cgroups("# allocwatch cgroup 1 v1 relative\n"));
  CHECK_FALSE(parse_saved_cgroups("# allocwatch cgroup 1 v1 /a%4\n"));
  CHECK_FALSE(parse_saved_cgroups("# allocwatch memcg 1 v1 /a - -\n")); // chain 1 before 0
  CHECK_FALSE(parse_saved_cgroups("# allocwatch memcg 0 v1 /a R,1,max - \n"));
  CHECK_FALSE(parse_saved_cgroups("# allocwatch cgroup 1 v1 /a"));
  CHECK(parse_saved_cgroups(""));
}

TEST_CASE("saved_cgroups: after binary data (a trace.dat's pages), a newline first") {
  const std::string pages(100, '\0');
  // Nothing learnt: the ending line alone, which needs a line of its own.
  auto none = read_back(pages + "\n" + write_saved_cgroups({}));
  REQUIRE(none);
  REQUIRE(none->has_value());
  CHECK((*none)->tasks.empty());
  CHECK_FALSE(read_back(pages + write_saved_cgroups({}))->has_value());
  auto some = read_back(pages + "\n" + write_saved_cgroups(sample()));
  REQUIRE(some);
  REQUIRE(some->has_value());
  CHECK((*some)->tasks.size() == sample().tasks.size());
}

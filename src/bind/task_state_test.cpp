#include "bind/task_state.h"

#include <doctest/doctest.h>
#include <string>
#include <vector>

using namespace allocwatch;

namespace {
std::vector<std::string> lines_of(const HeldLines& held) {
  std::vector<std::string> lines;
  for (std::size_t i = 0; i < held.size(); ++i)
    lines.push_back(held[i].line);
  return lines;
}
using Lines = std::vector<std::string>;
} // namespace

TEST_CASE("held lines keep input order through wrap-around, growth and removal") {
  HeldLines held;
  std::uint64_t seq = 0;
  auto push = [&](Nanos ts, std::size_t cap) {
    ++seq;
    return held.push(ts, seq, 0, "line " + std::to_string(ts), cap);
  };
  for (Nanos ts = 1; ts <= 8; ++ts)
    CHECK(push(ts, 100) == 0);
  CHECK(held.expire(4) == 3); // 1, 2, 3
  for (Nanos ts = 9; ts <= 11; ++ts)
    push(ts, 100); // wraps around the first 8 slots
  CHECK(held.capacity() == 8);
  push(12, 100); // grows
  CHECK(held.capacity() == 16);
  CHECK(lines_of(held) == Lines{"line 4", "line 5", "line 6", "line 7", "line 8", "line 9",
                                "line 10", "line 11", "line 12"});
  held[1].claimed = true;
  held[4].claimed = true;
  held[8].claimed = true;
  held.remove_claimed(1);
  CHECK(lines_of(held) == Lines{"line 4", "line 6", "line 7", "line 9", "line 10", "line 11"});
  CHECK(held[1].seq == 6);
}

TEST_CASE("the cap drops the oldest held line") {
  HeldLines held;
  CHECK(held.push(1, 1, 0, "a", 2) == 0);
  CHECK(held.push(2, 2, 0, "b", 2) == 0);
  CHECK(held.push(3, 3, 0, "c", 2) == 1);
  CHECK(lines_of(held) == Lines{"b", "c"});
  HeldLines none;
  CHECK(none.push(1, 1, 0, "a", 0) == 1);
  CHECK(none.empty());
}

TEST_CASE("entries pair by depth; a return or a new entry discards deeper ones") {
  TaskState task;
  CHECK(task.idle());
  task.open_entry(0, 100, "__alloc_pages", "alloc {");
  task.open_entry(1, 110, "try_to_free_pages", "ttfp {");
  task.open_entry(2, 120, "shrink_node", "shrink_node {");
  const OpenEntry* ttfp = task.close_entry(1, 0);
  REQUIRE(ttfp != nullptr);
  CHECK(ttfp->name == "try_to_free_pages");
  CHECK(ttfp->line == "ttfp {");
  CHECK(task.close_entry(2, 0) == nullptr); // discarded with depth 1
  task.open_entry(1, 130, "try_to_compact_pages", "ttcp {");
  task.open_entry(0, 140, "__alloc_pages", "alloc 2 {");
  CHECK(task.close_entry(1, 0) == nullptr);
  const OpenEntry* alloc = task.close_entry(0, 0);
  REQUIRE(alloc != nullptr);
  CHECK(alloc->line == "alloc 2 {");
  CHECK_FALSE(task.has_open_entries());
  CHECK(task.idle());
}

TEST_CASE("an entry older than the cutoff is not returned") {
  TaskState task;
  task.open_entry(0, 100, "f", "f {");
  CHECK(task.close_entry(0, 101) == nullptr);
  CHECK(task.idle());
}

TEST_CASE("begins open, replace and close; expire drops old ones") {
  TaskState task;
  OpenBegin& begin = task.begin(3);
  CHECK_FALSE(task.open_begin(begin, 100, 1, "inst", "start"));
  CHECK_FALSE(task.idle());
  CHECK(task.open_begin(task.begin(3), 200, 2, "inst", "start 2"));
  task.note_emitted(2);
  CHECK(task.begin(3).emitted);
  CHECK(task.expire(150) == 0);
  CHECK(task.expire(201) == 1);
  CHECK(task.idle());
  task.held.push(5, 3, 0, "x", 10);
  task.open_entry(0, 5, "f", "f {");
  CHECK(task.expire(6) == 1); // the held line; the entry is forgotten uncounted
  CHECK(task.idle());
}

#include "bind/task_state.h"

#include <doctest/doctest.h>
#include <string>
#include <vector>

using namespace allocwatch;

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
  CHECK_FALSE(task.open_begin(begin, 100, 1, nullptr, "inst", "start"));
  CHECK_FALSE(task.idle());
  CHECK(task.open_begin(task.begin(3), 200, 2, nullptr, "inst", "start 2"));
  task.note_emitted(2);
  CHECK(task.begin(3).emitted);
  CHECK(task.expire_open(150) == 0);
  CHECK(task.expire_open(201) == 1);
  CHECK(task.idle());
  task.open_entry(0, 5, "f", "f {");
  CHECK(task.expire_open(6) == 0); // the entry is forgotten, uncounted
  CHECK(task.idle());
}

TEST_CASE("a begin keeps its shrinker instance, of any length") {
  TaskState task;
  OpenBegin& begin = task.begin(0);
  CHECK(begin.instance().empty());
  // A 64-bit kernel's %p, kept in the begin itself.
  task.open_begin(begin, 1, 1, nullptr, "00000000a36749f3", "start");
  CHECK(begin.instance() == "00000000a36749f3");
  const std::size_t short_bytes = task.heap_bytes();
  // Longer than any kernel prints: on the heap, and counted there.
  const std::string long_instance(100, 'x');
  task.open_begin(begin, 2, 2, nullptr, long_instance, "start");
  CHECK(begin.instance() == long_instance);
  CHECK(task.heap_bytes() > short_bytes);
  // And back to a short one, and to none (a pair that is not a shrinker's).
  task.open_begin(begin, 3, 3, nullptr, "c0a01234", "start");
  CHECK(begin.instance() == "c0a01234");
  task.open_begin(begin, 4, 4, nullptr, "", "start");
  CHECK(begin.instance().empty());
}

TEST_CASE("a begin's line copy keeps its buffer for the next, longer or shorter") {
  LineCopy copy;
  CHECK(std::string_view(copy).empty());
  CHECK(copy.capacity() == 0);
  copy.assign("start");
  CHECK(std::string_view(copy) == "start");
  const std::size_t capacity = copy.capacity();
  CHECK(capacity >= 5);
  copy.assign("");
  CHECK(std::string_view(copy).empty());
  copy.assign("a longer start");
  CHECK(std::string_view(copy) == "a longer start");
  CHECK(copy.capacity() == capacity); // rounded up: a few bytes more fit
  const std::string long_line(1000, 'x');
  copy.assign(long_line);
  CHECK(std::string_view(copy) == long_line);
  CHECK(copy.capacity() >= 1000);
  TaskState task;
  task.open_begin(task.begin(0), 1, 1, nullptr, "", long_line);
  CHECK(std::string_view(task.begin(0).line) == long_line);
  CHECK(task.heap_bytes() >= 1000); // counted where the task's memory is
}

TEST_CASE("a line copy moved from is empty and takes a new line") {
  LineCopy from;
  from.assign("mm_shrink_slab_start: first");
  LineCopy to(std::move(from));
  CHECK(std::string_view(to) == "mm_shrink_slab_start: first");
  CHECK(from.capacity() == 0);
  CHECK(std::string_view(from).empty());
  from.assign("a line after the move");
  CHECK(std::string_view(from) == "a line after the move");
  LineCopy other;
  other = std::move(to);
  CHECK(std::string_view(other) == "mm_shrink_slab_start: first");
  to.assign("again");
  CHECK(std::string_view(to) == "again");
}

TEST_CASE("a begin with a shrinker key takes its instance from the key") {
  ShrinkerKeys keys;
  ShrinkerKey* key = keys.find("super_cache_scan+0x0/0x210 00000000ce7941b5: nid: 0");
  REQUIRE(key != nullptr);
  TaskState task;
  OpenBegin& begin = task.begin(0);
  task.open_begin(begin, 1, 1, nullptr, "c0a01234", "start");
  task.open_begin(begin, 2, 2, key, {}, "start");
  CHECK(begin.shrinker == key);
  CHECK(begin.instance() == "00000000ce7941b5");
  // Back to none: the key is forgotten with the begin it came with.
  task.open_begin(begin, 3, 3, nullptr, "c0a01234", "start");
  CHECK(begin.shrinker == nullptr);
  CHECK(begin.instance() == "c0a01234");
}

TEST_CASE("a task that held lines and has nothing open owns no buffer") {
  HeldStore store(1 << 16);
  TaskState task;
  CHECK(task.heap_bytes() == 0);
  store.push(task.held, 1, 1, 0, "a held line");
  CHECK_FALSE(task.idle());
  store.remove(task.held.oldest);
  CHECK(task.idle());
  CHECK(task.heap_bytes() == 0); // the line lived in the store, not in the task
  CHECK(store.lines() == 0);
  CHECK(store.held_bytes() == 0);
}

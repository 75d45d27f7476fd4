#include "util/flat_map.h"

#include <doctest/doctest.h>
#include <map>
#include <string>

using namespace allocwatch;

TEST_CASE("FlatMap (NameTable): an empty table finds nothing") {
  NameTable<int> table;
  CHECK(table.find("mm_shrink_slab_start") == nullptr);
  CHECK(table.find("") == nullptr);
  CHECK(table.size() == 0);
}

TEST_CASE("FlatMap (NameTable): finds each name it holds and no other, through growth") {
  // Names that share a length, a prefix or a suffix, as event names do.
  std::map<std::string, int> values;
  for (int i = 0; i < 300; ++i) {
    values["mm_vmscan_" + std::to_string(i) + "_begin"] = i;
    values["mm_vmscan_" + std::to_string(i) + "_end"] = -i;
  }
  values[""] = 1000;
  NameTable<int> table;
  for (auto& [name, value] : values)
    table.insert(name, &value);
  CHECK(table.size() == values.size());
  for (auto& [name, value] : values) {
    CAPTURE(name);
    // A copy of the name: found by its bytes, not by where they are.
    const std::string copy = name;
    CHECK(table.find(copy) == &value);
  }
  for (std::string absent : {"mm_vmscan_300_begin", "mm_vmscan_1_beginx", "mm_vmscan_", "m"})
    CHECK(table.find(absent) == nullptr);
}

TEST_CASE("FlatMap (NameTable): insert replaces, clear empties") {
  int first = 1;
  int second = 2;
  NameTable<int> table;
  table.insert("mm_compaction_begin", &first);
  table.insert("mm_compaction_begin", &second);
  CHECK(table.size() == 1);
  CHECK(table.find("mm_compaction_begin") == &second);
  table.clear();
  CHECK(table.size() == 0);
  CHECK(table.find("mm_compaction_begin") == nullptr);
}

TEST_CASE("FlatMap: for_each visits every value once, forgetting none") {
  std::map<std::int32_t, int> values;
  for (std::int32_t pid = -3; pid < 200; ++pid)
    values[pid] = pid * 2;
  FlatMap<std::int32_t, int*, IntegerHash> table;
  for (auto& [pid, value] : values)
    table.insert(pid, &value);
  std::map<const int*, int> visits;
  table.for_each([&visits](const int* value) { ++visits[value]; });
  CHECK(visits.size() == values.size());
  for (auto& [pid, value] : values) {
    CAPTURE(pid);
    CHECK(visits[&value] == 1);
    CHECK(table.find(pid) == &value);
  }
  CHECK(table.size() == values.size());
}

namespace {
// Every key to one of three slots at the end of the array (of 128 slots for
// 40 keys): runs wrap around, and erase must move the rest of a run back.
struct CollidingHash {
  std::size_t operator()(std::int32_t key) const { return static_cast<std::size_t>(key % 3) + 125; }
};
} // namespace

TEST_CASE("FlatMap: erase removes one key and keeps every other findable") {
  std::map<std::int32_t, int> values;
  for (std::int32_t key = 0; key < 40; ++key)
    values[key] = key;
  FlatMap<std::int32_t, int*, CollidingHash> table;
  for (auto& [key, value] : values)
    table.insert(key, &value);
  for (std::int32_t key : {0, 17, 39, 5, 6, 7, 1000}) {
    table.erase(key);
    values.erase(key);
    CHECK(table.find(key) == nullptr);
    CHECK(table.size() == values.size());
    for (auto& [kept, value] : values) {
      CAPTURE(kept);
      CHECK(table.find(kept) == &value);
    }
  }
  int again = -1;
  table.insert(17, &again);
  CHECK(table.find(17) == &again);
  CHECK(table.size() == values.size() + 1);
}

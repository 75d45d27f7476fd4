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

#include "util/string_hash.h"

#include <doctest/doctest.h>
#include <string>
#include <unordered_map>

using namespace allocwatch;

TEST_CASE("StringHash: equal text, equal hash, whatever holds it") {
  const StringHash hash;
  const std::string event = "mm_vmscan_direct_reclaim_begin";
  CHECK(hash(event) == hash(std::string_view(event)));
  CHECK(hash(std::string_view{}) == hash(std::string_view("", 0))); // no data at all: defined
  for (std::size_t n = 0; n <= event.size(); ++n)
    CHECK(hash(std::string_view(event).substr(0, n)) == hash(event.substr(0, n)));
}

TEST_CASE("StringHash: the names a profile holds land apart") {
  const StringHash hash;
  // Same length, same first and last 8 bytes would collide only through the
  // middle word; these differ there.
  CHECK(hash("mm_vmscan_memcg_reclaim_begin") != hash("mm_vmscan_memcg_reclaim_end"));
  CHECK(hash("mm_shrink_slab_start") != hash("mm_shrink_slab_end"));
  CHECK(hash("shrink_lruvec") != hash("shrink_node"));
  CHECK(hash("a") != hash("b"));
}

TEST_CASE("StringHash: maps find string_view keys, the empty one too") {
  std::unordered_map<std::string, int, StringHash, std::equal_to<>> map{{"", 1}, {"x", 2}};
  CHECK(map.find(std::string_view{})->second == 1);
  CHECK(map.find(std::string_view("x"))->second == 2);
  CHECK(map.find(std::string_view("y")) == map.end());
}

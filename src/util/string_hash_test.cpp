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

TEST_CASE("hash_every_byte: a change in any byte moves it") {
  std::string bytes(41, '\0');
  for (std::size_t i = 0; i < bytes.size(); ++i)
    bytes[i] = static_cast<char>(i * 7);
  const std::uint64_t base = hash_every_byte(bytes);
  for (std::size_t i = 0; i < bytes.size(); ++i) {
    std::string changed = bytes;
    changed[i] = static_cast<char>(changed[i] ^ 1);
    CAPTURE(i);
    CHECK(hash_every_byte(changed) != base);
  }
  CHECK(hash_every_byte(std::string_view(bytes).substr(0, 40)) != base); // the length counts
  CHECK(hash_every_byte({}) == hash_every_byte(std::string_view("", 0)));
}

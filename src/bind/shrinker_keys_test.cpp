#include "bind/shrinker_keys.h"
#include "trace/event_fields.h"

#include <doctest/doctest.h>
#include <string>

using namespace allocwatch;

TEST_CASE("a shrinker's key is parsed once and found again by its prefix") {
  ShrinkerKeys keys;
  const std::string start = "super_cache_scan+0x0/0x210 00000000ce7941b5: nid: 0 objects to "
                            "shrink 0 gfp_flags GFP_KERNEL cache items 7 delta 14";
  ShrinkerKey* key = keys.find(start);
  REQUIRE(key != nullptr);
  CHECK(key->prefix == "super_cache_scan+0x0/0x210 00000000ce7941b5");
  CHECK(key->symbol == "super_cache_scan");
  CHECK(key->instance == "00000000ce7941b5");
  CHECK(key->totals == nullptr);
  // Another line of the same shrinker: the same key, nothing new kept.
  CHECK(keys.find("super_cache_scan+0x0/0x210 00000000ce7941b5: nid: 1 objects to shrink 9") ==
        key);
  CHECK(keys.size() == 1);
  // The same instance under another symbol (an address reused): another key.
  ShrinkerKey* other = keys.find("ext4_es_scan+0x0/0x3d0 00000000ce7941b5: nid: 0");
  REQUIRE(other != nullptr);
  CHECK(other != key);
  CHECK(other->symbol == "ext4_es_scan");
  CHECK(keys.size() == 2);
}

TEST_CASE("a module shrinker's key keeps the [module] word out of the instance") {
  ShrinkerKeys keys;
  ShrinkerKey* key = keys.find("nfs_scan+0x0/0x20 [nfs] 00000000aa: nid: 0");
  REQUIRE(key != nullptr);
  CHECK(key->symbol == "nfs_scan");
  CHECK(key->instance == "00000000aa");
  CHECK(key->named_by("nfs_scan+0x0/0x20 [nfs] 00000000aa: nid: 0 unused scan count 1"));
}

TEST_CASE("fields that name no instance have no key") {
  ShrinkerKeys keys;
  CHECK(keys.find("super_cache_scan+0x0/0x210") == nullptr);
  CHECK(keys.find("super_cache_scan+0x0/0x210 00000000ce7941b5 no colon") == nullptr);
  CHECK(keys.find("") == nullptr);
  CHECK(keys.size() == 0);
}

TEST_CASE("named_by says yes only when parsing the fields would give the key") {
  ShrinkerKeys keys;
  ShrinkerKey* key = keys.find("scan_shadow_nodes+0x0/0x30 00000000ee93bcbd: nid: 0");
  REQUIRE(key != nullptr);
  const std::string same = "scan_shadow_nodes+0x0/0x30 00000000ee93bcbd: nid: 0 unused scan";
  CHECK(key->named_by(same));
  const ShrinkerId id = parse_shrinker_id(same);
  CHECK(id.symbol == key->symbol);
  CHECK(id.instance == key->instance);
  // Another instance, a longer one that starts the same, no ':' after it, or
  // the prefix alone: not named by (parse them to know).
  CHECK_FALSE(key->named_by("scan_shadow_nodes+0x0/0x30 00000000ee93bcbe: nid: 0"));
  CHECK_FALSE(key->named_by("scan_shadow_nodes+0x0/0x30 00000000ee93bcbd0: nid: 0"));
  CHECK_FALSE(key->named_by("scan_shadow_nodes+0x0/0x30 00000000ee93bcbd nid: 0"));
  CHECK_FALSE(key->named_by("scan_shadow_nodes+0x0/0x30 00000000ee93bcbd"));
  // The same shrinker printed with another offset: not named by, though
  // parsing gives the same symbol and instance (the binder parses then).
  CHECK_FALSE(key->named_by("scan_shadow_nodes+0x4/0x30 00000000ee93bcbd: nid: 0"));
}

TEST_CASE("past kMaxKeys, new shrinkers have no key and known ones keep theirs") {
  ShrinkerKeys keys;
  ShrinkerKey* first = keys.find("s+0x0/0x1 0: nid: 0");
  REQUIRE(first != nullptr);
  for (std::size_t i = 1; i < ShrinkerKeys::kMaxKeys; ++i)
    REQUIRE(keys.find("s+0x0/0x1 " + std::to_string(i) + ": nid: 0") != nullptr);
  CHECK(keys.size() == ShrinkerKeys::kMaxKeys);
  CHECK(keys.find("s+0x0/0x1 new: nid: 0") == nullptr);
  CHECK(keys.find("s+0x0/0x1 0: nid: 1") == first);
  CHECK(first->instance == "0"); // the keys did not move as the table grew
}

TEST_CASE("find_after finds what find finds, learning each shrinker's successor") {
  ShrinkerKeys keys;
  const std::string a = "ext4_es_scan+0x0/0x3d0 ffff8881f3ebcbd6: nid: 0 objects to shrink 1";
  const std::string b = "deferred_split_scan+0x0/0x2a0 ffff88813b55e483: nid: 0 objects 2";
  const std::string c = "super_cache_scan+0x0/0x210 ffff8881e1e82edd: nid: 0 objects 3";
  ShrinkerKey* key_a = keys.find_after(nullptr, a);
  REQUIRE(key_a != nullptr);
  CHECK(key_a == keys.find(a));
  ShrinkerKey* key_b = keys.find_after(key_a, b);
  REQUIRE(key_b != nullptr);
  CHECK(key_b == keys.find(b));
  CHECK(key_a->next == key_b); // learnt
  CHECK(keys.find_after(key_a, b) == key_b);
  CHECK(keys.find_after(key_a, a) == key_a); // the same shrinker again
  // A guess that does not hold is no answer: c after a is c, and a's
  // successor becomes c.
  ShrinkerKey* key_c = keys.find_after(key_a, c);
  CHECK(key_c == keys.find(c));
  CHECK(key_c != key_b);
  CHECK(key_a->next == key_c);
  // Same instance, other offset: parsed, not taken for the guess.
  const std::string a_moved = "ext4_es_scan+0x4/0x3d0 ffff8881f3ebcbd6: nid: 0";
  ShrinkerKey* moved = keys.find_after(key_c, a_moved);
  REQUIRE(moved != nullptr);
  CHECK(moved != key_a);
  CHECK(moved->prefix == "ext4_es_scan+0x4/0x3d0 ffff8881f3ebcbd6");
  CHECK(keys.find_after(key_a, "no instance here") == nullptr);
}

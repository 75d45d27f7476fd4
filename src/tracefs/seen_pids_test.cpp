#include "tracefs/seen_pids.h"

#include <doctest/doctest.h>

namespace allocwatch {
namespace {

TEST_CASE("SeenPids: a pid is first once") {
  SeenPids seen;
  CHECK(seen.first(4242));
  CHECK_FALSE(seen.first(4242));
  CHECK(seen.first(7));
  CHECK_FALSE(seen.first(4242));
  CHECK(seen.pids() == std::unordered_set<std::int32_t>{4242, 7});
}

TEST_CASE("SeenPids: pids that share a recent slot are each first once") {
  SeenPids seen;
  // 100 and 164 take turns in one slot of 64: each answer that is not in
  // the slot comes from the set.
  CHECK(seen.first(100));
  CHECK(seen.first(164));
  for (int turn = 0; turn < 3; ++turn) {
    CHECK_FALSE(seen.first(100));
    CHECK_FALSE(seen.first(164));
  }
}

TEST_CASE("SeenPids: 0 and -1 are pids like any other") {
  SeenPids seen;
  CHECK(seen.first(-1)); // the empty slot's mark is not taken for a pid seen
  CHECK_FALSE(seen.first(-1));
  CHECK(seen.first(0));
  CHECK_FALSE(seen.first(0));
}

TEST_CASE("SeenPids: the pid past the capacity forgets the others, recent ones too") {
  SeenPids seen;
  for (std::int32_t pid = 1; pid <= static_cast<std::int32_t>(SeenPids::kCapacity); ++pid)
    REQUIRE(seen.first(pid));
  CHECK(seen.pids().size() == SeenPids::kCapacity);
  // A pid remembered, but not in its recent slot, is not first, and
  // forgets nothing.
  CHECK_FALSE(seen.first(1));
  CHECK(seen.pids().size() == SeenPids::kCapacity);

  const auto past = static_cast<std::int32_t>(SeenPids::kCapacity) + 1;
  CHECK(seen.first(past));
  CHECK(seen.pids() == std::unordered_set<std::int32_t>{past});
  // The last pids asked about were in their slots: forgotten with the set.
  CHECK(seen.first(static_cast<std::int32_t>(SeenPids::kCapacity)));
  CHECK(seen.first(1));
  CHECK_FALSE(seen.first(past));
}

} // namespace
} // namespace allocwatch

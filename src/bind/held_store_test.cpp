#include "bind/held_store.h"

#include <doctest/doctest.h>
#include <fstream>
#include <string>
#include <unistd.h>
#include <vector>

using namespace allocwatch;

namespace {

using Lines = std::vector<std::string>;

Lines lines_of(const HeldStore& store, const HeldList& list) {
  Lines lines;
  std::uint32_t walked = 0;
  for (HeldRef ref = list.oldest; ref != kNoLine; ref = store.newer(ref)) {
    lines.emplace_back(store.line(ref));
    ++walked;
  }
  CHECK(walked == list.count);
  // And back, newest first: both directions agree.
  Lines back;
  for (HeldRef ref = list.newest; ref != kNoLine; ref = store.older(ref))
    back.emplace_back(store.line(ref));
  CHECK(Lines(back.rbegin(), back.rend()) == lines);
  // The copy of the oldest line's event and time follows it.
  if (list.oldest != kNoLine) {
    CHECK(list.oldest_event == store.event(list.oldest));
    CHECK(list.oldest_ts == store.ts(list.oldest));
  }
  return lines;
}

// A line whose record takes exactly `record` bytes in the store.
std::string sized(const std::string& name, std::size_t record) {
  std::string line = name;
  line.resize(record - HeldStore::kLineOverhead, '.');
  return line;
}

// This process's resident memory, in bytes (/proc/self/statm).
std::size_t resident_bytes() {
  std::ifstream statm("/proc/self/statm");
  std::size_t size = 0;
  std::size_t resident = 0;
  statm >> size >> resident;
  REQUIRE(statm);
  return resident * static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
}

} // namespace

TEST_CASE("the resident part is taken from the start, the rest of the capacity is not") {
  constexpr std::size_t kResident = std::size_t{8} << 20;
  const std::size_t before = resident_bytes();
  HeldStore store(std::size_t{64} << 20, 64 * 1024, kResident);
  const std::size_t grew = resident_bytes() - before;
  CHECK(store.extent() == 64 * 1024); // the ring starts small within it
  // Two pages may be partial ones, written by hand at the ends.
  CHECK(grew >= kResident - 2 * static_cast<std::size_t>(::sysconf(_SC_PAGESIZE)));
#ifndef __SANITIZE_ADDRESS__ // its allocator and shadow take pages of their own
  CHECK(grew < 2 * kResident);
#endif
}

TEST_CASE("a line's fields are kept as a part of it, wherever the line moves") {
  HeldStore store(4096, 1024);
  HeldList list;
  const std::string line = "  dd-170 [001] ..... 1.000000: mm_x: order=0 gfp_flags=GFP_KERNEL";
  const std::string_view view(line);
  store.push(list, 1, 1, 0, view, view.substr(view.find("order")));
  store.push(list, 2, 2, 0, view); // none given
  const std::string elsewhere = "order=0";
  store.push(list, 3, 3, 0, view, elsewhere); // not a part of the line
  CHECK(store.fields(list.oldest) == "order=0 gfp_flags=GFP_KERNEL");
  CHECK(store.fields(store.newer(list.oldest)).empty());
  // Whatever it was given, fields() stays within the line.
  const std::string_view held = store.line(list.newest);
  const std::string_view stray = store.fields(list.newest);
  CHECK((stray.empty() || (stray.data() >= held.data() &&
                           stray.data() + stray.size() <= held.data() + held.size())));
  // Lines pushed and removed around it until the ring wraps: it still knows its fields.
  HeldList other;
  for (int i = 0; i < 40; ++i) {
    store.push(other, 10 + i, 10 + i, 0, view, view.substr(view.size() - 10));
    store.remove(other.oldest);
  }
  CHECK(store.line(list.oldest) == line);
  CHECK(store.fields(list.oldest) == "order=0 gfp_flags=GFP_KERNEL");
  CHECK(store.fields(store.newer(list.oldest)).empty());
}

TEST_CASE("each list keeps its lines in input order; removal anywhere") {
  HeldStore store(1 << 16);
  HeldList a;
  HeldList b;
  for (int i = 0; i < 5; ++i) {
    CHECK(store.push(a, i, 2 * i, 0, "a" + std::to_string(i)) == 0);
    CHECK(store.push(b, i, 2 * i + 1, 1, "b" + std::to_string(i)) == 0);
  }
  CHECK(lines_of(store, a) == Lines{"a0", "a1", "a2", "a3", "a4"});
  store.remove(store.newer(a.oldest)); // a1
  store.remove(a.newest);              // a4
  store.remove(b.oldest);              // b0
  CHECK(lines_of(store, a) == Lines{"a0", "a2", "a3"});
  CHECK(lines_of(store, b) == Lines{"b1", "b2", "b3", "b4"});
  CHECK(store.ts(a.newest) == 3);
  CHECK(store.seq(b.oldest) == 3);
  CHECK(store.event(b.oldest) == 1);
  CHECK(store.lines() == 7);
  CHECK(store.held_bytes() == 7 * (HeldStore::kLineOverhead + 8));
}

TEST_CASE("the global bound drops the oldest held lines of any task first, and counts them") {
  // Room for exactly 8 records of 128 bytes.
  HeldStore store(8 * 128);
  HeldList a;
  HeldList b;
  for (int i = 0; i < 4; ++i) {
    CHECK(store.push(a, i, 2 * i, 0, sized("a" + std::to_string(i), 128)) == 0);
    CHECK(store.push(b, i, 2 * i + 1, 0, sized("b" + std::to_string(i), 128)) == 0);
  }
  // Full: the next line drops the oldest, a0; then b0, then a1.
  CHECK(store.push(b, 4, 8, 0, sized("b4", 128)) == 1);
  CHECK(store.seq(a.oldest) == 2);
  CHECK(store.push(b, 5, 9, 0, sized("b5", 128)) == 1);
  CHECK(store.seq(b.oldest) == 3);
  // A line twice as large drops two.
  CHECK(store.push(a, 6, 10, 0, sized("a6", 256)) == 2); // a1 and b1
  CHECK(store.seq(a.oldest) == 4);
  CHECK(store.seq(b.oldest) == 5);
  CHECK(store.lines() == 7);
  CHECK(store.held_bytes() <= store.capacity());
  // Larger than the whole store: not kept, counted as one.
  CHECK(store.push(a, 7, 11, 0, std::string(2000, 'x')) == 1);
  CHECK(store.lines() == 7);
}

TEST_CASE("released lines leave gaps that are reused without dropping held lines") {
  HeldStore store(16 * 128);
  HeldList quiet; // one old line that stays held throughout
  HeldList busy;
  store.push(quiet, 0, 0, 0, sized("old", 128));
  std::uint64_t seq = 1;
  for (int round = 0; round < 1000; ++round) {
    for (int i = 0; i < 3; ++i, ++seq)
      CHECK(store.push(busy, static_cast<Nanos>(seq), seq, 0,
                       sized("x" + std::to_string(seq), 128)) == 0);
    while (busy.count > 1)
      store.remove(busy.oldest); // released: claimed or dead
  }
  CHECK(lines_of(store, quiet) == Lines{sized("old", 128)});
  CHECK(busy.count == 1);
  CHECK(store.compactions() > 0);    // the old line pinned the oldest end: slid
  CHECK(store.compactions() < 1000); // but not at every line
}

TEST_CASE("sliding lines together keeps every list whole, across the end of the buffer") {
  HeldStore store(8192);
  std::vector<HeldList> lists(5);
  std::vector<Lines> want(5);
  std::uint64_t seq = 0;
  std::size_t dropped = 0;
  // Lines of varied sizes, some released at once, many laps of the ring.
  for (int i = 0; i < 20000; ++i) {
    const std::size_t task = static_cast<std::size_t>(i * 7 % 5);
    const std::string line =
        "l" + std::to_string(i) + std::string(static_cast<std::size_t>(i % 97), '-');
    dropped += store.push(lists[task], i, ++seq, 0, line);
    want[task].push_back(line);
    if (i % 3 != 0) {
      store.remove(lists[task].newest);
      want[task].pop_back();
    }
    if ((i % 11 == 0 || lists[task].count > 3) && !lists[task].empty()) {
      store.remove(lists[task].oldest);
      want[task].erase(want[task].begin());
    }
  }
  CHECK(dropped == 0);
  for (std::size_t t = 0; t < 5; ++t)
    CHECK(lines_of(store, lists[t]) == want[t]);
}

TEST_CASE("an emptied store starts over at its first byte") {
  HeldStore store(1 << 20);
  HeldList list;
  for (int i = 0; i < 100; ++i) {
    store.push(list, i, static_cast<std::uint64_t>(i), 0, std::string(100, 'x'));
    store.remove(list.oldest);
  }
  store.push(list, 100, 100, 0, "y");
  CHECK(list.oldest == 0);
}

TEST_CASE("the store grows only as the held lines need, also when it has wrapped around") {
  HeldStore store(1 << 20, 64 * 1024);
  CHECK(store.extent() == 64 * 1024);
  std::vector<HeldList> lists(7);
  std::vector<Lines> want(7);
  std::size_t dropped = 0;
  // Each round holds a little more than it releases, so the held lines grow
  // to ~300 KiB through many laps of the ring: it must grow, never drop.
  for (int i = 0; i < 6000; ++i) {
    const std::size_t task = static_cast<std::size_t>(i * 3 % 7);
    const std::string line =
        "l" + std::to_string(i) + std::string(static_cast<std::size_t>(i % 61), '+');
    dropped += store.push(lists[task], i, static_cast<std::uint64_t>(i), 0, line);
    want[task].push_back(line);
    if (i % 5 == 0) {
      store.remove(lists[task].oldest);
      want[task].erase(want[task].begin());
    }
  }
  CHECK(dropped == 0);
  CHECK(store.extent() > 64 * 1024);
  CHECK(store.extent() <= 1 << 20);
  CHECK(store.held_bytes() <= store.extent());
  for (std::size_t t = 0; t < lists.size(); ++t)
    CHECK(lines_of(store, lists[t]) == want[t]);
}

TEST_CASE("while held lines fill over half the ring, it grows into resident room, not slides") {
  // 40 KiB held for good at the oldest end, and lines released as soon as
  // they come behind them: every lap of the ring ends in a slide or a growth.
  const auto churn = [](HeldStore& store) {
    HeldList pinned;
    HeldList busy;
    for (int i = 0; i < 40; ++i)
      store.push(pinned, i, static_cast<std::uint64_t>(i), 0, std::string(1000, 'p'));
    std::size_t dropped = 0;
    for (int i = 0; i < 5000; ++i) {
      dropped +=
          store.push(busy, 40 + i, static_cast<std::uint64_t>(40 + i), 0, std::string(200, 'b'));
      store.remove(busy.oldest);
    }
    CHECK(dropped == 0);
    CHECK(pinned.count == 40);
  };
  SUBCASE("room made resident at the start: the ring grows until it is at most half full") {
    HeldStore store(1 << 20, 64 * 1024, 256 * 1024);
    churn(store);
    CHECK(store.extent() == 128 * 1024);
    CHECK(store.compactions() > 0); // then it slides, freeing more than it copies
  }
  SUBCASE("no resident room: it slides, and its memory stays as it was") {
    HeldStore store(1 << 20, 64 * 1024, 64 * 1024);
    churn(store);
    CHECK(store.extent() == 64 * 1024);
    CHECK(store.compactions() > 0);
  }
}

TEST_CASE("a line larger than the part in use grows it") {
  HeldStore store(1 << 20, 64 * 1024);
  HeldList list;
  CHECK(store.push(list, 1, 1, 0, std::string(200 * 1024, 'x')) == 0);
  CHECK(store.extent() >= 256 * 1024);
  CHECK(lines_of(store, list) == Lines{std::string(200 * 1024, 'x')});
}

TEST_CASE("the store against a model: random pushes, removals anywhere, drops, growth") {
  // The model: each list's lines in order; drops take the line with the
  // lowest seq of all lists, as the store must.
  for (const std::size_t first_extent :
       {std::size_t{1024}, std::size_t{4096}, std::size_t{16384}}) {
    CAPTURE(first_extent);
    HeldStore store(32 * 1024, first_extent);
    std::vector<HeldList> lists(9);
    std::vector<std::vector<std::pair<std::uint64_t, std::string>>> model(9);
    std::uint64_t rng = 0x9e3779b97f4a7c15ULL * (first_extent + 1);
    auto next = [&rng](std::uint64_t n) {
      rng ^= rng << 13;
      rng ^= rng >> 7;
      rng ^= rng << 17;
      return rng % n;
    };
    std::size_t drops = 0;
    for (std::uint64_t seq = 1; seq <= 30000; ++seq) {
      const std::size_t t = next(lists.size());
      const std::string line(1 + next(next(8) == 0 ? 900 : 120), static_cast<char>('a' + seq % 26));
      std::size_t dropped = store.push(lists[t], static_cast<Nanos>(seq), seq, 0, line);
      model[t].emplace_back(seq, line);
      drops += dropped;
      for (; dropped > 0; --dropped) {
        std::size_t oldest = lists.size();
        for (std::size_t i = 0; i < model.size(); ++i)
          if (!model[i].empty() &&
              (oldest == lists.size() || model[i].front().first < model[oldest].front().first))
            oldest = i;
        REQUIRE(oldest < lists.size());
        model[oldest].erase(model[oldest].begin());
      }
      // Release some: the oldest, the newest or one in the middle.
      const std::size_t r = next(lists.size());
      if (!model[r].empty() && next(3) != 0) {
        const std::size_t k = next(3) == 0 ? next(model[r].size()) : 0;
        HeldRef ref = lists[r].oldest;
        for (std::size_t i = 0; i < k; ++i)
          ref = store.newer(ref);
        REQUIRE(store.seq(ref) == model[r][k].first);
        store.remove(ref);
        model[r].erase(model[r].begin() + static_cast<std::ptrdiff_t>(k));
      }
      if (seq % 997 == 0) {
        for (std::size_t i = 0; i < lists.size(); ++i) {
          Lines want;
          for (const auto& [s, text] : model[i])
            want.push_back(text);
          REQUIRE(lines_of(store, lists[i]) == want);
        }
        CHECK(store.held_bytes() <= store.extent());
      }
    }
    // Every path was taken: drops, slides, growth to the whole buffer.
    CHECK(drops > 0);
    CHECK(store.compactions() > 0);
    CHECK(store.extent() == store.capacity());
  }
}

TEST_CASE("a line of the parser's largest size keeps its fields exactly, at its very end too") {
  // kMaxLineBytes (64 KiB) is the most the 16-bit place of the fields must
  // hold: fields starting near the end, or filling all but the name.
  HeldStore store(1 << 20);
  HeldList list;
  const std::string head = "  dd-170 [001] ..... 1.000000: mm_x: ";
  std::string line = head + std::string(65536 - head.size() - 9, 'f') + " order=1";
  REQUIRE(line.size() == 65535);
  line += "9";
  const std::string_view view(line);
  store.push(list, 1, 1, 0, view, view.substr(view.size() - 9)); // " order=19", at 65527
  store.push(list, 2, 2, 0, view, view.substr(head.size()));     // all but the head
  CHECK(store.fields(list.oldest) == " order=19");
  CHECK(store.fields(list.newest) == view.substr(head.size()));
  CHECK(store.fields(list.newest).size() == 65536 - head.size());
}

#include "page_builder.h"
#include "ring/cpu_merge.h"

#include <algorithm>
#include <cstring>
#include <doctest/doctest.h>
#include <random>
#include <vector>

namespace allocwatch {
namespace {

using testing::kPageBytes;
using testing::PageBuilder;

constexpr std::uint64_t kSlack = 5;

CpuMerge make(int cpus, std::size_t max_pages = 512, std::size_t backlog_pages = 16) {
  return CpuMerge(cpus, kPageBytes, CpuMerge::Options{max_pages, kSlack, backlog_pages});
}

void push(CpuMerge& merge, int cpu, const std::vector<std::uint64_t>& ts, std::uint64_t flags = 0) {
  const PageBuilder page = PageBuilder::at_times(ts, flags);
  std::memcpy(merge.buffer(), page.bytes.data(), kPageBytes);
  merge.push(cpu, kPageBytes);
}

void drain_all(CpuMerge& merge) {
  for (int cpu = 0; cpu < merge.cpus(); ++cpu)
    merge.drained(cpu);
}

// What next() gives now: each event's time (its id is its time), a Lost
// item as 1000000 + its count.
std::vector<std::uint64_t> take(CpuMerge& merge) {
  std::vector<std::uint64_t> out;
  CpuMerge::Item item;
  while (merge.next(item)) {
    if (item.kind == CpuMerge::Item::Kind::Lost) {
      out.push_back(1000000 + static_cast<std::uint64_t>(item.lost));
      continue;
    }
    std::uint32_t id;
    REQUIRE(item.event.size >= 4);
    std::memcpy(&id, item.event.data, 4);
    CHECK(id == static_cast<std::uint32_t>(item.event.ts));
    out.push_back(item.event.ts);
  }
  return out;
}

using Times = std::vector<std::uint64_t>;

// What next() gives now, as (time, cpu) of each event.
std::vector<std::pair<std::uint64_t, int>> take_with_cpu(CpuMerge& merge) {
  std::vector<std::pair<std::uint64_t, int>> out;
  CpuMerge::Item item;
  while (merge.next(item))
    if (item.kind == CpuMerge::Item::Kind::Event)
      out.emplace_back(item.event.ts, item.cpu);
  return out;
}

TEST_CASE("CpuMerge: records of one time go out in CPU order") {
  CpuMerge merge = make(2);
  push(merge, 1, {10, 20, 20, 30});
  push(merge, 0, {20, 30});
  merge.finish();
  using Given = std::vector<std::pair<std::uint64_t, int>>;
  CHECK(take_with_cpu(merge) == Given{{10, 1}, {20, 0}, {20, 1}, {20, 1}, {30, 0}, {30, 1}});
}

TEST_CASE("CpuMerge: with every CPU queued, the oldest record goes first") {
  CpuMerge merge = make(2);
  push(merge, 0, {10, 30, 50});
  CHECK(take(merge).empty()); // CPU 1 may still hold older records
  push(merge, 1, {20, 40});
  // While both CPUs hold records, the oldest goes; once CPU 1 runs out, the
  // rest waits for a pass.
  CHECK(take(merge) == Times{10, 20, 30, 40});
  merge.finish();
  CHECK(take(merge) == Times{50});
  CHECK(merge.queued_pages() == 0);
}

TEST_CASE("CpuMerge: a task that migrates: the second CPU's older records go first") {
  // A task runs on CPU 0 (10, 20, 30), moves to CPU 1 (15, 25); CPU 1's
  // buffer is read after CPU 0's.
  CpuMerge merge = make(2);
  push(merge, 0, {10, 20, 30});
  CHECK(take(merge).empty()); // CPU 1 not read yet
  push(merge, 1, {15, 25});
  CHECK(take(merge) == Times{10, 15, 20, 25});
  // CPU 1 read empty after 30 was read: it could still deliver 26 only if
  // the clocks were more than the slack apart.
  merge.drained(1);
  CHECK(take(merge) == Times{});
  merge.waited();
  merge.drained(1);
  CHECK(take(merge) == Times{30});
  CHECK(merge.late() == 0);
  CHECK(merge.forced() == 0);
}

TEST_CASE(
    "CpuMerge: a CPU read empty holds back only what is within the slack of the newest read") {
  CpuMerge merge = make(3);
  push(merge, 0, {100, 200, 300});
  merge.drained(1);           // floor 300 - 5
  CHECK(take(merge).empty()); // CPU 2 not read yet
  push(merge, 2, {150, 296, 400});
  // Floors: CPU 0 300 (its newest), CPU 1 295, CPU 2 400.
  CHECK(take(merge) == Times{100, 150, 200});
  // 296 is within the slack of 300: CPU 1 could still deliver 297.
  merge.drained(0);
  merge.drained(2);
  CHECK(take(merge).empty());
  merge.drained(1); // after 400 was read: floor 395
  CHECK(take(merge) == Times{296, 300});
  merge.finish();
  CHECK(take(merge) == Times{400});
}

TEST_CASE("CpuMerge: a CPU holds back nothing older than the newest it delivered") {
  CpuMerge merge = make(2);
  push(merge, 1, {5});
  push(merge, 0, {10, 20});
  CHECK(take(merge) == Times{5}); // CPU 1's queue is empty now, its floor 5
  push(merge, 1, {15});
  CHECK(take(merge) == Times{10, 15});
  push(merge, 1, {25});
  CHECK(take(merge) == Times{20});
  merge.finish();
  CHECK(take(merge) == Times{25});
}

TEST_CASE("CpuMerge: an empty read before anything was read says nothing") {
  CpuMerge merge = make(2);
  merge.drained(1);
  push(merge, 0, {10});
  CHECK(take(merge).empty()); // CPU 1 was read empty before 10 was read
  merge.drained(1);           // floor 10 - 5
  CHECK(take(merge).empty());
  push(merge, 0, {20});
  merge.drained(1); // floor 15
  CHECK(take(merge) == Times{10});
}

TEST_CASE("CpuMerge: a CPU with backlog_pages queued is backlogged") {
  CpuMerge merge = make(2, 512, 2);
  push(merge, 0, {10});
  CHECK_FALSE(merge.backlogged(0));
  push(merge, 0, {20});
  CHECK(merge.backlogged(0));
  CHECK_FALSE(merge.backlogged(1));
  CHECK_FALSE(merge.backlogged(7));
  push(merge, 1, {15});
  CHECK(take(merge) == Times{10, 15}); // CPU 0's first page given out
  CHECK_FALSE(merge.backlogged(0));
}

TEST_CASE("CpuMerge: a push after waited() keeps the quiet rule from applying") {
  CpuMerge merge = make(2);
  push(merge, 0, {10, 20});
  merge.waited();
  push(merge, 1, {12}); // read after the wait: CPU 0 may hold more now
  CHECK(take(merge) == Times{10, 12});
  drain_all(merge); // horizon: 20 - 5 (the pass began at the wait)
  CHECK(take(merge).empty());
  merge.waited();
  drain_all(merge);
  CHECK(take(merge) == Times{20});
}

TEST_CASE("CpuMerge: missed events come before the page that reports them") {
  CpuMerge merge = make(1);
  PageBuilder page = PageBuilder::at_times({50, 60});
  // A stored count of 7 after the data.
  const std::uint64_t count = 7;
  std::memcpy(page.bytes.data() + page.at, &count, 8);
  page.finish(50, (1u << 31) | (1u << 30));
  push(merge, 0, {10, 20});
  std::memcpy(merge.buffer(), page.bytes.data(), kPageBytes);
  merge.push(0, kPageBytes);
  push(merge, 0, {70}, 1u << 31); // lost, not counted
  // One CPU, queued: everything goes, in order.
  CHECK(take(merge) == Times{10, 20, 1000007, 50, 60, 999999, 70});
}

TEST_CASE("CpuMerge: a page that says only that events were lost still says it") {
  CpuMerge merge = make(1);
  push(merge, 0, {}, 1u << 31);
  merge.finish();
  CHECK(take(merge) == Times{999999});
}

TEST_CASE("CpuMerge: over the bound, the oldest goes out anyway, counted") {
  CpuMerge merge = make(2, 2);
  push(merge, 0, {10});
  push(merge, 0, {20});
  CHECK(take(merge).empty());
  CHECK(merge.queued_pages() == 2);
  push(merge, 0, {30});
  CHECK(take(merge) == Times{10});
  CHECK(merge.forced() == 1);
  CHECK(merge.queued_pages() == 2);
  // CPU 1 delivers an older record after all: it still goes out, late.
  push(merge, 1, {5});
  CHECK(take(merge) == Times{5});
  CHECK(merge.late() == 1);
  merge.finish();
  CHECK(take(merge) == Times{20, 30});
}

TEST_CASE("CpuMerge: empty and damaged pages queue nothing") {
  CpuMerge merge = make(1);
  push(merge, 0, {});
  CHECK(merge.queued_pages() == 0);
  std::memset(merge.buffer(), 0, kPageBytes);
  merge.push(0, 8); // not even a header
  CHECK(merge.queued_pages() == 0);
  CHECK(merge.damaged_pages() == 1);
  merge.push(7, 16); // no such CPU: ignored
  CHECK(merge.queued_pages() == 0);
}

TEST_CASE("CpuMerge: a page's buffer used again carries nothing of the page before it") {
  CpuMerge merge = make(1);
  push(merge, 0, {10}, 1u << 31); // lost, not counted
  push(merge, 0, {20}, 1u << 31);
  merge.finish();
  CHECK(take(merge) == Times{999999, 10, 999999, 20});
  // The same buffers again: a page too short to read says nothing was lost.
  for (int round = 0; round < 3; ++round) {
    std::memset(merge.buffer(), 0, kPageBytes);
    merge.push(0, 8);
    CHECK(merge.queued_pages() == 0);
    CHECK(take(merge).empty());
  }
}

// Records stamped at random times on each CPU, each committed (visible to
// the reader) up to 3 ns after its stamp; a reader that reads the CPUs in
// turn at moving times, a few records a page, and sleeps now and then. It
// reads as RawSource does: up to a few pages of a CPU at once, a backlogged
// CPU only in a turn after one in which no CPU had a page. The merge must
// give every record once, in time order, none late or forced, with each
// CPU's queue kept near its backlog bound.
TEST_CASE("CpuMerge: random interleavings come out in order") {
  constexpr std::size_t kBacklog = 3;
  constexpr std::size_t kPagesPerRead = 4;
  for (unsigned seed = 1; seed <= 40; ++seed) {
    std::mt19937 random(seed);
    const int cpus = 1 + static_cast<int>(random() % 4);
    struct Stamped {
      std::uint64_t ts, visible;
    };
    std::vector<std::vector<Stamped>> records(static_cast<std::size_t>(cpus));
    std::vector<std::pair<std::uint64_t, int>> all;
    // Even seeds: times distinct over all CPUs (CPU c's are c mod cpus);
    // odd ones: CPUs share times, and a CPU may stamp two records alike.
    const bool ties = seed % 2 == 1;
    for (std::size_t c = 0; c < records.size(); ++c) {
      std::uint64_t t = 100 * static_cast<std::uint64_t>(cpus) + (ties ? 0 : c);
      // CPU 0 is the busy one: more records, closer together.
      const std::size_t count = random() % (c == 0 ? 600 : 200);
      for (std::size_t i = 0; i < count; ++i) {
        const std::uint64_t step = 1 + random() % (c == 0 ? 2 : 8);
        t += ties ? step - 1 : static_cast<std::uint64_t>(cpus) * step;
        records[c].push_back({t, t + random() % 4});
        all.emplace_back(t, static_cast<int>(c));
      }
    }
    std::sort(all.begin(), all.end());

    CpuMerge merge = make(cpus, 512, kBacklog);
    std::vector<std::size_t> read(static_cast<std::size_t>(cpus), 0);
    std::vector<std::pair<std::uint64_t, int>> out;
    std::uint64_t now = 100 * static_cast<std::uint64_t>(cpus);
    std::size_t most_queued = 0;
    bool left = true;
    bool pushed = true; // in the turn before
    while (left) {
      left = false;
      const bool all_cpus = !pushed;
      pushed = false;
      for (int c = 0; c < cpus; ++c) {
        const auto& cpu = records[static_cast<std::size_t>(c)];
        std::size_t& next = read[static_cast<std::size_t>(c)];
        if (next < cpu.size())
          left = true;
        if (!all_cpus && merge.backlogged(c))
          continue;
        now += random() % 3;
        for (std::size_t pages = 0; pages < kPagesPerRead; ++pages) {
          std::vector<std::uint64_t> page;
          // A page: up to 6 records, those visible now, in the CPU's order.
          while (next < cpu.size() && page.size() < 6 && cpu[next].visible <= now)
            page.push_back(cpu[next++].ts);
          if (page.empty()) {
            merge.drained(c);
            break;
          }
          push(merge, c, page);
          pushed = true;
        }
        most_queued = std::max(most_queued, merge.queued_pages());
        const auto got = take_with_cpu(merge);
        out.insert(out.end(), got.begin(), got.end());
      }
      if (random() % 4 == 0) {
        // A sleep; now and then a long one, after which the CPUs hold a
        // backlog each, the busy one's denser.
        now += kSlack + 1 + random() % (random() % 8 == 0 ? 1500 : 10);
        merge.waited();
      }
    }
    for (int c = 0; c < cpus; ++c)
      merge.drained(c);
    merge.finish();
    const auto rest = take_with_cpu(merge);
    out.insert(out.end(), rest.begin(), rest.end());
    CAPTURE(seed);
    // In time order; records of one time on several CPUs may go out in any
    // order (a CPU's may come after another's was given).
    CHECK(std::is_sorted(out.begin(), out.end(),
                         [](const auto& a, const auto& b) { return a.first < b.first; }));
    std::sort(out.begin(), out.end());
    CHECK(out == all);
    CHECK(merge.late() == 0);
    CHECK(merge.forced() == 0);
    CHECK(merge.queued_pages() == 0);
    // A CPU is read with fewer than kBacklog pages queued, and takes up to
    // kPagesPerRead; a backlogged one is read only when the merge waits on
    // records within the slack of the newest, which fit in a page here.
    // Read without regard to backlogs, 7 of these 40 runs queue more.
    CHECK(most_queued <= static_cast<std::size_t>(cpus) * (kBacklog - 1 + kPagesPerRead));
  }
}

} // namespace
} // namespace allocwatch

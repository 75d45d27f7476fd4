#include "kbuffer_records.h"
#include "page_builder.h"
#include "ring/page_reader.h"

#include <algorithm>
#include <cstring>
#include <doctest/doctest.h>
#include <fstream>
#include <iterator>
#include <optional>
#include <string>
#include <vector>

namespace allocwatch {
namespace {

using testing::PageBuilder;
constexpr std::size_t kPage = 4096;
// Real pages of this machine's kernel (6.18), read from a private
// instance's per_cpu/cpu1/trace_pipe_raw under memcg reclaim with the vmscan
// and compaction events on; also the fuzz harness's seeds.
const std::string kPages = "tests/fuzz/corpus/page/";

std::vector<std::byte> page_file(const std::string& name) {
  std::ifstream in(kPages + name, std::ios::binary);
  REQUIRE(in.good());
  std::vector<char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  REQUIRE(bytes.size() == kPage);
  std::vector<std::byte> buffer(kPage + kPageSlack);
  std::memcpy(buffer.data(), bytes.data(), bytes.size());
  return buffer;
}

// The loaded page's records as events of `cpu`, their data in `page`.
std::vector<RawEvent> all(const PageReader& reader, const std::byte* page, int cpu = 0) {
  std::vector<RawEvent> events;
  for (const PageRecord& r : reader.records())
    events.push_back({cpu, r.ts, page + r.offset, r.size});
  return events;
}

std::uint16_t event_id(const RawEvent& e) {
  std::uint16_t id;
  std::memcpy(&id, e.data, sizeof id);
  return id;
}

TEST_CASE("PageReader: the records of real pages, in order, each inside its page") {
  PageReader reader(kPage);
  std::uint64_t previous_last = 0;
  std::size_t total = 0;
  for (const char* name : {"reclaim-cpu1-00", "reclaim-cpu1-01"}) {
    std::vector<std::byte> page = page_file(name);
    REQUIRE(reader.load(page.data(), kPage));
    CHECK_FALSE(reader.damaged());
    CHECK(reader.missed() == 0);
    const std::vector<RawEvent> events = all(reader, page.data(), 1);
    REQUIRE(events.size() > 20); // a full page of vmscan events
    // Full: the writer moved on when the next record did not fit.
    CHECK(reader.data_size() > kPage / 2);
    CHECK(reader.data_size() <= kPage - 16);
    total += events.size();
    CHECK(events.front().ts == reader.timestamp());
    CHECK(events.front().ts >= previous_last); // pages of one CPU follow each other
    for (std::size_t i = 0; i < events.size(); ++i) {
      const RawEvent& e = events[i];
      CHECK(e.size >= 8); // at least the common fields
      const auto* begin = static_cast<const std::byte*>(e.data);
      CHECK(begin >= page.data() + 16);
      CHECK(begin + e.size <= page.data() + kPage);
      CHECK(event_id(e) != 0);
      if (i > 0)
        CHECK(e.ts >= events[i - 1].ts);
    }
    previous_last = events.back().ts;
  }
  CHECK(total > 50);
}

void check_same_records(std::byte* page) {
  const std::optional<std::vector<RawEvent>> read = testing::kbuffer_records(page, 8, 1, kPage / 4);
  REQUIRE(read.has_value());
  const std::vector<RawEvent>& expected = *read;
  PageReader reader(kPage);
  REQUIRE(reader.load(page, kPage));
  CHECK_FALSE(reader.damaged());
  const std::vector<RawEvent> events = all(reader, page, 1);
  REQUIRE(events.size() == expected.size());
  for (std::size_t i = 0; i < events.size(); ++i) {
    CAPTURE(i);
    CHECK(events[i].ts == expected[i].ts);
    CHECK(events[i].data == expected[i].data);
    CHECK(events[i].size == expected[i].size);
  }
  REQUIRE(reader.load(page, kPage));
  std::vector<PageRecord> records(3); // what it held goes
  reader.take_records(records);
  CHECK(reader.records().empty());
  REQUIRE(records.size() == expected.size());
  for (std::size_t i = 0; i < records.size(); ++i) {
    CAPTURE(i);
    CHECK(records[i].ts == expected[i].ts);
    CHECK(page + records[i].offset == expected[i].data);
    CHECK(records[i].size == expected[i].size);
  }
}

TEST_CASE("PageReader: the records and times are kbuffer's own") {
  SUBCASE("real pages") {
    for (const char* name : {"reclaim-cpu1-00", "reclaim-cpu1-01"}) {
      CAPTURE(name);
      std::vector<std::byte> page = page_file(name);
      check_same_records(page.data());
    }
  }
  SUBCASE("time extends, an absolute time stamp, a discarded record, a long record") {
    PageBuilder b;
    b.record(5, 2, 41);
    b.time_extend(std::uint64_t{3} << 27 | 9);
    b.record(7, 3, 42);
    b.padding(8); // a discarded record, 8 bytes from its length word on: its delta (1) counts
    b.word32(0);
    b.record(2, 2, 43);
    // An absolute time stamp: the low 27 bits here, the next 32 after.
    const std::uint64_t absolute = (std::uint64_t{1} << 40) + 12345;
    b.word32(31 | static_cast<std::uint32_t>(absolute & ((1u << 27) - 1)) << 5);
    b.word32(static_cast<std::uint32_t>(absolute >> 27));
    b.word32(0 | 4u << 5); // type_len 0: the payload's length, plus 4, follows
    b.word32(4 + 40);
    b.word32(44);
    for (int i = 1; i < 10; ++i)
      b.word32(0);
    b.record(1, 2, 45);
    std::byte* page = b.finish(std::uint64_t{0xf8} << 56 | 1000);
    check_same_records(page);
    PageReader reader(kPage);
    REQUIRE(reader.load(page, kPage));
    const std::vector<RawEvent> events = all(reader, page);
    REQUIRE(events.size() == 5);
    CHECK(events[1].ts == events[0].ts + (std::uint64_t{3} << 27 | 9) + 7);
    CHECK(events[2].ts == events[1].ts + 1 + 2);
    CHECK(events[3].ts == (std::uint64_t{0xf8} << 56 | absolute) + 4);
    CHECK(events[3].size == 40);
    CHECK(event_id(events[3]) == 44);
    CHECK(events[4].ts == events[3].ts + 1);
  }
}

TEST_CASE("PageReader: a page after an overrun gives the count the kernel stored") {
  PageReader reader(kPage);
  std::vector<std::byte> page = page_file("overrun-cpu1-01");
  REQUIRE(reader.load(page.data(), kPage));
  CHECK(reader.missed() == 943); // the instance's per_cpu/cpu1/stats said "overrun: 943"
  CHECK_FALSE(reader.damaged());
  CHECK(all(reader, page.data(), 1).size() > 20);
  std::vector<std::byte> next = page_file("overrun-cpu1-17");
  REQUIRE(reader.load(next.data(), kPage));
  CHECK(reader.missed() == 0);
}

TEST_CASE("PageReader: time extends add up; the missed count survives a first time extend") {
  PageBuilder b;
  b.time_extend(std::uint64_t{5} << 27);
  b.record(7, 2, 42);
  b.record(3, 3, 43);
  std::byte* page = b.finish(1000, 1u << 31);
  PageReader reader(kPage);
  REQUIRE(reader.load(page, kPage));
  CHECK(reader.missed() == -1); // lost, not counted
  const std::vector<RawEvent> events = all(reader, page);
  REQUIRE(events.size() == 2);
  CHECK(events[0].ts == 1000 + (std::uint64_t{5} << 27) + 7);
  CHECK(events[1].ts == events[0].ts + 3);
  CHECK(events[0].size == 8);
  CHECK(events[1].size == 12);
  CHECK(event_id(events[1]) == 43);
  CHECK_FALSE(reader.damaged());
  // The extend and two records, each a 4-byte header and its data: a page
  // the kernel copied out of the one it writes.
  CHECK(reader.data_size() == 8 + (4 + 8) + (4 + 12));
}

TEST_CASE("PageReader: a header that lies about its length is cut to the bytes read") {
  PageBuilder b;
  b.record(1, 2, 42);
  b.record(1, 2, 43);
  b.finish(10);
  b.set_commit((1u << 27) - 1); // 128 MiB of data in a 4 KiB page
  PageReader reader(kPage);
  REQUIRE(reader.load(b.bytes.data(), kPage));
  CHECK(reader.damaged());
  CHECK(reader.data_size() == 2 * 12); // cut after the last record that moves forward
  // Zeroed bytes after the two records read as empty padding: no record.
  CHECK(all(reader, b.bytes.data()).size() == 2);

  SUBCASE("a short read cuts it further") {
    PageBuilder c;
    c.record(1, 2, 42);
    c.record(1, 2, 43);
    c.finish(10);
    REQUIRE(reader.load(c.bytes.data(), 16 + 12 + 4));
    CHECK(reader.damaged());
    const std::vector<RawEvent> events = all(reader, c.bytes.data());
    REQUIRE(events.size() == 1);
    CHECK(event_id(events[0]) == 42);
  }
}

TEST_CASE("PageReader: a stored count that would lie past the page is unknown") {
  PageBuilder b;
  for (int i = 0; i < 339; ++i) // 339 * 12 = 4068 bytes: 12 left, not the 8 + 8 a count needs
    b.record(1, 2, 42);
  b.finish(10, (1u << 31) | (1u << 30));
  b.set_commit((kPage - 16) | (1u << 31) | (1u << 30)); // the count would start at the page's end
  PageReader reader(kPage);
  REQUIRE(reader.load(b.bytes.data(), kPage));
  CHECK(reader.missed() == -1);
  CHECK(reader.damaged());
}

TEST_CASE("PageReader: records that do not move forward end the page, never loop") {
  PageReader reader(kPage);
  SUBCASE("a padding of negative length") {
    PageBuilder b;
    b.record(1, 2, 42);
    b.padding(-8);
    b.record(1, 2, 43);
    std::byte* const page = b.finish(10);
    REQUIRE(reader.load(page, kPage));
    const std::vector<RawEvent> events = all(reader, page);
    REQUIRE(events.size() == 1);
    CHECK(event_id(events[0]) == 42);
  }
  SUBCASE("a long record whose length runs past the data") {
    PageBuilder b;
    b.record(1, 2, 42);
    b.word32(0 | 1u << 5); // type_len 0: the length is the next word
    b.word32(100000);
    b.word32(43);
    std::byte* const page = b.finish(10);
    REQUIRE(reader.load(page, kPage));
    CHECK(all(reader, page).size() == 1);
    CHECK(reader.damaged());
  }
  SUBCASE("a long record of negative length") {
    PageBuilder b;
    b.word32(0 | 1u << 5);
    b.word32(0); // 0 - 4 bytes of payload
    b.record(1, 2, 43);
    std::byte* const page = b.finish(10);
    REQUIRE(reader.load(page, kPage));
    CHECK(all(reader, page).empty());
    CHECK(reader.damaged());
  }
  SUBCASE("a discarded record (padding with a length) is skipped") {
    PageBuilder b;
    b.record(1, 2, 42);
    b.padding(8); // 8 bytes from its length word on
    b.word32(0);
    b.record(1, 2, 43);
    std::byte* const page = b.finish(10);
    REQUIRE(reader.load(page, kPage));
    const std::vector<RawEvent> events = all(reader, page);
    REQUIRE(events.size() == 2);
    CHECK(event_id(events[1]) == 43);
    CHECK_FALSE(reader.damaged());
  }
}

TEST_CASE("PageReader: bytes too few for a header give no page") {
  std::vector<std::byte> buffer(kPage + kPageSlack, std::byte{0xff});
  PageReader reader(kPage);
  CHECK_FALSE(reader.load(buffer.data(), 15));
  CHECK(reader.damaged());
  CHECK(reader.records().empty());
  CHECK(reader.load(buffer.data(), 16)); // a header and no data
  CHECK(reader.records().empty());
}

} // namespace
} // namespace allocwatch

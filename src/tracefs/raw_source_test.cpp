#include "fake_tracefs.h"
#include "page_builder.h"
#include "tracefs/files.h"
#include "tracefs/raw_source.h"

#include <doctest/doctest.h>
#include <fcntl.h>
#include <string>
#include <sys/stat.h>
#include <sys/sysinfo.h>
#include <unistd.h>
#include <vector>

extern "C" {
#include <event-parse.h>
}

namespace allocwatch {
namespace {

using testing::FakeTracefs;
using testing::kPageBytes;
using testing::PageBuilder;

constexpr int kDirectBegin = 637;

const std::string kFormat =
    "name: mm_vmscan_direct_reclaim_begin\nID: 637\nformat:\n"
    "\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
    "\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
    "\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
    "\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"
    "\tfield:int order;\toffset:8;\tsize:4;\tsigned:1;\n"
    "\tfield:unsigned long gfp_flags;\toffset:16;\tsize:8;\tsigned:0;\n\n"
    "print fmt: \"order=%d gfp_flags=%lx\", REC->order, REC->gfp_flags\n";

LocalEvents make_tep() {
  tep_handle* tep = tep_alloc();
  tep_set_long_size(tep, 8);
  REQUIRE(tep_parse_event(tep, kFormat.data(), kFormat.size(), "vmscan") == 0);
  REQUIRE(tep_register_comm(tep, "known", 10) == 0);
  return LocalEvents{TepPtr(tep), nullptr, nullptr, {}};
}

// direct_reclaim_begin records of `pid` with order `order`, at absolute
// times (ascending).
std::vector<std::byte> page_of(const std::vector<std::uint64_t>& times, std::int32_t pid,
                               std::uint32_t first_order) {
  PageBuilder b;
  std::uint64_t previous = times.front();
  std::uint32_t order = first_order;
  for (std::uint64_t t : times) {
    b.word32(6 | static_cast<std::uint32_t>(t - previous) << 5);
    b.word32(kDirectBegin);
    b.word32(static_cast<std::uint32_t>(pid));
    b.word32(order++);
    b.word32(0);
    b.word32(0xcc0);
    b.word32(0);
    previous = t;
  }
  b.finish(times.front());
  b.bytes.resize(kPageBytes);
  return b.bytes;
}

// A fake traced buffer whose CPUs' trace_pipe_raw are FIFOs the test writes
// pages into.
struct RawFixture {
  FakeTracefs fake;
  InstancePtr top;
  std::vector<int> writers;
  int cpus = std::min(2, ::get_nprocs_conf());

  RawFixture() {
    for (int cpu = 0; cpu < cpus; ++cpu) {
      const std::string dir = "per_cpu/cpu" + std::to_string(cpu) + "/";
      fake.write(dir + "stats", "entries: 0\noverrun: 0\ndropped events: 0\n");
      REQUIRE(::mkfifo(fake.path(dir + "trace_pipe_raw").c_str(), 0600) == 0);
    }
    fake.write("options/overwrite", "1\n");
    fake.write("saved_cmdlines", "10 known\n");
    Result<InstancePtr> opened = open_top_level(fake.dir());
    REQUIRE(opened.ok());
    top = std::move(*opened);
  }
  ~RawFixture() {
    for (int fd : writers)
      ::close(fd);
  }
  std::unique_ptr<RawSource> open(std::function<bool()> should_stop, PageSink* pages = nullptr) {
    RawSource::Options options;
    options.pages = pages;
    options.instance = top.get();
    options.top = top.get();
    options.should_stop = std::move(should_stop);
    options.batch_delay = std::chrono::milliseconds(1);
    Result<std::unique_ptr<RawSource>> source = RawSource::open(make_tep(), std::move(options));
    REQUIRE(source.ok());
    for (int cpu = 0; cpu < cpus; ++cpu) {
      const std::string path = fake.path("per_cpu/cpu" + std::to_string(cpu) + "/trace_pipe_raw");
      writers.push_back(::open(path.c_str(), O_WRONLY | O_NONBLOCK));
      REQUIRE(writers.back() >= 0);
    }
    return std::move(*source);
  }
  void write_page(int cpu, const std::vector<std::byte>& page) {
    REQUIRE(::write(writers[static_cast<std::size_t>(cpu)], page.data(), page.size()) ==
            static_cast<ssize_t>(page.size()));
  }
};

std::vector<const Record*> read_all(RawSource& source, std::vector<Record>& copies) {
  std::vector<const Record*> records;
  while (const Record* r = source.next()) {
    copies.push_back(*r);
    records.push_back(r);
  }
  return records;
}

TEST_CASE("RawSource: the CPUs' pages in time order, tracing off at the stop, then the end") {
  RawFixture f;
  int asked = 0;
  auto source = f.open([&asked] { return ++asked >= 2; });
  CHECK(source->cpus() == f.cpus);
  f.write_page(0, page_of({1000, 3000}, 10, 1));
  if (f.cpus > 1)
    f.write_page(1, page_of({2000, 4000}, 10, 5));
  std::vector<Record> got;
  read_all(*source, got);
  std::vector<Nanos> times;
  for (const Record& r : got) {
    CHECK(r.kind == LineKind::Event);
    CHECK(r.name == "mm_vmscan_direct_reclaim_begin");
    CHECK(r.pid == 10);
    times.push_back(r.ts);
  }
  if (f.cpus > 1)
    CHECK(times == std::vector<Nanos>{1000, 2000, 3000, 4000});
  else
    CHECK(times == std::vector<Nanos>{1000, 3000});
  CHECK(trimmed(f.fake.read("tracing_on")) == "0");
  CHECK(source->next() == nullptr); // ended stays ended
}

TEST_CASE("RawSource: what the stats lost beyond the pages' counts is a Lost record at the end") {
  RawFixture f;
  bool stop = false;
  auto source = f.open([&stop] { return stop; });
  f.fake.write("per_cpu/cpu0/stats", "entries: 0\noverrun: 7\ndropped events: 2\n");
  f.write_page(0, page_of({1000}, 10, 1));
  stop = true;
  std::vector<Record> got;
  read_all(*source, got);
  REQUIRE(got.size() == 2);
  CHECK(got[0].kind == LineKind::Event);
  CHECK(got[1].kind == LineKind::Lost);
  CHECK(got[1].cpu == 0);
  CHECK(got[1].lost == 9);
}

TEST_CASE("RawSource: each page goes to the page sink whole, as read") {
  struct Pages : PageSink {
    std::vector<std::pair<int, std::vector<std::byte>>> got;
    void add_page(int cpu, const void* page, std::size_t size) override {
      const auto* bytes = static_cast<const std::byte*>(page);
      got.emplace_back(cpu, std::vector<std::byte>(bytes, bytes + size));
    }
    bool good() const override { return true; }
  } pages;
  RawFixture f;
  bool stop = false;
  auto source = f.open([&stop] { return stop; }, &pages);
  const std::vector<std::byte> page = page_of({1000, 2000}, 10, 1);
  f.write_page(0, page);
  stop = true;
  std::vector<Record> got;
  read_all(*source, got);
  CHECK(got.size() == 2);
  REQUIRE(pages.got.size() == 1);
  CHECK(pages.got[0].first == 0);
  CHECK(pages.got[0].second == page);
}

TEST_CASE("RawSource: a pid without a name makes it read saved_cmdlines again") {
  RawFixture f;
  bool stop = false;
  auto source = f.open([&stop] { return stop; });
  // The task started after the formats were loaded; the kernel saved its
  // comm since.
  f.fake.write("saved_cmdlines", "10 known\n4242 late-starter\n");
  f.write_page(0, page_of({1000}, 4242, 1));
  stop = true;
  std::vector<Record> got;
  read_all(*source, got);
  REQUIRE(got.size() == 1);
  CHECK(got[0].pid == 4242);
  CHECK(got[0].comm == "late-starter");
}

TEST_CASE("RawSource: waits on the CPUs without spinning, asking should_stop") {
  RawFixture f;
  int asked = 0;
  auto source = f.open([&asked] { return ++asked > 3; });
  const auto start = std::chrono::steady_clock::now();
  CHECK(source->next() == nullptr);
  const auto took = std::chrono::steady_clock::now() - start;
  CHECK(asked == 4);
  // Three waits of the poll interval, nothing read.
  CHECK(took >= 3 * RawSource::kPollInterval - std::chrono::milliseconds(20));
  CHECK(took < 3 * RawSource::kPollInterval + std::chrono::milliseconds(300));
}

TEST_CASE("RawSource: a buffer without per_cpu files is an error that names it") {
  FakeTracefs fake;
  Result<InstancePtr> top = open_top_level(fake.dir());
  REQUIRE(top.ok());
  RawSource::Options options;
  options.instance = top->get();
  options.top = top->get();
  Result<std::unique_ptr<RawSource>> source = RawSource::open(make_tep(), std::move(options));
  REQUIRE_FALSE(source.ok());
  CHECK(source.error().message.find(fake.dir() + "/per_cpu") != std::string::npos);
}

} // namespace
} // namespace allocwatch

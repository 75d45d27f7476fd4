#include "fake_dat_sources.h"
#include "ring/dat_reader.h"
#include "ring/dat_writer.h"
#include "trace/line_reader.h"
#include "trace/parser.h"

#include <cstdlib>
#include <doctest/doctest.h>
#include <fcntl.h>
#include <filesystem>
#include <map>
#include <string>
#include <unistd.h>
#include <vector>

using namespace allocwatch;

namespace {

std::string traces_dir() {
  const char* dir = std::getenv("ALLOCWATCH_TRACES");
  return dir != nullptr ? dir : "tests/golden/traces";
}

// A record's values that outlive it.
struct Kept {
  LineKind kind;
  TraceFormat format;
  Nanos ts;
  int pid;
  int cpu;
  std::string comm;
  std::string name;
  std::string line;
  std::uint64_t lost;
};

Kept keep(const Record& r) {
  std::string line(r.line);
  if (r.formatter != nullptr) {
    std::size_t at = 0, size = 0;
    r.formatter->format(r.blob, line, at, size);
  }
  return {r.kind, r.format, r.ts, r.pid, r.cpu, std::string(r.comm), std::string(r.name),
          line,   r.lost};
}

std::vector<Kept> read_dat(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  REQUIRE(fd >= 0);
  auto records = DatRecords::open(fd, path, std::nullopt);
  ::close(fd);
  REQUIRE_MESSAGE(records.ok(), records.error().message);
  CHECK_FALSE((*records)->graph());
  std::vector<Kept> kept;
  while (const Record* r = (*records)->next())
    kept.push_back(keep(*r));
  return kept;
}

std::vector<Kept> read_text(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  REQUIRE(fd >= 0);
  FdSource source(fd, path);
  LineReader reader(source);
  std::vector<Kept> kept;
  std::string_view line;
  while (reader.next(line)) {
    const Record r = parse_line(line);
    if (r.kind != LineKind::Skip)
      kept.push_back(keep(r));
  }
  ::close(fd);
  return kept;
}

} // namespace

TEST_CASE("DatRecords: the extracted instance decodes to the records its text printed") {
  const std::vector<Kept> dat = read_dat(traces_dir() + "/events-6.18-memcg.dat");
  const std::vector<Kept> text = read_text(traces_dir() + "/events-6.18-memcg.txt");
  REQUIRE(text.size() == 5620);
  REQUIRE(dat.size() == text.size());
  for (std::size_t i = 0; i < dat.size(); ++i) {
    INFO("record " << i << ": " << dat[i].line << "\n  text: " << text[i].line);
    CHECK(dat[i].kind == LineKind::Event);
    CHECK(dat[i].format == TraceFormat::Events);
    CHECK(dat[i].pid == text[i].pid);
    CHECK(dat[i].cpu == text[i].cpu);
    CHECK(dat[i].comm == text[i].comm);
    CHECK(dat[i].name == text[i].name);
    // The text's µs are the ns rounded (the kernel's ns2usecs).
    CHECK((dat[i].ts + 500) / 1000 * 1000 == text[i].ts);
  }
  // Exact ns: not all on whole µs.
  std::size_t whole = 0;
  for (const Kept& k : dat)
    whole += k.ts % 1000 == 0;
  CHECK(whole < dat.size() / 100);
}

TEST_CASE("DatRecords: events lost before a record come first, as the kernel's LOST line") {
  const std::vector<Kept> dat = read_dat(traces_dir() + "/events-6.18-memcg-lost.dat");
  // trace-cmd report: "CPU:0 [2265 EVENTS DROPPED]", "CPU:1 [1526 EVENTS
  // DROPPED]", and 237 records.
  std::map<int, std::uint64_t> lost;
  std::size_t events = 0;
  for (std::size_t i = 0; i < dat.size(); ++i) {
    if (dat[i].kind != LineKind::Lost) {
      ++events;
      continue;
    }
    lost[dat[i].cpu] += dat[i].lost;
    CHECK(dat[i].line == "CPU:" + std::to_string(dat[i].cpu) + " [LOST " +
                             std::to_string(dat[i].lost) + " EVENTS]");
    // The record after it is of the same CPU.
    REQUIRE(i + 1 < dat.size());
    CHECK(dat[i + 1].kind == LineKind::Event);
    CHECK(dat[i + 1].cpu == dat[i].cpu);
  }
  CHECK(events == 237);
  CHECK(lost == std::map<int, std::uint64_t>{{0, 2265}, {1, 1526}});
}

TEST_CASE("DatRecords: open refuses what DatInput refuses") {
  const int fd = ::open((traces_dir() + "/events-6.18-memcg.txt").c_str(), O_RDONLY | O_CLOEXEC);
  REQUIRE(fd >= 0);
  auto records = DatRecords::open(fd, "x.txt", std::nullopt);
  ::close(fd);
  REQUIRE_FALSE(records.ok());
  CHECK(records.error().message ==
        "x.txt is not a trace.dat: it does not start with trace-cmd's magic");
}

TEST_CASE("DatRecords: a record whose length runs past its page is Malformed, not read past") {
  // A fuzz finding: lost-v7.dat with 6 bytes changed, one of them an event
  // length; libtraceevent's kbuffer takes it as it is, and the decoder
  // copied 12848 bytes from a 4096-byte page (ASan: heap-buffer-overflow).
  const std::string path = "tests/fuzz/regressions/trace_dat/record-past-its-page.dat";
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  REQUIRE(fd >= 0);
  auto records = DatRecords::open(fd, path, std::nullopt);
  ::close(fd);
  REQUIRE_MESSAGE(records.ok(), records.error().message);
  std::map<LineKind, int> kinds;
  while (const Record* r = (*records)->next()) {
    ++kinds[r->kind];
    CHECK(r->blob.size() <= 4096 + 64); // a page's bytes at most, and the decoder's header
  }
  CHECK(kinds[LineKind::Malformed] >= 1);
  CHECK(kinds[LineKind::Event] > 100);
}

namespace {

// A trace.dat written by DatWriter from hand-made pages (the 6.18 formats
// of tests/support/fake_dat_sources.h): on CPU 0 a vmscan/dat_test record
// at `event_ts`, then, when `graph_ts` is not 0, a funcgraph_exit.
std::string write_dat(const std::string& path, std::uint64_t event_ts, std::uint64_t graph_ts) {
  testing::FakeDatSources sources;
  auto writer = DatWriter::create(sources, {path, 1, {{"vmscan", "dat_test"}}});
  REQUIRE_MESSAGE(writer.ok(), writer.error().message);
  testing::PageBuilder page(event_ts);
  page.add(event_ts, 700, 4242, {7});
  if (graph_ts != 0)
    page.add(graph_ts, 10, 4242, {0xffffffff81234000, 1, graph_ts - 2000, graph_ts});
  (*writer)->add_page(0, page.bytes().data(), page.bytes().size());
  REQUIRE((*writer)->finish().ok());
  return path;
}

std::unique_ptr<DatRecords> open_path(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  REQUIRE(fd >= 0);
  auto records = DatRecords::open(fd, path, std::nullopt);
  ::close(fd);
  REQUIRE_MESSAGE(records.ok(), records.error().message);
  return std::move(*records);
}

} // namespace

TEST_CASE("DatRecords: a buffer with function_graph records prints its tracepoints as graph's") {
  char dir[] = "/tmp/allocwatch-dat-reader-XXXXXX";
  REQUIRE(::mkdtemp(dir) != nullptr);
  const std::string base = dir;
  // The tracepoint comes first: only a look past it finds the graph record.
  auto graph = open_path(write_dat(base + "/graph.dat", 1'000'000'000, 1'000'500'000));
  CHECK(graph->graph());
  const Record* first = graph->next();
  REQUIRE(first != nullptr);
  CHECK(first->kind == LineKind::Event);
  CHECK(first->format == TraceFormat::Graph);
  const Record* second = graph->next();
  REQUIRE(second != nullptr);
  CHECK(second->kind == LineKind::GraphReturn);
  CHECK(second->duration == 2000);
  CHECK(graph->next() == nullptr);

  auto events = open_path(write_dat(base + "/events.dat", 1'000'000'000, 0));
  CHECK_FALSE(events->graph());
  const Record* only = events->next();
  REQUIRE(only != nullptr);
  CHECK(only->format == TraceFormat::Events);
  CHECK(events->next() == nullptr);
  std::filesystem::remove_all(base);
}

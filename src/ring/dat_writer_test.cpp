#include "dat_readback.h"
#include "fake_dat_sources.h"
#include "ring/dat_writer.h"
#include "temp_dir.h"

#include <csignal>
#include <cstring>
#include <doctest/doctest.h>
#include <fstream>
#include <sys/resource.h>
#include <unistd.h>

namespace allocwatch {
namespace {

using testing::FakeDatSources;
using testing::PageBuilder;

constexpr std::uint16_t kFunction = 1;
constexpr std::uint16_t kFuncgraphExit = 10;
constexpr std::uint16_t kDatTest = 700;

using testing::slurp;
using testing::TempDir;

// Reads the file's fields in order, as trace-cmd.dat.v6(5) lists them.
class Cursor {
public:
  explicit Cursor(std::string bytes) : bytes_(std::move(bytes)) {}
  template <class T> T number() {
    T value{};
    REQUIRE(at_ + sizeof value <= bytes_.size());
    std::memcpy(&value, bytes_.data() + at_, sizeof value);
    at_ += sizeof value;
    return value;
  }
  std::string bytes(std::size_t size) {
    REQUIRE(at_ + size <= bytes_.size());
    std::string out = bytes_.substr(at_, size);
    at_ += size;
    return out;
  }
  std::string cstring() {
    const std::size_t end = bytes_.find('\0', at_);
    REQUIRE(end != std::string::npos);
    std::string out = bytes_.substr(at_, end - at_);
    at_ = end + 1;
    return out;
  }
  std::size_t at() const { return at_; }
  const std::string& all() const { return bytes_; }

private:
  std::string bytes_;
  std::size_t at_ = 0;
};

std::vector<TracedEvent> dat_test_events() {
  return {{"vmscan", "dat_test"}};
}

std::unique_ptr<DatWriter> make_writer(FakeDatSources& sources, const std::string& path,
                                       int cpus = 2,
                                       std::vector<TracedEvent> events = dat_test_events()) {
  auto writer = DatWriter::create(sources, {path, cpus, std::move(events)});
  REQUIRE_MESSAGE(writer.ok(), writer.error().message);
  return std::move(writer.value());
}

void add(DatWriter& writer, int cpu, const PageBuilder& page) {
  writer.add_page(cpu, page.bytes().data(), page.bytes().size());
}

TEST_CASE("DatWriter: the file's layout, section by section, as trace-cmd.dat.v6(5) gives it") {
  TempDir dir;
  const std::string path = dir.path + "/run.dat";
  FakeDatSources sources;
  // A kallsyms larger than one chunk and than DatFile's buffer: streamed,
  // its size written in after.
  std::string kallsyms = sources.files["/proc/kallsyms"];
  for (int i = 0; kallsyms.size() < 100000; ++i)
    kallsyms += "ffffffffc0" + std::to_string(100000 + i) + " t filler_" + std::to_string(i) + "\n";
  sources.files["/proc/kallsyms"] = kallsyms;
  sources.files["events/compaction/other/format"] = "name: other\nID: 701\n";
  sources.files["events/vmscan/x/format"] = "name: x\nID: 702\n";
  auto writer = make_writer(
      sources, path, 3,
      {{"vmscan", "dat_test"}, {"compaction", "other"}, {"vmscan", "dat_test"}, {"vmscan", "x"}});
  sources.files["events/vmscan/x/format"] = "changed after create()";
  CHECK(writer->page_size() == 4096);

  PageBuilder first(1000);
  first.add(1000, kDatTest, 4242, {1}).add(1500, kDatTest, 4242, {2});
  PageBuilder second(2000);
  second.add(2000, kDatTest, 4242, {3});
  add(*writer, 2, first);
  add(*writer, 2, second);
  CHECK(writer->good());
  // saved_cmdlines is read at finish(): a task that came late has its comm.
  sources.files["saved_cmdlines"] = "4242 kswapd0\n5151 late-task\n";
  REQUIRE(dir.entries().empty()); // nothing under any name before finish()
  Status finished = writer->finish();
  REQUIRE_MESSAGE(finished.ok(), finished.error().message);
  CHECK(dir.entries() == std::vector<std::string>{"run.dat"});

  Cursor file(slurp(path));
  CHECK(file.bytes(10) == std::string("\027\010\104tracing"));
  CHECK(file.cstring() == "6");
  CHECK(file.number<std::uint8_t>() == 0); // little endian, as this host
  CHECK(file.number<std::uint8_t>() == sizeof(long));
  CHECK(file.number<std::uint32_t>() == 4096);

  CHECK(file.cstring() == "header_page");
  CHECK(file.bytes(file.number<std::uint64_t>()) == testing::kHeaderPage);
  CHECK(file.cstring() == "header_event");
  CHECK(file.bytes(file.number<std::uint64_t>()) == testing::kHeaderEvent);

  CHECK(file.number<std::uint32_t>() == 2); // ftrace formats, by name
  CHECK(file.bytes(file.number<std::uint64_t>()) == testing::kFuncgraphExitFormat);
  CHECK(file.bytes(file.number<std::uint64_t>()) == testing::kFunctionFormat);

  CHECK(file.number<std::uint32_t>() == 2); // systems, in the order their first event came
  CHECK(file.cstring() == "vmscan");
  CHECK(file.number<std::uint32_t>() == 2); // dat_test once, x
  CHECK(file.bytes(file.number<std::uint64_t>()) == testing::kDatTestFormat);
  CHECK(file.bytes(file.number<std::uint64_t>()) == "name: x\nID: 702\n"); // read by create()
  CHECK(file.cstring() == "compaction");
  CHECK(file.number<std::uint32_t>() == 1);
  CHECK(file.bytes(file.number<std::uint64_t>()) == "name: other\nID: 701\n");

  CHECK(file.bytes(file.number<std::uint32_t>()) == kallsyms);
  CHECK(file.bytes(file.number<std::uint32_t>()) == sources.files["printk_formats"]);
  CHECK(file.bytes(file.number<std::uint64_t>()) == "4242 kswapd0\n5151 late-task\n");
  CHECK(file.number<std::uint32_t>() == 3); // CPUs

  CHECK(file.bytes(10) == std::string("options  \0", 10));
  CHECK(file.number<std::uint16_t>() == 4); // TRACECMD_OPTION_TRACECLOCK
  CHECK(file.bytes(file.number<std::uint32_t>()) == std::string("local\0", 6));
  CHECK(file.number<std::uint16_t>() == 0); // the options' end

  CHECK(file.bytes(10) == std::string("flyrecord\0", 10));
  std::uint64_t offsets[3];
  std::uint64_t sizes[3];
  for (int cpu = 0; cpu < 3; ++cpu) {
    offsets[cpu] = file.number<std::uint64_t>();
    sizes[cpu] = file.number<std::uint64_t>();
  }
  CHECK(file.bytes(file.number<std::uint64_t>()) == "[local]");
  const std::size_t data_start = (file.at() + 4095) / 4096 * 4096;
  CHECK(offsets[0] == data_start);
  CHECK(sizes[0] == 0);
  CHECK(offsets[1] == data_start);
  CHECK(sizes[1] == 0);
  CHECK(offsets[2] == data_start);
  CHECK(sizes[2] == 2 * 4096);
  CHECK(file.all().size() == data_start + 2 * 4096);
  CHECK(file.all().substr(file.at(), data_start - file.at()) ==
        std::string(data_start - file.at(), '\0'));
  const std::string pages(reinterpret_cast<const char*>(first.bytes().data()), 4096);
  CHECK(file.all().substr(data_start, 4096) == pages);
  CHECK(file.all().compare(data_start + 4096, 4096,
                           reinterpret_cast<const char*>(second.bytes().data()), 4096) == 0);
}

TEST_CASE("DatWriter: libtracecmd reads the records back, exact, with comms and symbols") {
  TempDir dir;
  const std::string path = dir.path + "/run.dat";
  FakeDatSources sources;
  auto writer = make_writer(sources, path);
  PageBuilder cpu0(1'000'000'123);
  cpu0.add(1'000'000'123, kDatTest, 4242, {7})
      .add(1'000'000'999, kFunction, 5151, {0xffffffff81234010, 0xffffffff81235000});
  PageBuilder cpu1(1'000'000'500);
  cpu1.add(1'000'000'500, kDatTest, 5151, {42});
  add(*writer, 0, cpu0);
  add(*writer, 1, cpu1);
  sources.files["saved_cmdlines"] = "4242 kswapd0\n5151 late-task\n";
  REQUIRE(writer->finish().ok());

  const testing::ReadBack back = testing::read_back(path, 0xffffffff81234008);
  REQUIRE(back.opened);
  CHECK(back.symbol == "shrink_node");
  REQUIRE(back.records.size() == 3);
  const auto& a = back.records[0];
  CHECK(a.cpu == 0);
  CHECK(a.ts == 1'000'000'123);
  CHECK(a.system == "vmscan");
  CHECK(a.name == "dat_test");
  CHECK(a.pid == 4242);
  CHECK(a.comm == "kswapd0");
  CHECK(a.info == "nr=7");
  const auto& b = back.records[1];
  CHECK(b.cpu == 1);
  CHECK(b.ts == 1'000'000'500);
  CHECK(b.comm == "late-task");
  CHECK(b.info == "nr=42");
  const auto& c = back.records[2];
  CHECK(c.cpu == 0);
  CHECK(c.ts == 1'000'000'999);
  CHECK(c.system == "ftrace");
  CHECK(c.name == "function");
  CHECK(c.info.find("shrink_node") != std::string::npos);
  CHECK(c.info.find("shrink_lruvec") != std::string::npos);
}

TEST_CASE("DatWriter: a function_graph return decodes from the ftrace formats the file keeps") {
  TempDir dir;
  const std::string path = dir.path + "/graph.dat";
  FakeDatSources sources;
  auto writer = make_writer(sources, path, 1, {});
  const std::uint64_t depth_and_overrun = 3; // depth 3, overrun 0
  PageBuilder page(5'000'000'007);
  page.add(5'000'000'007, kFuncgraphExit, 4242,
           {0xffffffff81234000, depth_and_overrun, 4'999'000'001, 5'000'000'007});
  add(*writer, 0, page);
  REQUIRE(writer->finish().ok());
  const testing::ReadBack back = testing::read_back(path);
  REQUIRE(back.records.size() == 1);
  const auto& r = back.records[0];
  CHECK(r.ts == 5'000'000'007);
  CHECK(r.system == "ftrace");
  CHECK(r.name == "funcgraph_exit");
  CHECK(r.comm == "kswapd0");
  CHECK(r.info == "<-- shrink_node (3) (start: 129f6afc1  end: 12a05f207) over: 3");
}

TEST_CASE("DatWriter: a run without pages is a file with no data that trace-cmd opens") {
  TempDir dir;
  FakeDatSources sources;
  auto writer = make_writer(sources, dir.path + "/empty.dat", 4);
  REQUIRE(writer->finish().ok());
  const testing::ReadBack back = testing::read_back(dir.path + "/empty.dat");
  CHECK(back.opened);
  CHECK(back.records.empty());
}

TEST_CASE("DatWriter: a bad page is an error that finish() returns, and no file is written") {
  TempDir dir;
  const std::string path = dir.path + "/run.dat";
  FakeDatSources sources;
  PageBuilder page(10);
  page.add(10, kDatTest, 1, {1});

  SUBCASE("a short page: a truncated read") {
    auto writer = make_writer(sources, path);
    writer->add_page(0, page.bytes().data(), 4000);
    CHECK_FALSE(writer->good());
    add(*writer, 0, page); // dropped after the error
    Status finished = writer->finish();
    REQUIRE_FALSE(finished.ok());
    CHECK(finished.error().message == "cannot keep a page of CPU 0 in " + path +
                                          ": 4000 bytes where a page has 4096 (a short read?)");
  }
  SUBCASE("a commit past the page's end") {
    auto writer = make_writer(sources, path);
    const std::uint64_t commit = 4081;
    std::memcpy(page.bytes().data() + 8, &commit, 8);
    add(*writer, 1, page);
    Status finished = writer->finish();
    REQUIRE_FALSE(finished.ok());
    CHECK(finished.error().message == "cannot keep a page of CPU 1 in " + path +
                                          ": its data length 4081 passes its end (4080 bytes)");
  }
  SUBCASE("a CPU the run does not have") {
    auto writer = make_writer(sources, path);
    add(*writer, 2, page);
    Status finished = writer->finish();
    REQUIRE_FALSE(finished.ok());
    CHECK(finished.error().message ==
          "cannot keep a page of CPU 2 in " + path + ": the run has 2 CPUs");
  }
  SUBCASE("kallsyms unreadable at finish()") {
    auto writer = make_writer(sources, path);
    add(*writer, 0, page);
    sources.files.erase("/proc/kallsyms");
    Status finished = writer->finish();
    REQUIRE_FALSE(finished.ok());
    CHECK(finished.error().message == "cannot read /proc/kallsyms: No such file or directory");
  }
  CHECK(dir.entries().empty());
}

TEST_CASE("DatWriter: the missed-events flags of a page's commit are not part of its length") {
  TempDir dir;
  FakeDatSources sources;
  auto writer = make_writer(sources, dir.path + "/run.dat");
  PageBuilder page(10);
  page.add(10, kDatTest, 1, {1});
  std::uint64_t commit;
  std::memcpy(&commit, page.bytes().data() + 8, 8);
  commit |= std::uint64_t{3} << 30; // RB_MISSED_EVENTS | RB_MISSED_STORED
  std::memcpy(page.bytes().data() + 8, &commit, 8);
  add(*writer, 1, page);
  CHECK(writer->good());
  CHECK(writer->finish().ok());
}

TEST_CASE("DatWriter: what create() cannot read or make is an error") {
  TempDir dir;
  FakeDatSources sources;
  const std::string path = dir.path + "/run.dat";
  SUBCASE("an event's format") {
    auto writer = DatWriter::create(sources, {path, 1, {{"vmscan", "nope"}}});
    REQUIRE_FALSE(writer.ok());
    CHECK(writer.error().message ==
          "cannot read events/vmscan/nope/format: No such file or directory");
  }
  SUBCASE("a trace_clock without a selected clock") {
    sources.files["trace_clock"] = "local global\n";
    auto writer = DatWriter::create(sources, {path, 1, {}});
    REQUIRE_FALSE(writer.ok());
    CHECK(writer.error().message == "trace_clock names no clock in [brackets]: \"local global\n\"");
  }
  SUBCASE("a header_page without the data field") {
    sources.files["events/header_page"] = "\tfield: local_t commit;\toffset:8;\tsize:8;\n";
    auto writer = DatWriter::create(sources, {path, 1, {}});
    REQUIRE_FALSE(writer.ok());
    CHECK(writer.error().message == "events/header_page has no field data");
  }
  SUBCASE("a directory that does not exist") {
    auto writer = DatWriter::create(sources, {dir.path + "/no/run.dat", 1, {}});
    REQUIRE_FALSE(writer.ok());
    CHECK(writer.error().message.find("cannot create " + dir.path + "/no/run.dat: ") == 0);
  }
  SUBCASE("something other than a regular file: /dev/full") {
    auto writer = DatWriter::create(sources, {"/dev/full", 1, {}});
    REQUIRE_FALSE(writer.ok());
    CHECK(writer.error().message ==
          "cannot write /dev/full: not a regular file (a trace.dat is written beside it, then "
          "renamed)");
  }
  CHECK(dir.entries().empty());
}

// Sets the file size limit for its lifetime, with SIGXFSZ ignored, so that a
// write past it fails with EFBIG as a full disk would with ENOSPC.
struct FileSizeLimit {
  explicit FileSizeLimit(rlim_t bytes) {
    REQUIRE(::getrlimit(RLIMIT_FSIZE, &saved) == 0);
    previous = std::signal(SIGXFSZ, SIG_IGN);
    rlimit limit = saved;
    limit.rlim_cur = bytes;
    REQUIRE(::setrlimit(RLIMIT_FSIZE, &limit) == 0);
  }
  ~FileSizeLimit() {
    ::setrlimit(RLIMIT_FSIZE, &saved);
    std::signal(SIGXFSZ, previous);
  }
  rlimit saved{};
  void (*previous)(int) = nullptr;
};

TEST_CASE("DatWriter: a failed write says why, and a file already there stays as it was") {
  TempDir dir;
  const std::string path = dir.path + "/run.dat";
  { std::ofstream(path) << "the previous run\n"; }
  FakeDatSources sources;
  auto writer = make_writer(sources, path);
  PageBuilder page(10);
  page.add(10, kDatTest, 1, {1});
  SUBCASE("while the pages are kept") {
    FileSizeLimit limit(3 * 4096);
    for (int i = 0; i < 4; ++i)
      add(*writer, 0, page);
    CHECK_FALSE(writer->good());
    Status finished = writer->finish();
    REQUIRE_FALSE(finished.ok());
    CHECK(finished.error().message ==
          "cannot write the scratch file of CPU 0 beside " + path + ": File too large");
  }
  SUBCASE("while the file is written") {
    for (int i = 0; i < 4; ++i)
      add(*writer, 1, page);
    REQUIRE(writer->good());
    FileSizeLimit limit(8192); // the header fits, the pages do not
    Status finished = writer->finish();
    REQUIRE_FALSE(finished.ok());
    CHECK(finished.error().message == "cannot write " + path + ": File too large");
  }
  CHECK(slurp(path) == "the previous run\n");
  CHECK(dir.entries() == std::vector<std::string>{"run.dat"});
}

} // namespace
} // namespace allocwatch

#include "ring/dat_input.h"
#include "trace/line_reader.h"
#include "trace/parser.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <doctest/doctest.h>
#include <fcntl.h>
#include <fstream>
#include <iterator>
#include <map>
#include <optional>
#include <sys/mman.h>
#include <traceevent/event-parse.h>
#include <unistd.h>
#include <vector>

using namespace allocwatch;

namespace {

// The real files the golden tests replay; the unit tests run from the
// repository root (tests/unit/run.sh). events-6.18-memcg.dat is
// `trace-cmd extract -B` of an instance whose `trace` was read first into
// events-6.18-memcg.txt (tests/golden/make-dat.sh).
std::string traces_dir() {
  const char* dir = std::getenv("ALLOCWATCH_TRACES");
  return dir != nullptr ? dir : "tests/golden/traces";
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  REQUIRE(in.good());
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

// `bytes` in an anonymous file, read from its start.
class MemFile {
public:
  explicit MemFile(std::string_view bytes) : fd_(::memfd_create("dat", MFD_CLOEXEC)) {
    REQUIRE(fd_ >= 0);
    REQUIRE(::write(fd_, bytes.data(), bytes.size()) == static_cast<ssize_t>(bytes.size()));
  }
  ~MemFile() { ::close(fd_); }
  int fd() const { return fd_; }

private:
  int fd_;
};

struct Seen {
  int cpu;
  Nanos us; // the timestamp rounded to the µs, as the kernel's text prints it
  int pid;
  std::string name;
};

// Every record of `file`: its CPU, time, pid and event name (from the
// file's own formats); checks the order by time on the way.
std::vector<Seen> read_all(DatInput& file, long long* missed = nullptr) {
  std::vector<Seen> seen;
  std::uint64_t last = 0;
  while (const DatEvent* e = file.next()) {
    CHECK(e->event.ts >= last);
    last = e->event.ts;
    REQUIRE(e->event.size >= 8);
    std::uint16_t id = 0;
    std::int32_t pid = 0;
    std::memcpy(&id, e->event.data, sizeof id);
    std::memcpy(&pid, static_cast<const char*>(e->event.data) + 4, sizeof pid);
    tep_event* event = tep_find_event(file.tep(), id);
    REQUIRE(event != nullptr);
    seen.push_back(
        {e->event.cpu, static_cast<Nanos>((e->event.ts + 500) / 1000 * 1000), pid, event->name});
    if (missed != nullptr && e->missed != 0)
      *missed += e->missed;
  }
  return seen;
}

std::vector<Seen> read_text(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  REQUIRE(fd >= 0);
  FdSource source(fd, path);
  LineReader reader(source);
  std::vector<Seen> seen;
  std::string_view line;
  while (reader.next(line)) {
    const Record r = parse_line(line);
    if (r.kind == LineKind::Event)
      seen.push_back({r.cpu, r.ts, r.pid, std::string(r.name)});
  }
  ::close(fd);
  return seen;
}

Result<std::unique_ptr<DatInput>> open_bytes(std::string_view bytes,
                                             const std::optional<std::string>& buffer = {}) {
  MemFile file(bytes);
  return DatInput::open(file.fd(), "t.dat", buffer);
}

} // namespace

TEST_CASE("DatInput: an extracted instance gives the records its text printed, in order") {
  const std::string path = traces_dir() + "/events-6.18-memcg.dat";
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  REQUIRE(fd >= 0);
  auto file = DatInput::open(fd, path, std::nullopt);
  ::close(fd); // the file keeps its own descriptor
  REQUIRE_MESSAGE(file.ok(), file.error().message);
  // The top-level buffer is empty: the one instance with records is read.
  CHECK((*file)->buffer() == "allocwatch-test-dat-14473");
  CHECK((*file)->describe() == "reading instance allocwatch-test-dat-14473 of the trace.dat");
  long long missed = 0;
  const std::vector<Seen> dat = read_all(**file, &missed);
  CHECK(missed == 0);
  const std::vector<Seen> text = read_text(traces_dir() + "/events-6.18-memcg.txt");
  REQUIRE(text.size() == 5620);
  REQUIRE(dat.size() == text.size());
  int cpus_seen = 0;
  for (std::size_t i = 0; i < dat.size(); ++i) {
    INFO("record " << i);
    CHECK(dat[i].cpu == text[i].cpu);
    CHECK(dat[i].us == text[i].us);
    CHECK(dat[i].pid == text[i].pid);
    CHECK(dat[i].name == text[i].name);
    cpus_seen |= 1 << dat[i].cpu;
  }
  CHECK(cpus_seen == 3); // both CPUs: the merge is tested
  CHECK((*file)->next() == nullptr);
}

TEST_CASE("DatInput: --buffer names the instance; a name the file lacks is refused") {
  const std::string bytes = read_file(traces_dir() + "/events-6.18-memcg.dat");
  auto named = open_bytes(bytes, "allocwatch-test-dat-14473");
  REQUIRE(named.ok());
  CHECK(read_all(**named).size() == 5620);
  auto missing = open_bytes(bytes, "nosuch\x1b");
  REQUIRE_FALSE(missing.ok());
  CHECK(missing.error().message ==
        "t.dat has no instance nosuch\\x1b; its buffers: the top-level buffer, "
        "allocwatch-test-dat-14473");
}

TEST_CASE("DatInput: events lost to an overwritten buffer come with the record after them") {
  // An instance of 8 KiB per CPU, overwritten: trace-cmd report says
  // "CPU:0 [2265 EVENTS DROPPED]" and "CPU:1 [1526 EVENTS DROPPED]".
  const std::string bytes = read_file(traces_dir() + "/events-6.18-memcg-lost.dat");
  auto file = open_bytes(bytes);
  REQUIRE_MESSAGE(file.ok(), file.error().message);
  std::map<int, long long> missed;
  std::size_t records = 0;
  while (const DatEvent* e = (*file)->next()) {
    ++records;
    if (e->missed != 0)
      missed[e->event.cpu] += e->missed;
  }
  CHECK(records == 237); // trace-cmd report prints 237 records
  CHECK(missed == std::map<int, long long>{{0, 2265}, {1, 1526}});
}

// A cut within the last hundred bytes or so leaves every record (trace-cmd
// writes an options section last): such a file opens and reads whole.
// trace-cmd writes a section of options last: a cut within it leaves every
// record, and such a file opens and reads whole.
TEST_CASE("DatInput: a truncated file is refused at open, and libtracecmd prints nothing") {
  const std::string bytes = read_file(traces_dir() + "/events-6.18-memcg.dat");
  // stdout, where libtracecmd printf()s "File possibly truncated", to a
  // file (doctest prints nothing while every check passes).
  std::fflush(stdout);
  const int saved = ::dup(STDOUT_FILENO);
  MemFile out("");
  ::dup2(out.fd(), STDOUT_FILENO);
  std::vector<std::size_t> opened;
  for (std::size_t cut :
       {std::size_t{0}, std::size_t{5}, std::size_t{10}, std::size_t{100}, bytes.size() / 4,
        bytes.size() / 2, bytes.size() - 4096, bytes.size() - 2000, bytes.size() - 1}) {
    auto file = open_bytes(std::string_view(bytes).substr(0, cut));
    if (file.ok()) {
      opened.push_back(cut);
      CHECK(read_all(**file).size() == 5620);
    }
  }
  std::fflush(stdout);
  ::dup2(saved, STDOUT_FILENO);
  ::close(saved);
  CHECK(opened == std::vector<std::size_t>{bytes.size() - 1});
  CHECK(::lseek(out.fd(), 0, SEEK_END) == 0);
}

TEST_CASE("DatInput: what is not a trace.dat is refused with the file's name, escaped") {
  auto text = open_bytes("# tracer: nop\n");
  REQUIRE_FALSE(text.ok());
  CHECK(text.error().message ==
        "t.dat is not a trace.dat: it does not start with trace-cmd's magic");
  auto magic_only = open_bytes(std::string("\027\010\104tracing6\0", 12));
  REQUIRE_FALSE(magic_only.ok());
  CHECK(magic_only.error().message.find("t.dat is a trace.dat that libtracecmd cannot read: ") ==
        0);
  MemFile empty("");
  auto named = DatInput::open(empty.fd(), "a\nb", std::nullopt);
  REQUIRE_FALSE(named.ok());
  CHECK(named.error().message.find("a\\nb ") == 0);
  CHECK(is_dat_magic(std::string("\027\010\104tracing6", 11)));
  CHECK_FALSE(is_dat_magic("\027\010\104tracin"));
  CHECK_FALSE(is_dat_magic("# tracer: nop"));
}

TEST_CASE("DatInput: many opens leave no descriptor behind") {
  const std::string bytes = read_file(traces_dir() + "/events-6.18-memcg.dat");
  const int before = ::dup(STDERR_FILENO);
  ::close(before);
  for (int i = 0; i < 50; ++i) {
    auto good = open_bytes(bytes);
    CHECK(good.ok());
    auto bad = open_bytes(std::string_view(bytes).substr(0, bytes.size() / 2));
    CHECK_FALSE(bad.ok());
  }
  const int after = ::dup(STDERR_FILENO);
  ::close(after);
  CHECK(after == before);
}

// The small files the trace.dat fuzz harness starts from: real ones
// (tests/golden/make-dat.sh with four vmscan events, 9 MiB read under an
// 8 MiB limit; trace-cmd convert to version 6, uncompressed), and forged
// ones kept as regressions.
namespace {
std::string fuzz_file(const std::string& name) {
  for (const char* dir : {"tests/fuzz/corpus/trace_dat/", "tests/fuzz/regressions/trace_dat/"})
    if (::access((dir + name).c_str(), R_OK) == 0)
      return read_file(dir + name);
  FAIL("no " << name);
  return {};
}
} // namespace

TEST_CASE("DatInput: a version 6 file, uncompressed, reads as its version 7 original") {
  auto v6 = open_bytes(fuzz_file("memcg-v6.dat"));
  auto v7 = open_bytes(fuzz_file("memcg-v7.dat"));
  REQUIRE(v6.ok());
  REQUIRE(v7.ok());
  const std::vector<Seen> six = read_all(**v6);
  const std::vector<Seen> seven = read_all(**v7);
  CHECK(six.size() == 144); // trace-cmd report prints 144 records
  REQUIRE(six.size() == seven.size());
  for (std::size_t i = 0; i < six.size(); ++i) {
    CHECK(six[i].us == seven[i].us);
    CHECK(six[i].cpu == seven[i].cpu);
    CHECK(six[i].name == seven[i].name);
  }
}

TEST_CASE("DatInput: a forged chunk count is refused: libtracecmd's 21 GB fail in the child") {
  // make fuzz's finding: a version 7 file whose section of CPU data claims
  // so many chunks that tracecmd_load_chunks_info() callocs 21 GB.
  auto forged = open_bytes(fuzz_file("huge-chunk-count.dat"));
  REQUIRE_FALSE(forged.ok());
  CHECK(forged.error().message.find("libtracecmd crashed reading this trace.dat") !=
        std::string::npos);
}

TEST_CASE("DatInput: a buffer of latency text is refused, not read (libtracecmd would crash)") {
  // "flyrecord" forged into "latency" in the instance's buffer.
  auto instance = open_bytes(fuzz_file("latency-instance-v6.dat"));
  REQUIRE_FALSE(instance.ok());
  CHECK(instance.error().message ==
        "t.dat: instance allocwatch-test-dat-13171 holds a latency tracer's text, not "
        "ring-buffer records: trace-cmd report prints it");
  // The same at the top level: the instance beside it is read.
  auto top = open_bytes(fuzz_file("latency-top-v6.dat"));
  REQUIRE(top.ok());
  CHECK((*top)->buffer() == "allocwatch-test-dat-13171");
  CHECK(read_all(**top).size() == 144);
}

TEST_CASE(
    "DatInput: a version 6 file cut inside its CPU data is refused, stdout untouched, no crash") {
  const std::string bytes = fuzz_file("memcg-v6.dat");
  std::fflush(stdout);
  const int saved = ::dup(STDOUT_FILENO);
  MemFile out("");
  ::dup2(out.fd(), STDOUT_FILENO);
  auto file = open_bytes(std::string_view(bytes).substr(0, bytes.size() - 100));
  std::fflush(stdout);
  ::dup2(saved, STDOUT_FILENO);
  ::close(saved);
  REQUIRE_FALSE(file.ok());
  // libtracecmd 3.1.6 finds the instance's data cut, printf()s "File
  // possibly truncated" (to /dev/null here), then crashes closing the handle
  // it was making: in the child that tries it first.
  CHECK(file.error().message.find("t.dat: libtracecmd crashed reading this trace.dat") == 0);
  CHECK(::lseek(out.fd(), 0, SEEK_END) == 0);
}

TEST_CASE("DatInput: a file on which libtraceevent crashes reading records is refused at open") {
  // A fuzz finding: memcg-v6.dat much mutated, a page whose header sends
  // kbuffer_load_subbuffer() past the page (SEGV inside libtraceevent, from
  // tracecmd_read_data). The child that reads every record first dies of
  // it; open() says so, and nothing is read here. Under ASan the child's
  // SEGV is ASan's to report, and the child exits 1 instead of dying.
#ifdef __SANITIZE_ADDRESS__
  const std::string how = "exit status 1";
#else
  const std::string how = "Segmentation fault";
#endif
  auto file = open_bytes(fuzz_file("page-header-past-page.dat"));
  REQUIRE_FALSE(file.ok());
  CHECK(file.error().message == "t.dat: libtracecmd crashed reading this trace.dat (" + how +
                                    "): a damaged or forged file");
}

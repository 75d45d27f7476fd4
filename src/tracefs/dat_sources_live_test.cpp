// GCC 12 at -O1 with the sanitizers (make test SAN=1) warns inside
// libstdc++'s std::regex that a std::function may be used uninitialized: a
// false positive in the library's code, which -Werror would make an error.
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"

// Live test: a trace.dat of real pages, checked by trace-cmd. A private
// instance traces vmscan and compaction while the test drops caches and
// compacts memory; the instance's `trace` file is read (it does not
// consume), then every page of per_cpu/cpuN/trace_pipe_raw goes to a
// DatWriter fed by TracefsDatSources, and `trace-cmd report -t` (an
// independent decoder) must print the same records: CPU, task, event,
// fields, and the timestamp to the µs the text gives, in ns. Root and
// ALLOCWATCH_LIVE_TRACEFS=1 only (tests/live/run.sh sets it and holds
// /tmp/allocwatch-live.lock); the instance is removed on every way out.
#include "ring/dat_writer.h"
#include "ring/libtracefs.h"
#include "temp_dir.h"
#include "tracefs/dat_sources.h"
#include "tracefs/files.h"

#include <algorithm>
#include <array>
#include <cstdio>
#include <cstdlib>
#include <doctest/doctest.h>
#include <filesystem>
#include <map>
#include <regex>
#include <sstream>
#include <sys/wait.h>
#include <unistd.h>

namespace allocwatch {
namespace {

using testing::slurp;
using testing::TempDir;

bool live_allowed() {
  const char* wanted = std::getenv("ALLOCWATCH_LIVE_TRACEFS");
  return geteuid() == 0 && wanted != nullptr && std::string(wanted) == "1" &&
         std::filesystem::exists("/sys/kernel/tracing/events/vmscan") &&
         std::system("command -v trace-cmd >/dev/null") == 0;
}

// A private instance, destroyed with the object.
struct Instance {
  explicit Instance(const std::string& name) : ptr(tracefs_instance_create(name.c_str())) {}
  ~Instance() {
    if (ptr != nullptr) {
      tracefs_instance_destroy(ptr);
      tracefs_instance_free(ptr);
    }
  }
  tracefs_instance* ptr;
};

// One record as either text shows it.
struct Line {
  int cpu = -1;
  std::string task; // comm-pid
  std::uint64_t us = 0;
  std::string event;
  std::string fields;
  bool operator==(const Line&) const = default;
};

std::ostream& operator<<(std::ostream& out, const Line& l) {
  return out << "[" << l.cpu << "] " << l.task << " " << l.us << "us " << l.event << ": "
             << l.fields;
}

// "  kswapd0-91  [001] d..1.  5843.123456: mm_vmscan_kswapd_wake: nid=0 ..."
// (the kernel's, µs) or "  kswapd0-91  [001]  5843.123456789: mm_vmscan...:
// nid=0 ..." (trace-cmd report -t, ns). `ns` is filled from the latter.
std::vector<Line> parse(const std::string& text, std::vector<std::uint64_t>* ns) {
  static const std::regex line(
      R"(^\s*(.+-\d+)\s+\[(\d+)\]\s+(?:\S+\s+)?(\d+)\.(\d+): ([\w]+):\s*(.*?)\s*$)");
  std::vector<Line> lines;
  std::istringstream in(text);
  std::string raw;
  while (std::getline(in, raw)) {
    std::smatch m;
    if (raw.empty() || raw[0] == '#' || !std::regex_match(raw, m, line))
      continue;
    Line l;
    l.task = m[1];
    l.cpu = std::stoi(m[2]);
    const std::uint64_t seconds = std::stoull(m[3]);
    const std::string fraction = m[4];
    const std::uint64_t part = std::stoull(fraction);
    if (fraction.size() == 9) {
      // The kernel's text rounds ns to the nearest µs (ns2usecs()).
      const std::uint64_t t = seconds * 1'000'000'000 + part;
      ns->push_back(t);
      l.us = (t + 500) / 1000;
    } else {
      l.us = seconds * 1'000'000 + part;
    }
    l.event = m[5];
    l.fields = m[6];
    lines.push_back(l);
  }
  return lines;
}

// The two ways libtraceevent's print of a format differs from the kernel's
// text, taken out of both: %pS gives "func+0x0" without the kernel's
// "/0x210" (the symbol's size), and %p the raw address where the kernel
// prints a hashed one. The symbol's name, from the file's kallsyms, stays.
Line without_known_differences(Line l) {
  static const std::regex symbol_size(R"((\w\+0x[0-9a-f]+)/0x[0-9a-f]+)");
  static const std::regex pointer(R"( (0x)?[0-9a-f]{16}:)");
  if (l.event.rfind("mm_shrink_slab_", 0) == 0) {
    l.fields = std::regex_replace(l.fields, symbol_size, "$1");
    l.fields = std::regex_replace(l.fields, pointer, " POINTER:");
  }
  return l;
}

// The command's stdout, and its stderr in `err`; REQUIREs exit status 0.
std::string run(const std::string& command, std::string& err) {
  const std::string err_file = std::filesystem::temp_directory_path() /
                               ("allocwatch-dat-live-err-" + std::to_string(getpid()));
  std::string out;
  FILE* pipe = ::popen((command + " 2>" + err_file).c_str(), "r");
  REQUIRE(pipe != nullptr);
  std::array<char, 65536> buf;
  std::size_t n;
  while ((n = std::fread(buf.data(), 1, buf.size(), pipe)) > 0)
    out.append(buf.data(), n);
  const int status = ::pclose(pipe);
  err = slurp(err_file);
  std::filesystem::remove(err_file);
  REQUIRE_MESSAGE(WIFEXITED(status), command);
  REQUIRE_MESSAGE(WEXITSTATUS(status) == 0, command << ": " << err);
  return out;
}

void write_proc(const char* path, const char* value) {
  std::ofstream out(path);
  out << value;
  out.close();
  REQUIRE_MESSAGE(out.good(), "cannot write " << path);
}

std::vector<TracedEvent> system_events(const char* system) {
  std::vector<TracedEvent> events;
  char** names = tracefs_system_events(nullptr, system);
  REQUIRE(names != nullptr);
  for (char** name = names; *name != nullptr; ++name)
    events.push_back({system, *name});
  tracefs_list_free(names);
  return events;
}

TEST_CASE("live: trace.dat of real pages, as trace-cmd report reads it" *
          doctest::skip(!live_allowed())) {
  REQUIRE(use_tracing_dir("/sys/kernel/tracing").ok());
  Instance instance("allocwatch-test-dat-" + std::to_string(getpid()));
  REQUIRE(instance.ptr != nullptr);
  auto top = open_top_level("/sys/kernel/tracing");
  REQUIRE(top.ok());
  REQUIRE(write_tracefs_file(instance.ptr, "trace_clock", "local").ok());
  REQUIRE(tracefs_event_enable(instance.ptr, "vmscan", nullptr) == 0);
  REQUIRE(tracefs_event_enable(instance.ptr, "compaction", nullptr) == 0);

  write_proc("/proc/sys/vm/drop_caches", "2");
  write_proc("/proc/sys/vm/compact_memory", "1");
  REQUIRE(write_tracefs_file(instance.ptr, "tracing_on", "0").ok());

  auto text = read_tracefs_file(instance.ptr, "trace");
  REQUIRE(text.ok());
  std::vector<std::uint64_t> unused;
  const std::vector<Line> kernel = parse(text.value(), &unused);
  const auto traced = [&kernel](const char* event) {
    return std::any_of(kernel.begin(), kernel.end(),
                       [event](const Line& l) { return l.event == event; });
  };
  // drop_caches 2 shrinks the slabs (a shrinker's address printed with %pS);
  // compact_memory compacts.
  REQUIRE(traced("mm_shrink_slab_start"));
  REQUIRE(traced("mm_compaction_begin"));

  std::vector<TracedEvent> events = system_events("vmscan");
  for (TracedEvent& event : system_events("compaction"))
    events.push_back(std::move(event));
  TempDir dir;
  const std::string path = dir.path + "/run.dat";
  const int cpus = static_cast<int>(::sysconf(_SC_NPROCESSORS_CONF));
  TracefsDatSources sources(instance.ptr, top->get());
  auto writer = DatWriter::create(sources, {path, cpus, events});
  REQUIRE_MESSAGE(writer.ok(), writer.error().message);

  std::size_t pages = 0;
  std::vector<char> page((*writer)->page_size());
  for (int cpu = 0; cpu < cpus; ++cpu) {
    tracefs_cpu* reader = tracefs_cpu_open(instance.ptr, cpu, true);
    REQUIRE(reader != nullptr);
    REQUIRE(static_cast<std::size_t>(tracefs_cpu_read_size(reader)) == page.size());
    int n;
    while ((n = tracefs_cpu_read(reader, page.data(), true)) > 0) {
      (*writer)->add_page(cpu, page.data(), static_cast<std::size_t>(n));
      ++pages;
    }
    tracefs_cpu_close(reader);
  }
  REQUIRE(pages > 0);
  Status finished = (*writer)->finish();
  REQUIRE_MESSAGE(finished.ok(), finished.error().message);

  std::string err;
  const std::string dump = run("trace-cmd dump -v --summary --clock -i " + path, err);
  CHECK_MESSAGE(err.empty(), "trace-cmd dump warned: " << err);
  CHECK(dump.find("is a valid trace-cmd file") != std::string::npos);
  CHECK(dump.find("[Tracing clock]\n\t\t[local]") != std::string::npos);
  const std::string report = run("trace-cmd report -t " + path, err);
  CHECK_MESSAGE(err.empty(), "trace-cmd report warned: " << err);
  std::vector<std::uint64_t> ns;
  const std::vector<Line> decoded = parse(report, &ns);

  // Each CPU's records in its own order: the two texts merge the CPUs
  // alike only up to equal timestamps.
  std::map<int, std::vector<Line>> kernel_by_cpu;
  std::map<int, std::vector<Line>> decoded_by_cpu;
  for (const Line& l : kernel)
    kernel_by_cpu[l.cpu].push_back(without_known_differences(l));
  for (const Line& l : decoded)
    decoded_by_cpu[l.cpu].push_back(without_known_differences(l));
  CHECK(decoded.size() == kernel.size());
  CHECK(ns.size() == decoded.size());
  for (const auto& [cpu, lines] : kernel_by_cpu) {
    const std::vector<Line>& other = decoded_by_cpu[cpu];
    REQUIRE_MESSAGE(other.size() == lines.size(), "CPU " << cpu);
    for (std::size_t i = 0; i < lines.size(); ++i) {
      INFO("CPU ", cpu, " record ", i);
      CHECK(other[i] == lines[i]);
    }
  }
  // The file keeps the ns the text cuts: some timestamp is not a whole µs.
  CHECK(std::any_of(ns.begin(), ns.end(), [](std::uint64_t t) { return t % 1000 != 0; }));
}

} // namespace
} // namespace allocwatch

// Release never changes the output: held lines released as soon as the rule
// proves no span can claim them (BinderOptions::release) print exactly what a
// run that holds every line until the window would print, on the real traces
// of tests/golden/traces and on gentrace's generated ones.
#include "bind/binder.h"
#include "output/text_sink.h"
#include "profile/loader.h"
#include "trace/line_reader.h"
#include "trace/parser.h"

#include <cstdlib>
#include <doctest/doctest.h>
#include <fcntl.h>
#include <filesystem>
#include <limits>
#include <sstream>
#include <string>
#include <unistd.h>

using namespace allocwatch;

namespace {

struct Run {
  std::string out;
  RunStats stats;
  std::size_t most_held = 0;
};

// Neither bound may drop a line in either run: what differs is then release alone.
Profile unbounded_default_profile() {
  Result<Profile> profile = load_profile_file("configs/default.yaml");
  REQUIRE(profile.ok());
  profile->max_held_bytes = HeldStore::kMaxCapacity;
  profile->max_pending_per_task = std::numeric_limits<std::uint32_t>::max();
  return *profile;
}

Run replay(const std::string& path, const Profile& profile, Nanos threshold, bool release) {
  Run run;
  std::ostringstream out;
  TextSink sink(out);
  ShrinkerStats shrinkers;
  Binder binder(profile, BinderOptions{threshold, std::nullopt, release}, sink, shrinkers,
                run.stats);
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  REQUIRE_MESSAGE(fd >= 0, path);
  FdSource source(fd, path);
  LineReader reader(source);
  std::string_view line;
  while (reader.next(line)) {
    binder.feed(parse_line(line));
    run.most_held = std::max(run.most_held, binder.held_lines());
  }
  binder.finish();
  ::close(fd);
  run.out = out.str();
  return run;
}

// `releases`: whether the rule can prove anything dead in this trace.
void check_same(const std::string& path, const Profile& profile, Nanos threshold,
                bool releases = true) {
  CAPTURE(path);
  CAPTURE(threshold);
  const Run held = replay(path, profile, threshold, false);
  const Run released = replay(path, profile, threshold, true);
  CHECK(released.out == held.out);
  CHECK(released.stats.functions_over_threshold == held.stats.functions_over_threshold);
  CHECK(released.stats.pairs_over_threshold == held.stats.pairs_over_threshold);
  CHECK(held.stats.held_over_cap + held.stats.held_dropped == 0);
  CHECK(released.stats.held_over_cap + released.stats.held_dropped == 0);
  CHECK(held.stats.held_released == 0);
  // Release did something: not a vacuous comparison (when it can: see the
  // callers).
  if (releases && held.most_held > 0) {
    CHECK(released.stats.held_released > 0);
    CHECK(released.most_held < held.most_held);
  } else {
    CHECK(released.stats.held_released == 0);
  }
}

// gentrace is built beside the unit tests (make test builds both).
std::filesystem::path gentrace() {
  return std::filesystem::read_symlink("/proc/self/exe").parent_path() / "gentrace";
}

} // namespace

TEST_CASE("release prints what holding every line prints: real traces") {
  const Profile profile = unbounded_default_profile();
  struct Trace {
    const char* name;
    bool releases;
  };
  // The events trace holds only lines inside an open compaction pair of
  // their task (migratepages), each claimed: none can be released.
  for (const Trace trace :
       {Trace{"graph-6.1-thresh100.txt", true}, Trace{"graph-6.1-thresh0.txt", true},
        Trace{"events-6.18-dropcaches-compact.txt", false}})
    for (const Nanos threshold :
         {1 * kMicro, 5 * kMicro, 20 * kMicro, 100 * kMicro, kMilli, 10 * kMilli})
      check_same(std::string("tests/golden/traces/") + trace.name, profile, threshold,
                 trace.releases);
}

TEST_CASE("release prints what holding every line prints: generated traces") {
  const std::filesystem::path generator = gentrace();
  REQUIRE_MESSAGE(std::filesystem::exists(generator), (generator.string() + ": make it first"));
  char dir_template[] = "/tmp/allocwatch-release.XXXXXX";
  REQUIRE(::mkdtemp(dir_template) != nullptr);
  const std::filesystem::path dir = dir_template;
  const Profile profile = unbounded_default_profile();
  struct Shape {
    const char* format;
    const char* extra; // gentrace's shape options
    bool releases = true;
  };
  const Shape shapes[] = {
      {"graph", ""},
      {"events", ""},
      {"graph", "--tasks 300 --cpus 32 --dense"},
      {"events", "--tasks 300 --cpus 32 --dense"},
      {"events", "--no-span"},
      // Tracepoints and no graph line at all: nothing proves that no call
      // around them is running, so nothing is released (the bounds apply).
      {"graph", "--no-span", false},
  };
  int seed = 0;
  for (const Shape& shape : shapes) {
    for (const int threshold_us : {7, 100, 1000}) {
      ++seed;
      const std::filesystem::path trace = dir / "trace";
      const std::filesystem::path expected = dir / "expected";
      const std::string command =
          generator.string() + " --format " + shape.format + " " + shape.extra + " --seed " +
          std::to_string(seed) + " --bytes 2M --threshold-us " + std::to_string(threshold_us) +
          " --trace " + trace.string() + " --expected " + expected.string() + " 2>/dev/null";
      CAPTURE(command);
      REQUIRE(std::system(command.c_str()) == 0);
      check_same(trace, profile, threshold_us * kMicro, shape.releases);
    }
  }
  std::filesystem::remove_all(dir);
}

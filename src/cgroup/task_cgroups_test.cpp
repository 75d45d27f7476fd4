#include "cgroup/task_cgroups.h"
#include "fake_files.h"

#include <doctest/doctest.h>
#include <map>
#include <string>

using namespace allocwatch;

namespace {

// /proc as a map of paths to contents; a missing path cannot be read.
class FakeProc final : public FakeFiles {
public:
  void task(int pid, std::uint64_t start_time, const std::string& memory_path) {
    files["/proc/" + std::to_string(pid) + "/stat"] =
        std::to_string(pid) + " (cat) S 1 1 1 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 " +
        std::to_string(start_time) + " 0 0\n";
    files["/proc/" + std::to_string(pid) + "/cgroup"] = "4:memory:" + memory_path + "\n0::/\n";
  }
  void exit(int pid) {
    files.erase("/proc/" + std::to_string(pid) + "/stat");
    files.erase("/proc/" + std::to_string(pid) + "/cgroup");
  }
};

const std::string kId = "3f4ae8b2c1d04e6f9a7b5c3d2e1f0a9b8c7d6e5f4a3b2c1d0e9f8a7b6c5d4e3f";

} // namespace

TEST_CASE("task_cgroups: read once, its container parsed, read again only after `reread`") {
  FakeProc proc;
  proc.task(42, 100, "/docker/" + kId);
  TaskCgroups cgroups(proc);
  const TaskCgroup* first = cgroups.of(42, 0);
  REQUIRE(first != nullptr);
  CHECK(first->version == CgroupVersion::V1);
  CHECK(first->path == "/docker/" + kId);
  CHECK(first->container.runtime == Runtime::Docker);
  CHECK(first->container.id == kId);
  const int reads = proc.reads;
  CHECK(cgroups.of(42, kSecond / 2) != nullptr);
  CHECK(proc.reads == reads);
  CHECK(cgroups.of(42, kSecond) != nullptr);
  CHECK(proc.reads == reads + 2);
  CHECK(cgroups.moves() == 0);
}

TEST_CASE("task_cgroups: a task that moved is followed; a reused pid is a new task") {
  FakeProc proc;
  proc.task(7, 100, "/a");
  TaskCgroups cgroups(proc);
  CHECK(cgroups.of(7, 0)->path == "/a");
  proc.task(7, 100, "/b");
  CHECK(cgroups.of(7, kSecond)->path == "/b");
  CHECK(cgroups.moves() == 1);
  proc.task(7, 555, "/c"); // the pid now names a later task
  CHECK(cgroups.of(7, 2 * kSecond)->path == "/c");
  CHECK(cgroups.moves() == 2);
}

TEST_CASE("task_cgroups: gone before the first read is unknown; gone later keeps its cgroup") {
  FakeProc proc;
  TaskCgroups cgroups(proc);
  CHECK(cgroups.of(9, 0) == nullptr);
  CHECK(cgroups.unknown() == 1);
  proc.task(9, 1, "/late");
  CHECK(cgroups.of(9, 0)->path == "/late");
  proc.exit(9);
  const TaskCgroup* after_exit = cgroups.of(9, 5 * kSecond);
  REQUIRE(after_exit != nullptr);
  CHECK(after_exit->path == "/late");
  CHECK(cgroups.unknown() == 1);
  // A /proc/PID/cgroup that names no memory cgroup is unknown too.
  proc.files["/proc/10/stat"] = "10 (x) S 1 1 1 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 5 0";
  proc.files["/proc/10/cgroup"] = "8:pids:/\n";
  CHECK(cgroups.of(10, 0) == nullptr);
  CHECK(cgroups.unknown() == 2);
}

TEST_CASE("task_cgroups: more pids than its bound keeps it at the bound") {
  FakeProc proc;
  constexpr std::size_t kMax = 64;
  TaskCgroups cgroups(proc, "/proc", kMax);
  for (int pid = 1; pid <= 1000; ++pid) {
    proc.task(pid, pid, "/churn/" + std::to_string(pid % 7));
    REQUIRE(cgroups.of(pid, pid) != nullptr);
    CHECK(cgroups.tasks() <= kMax);
    // A task asked for on every round stays known through the churn.
    proc.task(1, 1, "/churn/1");
    REQUIRE(cgroups.of(1, pid) != nullptr);
  }
  CHECK(cgroups.tasks() <= kMax);
  CHECK(cgroups.tasks() > kMax / 4);
  const int reads = proc.reads;
  CHECK(cgroups.of(1, 1000)->path == "/churn/1");
  CHECK(proc.reads == reads); // still cached
}

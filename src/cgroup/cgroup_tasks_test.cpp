#include "cgroup/cgroup_tasks.h"

#include <algorithm>
#include <doctest/doctest.h>
#include <filesystem>
#include <fstream>
#include <unistd.h>

using namespace allocwatch;

namespace {

namespace fs = std::filesystem;

// A cgroup tree in a temporary directory: plain files as cgroup.procs.
struct FakeTree {
  FakeTree()
      : root(fs::temp_directory_path() / ("allocwatch-cgtasks-" + std::to_string(getpid()))) {
    fs::remove_all(root);
  }
  ~FakeTree() { fs::remove_all(root); }
  void cgroup(const std::string& rel, const std::string& procs) {
    fs::create_directories(root / rel);
    std::ofstream(root / rel / "cgroup.procs") << procs;
  }
  fs::path root;
};

} // namespace

TEST_CASE("cgroup_tasks: the tasks of a cgroup and of those below it, each once") {
  FakeTree tree;
  tree.cgroup("pods", "");
  tree.cgroup("pods/a", "11\n12\n");
  tree.cgroup("pods/a/inner", "13\n12\n");
  tree.cgroup("pods/b", "21\nnot-a-pid\n-4\n");
  auto pids = tasks_in_cgroup((tree.root / "pods").string());
  REQUIRE(pids);
  std::vector<pid_t> sorted = *pids;
  std::sort(sorted.begin(), sorted.end());
  CHECK(sorted == std::vector<pid_t>{11, 12, 13, 21});
  tree.cgroup("empty", "");
  auto none = tasks_in_cgroup((tree.root / "empty").string());
  REQUIRE_FALSE(none);
  CHECK(none.error().message.find("no task in it") != std::string::npos);
}

TEST_CASE("cgroup_tasks: --cgroup as a directory, or as a path in the memory hierarchy") {
  FakeTree tree;
  tree.cgroup("memory/kubepods", "");
  tree.cgroup("memory/kubepods/pod1", "5\n");
  tree.cgroup("unified/system.slice/x.service", "6\n");
  const CgroupMounts mounts{(tree.root / "memory").string(), (tree.root / "unified").string()};
  const std::string direct = (tree.root / "memory/kubepods").string();
  CHECK(resolve_cgroup_dir(direct, mounts).value() == direct);
  CHECK(resolve_cgroup_dir("/kubepods/pod1", mounts).value() ==
        (tree.root / "memory/kubepods/pod1").string());
  CHECK(resolve_cgroup_dir("system.slice/x.service", mounts).value() ==
        (tree.root / "unified/system.slice/x.service").string());
  auto missing = resolve_cgroup_dir("/nowhere", mounts);
  REQUIRE_FALSE(missing);
  CHECK(missing.error().message.find("no such cgroup (looked for ") != std::string::npos);
  CHECK_FALSE(resolve_cgroup_dir("/kubepods/../..", mounts));
  CHECK(resolve_cgroup_dir("/x", CgroupMounts{}).error().message ==
        "--cgroup '/x': no such cgroup (no memory cgroup hierarchy is mounted)");
}

#include "session_fixture.h"
#include "tracefs/restore.h"

#include <doctest/doctest.h>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <sys/stat.h>
#include <unistd.h>

namespace allocwatch {
namespace {

using testing::dead_pid;
using testing::Fixture;
using testing::TempDir;

TEST_CASE("restore: a killed run's state file blocks a start, and --restore replays it") {
  Fixture f;
  const pid_t killed = dead_pid();
  const std::string killed_instance = "allocwatch-" + std::to_string(killed);
  // What the killed graph-mode run left, and what it had saved.
  f.fake.write("current_tracer", "function_graph");
  f.fake.write("tracing_thresh", "134");
  f.fake.write("options/funcgraph-proc", "1");
  f.fake.write("buffer_percent", "0");
  std::filesystem::create_directory(f.fake.path("instances/" + killed_instance));
  StateFile state;
  state.pid = killed;
  state.start_time = 1;
  state.tracing_dir = f.fake.dir();
  state.instance = killed_instance;
  state.entries = {{"tracing_thresh", "0\n"},
                   {"current_tracer", "nop\n"},
                   {"options/funcgraph-proc", "0\n"},
                   {"buffer_percent", "50\n"}};
  REQUIRE(write_state_file(f.state_dir, state).ok());
  // An instance whose run left no state file, and one of a running process.
  const pid_t lost = dead_pid();
  std::filesystem::create_directory(f.fake.path("instances/allocwatch-" + std::to_string(lost)));
  const std::string live_instance = "allocwatch-" + std::to_string(getppid());
  std::filesystem::create_directory(f.fake.path("instances/" + live_instance));
  // Instances that are not allocwatch's, whatever their names.
  for (const char* other : {"allocwatch-test-1", "allocwatch-", "mine"})
    std::filesystem::create_directory(f.fake.path(std::string("instances/") + other));

  {
    Session blocked(f.plan(), f.options());
    Status started = blocked.start();
    REQUIRE_FALSE(started.ok());
    CHECK(started.error().message == "allocwatch run(s) " + std::to_string(killed) +
                                         " ended without restoring tracefs; their journals are "
                                         "in " +
                                         f.state_dir + ": run allocwatch --restore first");
  }

  std::ostringstream said;
  REQUIRE(restore_from_state_files(f.state_dir, f.fake.dir(), said, f.checks()).ok());
  CHECK(f.fake.read("current_tracer") == "nop\n");
  CHECK(f.fake.read("tracing_thresh") == "0\n");
  CHECK(f.fake.read("options/funcgraph-proc") == "0\n");
  CHECK(f.fake.read("buffer_percent") == "50\n");
  CHECK_FALSE(std::filesystem::exists(f.fake.path("instances/" + killed_instance)));
  CHECK_FALSE(std::filesystem::exists(f.fake.path("instances/allocwatch-" + std::to_string(lost))));
  CHECK(std::filesystem::exists(f.fake.path("instances/" + live_instance)));
  for (const char* other : {"allocwatch-test-1", "allocwatch-", "mine"})
    CHECK(std::filesystem::exists(f.fake.path(std::string("instances/") + other)));
  CHECK_FALSE(std::filesystem::exists(state_file_path(f.state_dir, killed)));
  const std::string text = said.str();
  CHECK(text.find("allocwatch: restored what pid " + std::to_string(killed) + " changed in " +
                  f.fake.dir() + " (4 files, instance " + killed_instance + " removed)\n") !=
        std::string::npos);
  CHECK(text.find("allocwatch: removed the instance allocwatch-" + std::to_string(lost) +
                  " left by pid " + std::to_string(lost) + "\n") != std::string::npos);
  CHECK(text.find("allocwatch: instance " + live_instance + " belongs to running pid") !=
        std::string::npos);

  std::ostringstream again;
  REQUIRE(restore_from_state_files(f.state_dir, f.fake.dir(), again, f.checks()).ok());
  CHECK(again.str().find("allocwatch: nothing to restore") != std::string::npos);

  Session now(f.plan(), f.options());
  CHECK(now.start().ok());
}

// A state file as a killed run would have left it, for --restore to judge.
StateFile killed_state_file(const Fixture& f, pid_t pid) {
  StateFile state;
  state.pid = pid;
  state.start_time = 1;
  state.tracing_dir = f.fake.dir();
  state.entries = {{"current_tracer", "nop\n"}};
  return state;
}

// Writes `state file` as <dir>/<name>, mode 0600, as write_state_file() would not.
void plant(const std::string& dir, const std::string& name, const StateFile& state) {
  REQUIRE(ensure_state_dir(dir).ok());
  const std::string path = dir + "/" + name;
  std::ofstream(path, std::ios::binary) << format_state_file(state);
  REQUIRE(::chmod(path.c_str(), 0600) == 0);
}

// Runs --restore and returns what it said; `ok`: whether it succeeded.
std::string restore_says(Fixture& f, bool& ok, const RestoreChecks* checks = nullptr) {
  std::ostringstream said;
  Status restored =
      restore_from_state_files(f.state_dir, f.fake.dir(), said, checks ? *checks : f.checks());
  ok = restored.ok();
  return said.str();
}

TEST_CASE("restore: --restore trusts no state file it did not write, and touches nothing then") {
  Fixture f;
  f.fake.write("current_tracer", "function_graph\n");
  TempDir outside;
  const std::string victim = outside.dir() + "/victim-file";
  std::ofstream(victim) << "precious\n";
  const auto before = f.fake.state();
  const pid_t pid = dead_pid();
  const std::string name = std::to_string(pid) + ".state";
  const std::string path = f.state_dir + "/" + name;
  bool ok = true;

  SUBCASE("an entry path with '..' (it overwrote any file as root)") {
    StateFile j = killed_state_file(f, pid);
    const std::string up = "../../../../../../../.." + victim;
    j.entries.push_back({up, "owned\n"});
    plant(f.state_dir, name, j);
    CHECK(restore_says(f, ok).find(
              "refusing the journal " + path + ": it names '" + up +
              "', not a file allocwatch saves; nothing of it was restored (check tracefs "
              "by hand, then remove the journal)") != std::string::npos);
  }
  SUBCASE("an absolute entry path, and a tracefs file allocwatch never saves") {
    for (const std::string& bad : {victim, std::string("events/../../../x/enable"),
                                   std::string("instances/x/tracing_on"), std::string("trace")}) {
      CAPTURE(bad);
      StateFile j = killed_state_file(f, pid);
      j.entries.push_back({bad, "0\n"});
      plant(f.state_dir, name, j);
      CHECK(restore_says(f, ok).find("', not a file allocwatch saves") != std::string::npos);
      CHECK_FALSE(ok);
    }
  }
  SUBCASE("a tracing directory that is not a tracefs (it wrote into /tmp)") {
    RestoreChecks standard; // tracefs and debugfs only: the fake is neither
    CHECK(is_mounted_tracefs("/sys/kernel/tracing") ==
          std::filesystem::exists("/sys/kernel/tracing/available_events"));
    plant(f.state_dir, name, killed_state_file(f, pid));
    CHECK(restore_says(f, ok, &standard)
              .find("refusing the journal " + path + ": its tracing directory '" + f.fake.dir() +
                    "' is not a tracefs or debugfs") != std::string::npos);
    StateFile relative = killed_state_file(f, pid);
    relative.tracing_dir = "sys/kernel/tracing";
    plant(f.state_dir, name, relative);
    CHECK(restore_says(f, ok).find("is not an absolute path") != std::string::npos);
  }
  SUBCASE("an instance that is not allocwatch-<its pid>") {
    for (const std::string& instance :
         {std::string("mine"), "allocwatch-" + std::to_string(pid + 1), std::string("../../x")}) {
      StateFile j = killed_state_file(f, pid);
      j.instance = instance;
      plant(f.state_dir, name, j);
      CHECK(restore_says(f, ok).find("its instance '" + instance + "' is not allocwatch-" +
                                     std::to_string(pid)) != std::string::npos);
    }
  }
  SUBCASE("a pid that is not its file's") {
    plant(f.state_dir, std::to_string(pid + 1) + ".state", killed_state_file(f, pid));
    CHECK(restore_says(f, ok).find("it names pid " + std::to_string(pid) + ", not its file's") !=
          std::string::npos);
  }
  SUBCASE("a journal of another user, or open to others") {
    plant(f.state_dir, name, killed_state_file(f, pid));
    REQUIRE(::chmod(path.c_str(), 0666) == 0);
    CHECK(restore_says(f, ok).find("refusing the journal " + path +
                                   ": its mode is 0666, not 0600") != std::string::npos);
    if (::geteuid() == 0) {
      REQUIRE(::chmod(path.c_str(), 0600) == 0);
      REQUIRE(::chown(path.c_str(), 65534, 65534) == 0);
      CHECK(restore_says(f, ok).find("it is owned by another user") != std::string::npos);
    }
  }
  SUBCASE("a journal directory that is a symlink to another user's directory") {
    TempDir elsewhere;
    plant(elsewhere.dir() + "/run", name, killed_state_file(f, pid));
    std::filesystem::create_directory_symlink(elsewhere.dir() + "/run", f.state_dir);
    std::ostringstream said;
    Status restored = restore_from_state_files(f.state_dir, f.fake.dir(), said, f.checks());
    ok = restored.ok();
    REQUIRE_FALSE(ok);
    CHECK(restored.error().message ==
          "refusing the journal directory " + f.state_dir +
              ": it is a symbolic link (it must be a directory of this user, mode 0700); "
              "nothing was restored");
    CHECK(std::filesystem::exists(elsewhere.dir() + "/run/" + name));
  }
  CHECK_FALSE(ok);
  CHECK(f.fake.state() == before); // nothing written, the state file kept
  std::ifstream in(victim);
  std::string content;
  std::getline(in, content);
  CHECK(content == "precious");
}

TEST_CASE("restore: --restore removes the state files killed runs had not finished writing") {
  Fixture f;
  const pid_t pid = dead_pid();
  REQUIRE(ensure_state_dir(f.state_dir).ok());
  const std::string leftover = f.state_dir + "/" + std::to_string(pid) + ".state.tmp";
  std::ofstream(leftover) << "allocwatch-journal 2\npid " << pid << "\n";
  bool ok = false;
  const std::string said = restore_says(f, ok);
  CHECK(ok);
  CHECK(said == "allocwatch: removed " + leftover + ", the journal pid " + std::to_string(pid) +
                    " was writing when it was killed (it had changed nothing)\n");
  CHECK_FALSE(std::filesystem::exists(leftover));

  // The next run removes them too.
  std::ofstream(leftover) << "";
  std::ostringstream messages;
  SessionOptions options = f.options();
  options.messages = &messages;
  Session session(f.plan(), options);
  REQUIRE(session.start().ok());
  CHECK_FALSE(std::filesystem::exists(leftover));
  CHECK(messages.str().find("allocwatch: removed " + leftover) != std::string::npos);
}

TEST_CASE("restore: --restore leaves the state file of a running allocwatch alone") {
  Fixture f;
  Session running(f.plan(), f.options());
  REQUIRE(running.start().ok());
  std::ostringstream said;
  REQUIRE(restore_from_state_files(f.state_dir, f.fake.dir(), said, f.checks()).ok());
  CHECK(said.str().find("allocwatch: pid " + std::to_string(getpid()) + " is running") == 0);
  CHECK(f.fake.read("current_tracer") == "function_graph");
  CHECK(std::filesystem::exists(f.state()));
}

} // namespace
} // namespace allocwatch

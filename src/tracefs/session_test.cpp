#include "fake_tracefs.h"
#include "tracefs/session.h"

#include <doctest/doctest.h>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

namespace allocwatch {
namespace {

using testing::fake_profile;
using testing::FakeTracefs;
using testing::TempDir;

std::string trimmed(std::string text) {
  while (!text.empty() && text.back() == '\n')
    text.pop_back();
  return text;
}

// A pid that no process has: a child that has exited and been reaped.
pid_t dead_pid() {
  const pid_t child = fork();
  if (child == 0)
    _exit(0);
  REQUIRE(child > 0);
  REQUIRE(waitpid(child, nullptr, 0) == child);
  return child;
}

struct Fixture {
  FakeTracefs fake;
  TempDir tmp;
  std::string journal_dir = tmp.dir() + "/run";

  Plan plan(std::optional<Mode> forced = std::nullopt, std::optional<pid_t> pid = std::nullopt) {
    Result<Plan> made = make_plan(fake_profile(), 134 * kMicro, forced,
                                  {.pid = pid, .tracing_dir = fake.dir(), .messages = nullptr});
    REQUIRE(made.ok());
    return std::move(*made);
  }
  SessionOptions options(bool force = false) {
    return {.journal_dir = journal_dir, .force = force, .messages = nullptr};
  }
  std::string journal() const { return journal_path(journal_dir, getpid()); }
  // --restore's checks, taking the fake for a tracefs, and nothing else.
  RestoreChecks checks() const {
    return {.is_tracing_dir = [dir = fake.dir()](const std::string& d) { return d == dir; }};
  }
  std::string instance_dir() const {
    return fake.path("instances/allocwatch-" + std::to_string(getpid()));
  }
};

TEST_CASE("session: graph mode configures the top level, and restore puts back every byte") {
  Fixture f;
  // A state that is not the default, as another user may have left it.
  f.fake.write("events/vmscan/mm_shrink_slab_start/filter", "nr_objects_to_shrink > 100\n");
  f.fake.write("events/compaction/mm_compaction_begin/enable", "1\n");
  f.fake.write("tracing_on", "0\n");
  f.fake.write("options/funcgraph-irqs", "1\n");
  const auto before = f.fake.state();

  Session session(f.plan(), f.options());
  REQUIRE(session.start().ok());
  CHECK(session.mode() == Mode::Graph);
  CHECK(session.traced_instance().empty());

  CHECK(f.fake.read("current_tracer") == "function_graph");
  CHECK(f.fake.read("tracing_thresh") == "134");
  // libtracefs writes the functions' indexes in available_filter_functions.
  CHECK(f.fake.read("set_ftrace_filter") == "1 3 ");
  for (const char* on : {"funcgraph-proc", "funcgraph-abstime", "funcgraph-tail",
                         "funcgraph-duration", "context-info"})
    CHECK(trimmed(f.fake.read(std::string("options/") + on)) == "1");
  for (const char* off : {"funcgraph-irqs", "funcgraph-retval", "record-tgid", "raw"})
    CHECK(trimmed(f.fake.read(std::string("options/") + off)) == "0");
  CHECK(f.fake.read("buffer_size_kb") == "4096");
  for (const char* event :
       {"vmscan/mm_vmscan_direct_reclaim_begin", "vmscan/mm_vmscan_direct_reclaim_end",
        "vmscan/mm_shrink_slab_start", "compaction/mm_compaction_begin"})
    CHECK(trimmed(f.fake.read(std::string("events/") + event + "/enable")) == "1");
  CHECK(f.fake.read("events/vmscan/mm_shrink_slab_end/enable") == "0\n"); // not in the profile
  CHECK(f.fake.read("events/vmscan/mm_shrink_slab_start/filter") == "0");
  CHECK(f.fake.read("trace").empty());
  CHECK(trimmed(f.fake.read("tracing_on")) == "1");
  CHECK(std::filesystem::is_empty(f.fake.path("instances")));

  // The journal holds what each changed file read before.
  Result<Journal> journal = read_journal(f.journal());
  REQUIRE(journal.ok());
  CHECK(journal->pid == getpid());
  CHECK(journal->tracing_dir == f.fake.dir());
  CHECK(journal->instance.empty());
  CHECK(journal->entries.front().path == "set_ftrace_filter"); // the first change
  std::size_t changed = 0;
  for (const auto& [path, content] : before) {
    if (f.fake.state().at(path) == content)
      continue;
    ++changed;
    const auto entry = std::find_if(journal->entries.begin(), journal->entries.end(),
                                    [&](const JournalEntry& e) { return e.path == path; });
    REQUIRE_MESSAGE(entry != journal->entries.end(), path << " changed but is not in the journal");
    CHECK(entry->snapshot == content);
  }
  CHECK(changed == journal->entries.size());

  CHECK(session.stop_tracing().ok());
  CHECK(trimmed(f.fake.read("tracing_on")) == "0");

  REQUIRE(session.restore().ok());
  CHECK(f.fake.state() == before);
  CHECK_FALSE(std::filesystem::exists(f.journal()));
  CHECK(session.restore().ok()); // again: nothing to do
  CHECK(f.fake.state() == before);
}

TEST_CASE("session: the journal is written before the first change") {
  Fixture f;
  const auto before = f.fake.state();
  const std::string trace = f.fake.read("trace");
  // The journal cannot be written: its temporary file is a directory.
  REQUIRE(ensure_journal_dir(f.journal_dir).ok());
  std::filesystem::create_directory(f.journal() + ".tmp");
  Session session(f.plan(), f.options());
  Status started = session.start();
  REQUIRE_FALSE(started.ok());
  CHECK(started.error().message == "setting up graph mode failed: cannot write the journal " +
                                       f.journal() + ".tmp: Is a directory");
  CHECK(f.fake.state() == before);
  CHECK(f.fake.read("trace") == trace);
}

TEST_CASE("session: a failure half-way through graph setup restores what was changed") {
  Fixture f;
  f.fake.make_unwritable("events/vmscan/mm_vmscan_direct_reclaim_end/enable");
  const auto before = f.fake.state();
  {
    Session session(f.plan(), f.options());
    Status started = session.start();
    REQUIRE_FALSE(started.ok());
    CHECK(started.error().message ==
          "setting up graph mode failed: cannot write " +
              f.fake.path("events/vmscan/mm_vmscan_direct_reclaim_end/enable") +
              ": Input/output error");
    CHECK(f.fake.state() == before);
    CHECK_FALSE(std::filesystem::exists(f.journal()));
    CHECK_FALSE(session.open_pipe([] { return true; }).ok());
  }
  // Nothing holds the lock any more.
  std::filesystem::remove(f.fake.path("events/vmscan/mm_vmscan_direct_reclaim_end/enable"));
  f.fake.write("events/vmscan/mm_vmscan_direct_reclaim_end/enable", "0\n");
  Session again(f.plan(), f.options());
  CHECK(again.start().ok());
}

TEST_CASE("session: a kernel that refuses set_ftrace_filter makes the session use events mode") {
  Fixture f;
  SUBCASE("unreadable") {
    std::filesystem::remove(f.fake.path("set_ftrace_filter"));
    std::filesystem::create_directory(f.fake.path("set_ftrace_filter"));
  }
  SUBCASE("unwritable") {
    f.fake.make_unwritable("set_ftrace_filter");
  }
  const auto before = f.fake.state();
  std::ostringstream said;
  // --force: the unwritable fake reads as a filter someone else set.
  Session session(f.plan(), {.journal_dir = f.journal_dir, .force = true, .messages = &said});
  Status started = session.start();
  CHECK(session.mode() == Mode::Events);
  CHECK(
      said.str().find("allocwatch: events mode: the kernel refused function filtering (cannot ") !=
      std::string::npos);
  // A fake instance is an empty directory: events mode fails there, which
  // shows it was tried, and that the graph setup was undone first.
  REQUIRE_FALSE(started.ok());
  CHECK(started.error().message == "setting up events mode failed: cannot read " +
                                       f.instance_dir() +
                                       "/buffer_size_kb: No such file or directory");
  CHECK(f.fake.state() == before);
  CHECK_FALSE(std::filesystem::exists(f.instance_dir()));
  CHECK_FALSE(std::filesystem::exists(f.journal()));
}

TEST_CASE("session: with --mode graph, a refused set_ftrace_filter is an error") {
  Fixture f;
  std::filesystem::remove(f.fake.path("set_ftrace_filter"));
  std::filesystem::create_directory(f.fake.path("set_ftrace_filter"));
  const auto before = f.fake.state();
  Session session(f.plan(Mode::Graph), f.options());
  Status started = session.start();
  REQUIRE_FALSE(started.ok());
  CHECK(started.error().message == "--mode graph is impossible: cannot read " +
                                       f.fake.path("set_ftrace_filter") + ": Is a directory");
  CHECK(session.mode() == Mode::Graph);
  CHECK(f.fake.state() == before);
}

TEST_CASE("session: events mode works in its own instance and never writes the top level") {
  Fixture f;
  const auto before = f.fake.state();
  Session session(f.plan(Mode::Events), f.options());
  CHECK(session.traced_instance() == "allocwatch-" + std::to_string(getpid()));
  Status started = session.start();
  // As above, the fake's instance is empty: setup stops at its first file.
  REQUIRE_FALSE(started.ok());
  CHECK(started.error().message.find("setting up events mode failed: cannot read " +
                                     f.instance_dir() + "/buffer_size_kb") == 0);
  CHECK(f.fake.state() == before);
  CHECK_FALSE(std::filesystem::exists(f.instance_dir()));
}

TEST_CASE("session: --pid follows the process and its children, and is put back") {
  Fixture f;
  const auto before = f.fake.state();
  Session session(f.plan(std::nullopt, 4321), f.options());
  REQUIRE(session.start().ok());
  CHECK(f.fake.read("set_ftrace_pid") == "4321");
  CHECK(f.fake.read("set_event_pid") == "4321");
  CHECK(f.fake.read("options/event-fork") == "1");
  CHECK(f.fake.read("options/function-fork") == "1");
  REQUIRE(session.restore().ok());
  CHECK(f.fake.state() == before);
}

TEST_CASE("session: another tracer at the top level is refused, unless --force") {
  Fixture f;
  std::string expected;
  SUBCASE("current_tracer") {
    f.fake.write("current_tracer", "function\n");
    expected = "current_tracer is 'function'";
  }
  SUBCASE("tracing_thresh") {
    f.fake.write("tracing_thresh", "50\n");
    expected = "tracing_thresh is '50'";
  }
  SUBCASE("set_ftrace_filter") {
    f.fake.write("set_ftrace_filter", "schedule\n");
    expected = "set_ftrace_filter is 'schedule'";
  }
  const auto before = f.fake.state();
  {
    Session refused(f.plan(), f.options());
    Status started = refused.start();
    REQUIRE_FALSE(started.ok());
    CHECK(started.error().message == "another tracer is active at the top level (" + expected +
                                         "); stop it first, or --force to take it over");
    CHECK(f.fake.state() == before);
    CHECK_FALSE(std::filesystem::exists(f.journal()));
  }
  Session forced(f.plan(), f.options(true));
  REQUIRE(forced.start().ok());
  CHECK(f.fake.read("current_tracer") == "function_graph");
  REQUIRE(forced.restore().ok());
  CHECK(f.fake.state() == before);
}

TEST_CASE("session: another allocwatch running is refused, unless --force") {
  Fixture f;
  SUBCASE("its lock") {
    Session first(f.plan(), f.options());
    REQUIRE(first.start().ok());
    Session second(f.plan(), f.options());
    Status started = second.start();
    REQUIRE_FALSE(started.ok());
    CHECK(started.error().message == "another allocwatch holds the lock on " + f.journal_dir +
                                         "; two sessions would undo each other's tracefs "
                                         "settings (--force runs anyway)");
    CHECK(first.restore().ok());
  }
  SUBCASE("its journal") {
    Journal running;
    running.pid = getppid();
    running.start_time = process_start_time(getppid()).value();
    running.tracing_dir = f.fake.dir();
    REQUIRE(write_journal(f.journal_dir, running).ok());
    const auto before = f.fake.state();
    {
      Session refused(f.plan(), f.options());
      Status started = refused.start();
      REQUIRE_FALSE(started.ok());
      CHECK(started.error().message.find("another allocwatch is running (pid " +
                                         std::to_string(getppid()) + ")") == 0);
      CHECK(f.fake.state() == before);
    }
    Session forced(f.plan(), f.options(true));
    REQUIRE(forced.start().ok());
    REQUIRE(forced.restore().ok());
    CHECK(f.fake.state() == before);
    CHECK(std::filesystem::exists(journal_path(f.journal_dir, getppid()))); // not ours
  }
}

TEST_CASE("session: the destructor restores a session that was not restored") {
  Fixture f;
  const auto before = f.fake.state();
  {
    Session session(f.plan(), f.options());
    REQUIRE(session.start().ok());
    CHECK(f.fake.read("current_tracer") == "function_graph");
  }
  CHECK(f.fake.state() == before);
  CHECK_FALSE(std::filesystem::exists(f.journal()));
}

TEST_CASE("session: a restore that fails keeps the journal; a later one finishes the job") {
  Fixture f;
  const auto before = f.fake.state();
  Session session(f.plan(), f.options());
  REQUIRE(session.start().ok());
  f.fake.make_unwritable("tracing_thresh");
  Status restored = session.restore();
  REQUIRE_FALSE(restored.ok());
  CHECK(restored.error().message ==
        "cannot write " + f.fake.path("tracing_thresh") + ": Input/output error");
  CHECK(std::filesystem::exists(f.journal()));
  CHECK(f.fake.read("current_tracer") == "nop\n"); // the others are back

  std::filesystem::remove(f.fake.path("tracing_thresh"));
  f.fake.write("tracing_thresh", "134");
  REQUIRE(session.restore().ok());
  CHECK(f.fake.state() == before);
  CHECK_FALSE(std::filesystem::exists(f.journal()));
}

TEST_CASE("session: a never-used top-level buffer comes back at its expanded size") {
  Fixture f;
  f.fake.write("buffer_size_kb", "7 (expanded: 1408)\n");
  Session session(f.plan(), f.options());
  REQUIRE(session.start().ok());
  CHECK(f.fake.read("buffer_size_kb") == "4096");
  REQUIRE(session.restore().ok());
  // Writing any size expands the kernel's buffer for good; 1408 is what it
  // would have grown to at its first use.
  CHECK(f.fake.read("buffer_size_kb") == "1408\n");
}

TEST_CASE("session: a killed run's journal blocks a start, and --restore replays it") {
  Fixture f;
  const pid_t killed = dead_pid();
  const std::string killed_instance = "allocwatch-" + std::to_string(killed);
  // What the killed graph-mode run left, and what it had journaled.
  f.fake.write("current_tracer", "function_graph");
  f.fake.write("tracing_thresh", "134");
  f.fake.write("options/funcgraph-proc", "1");
  std::filesystem::create_directory(f.fake.path("instances/" + killed_instance));
  Journal journal;
  journal.pid = killed;
  journal.start_time = 1;
  journal.tracing_dir = f.fake.dir();
  journal.instance = killed_instance;
  journal.entries = {
      {"tracing_thresh", "0\n"}, {"current_tracer", "nop\n"}, {"options/funcgraph-proc", "0\n"}};
  REQUIRE(write_journal(f.journal_dir, journal).ok());
  // An instance whose run left no journal, and one of a running process.
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
                                         f.journal_dir + ": run allocwatch --restore first");
  }

  std::ostringstream said;
  REQUIRE(restore_from_journals(f.journal_dir, f.fake.dir(), said, f.checks()).ok());
  CHECK(f.fake.read("current_tracer") == "nop\n");
  CHECK(f.fake.read("tracing_thresh") == "0\n");
  CHECK(f.fake.read("options/funcgraph-proc") == "0\n");
  CHECK_FALSE(std::filesystem::exists(f.fake.path("instances/" + killed_instance)));
  CHECK_FALSE(std::filesystem::exists(f.fake.path("instances/allocwatch-" + std::to_string(lost))));
  CHECK(std::filesystem::exists(f.fake.path("instances/" + live_instance)));
  for (const char* other : {"allocwatch-test-1", "allocwatch-", "mine"})
    CHECK(std::filesystem::exists(f.fake.path(std::string("instances/") + other)));
  CHECK_FALSE(std::filesystem::exists(journal_path(f.journal_dir, killed)));
  const std::string text = said.str();
  CHECK(text.find("allocwatch: restored what pid " + std::to_string(killed) + " changed in " +
                  f.fake.dir() + " (3 files, instance " + killed_instance + " removed)\n") !=
        std::string::npos);
  CHECK(text.find("allocwatch: removed the instance allocwatch-" + std::to_string(lost) +
                  " left by pid " + std::to_string(lost) + "\n") != std::string::npos);
  CHECK(text.find("allocwatch: instance " + live_instance + " belongs to running pid") !=
        std::string::npos);

  std::ostringstream again;
  REQUIRE(restore_from_journals(f.journal_dir, f.fake.dir(), again, f.checks()).ok());
  CHECK(again.str().find("allocwatch: nothing to restore") != std::string::npos);

  Session now(f.plan(), f.options());
  CHECK(now.start().ok());
}

// A journal as a killed run would have left it, for --restore to judge.
Journal killed_journal(const Fixture& f, pid_t pid) {
  Journal journal;
  journal.pid = pid;
  journal.start_time = 1;
  journal.tracing_dir = f.fake.dir();
  journal.entries = {{"current_tracer", "nop\n"}};
  return journal;
}

// Writes `journal` as <dir>/<name>, mode 0600, as write_journal() would not.
void plant(const std::string& dir, const std::string& name, const Journal& journal) {
  REQUIRE(ensure_journal_dir(dir).ok());
  const std::string path = dir + "/" + name;
  std::ofstream(path, std::ios::binary) << format_journal(journal);
  REQUIRE(::chmod(path.c_str(), 0600) == 0);
}

// Runs --restore and returns what it said; `ok`: whether it succeeded.
std::string restore_says(Fixture& f, bool& ok, const RestoreChecks* checks = nullptr) {
  std::ostringstream said;
  Status restored =
      restore_from_journals(f.journal_dir, f.fake.dir(), said, checks ? *checks : f.checks());
  ok = restored.ok();
  return said.str();
}

TEST_CASE("session: --restore trusts no journal it did not write, and touches nothing then") {
  Fixture f;
  f.fake.write("current_tracer", "function_graph\n");
  TempDir outside;
  const std::string victim = outside.dir() + "/victim-file";
  std::ofstream(victim) << "precious\n";
  const auto before = f.fake.state();
  const pid_t pid = dead_pid();
  const std::string name = std::to_string(pid) + ".state";
  const std::string path = f.journal_dir + "/" + name;
  bool ok = true;

  SUBCASE("an entry path with '..' (it overwrote any file as root)") {
    Journal j = killed_journal(f, pid);
    const std::string up = "../../../../../../../.." + victim;
    j.entries.push_back({up, "owned\n"});
    plant(f.journal_dir, name, j);
    CHECK(restore_says(f, ok).find(
              "refusing the journal " + path + ": it names '" + up +
              "', not a file allocwatch saves; nothing of it was restored (check tracefs "
              "by hand, then remove the journal)") != std::string::npos);
  }
  SUBCASE("an absolute entry path, and a tracefs file allocwatch never saves") {
    for (const std::string& bad : {victim, std::string("events/../../../x/enable"),
                                   std::string("instances/x/tracing_on"), std::string("trace")}) {
      CAPTURE(bad);
      Journal j = killed_journal(f, pid);
      j.entries.push_back({bad, "0\n"});
      plant(f.journal_dir, name, j);
      CHECK(restore_says(f, ok).find("', not a file allocwatch saves") != std::string::npos);
      CHECK_FALSE(ok);
    }
  }
  SUBCASE("a tracing directory that is not a tracefs (it wrote into /tmp)") {
    RestoreChecks standard; // tracefs and debugfs only: the fake is neither
    CHECK(is_mounted_tracefs("/sys/kernel/tracing") ==
          std::filesystem::exists("/sys/kernel/tracing/available_events"));
    plant(f.journal_dir, name, killed_journal(f, pid));
    CHECK(restore_says(f, ok, &standard)
              .find("refusing the journal " + path + ": its tracing directory '" + f.fake.dir() +
                    "' is not a tracefs or debugfs") != std::string::npos);
    Journal relative = killed_journal(f, pid);
    relative.tracing_dir = "sys/kernel/tracing";
    plant(f.journal_dir, name, relative);
    CHECK(restore_says(f, ok).find("is not an absolute path") != std::string::npos);
  }
  SUBCASE("an instance that is not allocwatch-<its pid>") {
    for (const std::string& instance :
         {std::string("mine"), "allocwatch-" + std::to_string(pid + 1), std::string("../../x")}) {
      Journal j = killed_journal(f, pid);
      j.instance = instance;
      plant(f.journal_dir, name, j);
      CHECK(restore_says(f, ok).find("its instance '" + instance + "' is not allocwatch-" +
                                     std::to_string(pid)) != std::string::npos);
    }
  }
  SUBCASE("a pid that is not its file's") {
    plant(f.journal_dir, std::to_string(pid + 1) + ".state", killed_journal(f, pid));
    CHECK(restore_says(f, ok).find("it names pid " + std::to_string(pid) + ", not its file's") !=
          std::string::npos);
  }
  SUBCASE("a journal of another user, or open to others") {
    plant(f.journal_dir, name, killed_journal(f, pid));
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
    plant(elsewhere.dir() + "/run", name, killed_journal(f, pid));
    std::filesystem::create_directory_symlink(elsewhere.dir() + "/run", f.journal_dir);
    std::ostringstream said;
    Status restored = restore_from_journals(f.journal_dir, f.fake.dir(), said, f.checks());
    ok = restored.ok();
    REQUIRE_FALSE(ok);
    CHECK(restored.error().message ==
          "refusing the journal directory " + f.journal_dir +
              ": it is a symbolic link (it must be a directory of this user, mode 0700); "
              "nothing was restored");
    CHECK(std::filesystem::exists(elsewhere.dir() + "/run/" + name));
  }
  CHECK_FALSE(ok);
  CHECK(f.fake.state() == before); // nothing written, the journal kept
  std::ifstream in(victim);
  std::string content;
  std::getline(in, content);
  CHECK(content == "precious");
}

TEST_CASE("session: --restore removes the journals killed runs had not finished writing") {
  Fixture f;
  const pid_t pid = dead_pid();
  REQUIRE(ensure_journal_dir(f.journal_dir).ok());
  const std::string leftover = f.journal_dir + "/" + std::to_string(pid) + ".state.tmp";
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

TEST_CASE("session: every file a session journals is one --restore takes") {
  Fixture f;
  for (const char* option : {"funcgraph-duration", "funcgraph-cpu", "funcgraph-overhead",
                             "funcgraph-irqs", "funcgraph-overrun", "funcgraph-retaddr",
                             "funcgraph-args", "hex", "bin", "function-fork", "event-fork"})
    f.fake.write(std::string("options/") + option, std::string("0\n"));
  f.fake.write("options/funcgraph-irqs", "1\n");
  f.fake.write("events/vmscan/mm_shrink_slab_start/filter", "nr_objects_to_shrink > 10\n");
  Session session(f.plan(Mode::Graph, getppid()), f.options());
  REQUIRE(session.start().ok());
  Result<Journal> journal = read_journal(f.journal());
  REQUIRE(journal.ok());
  CHECK(journal->entries.size() >= 15);
  for (const JournalEntry& e : journal->entries)
    CHECK_MESSAGE(is_journaled_file(e.path), e.path);
  CHECK_FALSE(is_journaled_file("trace"));
  CHECK_FALSE(is_journaled_file("options/../../x"));
  CHECK_FALSE(is_journaled_file("events/vmscan/mm_shrink_slab_start/trigger"));
  CHECK_FALSE(is_journaled_file("events/vmscan/../enable"));
  CHECK_FALSE(is_journaled_file("/sys/kernel/tracing/current_tracer"));
}

TEST_CASE("session: --restore leaves the journal of a running allocwatch alone") {
  Fixture f;
  Session running(f.plan(), f.options());
  REQUIRE(running.start().ok());
  std::ostringstream said;
  REQUIRE(restore_from_journals(f.journal_dir, f.fake.dir(), said, f.checks()).ok());
  CHECK(said.str().find("allocwatch: pid " + std::to_string(getpid()) + " is running") == 0);
  CHECK(f.fake.read("current_tracer") == "function_graph");
  CHECK(std::filesystem::exists(f.journal()));
}

TEST_CASE("session: a pipe needs a started session") {
  Fixture f;
  Session session(f.plan(), f.options());
  Result<ByteSource*> pipe = session.open_pipe([] { return false; });
  REQUIRE_FALSE(pipe.ok());
  CHECK(pipe.error().message == "the session is not started");
}

} // namespace
} // namespace allocwatch

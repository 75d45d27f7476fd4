#include "session_fixture.h"
#include "tracefs/session.h"

#include <doctest/doctest.h>
#include <filesystem>
#include <sstream>
#include <unistd.h>

namespace allocwatch {
namespace {

using testing::Fixture;

std::string trimmed(std::string text) {
  while (!text.empty() && text.back() == '\n')
    text.pop_back();
  return text;
}

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

  // The state file holds what each changed file read before.
  Result<StateFile> state = read_state_file(f.state());
  REQUIRE(state.ok());
  CHECK(state->pid == getpid());
  CHECK(state->tracing_dir == f.fake.dir());
  CHECK(state->instance.empty());
  CHECK(state->entries.front().path == "set_ftrace_filter"); // the first change
  std::size_t changed = 0;
  for (const auto& [path, content] : before) {
    if (f.fake.state().at(path) == content)
      continue;
    ++changed;
    const auto entry = std::find_if(state->entries.begin(), state->entries.end(),
                                    [&](const StateEntry& e) { return e.path == path; });
    REQUIRE_MESSAGE(entry != state->entries.end(), path << " changed but is not in the journal");
    CHECK(entry->snapshot == content);
  }
  CHECK(changed == state->entries.size());

  CHECK(session.stop_tracing().ok());
  CHECK(trimmed(f.fake.read("tracing_on")) == "0");

  REQUIRE(session.restore().ok());
  CHECK(f.fake.state() == before);
  CHECK_FALSE(std::filesystem::exists(f.state()));
  CHECK(session.restore().ok()); // again: nothing to do
  CHECK(f.fake.state() == before);
}

TEST_CASE("session: the state file is written before the first change") {
  Fixture f;
  const auto before = f.fake.state();
  const std::string trace = f.fake.read("trace");
  // The state file cannot be written: its temporary file is a directory.
  REQUIRE(ensure_state_dir(f.state_dir).ok());
  std::filesystem::create_directory(f.state() + ".tmp");
  Session session(f.plan(), f.options());
  Status started = session.start();
  REQUIRE_FALSE(started.ok());
  CHECK(started.error().message == "setting up graph mode failed: cannot write the journal " +
                                       f.state() + ".tmp: Is a directory");
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
    CHECK_FALSE(std::filesystem::exists(f.state()));
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
  Session session(f.plan(), {.state_dir = f.state_dir, .force = true, .messages = &said});
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
  CHECK_FALSE(std::filesystem::exists(f.state()));
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
    CHECK_FALSE(std::filesystem::exists(f.state()));
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
    CHECK(started.error().message == "another allocwatch holds the lock on " + f.state_dir +
                                         "; two sessions would undo each other's tracefs "
                                         "settings (--force runs anyway)");
    CHECK(first.restore().ok());
  }
  SUBCASE("its journal") {
    StateFile running;
    running.pid = getppid();
    running.start_time = process_start_time(getppid()).value();
    running.tracing_dir = f.fake.dir();
    REQUIRE(write_state_file(f.state_dir, running).ok());
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
    CHECK(std::filesystem::exists(state_file_path(f.state_dir, getppid()))); // not ours
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
  CHECK_FALSE(std::filesystem::exists(f.state()));
}

TEST_CASE("session: a restore that fails keeps the state file; a later one finishes the job") {
  Fixture f;
  const auto before = f.fake.state();
  Session session(f.plan(), f.options());
  REQUIRE(session.start().ok());
  f.fake.make_unwritable("tracing_thresh");
  Status restored = session.restore();
  REQUIRE_FALSE(restored.ok());
  CHECK(restored.error().message ==
        "cannot write " + f.fake.path("tracing_thresh") + ": Input/output error");
  CHECK(std::filesystem::exists(f.state()));
  CHECK(f.fake.read("current_tracer") == "nop\n"); // the others are back

  std::filesystem::remove(f.fake.path("tracing_thresh"));
  f.fake.write("tracing_thresh", "134");
  REQUIRE(session.restore().ok());
  CHECK(f.fake.state() == before);
  CHECK_FALSE(std::filesystem::exists(f.state()));
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

TEST_CASE("session: every file a session state files is one --restore takes") {
  Fixture f;
  for (const char* option : {"funcgraph-duration", "funcgraph-cpu", "funcgraph-overhead",
                             "funcgraph-irqs", "funcgraph-overrun", "funcgraph-retaddr",
                             "funcgraph-args", "hex", "bin", "function-fork", "event-fork"})
    f.fake.write(std::string("options/") + option, std::string("0\n"));
  f.fake.write("options/funcgraph-irqs", "1\n");
  f.fake.write("events/vmscan/mm_shrink_slab_start/filter", "nr_objects_to_shrink > 10\n");
  Session session(f.plan(Mode::Graph, getppid()), f.options());
  REQUIRE(session.start().ok());
  Result<StateFile> state = read_state_file(f.state());
  REQUIRE(state.ok());
  CHECK(state->entries.size() >= 15);
  for (const StateEntry& e : state->entries)
    CHECK_MESSAGE(is_saved_file(e.path), e.path);
  CHECK_FALSE(is_saved_file("trace"));
  CHECK_FALSE(is_saved_file("options/../../x"));
  CHECK_FALSE(is_saved_file("events/vmscan/mm_shrink_slab_start/trigger"));
  CHECK_FALSE(is_saved_file("events/vmscan/../enable"));
  CHECK_FALSE(is_saved_file("/sys/kernel/tracing/current_tracer"));
}

TEST_CASE("session: read raw, graph mode sets buffer_percent 0 and puts it back") {
  Fixture f;
  f.fake.write("buffer_percent", "50\n");
  SessionOptions options = f.options();
  options.raw = true;
  Session session(f.plan(Mode::Graph), options);
  REQUIRE(session.start().ok());
  CHECK(f.fake.read("buffer_percent") == "0");
  Result<StateFile> state = read_state_file(f.state());
  REQUIRE(state.ok());
  bool saved = false;
  for (const StateEntry& e : state->entries)
    saved = saved || (e.path == "buffer_percent" && e.snapshot == "50\n");
  CHECK(saved);
  CHECK(is_saved_file("buffer_percent"));
  REQUIRE(session.restore().ok());
  CHECK(f.fake.read("buffer_percent") == "50\n");
}

TEST_CASE("session: buffer_percent is left alone when the trace is read as text") {
  Fixture f;
  f.fake.write("buffer_percent", "50\n");
  Session session(f.plan(Mode::Graph), f.options());
  REQUIRE(session.start().ok());
  CHECK(f.fake.read("buffer_percent") == "50\n");
  Result<StateFile> state = read_state_file(f.state());
  REQUIRE(state.ok());
  for (const StateEntry& e : state->entries)
    CHECK(e.path != "buffer_percent");
}

TEST_CASE("session: read raw in events mode, the top level's buffer_percent is not touched") {
  Fixture f;
  f.fake.write("buffer_percent", "50\n");
  const auto before = f.fake.state();
  SessionOptions options = f.options();
  options.raw = true;
  Session session(f.plan(Mode::Events), options);
  // The fake's instance is empty (see above): setup stops at its first file.
  REQUIRE_FALSE(session.start().ok());
  CHECK(f.fake.read("buffer_percent") == "50\n");
  CHECK(f.fake.state() == before);
}

TEST_CASE("session: a pipe needs a started session") {
  Fixture f;
  Session session(f.plan(), f.options());
  Result<ByteSource*> pipe = session.open_pipe([] { return false; });
  REQUIRE_FALSE(pipe.ok());
  CHECK(pipe.error().message == "the session is not started");
  Result<RecordSource*> raw = session.open_raw([] { return false; });
  REQUIRE_FALSE(raw.ok());
  CHECK(raw.error().message == "the session is not started");
}

} // namespace
} // namespace allocwatch

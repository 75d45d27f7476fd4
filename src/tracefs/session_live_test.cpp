// Live tests: the Session on this machine's real tracefs, in events mode.
// They run only as root with ALLOCWATCH_LIVE_TRACEFS=1 (tests/live/run.sh
// sets it), so that the unit suite never touches the machine's tracing.
#include "fake_tracefs.h"
#include "tracefs/session.h"

#include <chrono>
#include <cstdlib>
#include <doctest/doctest.h>
#include <filesystem>
#include <map>
#include <sstream>
#include <sys/wait.h>
#include <unistd.h>

namespace allocwatch {
namespace {

constexpr const char* kTracefs = "/sys/kernel/tracing";

bool live_allowed() {
  const char* wanted = std::getenv("ALLOCWATCH_LIVE_TRACEFS");
  return geteuid() == 0 && wanted != nullptr && std::string(wanted) == "1" &&
         std::filesystem::exists(std::string(kTracefs) + "/events/sched/sched_process_fork");
}

// This kernel refuses set_ftrace_filter even to reads; elsewhere the test
// below would run graph mode at the top level for real, which it is not for.
bool live_filter_refused() {
  return live_allowed() && !std::ifstream(std::string(kTracefs) + "/set_ftrace_filter").good();
}

std::string read_or_error(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    return "(unreadable)";
  std::stringstream content;
  content << in.rdbuf();
  return content.str();
}

// Every top-level file a session could change, and the instances there.
std::map<std::string, std::string> top_level_state() {
  std::map<std::string, std::string> state;
  for (const char* file :
       {"current_tracer", "tracing_thresh", "tracing_on", "buffer_size_kb", "set_event",
        "set_event_pid", "set_ftrace_filter", "set_ftrace_pid", "trace_clock"})
    state[file] = read_or_error(std::string(kTracefs) + "/" + file);
  for (const auto& option : std::filesystem::directory_iterator(std::string(kTracefs) + "/options"))
    state["options/" + option.path().filename().string()] = read_or_error(option.path());
  for (const char* event : {"sched/sched_process_fork", "sched/sched_process_exit"})
    for (const char* file : {"enable", "filter"})
      state[std::string("events/") + event + "/" + file] =
          read_or_error(std::string(kTracefs) + "/events/" + event + "/" + file);
  for (const auto& instance :
       std::filesystem::directory_iterator(std::string(kTracefs) + "/instances"))
    state["instances/" + instance.path().filename().string()] = "";
  return state;
}

Profile fork_profile() {
  Profile p;
  p.name = "live";
  p.buffer_size_kb = 1024;
  p.events = {{"sched", "sched_process_fork", {}}, {"sched", "sched_process_exit", {}}};
  return p;
}

void run_true() {
  const pid_t child = fork();
  if (child == 0) {
    execl("/bin/true", "true", static_cast<char*>(nullptr));
    _exit(127);
  }
  REQUIRE(child > 0);
  waitpid(child, nullptr, 0);
}

TEST_CASE("live: events mode traces in its own instance and leaves the top level as it was" *
          doctest::skip(!live_allowed())) {
  testing::TempDir state_files;
  const auto before = top_level_state();
  Result<Plan> plan = make_plan(fork_profile(), 100 * kMicro, std::nullopt,
                                {.scope = {}, .tracing_dir = "", .messages = nullptr});
  REQUIRE(plan.ok());
  REQUIRE(plan->mode == Mode::Events); // this kernel has no function_graph
  const std::string instance = std::string(kTracefs) + "/instances/" + plan->instance_name;
  {
    Session session(std::move(*plan),
                    {.state_dir = state_files.dir(), .force = false, .messages = nullptr});
    REQUIRE(session.start().ok());
    CHECK(read_or_error(instance + "/events/sched/sched_process_fork/enable") == "1\n");
    CHECK(read_or_error(instance + "/events/sched/sched_process_exit/enable") == "1\n");
    // The kernel rounds up to whole pages of 4080 data bytes: 1027 here.
    const unsigned long kb = std::stoul(read_or_error(instance + "/buffer_size_kb"));
    CHECK(kb >= 1024);
    CHECK(kb < 1024 + 4);
    CHECK(read_or_error(instance + "/tracing_on") == "1\n");
    CHECK(std::filesystem::exists(state_file_path(state_files.dir(), getpid())));
    auto during = top_level_state();
    during.erase("instances/" + session.plan().instance_name);
    CHECK(during == before);

    bool stop = false;
    Result<ByteSource*> pipe = session.open_pipe([&] { return stop; });
    REQUIRE(pipe.ok());
    run_true();
    std::string trace;
    char buf[65536];
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (trace.find("sched_process_exit") == std::string::npos &&
           std::chrono::steady_clock::now() < deadline)
      trace.append(buf, (*pipe)->read(buf, sizeof buf));
    CHECK(trace.find("sched_process_fork: comm=unit-tests pid=" + std::to_string(getpid())) !=
          std::string::npos);
    stop = true;
    while (std::size_t n = (*pipe)->read(buf, sizeof buf))
      trace.append(buf, n);
    CHECK(read_or_error(instance + "/tracing_on") == "0\n");

    REQUIRE(session.restore().ok());
  }
  CHECK_FALSE(std::filesystem::exists(instance));
  CHECK_FALSE(std::filesystem::exists(state_file_path(state_files.dir(), getpid())));
  CHECK(top_level_state() == before);
}

TEST_CASE("live: --pid limits the instance's events to the process and its children" *
          doctest::skip(!live_allowed())) {
  testing::TempDir state_files;
  const auto before = top_level_state();
  Result<Plan> plan = make_plan(
      fork_profile(), 100 * kMicro, std::nullopt,
      {.scope = {TaskScope::Of::Pid, {getpid()}, {}}, .tracing_dir = "", .messages = nullptr});
  REQUIRE(plan.ok());
  const std::string instance = std::string(kTracefs) + "/instances/" + plan->instance_name;
  {
    Session session(std::move(*plan),
                    {.state_dir = state_files.dir(), .force = false, .messages = nullptr});
    REQUIRE(session.start().ok());
    CHECK(read_or_error(instance + "/set_event_pid") == std::to_string(getpid()) + "\n");
    CHECK(read_or_error(instance + "/options/event-fork") == "1\n");
  } // the destructor restores
  CHECK_FALSE(std::filesystem::exists(instance));
  CHECK(top_level_state() == before);
}

TEST_CASE("live: graph mode refused by this kernel falls back to events mode, top level untouched" *
          doctest::skip(!live_filter_refused())) {
  testing::TempDir state_files;
  const auto before = top_level_state();
  Result<Plan> plan = make_plan(fork_profile(), 100 * kMicro, std::nullopt,
                                {.scope = {}, .tracing_dir = "", .messages = nullptr});
  REQUIRE(plan.ok());
  // As make_plan would decide on a kernel with function_graph.
  plan->mode = Mode::Graph;
  plan->functions = {{{"__alloc_pages_noprof"}, "__alloc_pages_noprof", {}}};
  std::ostringstream said;
  Session session(std::move(*plan),
                  {.state_dir = state_files.dir(), .force = false, .messages = &said});
  REQUIRE(session.start().ok());
  CHECK(session.mode() == Mode::Events);
  CHECK(said.str() == "allocwatch: events mode: the kernel refused function filtering (cannot "
                      "read " +
                          std::string(kTracefs) + "/set_ftrace_filter: Operation not permitted)\n");
  REQUIRE(session.restore().ok());
  CHECK(top_level_state() == before);
}

} // namespace
} // namespace allocwatch

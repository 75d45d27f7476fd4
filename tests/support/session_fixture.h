// Test support (unit tests only): a Session on a fake tracefs, with its
// state file directory in a temporary directory, for the session's and
// --restore's tests.
#pragma once

#include "fake_tracefs.h"
#include "tracefs/restore.h"
#include "tracefs/session.h"

#include <doctest/doctest.h>
#include <optional>
#include <string>
#include <sys/wait.h>
#include <unistd.h>

namespace allocwatch::testing {

// A pid that no process has: a child that has exited and been reaped.
inline pid_t dead_pid() {
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
  std::string state_dir = tmp.dir() + "/run";

  Plan plan(std::optional<Mode> forced = std::nullopt, std::optional<pid_t> pid = std::nullopt) {
    Result<Plan> made =
        make_plan(fake_profile(), 134 * kMicro, forced,
                  {.scope = pid ? TaskScope{TaskScope::Of::Pid, {*pid}, {}} : TaskScope{},
                   .tracing_dir = fake.dir(),
                   .messages = nullptr});
    REQUIRE(made.ok());
    return std::move(*made);
  }
  SessionOptions options(bool force = false) {
    return {.state_dir = state_dir, .force = force, .messages = nullptr};
  }
  std::string state() const { return state_file_path(state_dir, getpid()); }
  // --restore's checks, taking the fake for a tracefs, and nothing else.
  RestoreChecks checks() const {
    return {.is_tracing_dir = [dir = fake.dir()](const std::string& d) { return d == dir; }};
  }
  std::string instance_dir() const {
    return fake.path("instances/allocwatch-" + std::to_string(getpid()));
  }
};

} // namespace allocwatch::testing

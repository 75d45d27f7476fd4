// Plan: what a tracing session will configure on this kernel, decided from a
// profile and what the kernel offers, before anything is changed.
//
//   Result<Plan> plan = make_plan(profile, threshold, forced_mode, options);
//   if (check) print_plan(*plan, std::cout);          // --check: changes nothing
//   else Session session(std::move(*plan)); ...       // see session.h
//
// make_plan() reads available_tracers, available_filter_functions and
// available_events; it writes nothing, except that it mounts tracefs at
// /sys/kernel/tracing when no tracefs is mounted (and says so).
#pragma once

#include "profile/profile.h"
#include "util/result.h"

#include <iostream>
#include <optional>
#include <string>
#include <string_view>
#include <sys/types.h>
#include <vector>

namespace allocwatch {

struct PlannedFunction {
  std::vector<std::string> alternatives; // as in the profile, newest name first
  std::optional<std::string> chosen;     // the first one the kernel can trace; none: missing
  SourcePos pos;
};

// A profile event; a plan is made only when available_events lists them all.
struct PlannedEvent {
  std::string system;
  std::string name;
  SourcePos pos;
};

// The tasks a run traces: every task, or (--pid, --cgroup) those listed
// and the children they fork from the start on (the kernel's set_event_pid
// and set_ftrace_pid with the event-fork and function-fork options).
struct TaskScope {
  enum class Of : unsigned char { Everything, Pid, Cgroup };
  Of of = Of::Everything;
  std::vector<pid_t> pids;
  std::string cgroup; // --cgroup: the cgroup's path, for --check
};

struct Plan {
  std::string tracing_dir; // where tracefs is ("/sys/kernel/tracing")
  Mode mode = Mode::Events;
  bool mode_forced = false; // --mode: no fallback from graph to events
  std::string mode_reason;  // why this mode, for messages: "this kernel has no function_graph ..."
  // Resolved whenever available_filter_functions is readable; traced only in
  // graph mode.
  std::vector<PlannedFunction> functions;
  // Why they could not be resolved: available_filter_functions unreadable.
  std::optional<std::string> functions_unreadable;
  std::vector<PlannedEvent> events;
  Nanos threshold = 0;                 // as asked
  std::uint64_t tracing_thresh_us = 0; // threshold in µs rounded up: what graph mode writes
  std::uint32_t buffer_size_kb = 0;    // per cpu
  TaskScope scope;                     // --pid, --cgroup: these tasks and their children only
  std::string instance_name;           // events mode: the private instance, "allocwatch-<pid>"
  std::vector<std::string> warnings;   // also printed by make_plan

  std::vector<std::string> chosen_functions() const;
};

struct PlanOptions {
  TaskScope scope;
  // Empty: the system's tracefs, mounted if it is not. Otherwise a directory
  // used instead (tests: a fake tracefs). Either way libtracefs is pointed at
  // it with tracefs_set_tracing_dir(), which is process-wide.
  std::string tracing_dir;
  // Where the chosen mode, its reason and the warnings are said as they are
  // found; nullptr says nothing (they stay in Plan::mode_reason and ::warnings).
  std::ostream* messages = &std::cerr;
  // Why events mode, when it is forced (--mode events, or --watch).
  std::string events_reason = "--mode events";
};

// Finds the system's tracefs (mounting it at /sys/kernel/tracing if no
// tracefs is mounted: root only; said on `messages`) and points libtracefs at
// it. Errors say why tracing is impossible here.
Result<std::string> find_tracefs(std::ostream* messages);

// Decides the mode and resolves the profile's functions and events against
// this kernel. Errors: tracefs unusable, --mode graph impossible here, no
// profile function traceable in forced graph mode, a profile event missing
// from available_events (named with where the profile lists it and the
// kernel's nearest events), no events in events mode.
Result<Plan> make_plan(const Profile& profile, Nanos threshold, std::optional<Mode> forced,
                       const PlanOptions& options = {});

// For --check: mode and why, each function's chosen name or missing, each
// event found or missing, threshold, buffer, instance, warnings.
void print_plan(const Plan& plan, std::ostream& out);

// For --check where tracefs cannot be read (`why`): the profile as loaded,
// with what tracing would check against the kernel.
void print_profile_alone(const Profile& profile, std::string_view why, std::ostream& out);

} // namespace allocwatch

#include "tracefs/plan.h"

#include "kernel/vocabulary.h"
#include "profile/nearest.h"
#include "tracefs/files.h"
#include "ring/libtracefs.h"
#include "util/escape.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <mntent.h>
#include <optional>
#include <sstream>
#include <string_view>
#include <sys/mount.h>
#include <unistd.h>
#include <unordered_set>

namespace allocwatch {

namespace {

// Whether events a and b of the profile are names of one entry given as a
// list (EventSpec::optional).
bool same_list(const std::vector<EventSpec>& events, std::size_t a, std::size_t b) {
  return a < events.size() && b < events.size() && events[a].optional && events[b].optional &&
         events[a].entry == events[b].entry;
}

constexpr const char* kDefaultTracefs = "/sys/kernel/tracing";

std::vector<std::string_view> split_words(std::string_view text) {
  std::vector<std::string_view> words;
  std::size_t i = 0;
  while (i < text.size()) {
    while (i < text.size() && std::isspace(static_cast<unsigned char>(text[i])))
      ++i;
    const std::size_t start = i;
    while (i < text.size() && !std::isspace(static_cast<unsigned char>(text[i])))
      ++i;
    if (i > start)
      words.push_back(text.substr(start, i - start));
  }
  return words;
}

// The first word of each line: available_filter_functions prints
// "name" or "name [module]".
std::unordered_set<std::string_view> first_words_of_lines(std::string_view text) {
  std::unordered_set<std::string_view> names;
  std::size_t pos = 0;
  while (pos < text.size()) {
    std::size_t end = text.find('\n', pos);
    if (end == std::string_view::npos)
      end = text.size();
    const std::string_view line = text.substr(pos, end - pos);
    const std::size_t space = line.find_first_of(" \t");
    const std::string_view name = line.substr(0, space);
    if (!name.empty())
      names.insert(name);
    pos = end + 1;
  }
  return names;
}

std::string join(const std::vector<std::string>& parts, std::string_view separator) {
  std::string out;
  for (const std::string& part : parts) {
    if (!out.empty())
      out += separator;
    out += part;
  }
  return out;
}

void say(std::ostream* messages, const std::string& text) {
  if (messages != nullptr)
    *messages << "allocwatch: " << text << '\n';
}

// Reading tracefs as a user fails with EACCES; say what would work.
Error unreadable(const Error& error) {
  if (geteuid() != 0)
    return Error{error.message + " (tracing needs root; -i FILE replays a saved trace without it)"};
  return error;
}

// "PATH:LINE:COL: event 'vmscan/x' does not exist on this kernel (...)",
// with the kernel's nearest events of the same system ("vmscan:y" in
// available_events).
std::string missing_event(const Profile& profile, const EventSpec& spec,
                          const std::vector<std::string_view>& kernel_events) {
  const std::string prefix = spec.system + ":";
  std::vector<std::string_view> same_system;
  for (std::string_view event : kernel_events)
    if (event.starts_with(prefix))
      same_system.push_back(event.substr(prefix.size()));
  std::string nearest_there;
  for (const std::string& name : nearest_few(spec.name, same_system, 3))
    nearest_there += (nearest_there.empty() ? "" : ", ") + ("'" + spec.system + "/" + name + "'");
  std::string where = "profile '" + profile.name + "'";
  if (!profile.path.empty())
    where = spec.pos.line > 0 ? profile.path + ":" + std::to_string(spec.pos.line) + ":" +
                                    std::to_string(spec.pos.column)
                              : profile.path;
  return where + ": event '" + spec.system + "/" + spec.name +
         "' does not exist on this kernel (it is not in available_events" +
         (nearest_there.empty() ? "; nor is any " + spec.system + " event"
                                : "; nearest there: " + nearest_there) +
         ")";
}

// The fields the stall report reads of `spec` (the kernel table's keys) that
// this kernel's events/SYSTEM/NAME/format does not print ("order=" in its
// print fmt); none when it prints them all, when the table reads none of
// the event, or when the format cannot be read (the table then stands).
std::vector<std::string> unprinted_fields(tracefs_instance* top, const EventSpec& spec) {
  const KnownEvent* known = known_event(spec.name);
  if (known == nullptr || known->system != spec.system)
    return {};
  Result<std::string> format =
      read_tracefs_file(top, "events/" + spec.system + "/" + spec.name + "/format");
  if (!format)
    return {};
  // print fmt: "order=%d gfp_flags=%s", REC->order, ...: the quoted part.
  const std::string_view text = *format;
  const std::size_t open = text.find("print fmt: \"");
  if (open == std::string_view::npos)
    return {};
  const std::size_t start = open + std::string_view("print fmt: \"").size();
  const std::string_view printed = text.substr(start, text.find('"', start) - start);
  std::vector<std::string> lacking;
  for (const std::string_view key : read_keys(*known))
    if (!key.empty() && printed.find(std::string(key) + "=") == std::string_view::npos)
      lacking.push_back(std::string(key) + "=");
  return lacking;
}

struct ModeChoice {
  Mode mode;
  std::string reason;
};

} // namespace

std::vector<std::string> Plan::chosen_functions() const {
  std::vector<std::string> names;
  for (const PlannedFunction& f : functions)
    if (f.chosen)
      names.push_back(*f.chosen);
  return names;
}

namespace {

// Where tracefs is mounted, from /proc/mounts (as libtracefs finds it; its
// tracefs_tracing_dir_is_mounted() leaks the path it returns).
std::optional<std::string> mounted_tracefs() {
  FILE* mounts = ::setmntent("/proc/mounts", "r");
  if (mounts == nullptr)
    return std::nullopt;
  std::optional<std::string> dir;
  while (const mntent* m = ::getmntent(mounts)) {
    if (std::string_view(m->mnt_type) == "tracefs") {
      dir = m->mnt_dir;
      break;
    }
  }
  ::endmntent(mounts);
  return dir;
}

} // namespace

Result<std::string> find_tracefs(std::ostream* messages) {
  std::string dir;
  if (std::optional<std::string> mounted = mounted_tracefs()) {
    dir = *mounted;
  } else {
    if (geteuid() != 0)
      return Error{std::string("tracefs is not mounted, and mounting it needs root (mount -t "
                               "tracefs nodev ") +
                   kDefaultTracefs + ")"};
    if (::mount("nodev", kDefaultTracefs, "tracefs", 0, nullptr) != 0)
      return Error{std::string("tracefs is not mounted and cannot be mounted at ") +
                   kDefaultTracefs + ": " + std::strerror(errno) +
                   " (is the kernel built with CONFIG_FTRACE?)"};
    say(messages, std::string("mounted tracefs at ") + kDefaultTracefs);
    dir = kDefaultTracefs;
  }
  if (Status pointed = use_tracing_dir(dir); !pointed)
    return pointed.error();
  return dir;
}

Result<Plan> make_plan(const Profile& profile, Nanos threshold, std::optional<Mode> forced,
                       const PlanOptions& options) {
  if (threshold < 0)
    return Error{"the threshold cannot be negative"};
  Plan plan;
  if (options.tracing_dir.empty()) {
    Result<std::string> dir = find_tracefs(options.messages);
    if (!dir)
      return dir.error();
    plan.tracing_dir = *dir;
  } else {
    plan.tracing_dir = options.tracing_dir;
    if (Status pointed = use_tracing_dir(plan.tracing_dir); !pointed)
      return pointed.error();
  }
  plan.mode_forced = forced.has_value();
  plan.threshold = threshold;
  plan.tracing_thresh_us = static_cast<std::uint64_t>((threshold + kMicro - 1) / kMicro);
  plan.buffer_size_kb = profile.buffer_size_kb;
  plan.scope = options.scope;
  plan.instance_name = "allocwatch-" + std::to_string(getpid());

  auto warn = [&](std::string text) {
    say(options.messages, "warning: " + text);
    plan.warnings.push_back(std::move(text));
  };

  Result<InstancePtr> top = open_top_level(plan.tracing_dir);
  if (!top)
    return top.error();
  Result<std::string> tracers_text = read_tracefs_file(top->get(), "available_tracers");
  if (!tracers_text)
    return unreadable(tracers_text.error());
  Result<std::string> events_text = read_tracefs_file(top->get(), "available_events");
  if (!events_text)
    return unreadable(events_text.error());

  std::vector<std::string> tracers;
  for (std::string_view word : split_words(*tracers_text))
    tracers.emplace_back(word);

  // Each function's first alternative the kernel can trace. Resolved in
  // either mode when the list is readable: --check shows it, and it says what
  // graph mode would trace on this kernel. The session uses it in graph mode.
  std::optional<std::string>& functions_unreadable = plan.functions_unreadable;
  if (!profile.functions.empty()) {
    if (Result<std::string> text = read_tracefs_file(top->get(), "available_filter_functions");
        !text) {
      functions_unreadable = text.error().message;
    } else {
      const auto traceable = first_words_of_lines(*text);
      for (const FunctionSpec& spec : profile.functions) {
        PlannedFunction planned{spec.alternatives, std::nullopt, spec.pos};
        for (const std::string& name : spec.alternatives) {
          if (traceable.count(name) != 0) {
            planned.chosen = name;
            break;
          }
        }
        plan.functions.push_back(std::move(planned));
      }
    }
  }

  // Graph mode only when the kernel can run it for this profile: the tracer,
  // a readable function list, and at least one of the profile's functions.
  std::optional<std::string> graph_refusal;
  const std::size_t chosen = plan.chosen_functions().size();
  if (forced == Mode::Events) {
    graph_refusal = options.events_reason;
  } else if (std::find(tracers.begin(), tracers.end(), "function_graph") == tracers.end()) {
    graph_refusal =
        "this kernel has no function_graph tracer (available: " + join(tracers, " ") + ")";
  } else if (profile.functions.empty()) {
    graph_refusal = "profile '" + profile.name + "' lists no functions to trace";
  } else if (functions_unreadable) {
    graph_refusal = "function_graph cannot filter functions here: " + *functions_unreadable;
  } else if (chosen == 0) {
    graph_refusal =
        "none of profile '" + profile.name + "''s functions is in available_filter_functions";
  } else {
    plan.mode_reason = "function_graph is available and " + std::to_string(chosen) + " of " +
                       std::to_string(plan.functions.size()) + " profile functions can be traced";
  }

  if (graph_refusal) {
    if (forced == Mode::Graph)
      return Error{"--mode graph is impossible: " + *graph_refusal};
    plan.mode = Mode::Events;
    plan.mode_reason = *graph_refusal;
  } else {
    plan.mode = Mode::Graph;
    if (forced == Mode::Graph)
      plan.mode_reason = "--mode graph; " + plan.mode_reason;
  }
  say(options.messages, std::string(mode_name(plan.mode)) + " mode: " + plan.mode_reason);

  if (plan.mode == Mode::Graph)
    for (const PlannedFunction& f : plan.functions)
      if (!f.chosen)
        warn("function " + join(f.alternatives, " | ") +
             " is not in available_filter_functions: not traced");

  // The kernel's own event list is the truth: a profile event it lacks is
  // refused, with the names it has instead.
  const std::vector<std::string_view> kernel_events = split_words(*events_text);
  const std::unordered_set<std::string_view> kernel_event_set(kernel_events.begin(),
                                                              kernel_events.end());
  // An entry given as a list is the first of its names the kernel has, or
  // none, said.
  std::vector<std::string> missing;
  std::vector<const EventSpec*> enabled;
  for (std::size_t i = 0; i < profile.events.size(); ++i) {
    const EventSpec& spec = profile.events[i];
    const bool has = kernel_event_set.count(spec.system + ":" + spec.name) > 0;
    if (spec.optional) {
      const bool chosen =
          !enabled.empty() && enabled.back()->optional && enabled.back()->entry == spec.entry;
      const bool last = !same_list(profile.events, i, i + 1);
      if (has && !chosen)
        enabled.push_back(&spec);
      if (last && !has && !chosen) {
        std::vector<std::string> names;
        for (std::size_t j = i + 1; j-- > 0 && (j == i || same_list(profile.events, j, i));)
          names.insert(names.begin(), profile.events[j].system + "/" + profile.events[j].name);
        warn("event " + join(names, " | ") + " is not in available_events: not traced");
      }
      continue;
    }
    if (!has)
      missing.push_back(missing.empty() ? missing_event(profile, spec, kernel_events)
                                        : spec.system + "/" + spec.name);
    enabled.push_back(&spec);
  }
  for (const EventSpec* spec : enabled)
    plan.events.push_back(PlannedEvent{spec->system, spec->name, spec->pos});
  if (!missing.empty())
    return Error{missing.size() == 1 ? missing[0]
                                     : missing[0] + "; nor does it have " +
                                           join({missing.begin() + 1, missing.end()}, ", ")};
  if (plan.events.empty() && plan.mode == Mode::Events)
    return Error{"profile '" + profile.name + "' lists no events, and events mode needs some"};
  // What an event prints is the running kernel's to say.
  for (const EventSpec* spec : enabled)
    if (const std::vector<std::string> lacking = unprinted_fields(top->get(), *spec);
        !lacking.empty())
      warn("event '" + spec->system + "/" + spec->name + "' prints no " + join(lacking, ", ") +
           " on this kernel (events/" + spec->system + "/" + spec->name +
           "/format): the stall report goes without it");

  if (threshold % kMicro != 0)
    warn("threshold " + format_duration(threshold) +
         " is not a whole number of microseconds; the kernel's tracing_thresh is set to " +
         std::to_string(plan.tracing_thresh_us) + "us in graph mode");
  return plan;
}

void print_plan(const Plan& plan, std::ostream& out) {
  out << "tracefs:   " << plan.tracing_dir << '\n';
  out << "mode:      " << mode_name(plan.mode) << " (" << plan.mode_reason << ")\n";
  out << "threshold: " << format_duration(plan.threshold);
  if (plan.mode == Mode::Graph)
    out << " (tracing_thresh " << plan.tracing_thresh_us << " us)";
  out << '\n';
  out << "buffer:    " << plan.buffer_size_kb << " KB per cpu\n";
  if (plan.mode == Mode::Events)
    out << "instance:  " << plan.instance_name << " (private; the top level is not touched)\n";
  else
    out << "instance:  top level (tracing_thresh exists only there)\n";
  switch (plan.scope.of) {
  case TaskScope::Of::Everything:
    break;
  case TaskScope::Of::Pid:
    out << "pid:       " << plan.scope.pids.front() << " and its children\n";
    break;
  case TaskScope::Of::Cgroup:
    out << "cgroup:    " << escaped(plan.scope.cgroup) << ": " << plan.scope.pids.size()
        << (plan.scope.pids.size() == 1 ? " task" : " tasks")
        << " at the start and the children they fork\n";
    break;
  }
  out << "functions:";
  if (plan.mode == Mode::Events)
    out << " not traced in events mode"
        << (plan.functions.empty() ? "" : "; graph mode would trace, on this kernel:");
  if (plan.functions_unreadable)
    out << " (which names this kernel has is unknown: " << *plan.functions_unreadable << ")";
  out << '\n';
  for (const PlannedFunction& f : plan.functions) {
    if (f.chosen)
      out << "  " << *f.chosen;
    else
      out << "  MISSING";
    out << "  (" << join(f.alternatives, " | ") << ")\n";
  }
  out << "events:\n";
  for (const PlannedEvent& e : plan.events)
    out << "  ok       " << e.system << '/' << e.name << '\n';
  for (const std::string& w : plan.warnings)
    out << "warning: " << w << '\n';
}

void print_profile_alone(const Profile& profile, std::string_view why, std::ostream& out) {
  out << "tracefs:   not read (" << why << "): the kernel is not asked\n";
  out << "profile:   " << profile.name << " (" << profile.path << ") loads\n";
  out << "mode:      graph where the kernel has function_graph and a profile function, "
         "else events\n";
  out << "threshold: " << format_duration(profile.threshold) << '\n';
  out << "buffer:    " << profile.buffer_size_kb << " KB per cpu\n";
  out << "functions: each under the first of its names available_filter_functions lists\n";
  for (const FunctionSpec& f : profile.functions)
    out << "  (" << join(f.alternatives, " | ") << ")\n";
  out << "events:    each must be in the kernel's available_events; of a list, the first it "
         "has, if any\n";
  for (std::size_t i = 0; i < profile.events.size(); ++i) {
    const EventSpec& e = profile.events[i];
    const bool more = i > 0 && same_list(profile.events, i - 1, i);
    out << (more ? " | " : "  ") << (e.optional && !more ? "(" : "") << e.system << '/' << e.name;
    if (!same_list(profile.events, i, i + 1))
      out << (e.optional ? ")" : "") << '\n';
  }
}

} // namespace allocwatch

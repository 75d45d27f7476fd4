#include "tracefs/session.h"

#include "ring/libtracefs.h"
#include "tracefs/files.h"
#include "tracefs/local_events.h"
#include "tracefs/pipe_source.h"
#include "tracefs/raw_source.h"
#include "tracefs/restore.h"
#include "util/escape.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <span>
#include <sys/file.h>
#include <unistd.h>

namespace allocwatch {

namespace {

void say_to(std::ostream* messages, const std::string& text) {
  if (messages != nullptr)
    *messages << "allocwatch: " << text << '\n';
}

Status combine(Status first, const Status& second) {
  if (first && second)
    return Ok{};
  if (first)
    return second;
  if (second)
    return first;
  return Error{first.error().message + "; " + second.error().message};
}

} // namespace

// One file to set. Top-level ones are snapshotted before anything changes
// and restored; instance ones go with the instance.
struct Session::Setting {
  std::string path;          // relative to the buffer's directory
  std::string want{};        // how the file reads once set; "" with `always`
  bool always = false;       // write even when it reads as `want` already
  bool restored = true;      // false: data, not state ("trace" cleared)
  bool graph_filter = false; // graph mode: a refusal here means "use events mode"
  std::function<Status()> write;
};

Session::Session(Plan plan, SessionOptions options)
    : plan_(std::move(plan)), options_(std::move(options)), mode_(plan_.mode) {}

Session::~Session() {
  if (Status restored = restore(); !restored)
    say("restore failed: " + restored.error().message +
        " (allocwatch --restore retries from the journal)");
}

void Session::say(const std::string& text) const {
  say_to(options_.messages, text);
}

std::string Session::traced_instance() const {
  return mode_ == Mode::Events ? plan_.instance_name : std::string();
}

Status Session::check_other_runs() {
  const std::string& dir = options_.state_dir;
  if (Status ready = ensure_state_dir(dir); !ready)
    return ready;
  lock_fd_ = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (lock_fd_ < 0)
    return Error{"cannot open the journal directory " + dir + ": " + std::strerror(errno)};
  bool locked = ::flock(lock_fd_, LOCK_EX | LOCK_NB) == 0;
  if (!locked) {
    ::close(lock_fd_);
    lock_fd_ = -1;
  }

  if (locked) { // with the lock, no other allocwatch is writing one now
    Result<std::vector<UnfinishedStateFile>> removed = remove_unfinished_state_files(dir);
    if (!removed)
      return removed.error();
    for (const UnfinishedStateFile& leftover : *removed)
      say("removed " + escaped(leftover.path) + ", the journal pid " +
          std::to_string(leftover.pid) +
          " was writing when it was killed (it had changed nothing)");
  }

  std::string running = locked ? "" : "another allocwatch holds the lock on " + dir;
  std::string killed;
  Result<std::vector<std::string>> state_files = list_state_files(dir);
  if (!state_files)
    return state_files.error();
  for (const std::string& path : *state_files) {
    Result<StateFile> state = read_state_file(path);
    if (!state)
      return Error{state.error().message + "; check tracefs, then remove it"};
    if (state->pid == getpid()) {
      if (!locked) // another session of this process holds the lock
        continue;
      return Error{"a journal of an earlier run with this pid is in " + path +
                   ": run allocwatch --restore first"};
    }
    if (state_file_owner_alive(*state))
      running = "another allocwatch is running (pid " + std::to_string(state->pid) + ")";
    else
      killed += (killed.empty() ? "" : ", ") + std::to_string(state->pid);
  }
  if (!running.empty()) {
    if (!options_.force)
      return Error{running + "; two sessions would undo each other's tracefs settings "
                             "(--force runs anyway)"};
    say("warning: " + running + "; going on because of --force");
  }
  if (!killed.empty()) {
    const std::string what = "allocwatch run(s) " + killed +
                             " ended without restoring tracefs; their journals are in " + dir;
    if (!options_.force)
      return Error{what + ": run allocwatch --restore first"};
    say("warning: " + what + "; going on because of --force");
  }
  return Ok{};
}

Status Session::start() {
  if (active_ || lock_fd_ >= 0)
    return Error{"the session is started already"};
  // New instances are made where libtracefs' tracing directory is.
  if (Status dir = use_tracing_dir(plan_.tracing_dir); !dir)
    return dir;
  Result<InstancePtr> top = open_top_level(plan_.tracing_dir);
  if (!top)
    return top.error();
  top_ = std::move(*top);
  const std::optional<std::uint64_t> start_time = process_start_time(getpid());
  if (!start_time)
    return Error{"cannot read this process's start time from /proc"};
  start_time_ = *start_time;
  if (Status free = check_other_runs(); !free) {
    release_lock();
    return free;
  }
  if (mode_ == Mode::Graph) {
    Error error;
    const Outcome outcome = start_graph(error);
    if (outcome == Outcome::Done) {
      active_ = true;
      return Ok{};
    }
    if (Status undone = undo(); !undone)
      return combine(error, undone);
    if (outcome == Outcome::GraphRefused && plan_.mode_forced)
      error.message = "--mode graph is impossible: " + error.message;
    if (outcome == Outcome::Failed || plan_.mode_forced) {
      release_lock();
      return error;
    }
    mode_ = Mode::Events;
    plan_.mode_reason = "the kernel refused function filtering (" + error.message + ")";
    say("events mode: " + plan_.mode_reason);
  }
  if (Status started = start_events(); !started) {
    Status undone = undo();
    if (undone)
      release_lock();
    return combine(started, undone);
  }
  active_ = true;
  return Ok{};
}

void Session::release_lock() {
  if (lock_fd_ >= 0)
    ::close(lock_fd_); // releases the flock
  lock_fd_ = -1;
}

Session::Outcome Session::start_graph(Error& error) {
  // Another tracer at the top level: ours would take it over.
  std::string busy;
  for (const std::string path : {"current_tracer", "tracing_thresh", "set_ftrace_filter"}) {
    Result<std::string> content = read_tracefs_file(top_.get(), path);
    if (!content) {
      error = content.error();
      return path == "set_ftrace_filter" ? Outcome::GraphRefused : Outcome::Failed;
    }
    const std::string_view value = trimmed(*content);
    const bool idle = path == "current_tracer"   ? value == "nop"
                      : path == "tracing_thresh" ? value == "0"
                                                 : restorable(path, *content).empty();
    if (!idle)
      busy += (busy.empty() ? "" : ", ") + path + " is " + quote(value);
  }
  if (!busy.empty()) {
    if (!options_.force) {
      error = Error{"another tracer is active at the top level (" + busy +
                    "); stop it first, or --force to take it over"};
      return Outcome::Failed;
    }
    say("warning: taking over the top level from another tracer (" + busy + ")");
  }

  std::vector<Setting> writes = settings(top_.get());
  bool refused = false;
  if (Status applied = apply(writes, top_.get(), refused); !applied) {
    error = applied.error();
    if (refused)
      return Outcome::GraphRefused;
    error.message = "setting up graph mode failed: " + error.message;
    return Outcome::Failed;
  }
  return Outcome::Done;
}

Status Session::start_events() {
  if (tracefs_dir_exists(top_.get(), ("instances/" + plan_.instance_name).c_str()))
    return Error{"the instance " + plan_.instance_name +
                 " exists already, left by a killed run: run allocwatch --restore first"};
  planned_.clear();
  if (Status state = write_state_file_now(); !state)
    return state;
  instance_ = tracefs_instance_create(plan_.instance_name.c_str());
  if (instance_ == nullptr)
    return Error{"cannot create the instance " + plan_.instance_name + ": " + std::strerror(errno)};
  std::vector<Setting> writes = settings(instance_);
  bool refused = false;
  if (Status applied = apply(writes, instance_, refused); !applied)
    return Error{"setting up events mode failed: " + applied.error().message};
  return Ok{};
}

namespace {

// An option of `where`, by name: libtracefs' call when it knows the option,
// the options/ file otherwise (newer options, e.g. funcgraph-retval).
Status write_option(tracefs_instance* where, const std::string& name, bool on) {
  const enum tracefs_option_id id = tracefs_option_id(name.c_str());
  if (id == TRACEFS_OPTION_INVALID)
    return write_tracefs_file(where, "options/" + name, on ? "1" : "0");
  if ((on ? tracefs_option_enable(where, id) : tracefs_option_disable(where, id)) != 0)
    return tracefs_error("write", where, "options/" + name, errno);
  return Ok{};
}

struct OptionWanted {
  const char* name;
  bool on;
  bool required; // the parser cannot read the trace without it
};

// Options that change the line format, set to the format the parser reads:
// in events mode too, since a new instance inherits the top level's.
constexpr OptionWanted kFormatOptions[] = {
    {"context-info", true, false}, {"irq-info", true, false},
    {"record-tgid", false, false}, {"latency-format", false, false},
    {"raw", false, false},         {"hex", false, false},
    {"bin", false, false},
};
// function_graph: abstime, proc and duration columns; "} /* f */" on every
// return (tail), so a return names its function without its entry; the
// overhead marks the kernel prints by default; wall time including sleeps
// (a stall is a stall); no irq entries, where reclaim and compaction never
// run; none of the newer retval/retaddr/args decorations.
constexpr OptionWanted kGraphOptions[] = {
    {"funcgraph-proc", true, true},     {"funcgraph-abstime", true, true},
    {"funcgraph-duration", true, true}, {"funcgraph-tail", true, true},
    {"funcgraph-cpu", true, false},     {"funcgraph-overhead", true, false},
    {"funcgraph-irqs", false, false},   {"funcgraph-overrun", false, false},
    {"funcgraph-retval", false, false}, {"funcgraph-retaddr", false, false},
    {"funcgraph-args", false, false},   {"sleep-time", true, false},
};

bool is_event_name(std::string_view name) {
  return !name.empty() && std::all_of(name.begin(), name.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
  });
}

} // namespace

bool is_saved_file(std::string_view path) {
  for (std::string_view top :
       {"current_tracer", "tracing_thresh", "tracing_on", "set_ftrace_filter", "set_ftrace_pid",
        "set_event_pid", "buffer_size_kb", "buffer_percent"})
    if (path == top)
      return true;
  if (path.starts_with("options/")) {
    const std::string_view option = path.substr(8);
    if (option == "function-fork" || option == "event-fork")
      return true;
    for (const auto& options : {std::span<const OptionWanted>(kFormatOptions),
                                std::span<const OptionWanted>(kGraphOptions)})
      for (const OptionWanted& o : options)
        if (option == o.name)
          return true;
    return false;
  }
  // events/SYSTEM/EVENT/enable or filter: names of letters, digits and '_'.
  if (!path.starts_with("events/"))
    return false;
  std::string_view rest = path.substr(7);
  for (int part = 0; part < 2; ++part) {
    const std::size_t slash = rest.find('/');
    if (slash == std::string_view::npos || !is_event_name(rest.substr(0, slash)))
      return false;
    rest.remove_prefix(slash + 1);
  }
  return rest == "enable" || rest == "filter";
}

namespace {

enum class Tracing { Off, On };

Status switch_tracing(tracefs_instance* where, Tracing to) {
  if ((to == Tracing::On ? tracefs_trace_on(where) : tracefs_trace_off(where)) != 0)
    return tracefs_error("write", where, "tracing_on", errno);
  return Ok{};
}

Status set_function_filter(tracefs_instance* top, const std::vector<std::string>& functions) {
  for (std::size_t i = 0; i < functions.size(); ++i) {
    const unsigned flags = TRACEFS_FL_CONTINUE | (i == 0 ? unsigned{TRACEFS_FL_RESET} : 0u);
    if (tracefs_function_filter(top, functions[i].c_str(), nullptr, flags) != 0) {
      const int err = errno;
      (void)tracefs_function_filter(top, nullptr, nullptr, 0);
      return Error{"cannot put " + functions[i] + " in " + tracefs_path(top, "set_ftrace_filter") +
                   ": " + std::strerror(err)};
    }
  }
  // Closing the file is what makes the kernel apply the filter.
  if (tracefs_function_filter(top, nullptr, nullptr, 0) != 0)
    return tracefs_error("write", top, "set_ftrace_filter", errno);
  return Ok{};
}

} // namespace

// In the order written: tracing off first and on last; in graph mode the
// function filter before anything, since a kernel that refuses it makes the
// session use events mode instead, and the tracer before its options.
std::vector<Session::Setting> Session::settings(tracefs_instance* where) const {
  const bool graph = mode_ == Mode::Graph; // the top level, restored at the end
  std::vector<Setting> s;
  auto file = [&](std::string path, std::string want, std::string text) {
    s.push_back({.path = path,
                 .want = want,
                 .always = want.empty(),
                 .restored = graph,
                 .write = [where, path, text] { return write_tracefs_file(where, path, text); }});
  };

  if (graph)
    s.push_back({.path = "set_ftrace_filter",
                 .always = true,
                 .graph_filter = true,
                 .write = [where, functions = plan_.chosen_functions()] {
                   return set_function_filter(where, functions);
                 }});
  // A new instance starts with tracing on.
  s.push_back({.path = "tracing_on", .always = true, .restored = graph, .write = [where] {
                 return switch_tracing(where, Tracing::Off);
               }});
  const bool scoped = !plan_.scope.pids.empty();
  if (scoped) {
    std::string pids;
    for (pid_t pid : plan_.scope.pids)
      pids += (pids.empty() ? "" : " ") + std::to_string(pid);
    if (graph) {
      file("set_ftrace_pid", "", pids);
      s.back().graph_filter = true;
    }
    file("set_event_pid", "", pids);
  }
  if (graph) {
    const std::string thresh = std::to_string(plan_.tracing_thresh_us);
    file("tracing_thresh", thresh, thresh);
    s.push_back({.path = "current_tracer", .want = "function_graph", .write = [where]() -> Status {
                   if (tracefs_tracer_set(where, TRACEFS_TRACER_FUNCTION_GRAPH) < 0)
                     return tracefs_error("write function_graph to", where, "current_tracer",
                                          errno);
                   return Ok{};
                 }});
  }

  std::vector<OptionWanted> options(std::begin(kFormatOptions), std::end(kFormatOptions));
  if (graph)
    options.insert(options.end(), std::begin(kGraphOptions), std::end(kGraphOptions));
  if (scoped) // children follow their parent
    options.push_back({graph ? "function-fork" : "event-fork", true, true});
  if (scoped && graph)
    options.push_back({"event-fork", true, true});
  for (const OptionWanted& o : options) {
    const std::string path = std::string("options/") + o.name;
    if (!o.required && !tracefs_file_exists(where, path.c_str()))
      continue;
    s.push_back({.path = path,
                 .want = o.on ? "1" : "0",
                 .restored = graph,
                 .write = [where, name = std::string(o.name), on = o.on] {
                   return write_option(where, name, on);
                 }});
  }

  // "X": the cpus' buffers differ in size, which one write cannot put back.
  const std::string kb = std::to_string(plan_.buffer_size_kb);
  if (Result<std::string> sizes = read_tracefs_file(where, "buffer_size_kb");
      sizes && trimmed(*sizes) == "X")
    say("warning: the cpus' trace buffers differ in size; buffer_size_kb is left as it is");
  else
    file("buffer_size_kb", kb, kb);
  // Kernels before 5.0 have no buffer_percent, and their polls wake at once.
  if (options_.raw && tracefs_file_exists(where, "buffer_percent"))
    file("buffer_percent", "0", "0");

  for (const PlannedEvent& e : plan_.events) {
    const std::string dir = "events/" + e.system + "/" + e.name;
    if (graph) // another user's filter would hide events from us
      file(dir + "/filter", "none", "0");
    // Its own enable file, not tracefs_event_enable(), which takes system
    // and name as patterns and walks every event directory for each event.
    file(dir + "/enable", "1", "1");
  }
  s.push_back({.path = "trace", .always = true, .restored = false, .write = [where]() -> Status {
                 if (tracefs_instance_file_clear(where, "trace") != 0)
                   return tracefs_error("clear", where, "trace", errno);
                 return Ok{};
               }});
  s.push_back({.path = "tracing_on", .always = true, .restored = graph, .write = [where] {
                 return switch_tracing(where, Tracing::On);
               }});
  return s;
}

Status Session::apply(std::vector<Setting>& settings, tracefs_instance* where,
                      bool& graph_refused) {
  // First read everything that will change, and state file the top-level
  // snapshot, before the first write.
  planned_.clear();
  std::vector<Setting*> writes;
  for (Setting& s : settings) {
    if (!s.always || s.restored) {
      Result<std::string> current = read_tracefs_file(where, s.path);
      if (!current) {
        graph_refused = s.graph_filter;
        return current.error();
      }
      if (!s.always && trimmed(*current) == s.want)
        continue;
      const bool known = std::any_of(planned_.begin(), planned_.end(),
                                     [&](const StateEntry& e) { return e.path == s.path; });
      if (where == top_.get() && s.restored && !known)
        planned_.push_back({s.path, std::move(*current)});
    }
    writes.push_back(&s);
  }
  if (where == top_.get())
    if (Status state = write_state_file_now(); !state)
      return state;

  for (Setting* s : writes) {
    if (where == top_.get() && s->restored) {
      const bool known = std::any_of(undo_.begin(), undo_.end(),
                                     [&](const StateEntry& e) { return e.path == s->path; });
      if (!known) // before the write: a write that fails half-done is undone too
        undo_.push_back(*std::find_if(planned_.begin(), planned_.end(),
                                      [&](const StateEntry& e) { return e.path == s->path; }));
    }
    if (Status written = s->write(); !written) {
      graph_refused = s->graph_filter;
      return written;
    }
  }
  return Ok{};
}

Status Session::write_state_file_now() {
  state_file_written_ = true; // a failed write may leave a part of it
  StateFile state;
  state.pid = getpid();
  state.start_time = start_time_;
  state.tracing_dir = plan_.tracing_dir;
  state.instance = mode_ == Mode::Events ? plan_.instance_name : "";
  state.entries = planned_;
  return write_state_file(options_.state_dir, state);
}

Result<ByteSource*> Session::open_pipe(std::function<bool()> should_stop) {
  if (!active_)
    return Error{"the session is not started"};
  Result<std::unique_ptr<PipeSource>> pipe = PipeSource::open(traced(), std::move(should_stop));
  if (!pipe)
    return pipe.error();
  pipe_ = std::move(*pipe);
  return static_cast<ByteSource*>(pipe_.get());
}

std::vector<std::pair<std::int32_t, std::string>> Session::raw_task_names() const {
  return raw_ ? raw_->task_names() : std::vector<std::pair<std::int32_t, std::string>>{};
}

Result<RecordSource*> Session::open_raw(std::function<bool()> should_stop, PageSink* pages) {
  if (!active_)
    return Error{"the session is not started"};
  // The systems whose events the plan enables (and ftrace's, for
  // function_graph's records): their formats, not the kernel's thousands.
  std::vector<std::string> systems;
  if (mode_ == Mode::Graph)
    systems.push_back("ftrace");
  for (const PlannedEvent& e : plan_.events)
    if (std::find(systems.begin(), systems.end(), e.system) == systems.end())
      systems.push_back(e.system);
  Result<LocalEvents> events = load_local_events(plan_.tracing_dir, systems);
  if (!events)
    return Error{"cannot load the event formats: " + events.error().message};
  RawSource::Options raw;
  raw.instance = traced();
  raw.top = top_.get();
  raw.style = mode_ == Mode::Graph ? LineStyle::Graph : LineStyle::Events;
  // function_graph times calls with the local clock: another trace_clock's
  // tracepoint times cannot be set beside calltime and rettime.
  if (Result<std::string> clock = read_tracefs_file(traced(), "trace_clock");
      mode_ == Mode::Graph && clock && clock->find("[local]") == std::string::npos) {
    raw.return_time = ReturnTime::Written;
    say("trace_clock is not local: a return is placed at the time it was written");
  }
  raw.should_stop = std::move(should_stop);
  raw.messages = options_.messages;
  raw.pages = pages;
  Result<std::unique_ptr<RawSource>> source = RawSource::open(std::move(*events), std::move(raw));
  if (!source)
    return source.error();
  raw_ = std::move(*source);
  return static_cast<RecordSource*>(raw_.get());
}

Status Session::stop_tracing() {
  if (!active_)
    return Ok{};
  if (tracefs_trace_off(traced()) != 0)
    return tracefs_error("write", traced(), "tracing_on", errno);
  return Ok{};
}

tracefs_instance* Session::traced() const {
  return instance_ != nullptr ? instance_ : top_.get();
}

Status Session::restore() {
  Status undone = undo();
  if (undone) {
    active_ = false;
    release_lock();
  }
  return undone;
}

Status Session::undo() {
  if (pipe_)
    pipe_->close(); // an open trace_pipe keeps the instance busy
  if (raw_)
    raw_->close();
  Status result = restore_entries(top_.get(), undo_);
  if (instance_ != nullptr) {
    Status removed = remove_instance(plan_.tracing_dir, plan_.instance_name);
    if (removed) {
      tracefs_instance_free(instance_);
      instance_ = nullptr;
    }
    result = combine(std::move(result), removed);
  }
  if (!result)
    return result;
  undo_.clear();
  planned_.clear();
  if (state_file_written_) {
    if (Status removed = remove_state_file(state_file_path(options_.state_dir, getpid())); !removed)
      return removed;
    state_file_written_ = false;
  }
  return Ok{};
}

} // namespace allocwatch

// Session: configures ftrace for a Plan, and puts everything back.
//
// How main uses it:
//
//   PlanOptions plan_options;                 // .pid, .tracing_dir (--tracefs)
//   Result<Plan> plan = make_plan(profile, threshold, forced_mode, plan_options);
//   SessionOptions session_options;           // .force, .state_dir
//   Session session(std::move(*plan), session_options);
//   if (Status s = session.start(); !s) fail(s.error());  // nothing is left changed
//   Result<ByteSource*> pipe = session.open_pipe([] { return stop_requested; });
//   ... read *pipe until it returns 0: once stop_requested, the pipe switches
//       tracing off, drains what the kernel still holds, then ends ...
//   (or, with SessionOptions::raw, open_raw(): the same as Records read from
//   each CPU's trace_pipe_raw, until next() returns nullptr)
//   session.stop_tracing();                                 // when leaving early
//   if (Status s = session.restore(); !s) fail(s.error());  // state file kept then
//
// main must turn SIGINT/SIGTERM/SIGHUP into a flag that should_stop reads,
// and ignore SIGPIPE (EPIPE on stdout is then an error it handles), so that
// every way out passes through restore(). The destructor restores too.
//
// The contract with the machine (DESIGN.md, "Setup and restore"):
// - graph mode configures the top level: set_ftrace_filter first (a kernel
//   that refuses it makes the session fall back to events mode, unless the
//   mode was forced), then tracing_on 0, set_ftrace_pid/set_event_pid,
//   tracing_thresh, current_tracer function_graph, the options the parser
//   needs, buffer_size_kb, buffer_percent 0 when the trace is read raw, the
//   profile's events (their filters cleared), an empty buffer, and
//   tracing_on 1 last.
// - events mode creates the private instance allocwatch-<pid> with tracing
//   off and configures only inside it; the top level is never written.
// - Before the first change, every top-level file that will change is read
//   and the snapshot written to the state file (<state_dir>/<pid>.state).
//   restore() writes back, in reverse order, only the files whose content
//   differs from the snapshot, removes the instance, then the state file. A
//   failure half-way through start() does the same before returning. One
//   state cannot come back: a top-level ring buffer no tracer had used reads
//   "7 (expanded: 1408)", and graph mode expands it for good; it is put back
//   at 1408, its expanded size.
// - start() refuses, unless `force`, while another allocwatch runs (its lock
//   or a live state file) or, in graph mode, while another tracer is active at
//   the top level (current_tracer not nop, tracing_thresh not 0, or functions
//   in set_ftrace_filter). A state file left by a killed run must be replayed
//   first (allocwatch --restore).
//
// All tracefs I/O is through libtracefs, in the directory the Plan names.
#pragma once

#include "trace/line_reader.h"
#include "tracefs/files.h"
#include "tracefs/plan.h"
#include "tracefs/state_file.h"
#include "util/result.h"

#include <cstdint>
#include <functional>
#include <iostream>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

struct tracefs_instance;

namespace allocwatch {

class PipeSource;
class PageSink;
class RawSource;
class RecordSource;

struct SessionOptions {
  std::string state_dir = kDefaultStateDir;
  bool force = false;                  // --force: start despite the conflicts above
  std::ostream* messages = &std::cerr; // what it did, warnings; nullptr: quiet
  // The trace will be read from trace_pipe_raw (open_raw()): the traced
  // buffer's buffer_percent is set to 0, so that a CPU's file polls
  // readable at its first record (since 6.1 it waits until the buffer is
  // buffer_percent full, 50 by default). Restored in graph mode; the
  // private instance goes anyway.
  bool raw = false;
};

class Session {
public:
  explicit Session(Plan plan, SessionOptions options = {});
  ~Session(); // restores if start() changed anything that restore() has not put back
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  // Checks, snapshots, state files, configures; tracing is on when it returns
  // Ok. On error nothing is left changed (what was changed is restored).
  Status start();

  // The mode in use: the Plan's, or events after the kernel refused graph mode.
  Mode mode() const { return mode_; }
  const Plan& plan() const { return plan_; }
  // The buffer being traced: "allocwatch-<pid>" in events mode, "" for the top level.
  std::string traced_instance() const;

  // The traced buffer's trace_pipe, owned by the Session and valid until it is
  // destroyed; restore() closes it (it then reads as ended). should_stop is
  // asked at every read and wake-up (at least every 250 ms); once it says
  // true, the pipe switches tracing off, drains and ends.
  Result<ByteSource*> open_pipe(std::function<bool()> should_stop);

  // The traced buffer read raw: every CPU's trace_pipe_raw, decoded with
  // the formats, kernel symbols and saved comms of this tracefs (its event
  // systems the plan enables, and ftrace's in graph mode), in time order
  // (tracefs/raw_source.h). Owned by the Session as open_pipe()'s is; the
  // same should_stop contract. An error (no per-CPU files, formats that
  // cannot be loaded) says why; nothing is changed then. `pages`, if not
  // null, gets each page whole as read (--save's trace.dat) and must
  // outlive the reading.
  Result<RecordSource*> open_raw(std::function<bool()> should_stop, PageSink* pages = nullptr);
  // What open_raw()'s source names the tasks it read (RawSource::task_names());
  // none when the trace is not read raw.
  std::vector<std::pair<std::int32_t, std::string>> raw_task_names() const;

  // The buffer being traced (the private instance, or the top level in
  // graph mode) and the top level, for whoever reads files of them (a
  // trace.dat's header) while the session runs; null before start().
  tracefs_instance* traced_buffer() const { return active_ ? traced() : nullptr; }
  tracefs_instance* top_level() const { return top_.get(); }

  // tracing_on 0 in the traced buffer; what it holds can still be read.
  Status stop_tracing();

  // Puts back what start() changed (see above). Idempotent. On error the
  // state file stays, so that `allocwatch --restore` can finish the job.
  Status restore();

private:
  struct Setting;
  enum class Outcome { Done, Failed, GraphRefused };

  Status check_other_runs();
  Outcome start_graph(Error& error);
  Status start_events();
  // What start() writes in `where`: the top level (graph mode) or the instance.
  std::vector<Setting> settings(tracefs_instance* where) const;
  Status apply(std::vector<Setting>& settings, tracefs_instance* where, bool& graph_refused);
  Status write_state_file_now();
  // Restores the top level, removes the instance, then the state file; keeps
  // what it could not restore for the next try.
  Status undo();
  void release_lock();
  tracefs_instance* traced() const; // the buffer being traced
  void say(const std::string& text) const;

  Plan plan_;
  SessionOptions options_;
  Mode mode_;
  std::uint64_t start_time_ = 0;
  int lock_fd_ = -1;    // the state file directory, flock()ed while running
  bool active_ = false; // started and not yet restored
  bool state_file_written_ = false;
  InstancePtr top_;                      // the top level of plan_.tracing_dir
  tracefs_instance* instance_ = nullptr; // events mode
  std::vector<StateEntry> undo_;         // top-level files, in the order first changed
  std::vector<StateEntry> planned_;      // what the state file promises to restore
  std::unique_ptr<PipeSource> pipe_;
  std::unique_ptr<RawSource> raw_;
};

// The files a Session snapshots (and so state files): the top level's
// current_tracer, tracing_thresh, tracing_on, set_ftrace_filter,
// set_ftrace_pid, set_event_pid, buffer_size_kb, buffer_percent, the options/ it sets, and
// events/SYSTEM/EVENT/{enable,filter}. --restore writes no other path.
bool is_saved_file(std::string_view path);

} // namespace allocwatch

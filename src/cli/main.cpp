// allocwatch entry point: parse the options, load the profile, then replay a
// saved trace or run a live session. Fatal errors are caught only here.
#include "bind/binder.h"
#include "bind/run_stats.h"
#include "bind/shrinker_stats.h"
#include "cgroup/cgroup_tasks.h"
#include "cli/attribution.h"
#include "cli/options.h"
#include "cli/raw_save.h"
#include "cli/replay_input.h"
#include "cli/run_report.h"
#include "metrics/run_metrics.h"
#include "output/fanout_sink.h"
#include "output/journal_sink.h"
#include "output/json_sink.h"
#include "output/status_line.h"
#include "output/text_sink.h"
#include "output/text_table.h"
#include "profile/search.h"
#include "trace/capture_record.h"
#include "trace/line_reader.h"
#include "trace/parser.h"
#include "trace/record_source.h"
#include "tracefs/plan.h"
#include "tracefs/restore.h"
#include "tracefs/session.h"
#include "util/escape.h"
#include "util/output_file.h"
#include "util/periodic.h"
#include "util/result.h"

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <iostream>
#include <malloc.h>
#include <memory>
#include <optional>
#include <sstream>
#include <sys/wait.h>
#include <systemd/sd-daemon.h>
#include <unistd.h>
#include <vector>

namespace allocwatch {
namespace {

volatile std::sig_atomic_t g_stop_signal = 0;

// How often a live run gives the heap's free pages back (malloc_trim).
constexpr auto kGiveBackInterval = std::chrono::seconds(10);

void on_stop_signal(int signo) {
  g_stop_signal = signo;
}

// SIGINT, SIGTERM and SIGHUP end a run the normal way: stop, drain, report,
// restore. No SA_RESTART, so a blocked read returns and sees the flag.
// SIGPIPE is ignored: a closed stdout shows as a failed write instead.
void install_signal_handlers() {
  struct sigaction sa = {};
  sa.sa_handler = on_stop_signal;
  sigemptyset(&sa.sa_mask);
  for (int signo : {SIGINT, SIGTERM, SIGHUP})
    sigaction(signo, &sa, nullptr);
  std::signal(SIGPIPE, SIG_IGN);
}

// Live output is read as it comes (tail -f out.dat), so what was printed
// goes out before each read of the trace, which waits when nothing is there:
// every line is out as soon as allocwatch has read all there was to read,
// in one write(2) per batch rather than one per line.
class FlushBeforeRead : public ByteSource {
public:
  explicit FlushBeforeRead(ByteSource& input) : input_(input) {}
  std::size_t read(char* buf, std::size_t n) override {
    std::cout.flush();
    return input_.read(buf, n);
  }

private:
  ByteSource& input_;
};

// The profile, with -t applied: held events must outlive the slowest call
// reported, so a threshold beyond the profile's window is refused.
Profile load_profile(const Options& options) {
  Profile profile = value_or_throw(resolve_profile(options.profile, profile_search_dirs()), 2);
  if (options.threshold) {
    if (*options.threshold > profile.window)
      throw FatalError("threshold " + format_duration(*options.threshold) +
                           " is longer than the profile's window " +
                           format_duration(profile.window) + " (" + profile.path + ")",
                       2);
    profile.threshold = *options.threshold;
  }
  return profile;
}

// The loader's doubts (events allocwatch's table lacks), for a run that asks
// no kernel: a live run asks the kernel's available_events instead.
void say_profile_doubts(const Options& options, const Profile& profile) {
  if (!options.quiet)
    for (const std::string& warning : profile.warnings)
      std::cerr << "allocwatch: " << warning << "\n";
}

// A watch whose stdout is the journal (a systemd service) sends each
// incident as a structured entry; asked once per run, for the trace output
// and for where the stall report goes.
bool writes_to_journal(const Options& options) {
  return options.watch && stdout_is_journal();
}

// The trace output: journal entries, JSON Lines or the kernel's text.
std::unique_ptr<Sink> make_sink(const Options& options, bool journal) {
  if (journal)
    return std::make_unique<JournalSink>(std::cout, std::cerr);
  if (options.json)
    return std::make_unique<JsonSink>(std::cout);
  return std::make_unique<TextSink>(std::cout);
}

// The run's counts, their lines cut to `width` columns (report_width).
void print_counts(std::ostream& err, const RunStats& stats, std::size_t width) {
  std::ostringstream counts;
  stats.print(counts);
  write_wrapped(err, counts.str(), width);
}

// What a run counts: the binder writes it; the metrics, the status line and
// the counts on stderr read it.
struct RunCounts {
  RunStats stats;
  ShrinkerStats shrinkers;
  BackgroundWork background;
};

// --metrics-file and --listen, for RunMetrics; none given: no metrics.
std::optional<PublisherOptions> metrics_options(const Options& options) {
  if (!options.metrics_file && !options.listen)
    return std::nullopt;
  return PublisherOptions{options.metrics_file, options.metrics_interval, options.listen};
}

// Each stalled task's cgroup: learnt beside the trace by a live run, or
// read from the records of its --save file by a replay; `learnt`, if not
// null, keeps what was given to each pid, for a --save file.
struct Attribution {
  CgroupLookup& cgroups;
  MemcgWatch& memcg;
  SavedCgroups* learnt = nullptr;
};

// Every record of `records` through the binder, to the trace
// `output` and the run's observers, the same for a replay and a live
// run: the status line first (it erases itself before a trace line prints),
// the report, the timeline and the metrics after the output. Returns the
// mode the binder used (`mode` unset: taken from the input's line format);
// none if no trace line came. `attribution`: each incident's cgroup, where
// the run knows it.
std::optional<Mode> bind_all(RecordSource& records, const Profile& profile,
                             std::optional<Mode> mode, Sink& output, RunCounts& counts,
                             RunReport& report, StatusLine* status, Sink* metrics,
                             Attribution* attribution = nullptr) {
  FanoutSink sinks;
  if (status != nullptr)
    sinks.add(*status);
  sinks.add(output);
  report.observe(sinks);
  if (metrics != nullptr)
    sinks.add(*metrics);
  std::optional<AttributingSink> attributed;
  if (attribution != nullptr)
    attributed.emplace(
        profile, attribution->cgroups, attribution->memcg, sinks,
        [] {
          return std::chrono::duration_cast<std::chrono::nanoseconds>(
                     std::chrono::steady_clock::now().time_since_epoch())
              .count();
        },
        attribution->learnt);
  report.background(counts.background);
  BinderOptions binding{profile.threshold, mode};
  if (records.blobs())
    binding.held_resident = HeldStore::kResident / 4;
  binding.background_work = &counts.background;
  Binder binder(profile, binding, attributed ? static_cast<Sink&>(*attributed) : sinks,
                counts.shrinkers, counts.stats);
  while (std::cout.good()) {
    const Record* record = records.next();
    if (record == nullptr)
      break;
    binder.feed(*record);
  }
  binder.finish();
  report.write_json(std::cout, counts.stats, binder.mode());
  return binder.mode();
}

int replay(const Options& options, const Profile& profile) {
  int fd = STDIN_FILENO;
  if (*options.input != "-") {
    // A FIFO blocks open() until a writer comes; Ctrl-C then is a normal
    // stop of a replay that read nothing (ReplayInput reads no more).
    do
      fd = ::open(options.input->c_str(), O_RDONLY | O_CLOEXEC);
    while (fd < 0 && errno == EINTR && !g_stop_signal);
    if (fd < 0 && !g_stop_signal)
      throw FatalError("cannot open " + escaped(*options.input) + ": " + std::strerror(errno));
  }
  const std::string input_name = *options.input == "-" ? "stdin" : *options.input;
  // A trace.dat is checked whole here, before any output; a Ctrl-C ends
  // the input, and the replay prints what it found.
  ReplayInput input(
      fd, input_name, options.buffer, [] { return g_stop_signal != 0; },
      options.quiet ? nullptr : &std::cerr);
  const bool journal = writes_to_journal(options);
  const std::unique_ptr<Sink> output = make_sink(options, journal);
  RunReport report(options, profile, journal);
  // A live run's --save file ends with the cgroups it learnt.
  auto saved = read_saved_cgroups(fd);
  const std::optional<Nanos> capture = input.dat() ? std::nullopt : read_capture_record(fd);
  if (!saved)
    throw FatalError("cannot replay " + escaped(input_name) + ": " + saved.error().message);
  std::optional<SavedCgroupLookup> saved_lookup;
  std::optional<MemcgWatch> saved_memcg;
  std::optional<Attribution> attribution;
  if (saved->has_value()) {
    saved_lookup.emplace(**saved);
    saved_memcg.emplace((*saved)->chains);
    attribution.emplace(Attribution{*saved_lookup, *saved_memcg});
    report.attribute(*saved_memcg);
  }
  RunCounts counts;
  counts.stats.saved_tracing_thresh = capture.value_or(-1);
  RunMetrics metrics(profile, counts.shrinkers, counts.stats,
                     [&report] { return report.tables(); });
  metrics.set_top_cgroups(static_cast<std::size_t>(options.metrics_cgroups));
  const std::optional<PublisherOptions> publish = metrics_options(options);
  const std::optional<Mode> mode =
      bind_all(input.records(), profile, std::nullopt, *output, counts, report, nullptr,
               publish ? &metrics.observer() : nullptr, attribution ? &*attribution : nullptr);
  const RunStats& stats = counts.stats;
  if (fd > STDIN_FILENO)
    ::close(fd);
  // A replay's metrics file holds its result, written once: nothing to say.
  if (publish)
    metrics.start(*publish, mode, std::cerr, /*quiet=*/true);
  const std::size_t err_width = report_width(STDERR_FILENO);
  report.finish(std::cerr, err_width);
  if (!options.quiet)
    print_counts(std::cerr, stats, err_width);
  input.check_understood(mode.has_value(), stats.lines_malformed);
  return 0;
}

// -c CMD: started once tracing is on. Its stdout goes to our stderr so that
// the trace on stdout stays clean.
class Command {
public:
  explicit Command(const std::string& command) {
    pid_ = ::fork();
    if (pid_ < 0)
      throw FatalError(std::string("cannot start the command: ") + std::strerror(errno));
    if (pid_ == 0) {
      std::signal(SIGPIPE, SIG_DFL); // ignored signals would stay ignored across exec
      ::dup2(STDERR_FILENO, STDOUT_FILENO);
      ::execl("/bin/sh", "sh", "-c", command.c_str(), static_cast<char*>(nullptr));
      _exit(127);
    }
  }
  ~Command() {
    if (running()) {
      ::kill(pid_, SIGTERM);
      wait_status(0);
    }
  }
  bool running() { return wait_status(WNOHANG) == -1; }
  // The shell's exit status, or -1 while it runs.
  int status() const { return status_; }

private:
  int wait_status(int flags) {
    if (status_ != -1)
      return status_;
    int raw = 0;
    if (::waitpid(pid_, &raw, flags) == pid_)
      status_ = WIFEXITED(raw) ? WEXITSTATUS(raw) : 128 + WTERMSIG(raw);
    return status_;
  }
  pid_t pid_;
  int status_ = -1;
};

// The status line, when a person watches: stderr is a terminal, not -q, and
// no -c command writes to that terminal too (its lines would break it).
std::optional<StatusLine> make_status_line(const Options& options, const Profile& profile,
                                           const RunStats& stats, const RunReport& report) {
  if (options.quiet || options.command || ::isatty(STDERR_FILENO) != 1)
    return std::nullopt;
  StatusLine::Options status;
  status.threshold = profile.threshold;
  status.started = StatusLine::Clock::now();
  status.erase_before_output = ::isatty(STDOUT_FILENO) == 1;
  status.width = [] { return terminal_width(STDERR_FILENO); };
  return std::make_optional<StatusLine>(std::cerr, stats, report.stalls(), std::move(status));
}

// A watch restarted after a crash (Restart=on-failure) first puts back what
// the crashed run left in tracefs, from its state file; a state file of a run
// that is still alive is left to Session::start() to refuse.
void restore_after_crash(const std::string& tracing_dir) {
  auto state_files = list_state_files(kDefaultStateDir);
  if (!state_files || state_files->empty())
    return;
  if (Status restored = restore_from_state_files(kDefaultStateDir, tracing_dir, std::cerr);
      !restored)
    throw FatalError("cannot put back what an earlier run left in tracefs: " +
                     restored.error().message);
}

// --pid or --cgroup: the tasks the run traces.
TaskScope task_scope(const Options& options, const CgroupMounts& mounts) {
  if (options.pid)
    return TaskScope{TaskScope::Of::Pid, {*options.pid}, {}};
  if (!options.cgroup)
    return {};
  const std::string dir = value_or_throw(resolve_cgroup_dir(*options.cgroup, mounts));
  return TaskScope{TaskScope::Of::Cgroup, value_or_throw(tasks_in_cgroup(dir)), *options.cgroup};
}

int trace_live(const Options& options, const Profile& profile) {
  std::ostream* messages = options.quiet ? nullptr : &std::cerr;
  // --check where no kernel can be asked checks the profile alone.
  if (options.check && ::geteuid() != 0) {
    say_profile_doubts(options, profile);
    print_profile_alone(profile, "reading tracefs needs root", std::cout);
    return 0;
  }
  if (options.check && !options.tracefs_dir)
    if (Result<std::string> found = find_tracefs(messages); !found) {
      say_profile_doubts(options, profile);
      print_profile_alone(profile, found.error().message, std::cout);
      return 0;
    }
  if (::geteuid() != 0)
    throw FatalError("live tracing needs root (run it with sudo); replaying a saved trace "
                     "with -i FILE does not");
  PlanOptions plan_options;
  // Where the memory cgroups are, for --cgroup and the attribution.
  const SystemFiles files;
  const CgroupMounts mounts = cgroup_mounts(files.read("/proc/self/mountinfo").value_or(""));
  plan_options.scope = task_scope(options, mounts);
  plan_options.tracing_dir = options.tracefs_dir.value_or("");
  plan_options.messages = messages;
  std::optional<Mode> mode = options.mode;
  if (options.watch && !mode) {
    mode = Mode::Events;
    plan_options.events_reason = "--watch: tracepoints on the slow paths only";
  }
  Plan plan = value_or_throw(make_plan(profile, profile.threshold, mode, plan_options));
  if (options.check) {
    print_plan(plan, std::cout);
    return 0;
  }

  if (options.watch)
    restore_after_crash(plan.tracing_dir);
  // A raw run's --save is a trace.dat, made once tracing is set up; a text
  // run's is made now, so that a path that cannot be written stops the run
  // before anything is changed.
  const bool raw = options.source.value_or(Source::Raw) == Source::Raw;
  std::unique_ptr<OutputFile> saved;
  if (options.save && !raw)
    saved = value_or_throw(OutputFile::create(*options.save));
  const bool journal = writes_to_journal(options);
  const std::unique_ptr<Sink> output = make_sink(options, journal);
  RunReport report(options, profile, journal);
  TaskCgroups cgroups(files);
  MemcgWatch memcg(files, mounts);
  SavedCgroups learnt;
  Attribution attribution{cgroups, memcg, options.save ? &learnt : nullptr};
  report.attribute(memcg);
  const std::uint64_t tracing_thresh_us = plan.tracing_thresh_us;
  RunCounts counts;
  RunMetrics metrics(profile, counts.shrinkers, counts.stats, [&report, &cgroups] {
    std::vector<TableSize> tables = report.tables();
    tables.push_back({"task_cgroups", cgroups.tasks(), cgroups.max_tasks()});
    return tables;
  });
  metrics.set_top_cgroups(static_cast<std::size_t>(options.metrics_cgroups));
  if (const auto publish = metrics_options(options))
    metrics.start(*publish, plan.mode, std::cerr, options.quiet);
  Session session(std::move(plan),
                  SessionOptions{.force = options.force, .messages = messages, .raw = raw});
  throw_on_error(session.start());
  // First in the file, before the trace the reader copies after it.
  if (saved && session.mode() == Mode::Graph) {
    const std::string record = capture_record(tracing_thresh_us);
    throw_on_error(saved->write(record.data(), record.size()));
  }
  metrics.set_mode(session.mode()); // graph mode may have fallen back to events

  std::optional<Command> command;
  if (options.command)
    command.emplace(*options.command);
  const auto deadline =
      std::chrono::steady_clock::now() + std::chrono::nanoseconds(options.duration.value_or(0));
  const RunStats& stats = counts.stats;
  std::optional<StatusLine> status = make_status_line(options, profile, stats, report);
  // What the run does now and then while it waits for lines.
  Periodic periodic;
  if (status)
    periodic.add([&status](Periodic::Clock::time_point now) { status->update(now); });
  // glibc keeps the pages of freed memory in its heap: a run of hours,
  // whose bounded tables fill and forget, gives them back, so that its RSS
  // follows what it holds.
  periodic.every(kGiveBackInterval, [] { malloc_trim(0); });
  auto should_stop = [&] {
    periodic.run(Periodic::Clock::now());
    metrics.tick();
    return g_stop_signal != 0 || !std::cout.good() ||
           (options.duration && std::chrono::steady_clock::now() >= deadline) ||
           (command && !command->running());
  };
  // The raw source asks should_stop before it reads or waits: what was
  // printed goes out then, as FlushBeforeRead does for the text.
  RecordSource* records = nullptr;
  std::unique_ptr<RawSave> raw_save;
  if (raw) {
    if (options.save)
      raw_save = value_or_throw(RawSave::open(session, *options.save));
    Result<RecordSource*> opened = session.open_raw(
        [&should_stop] {
          std::cout.flush();
          return should_stop();
        },
        raw_save ? &raw_save->pages() : nullptr);
    if (opened) {
      records = *opened;
    } else {
      if (messages != nullptr)
        *messages << "allocwatch: reading the text of trace_pipe instead of trace_pipe_raw: "
                  << opened.error().message << "\n";
      raw_save.reset();
      if (options.save) { // the text, then, as a text run saves it
        saved = value_or_throw(OutputFile::create(*options.save));
        if (session.mode() == Mode::Graph) {
          const std::string record = capture_record(tracing_thresh_us);
          throw_on_error(saved->write(record.data(), record.size()));
        }
      }
    }
  }
  std::optional<FlushBeforeRead> text_source;
  std::optional<LineReader> reader;
  std::optional<TextRecords> text_records;
  if (records == nullptr) {
    text_source.emplace(*value_or_throw(session.open_pipe(should_stop)));
    reader.emplace(*text_source);
    reader->set_tee(saved.get());
    records = &text_records.emplace(*reader);
  }
  // Under systemd (Type=notify): the service is up once tracing is.
  sd_notify(0, "READY=1");
  // The trace's end (shrinker totals, JSON report records) is printed here,
  // before restore(): at stop, tracing goes off, the pipe drains, the end
  // comes, then tracefs is put back; the stall report and counts follow.
  bind_all(*records, profile, session.mode(), *output, counts, report, status ? &*status : nullptr,
           metrics.started() ? &metrics.observer() : nullptr, &attribution);
  sd_notify(0, "STOPPING=1");
  if (status)
    status->erase();
  metrics.finish();
  if (raw_save) { // before restore(): it reads the traced buffer's files
    learnt.chains = report.cgroup_limits();
    // After a newline: the records' reader finds their ending line as a line
    // of its own, which binary pages before it would not give when the run
    // learnt nothing.
    throw_on_error(raw_save->finish("\n" + write_saved_cgroups(learnt), session.raw_task_names()));
  }
  if (Status restored = session.restore(); !restored)
    throw FatalError(restored.error().message + "; the journal is kept: run allocwatch --restore");
  if (saved) {
    learnt.chains = report.cgroup_limits();
    saved->stream() << write_saved_cgroups(learnt);
    throw_on_error(saved->finish());
  }
  const std::size_t err_width = report_width(STDERR_FILENO);
  report.finish(std::cerr, err_width);
  if (!options.quiet) {
    print_counts(std::cerr, stats, err_width);
    if (command && command->status() >= 0)
      std::cerr << "allocwatch: the command exited with status " << command->status() << "\n";
  }
  return 0;
}

int run(const Options& options) {
  if (options.tracefs_dir && options.input)
    throw FatalError("--tracefs is for live tracing; a replay (-i) reads no tracefs", 2);
  if (options.restore) {
    if (::geteuid() != 0)
      throw FatalError("--restore needs root (run it with sudo)");
    std::string tracing_dir = options.tracefs_dir.value_or("");
    if (tracing_dir.empty())
      tracing_dir = value_or_throw(find_tracefs(options.quiet ? nullptr : &std::cerr));
    throw_on_error(restore_from_state_files(kDefaultStateDir, tracing_dir, std::cerr));
    return 0;
  }
  if (options.list_profiles) {
    const std::vector<std::string> dirs = profile_search_dirs();
    const std::vector<ProfileInfo> profiles = list_profiles(dirs);
    if (profiles.empty()) {
      std::string searched;
      for (const std::string& dir : dirs)
        searched += "\n  " + dir;
      throw FatalError("no profile found; searched:" + searched);
    }
    for (const ProfileInfo& info : profiles)
      std::cout << info.name << (info.loads ? "\t" : "\t[error] ") << info.summary << "\n\t"
                << info.path << "\n";
    return 0;
  }
  const Profile profile = load_profile(options);
  if (options.input) {
    say_profile_doubts(options, profile);
    return replay(options, profile);
  }
  return trace_live(options, profile);
}

} // namespace
} // namespace allocwatch

int main(int argc, char** argv) {
  using namespace allocwatch;
  std::ios::sync_with_stdio(false);
  install_signal_handlers();
  // Output that cannot be written (a full disk, a closed pipe) is an error.
  CheckedStdout out;
  auto with_output_checked = [&out](int status) {
    if (Status written = out.finish(); !written) {
      std::cerr << "allocwatch: " << written.error().message << "\n";
      return 1;
    }
    return status;
  };
  ParsedOptions parsed = parse_options(argc, argv);
  if (parsed.exit_now)
    return with_output_checked(*parsed.exit_now);
  try {
    return with_output_checked(run(parsed.options));
  } catch (const FatalError& e) {
    std::cerr << "allocwatch: " << e.what() << "\n";
    return e.exit_code();
  } catch (const std::exception& e) {
    std::cerr << "allocwatch: " << e.what() << "\n";
    return 1;
  }
}

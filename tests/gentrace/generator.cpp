#include "generator.h"

#include "cast.h"
#include "format.h"
#include "oracle.h"
#include "planner.h"
#include "rng.h"
#include "text.h"

#include <algorithm>
#include <functional>
#include <queue>
#include <string_view>
#include <utility>
#include <vector>

namespace gentrace {
namespace {

class Generator {
public:
  explicit Generator(const Options& opt) : opt_(opt), rng_(opt.seed), text_rng_(opt.seed ^ 0x5eed) {
    world_.format = opt.format;
    world_.threshold = opt.threshold;
    // As if the trace was taken at a lower tracing_thresh than allocwatch's
    // threshold: returns between the two are in it and must not print.
    world_.kernel_thresh = std::max<Nanos>(kMicro, opt.threshold * rng_.range(25, 70) / 100);
    world_.era = &rng_.pick(kEras);
    world_.cpus = opt.cpus > 0 ? opt.cpus : static_cast<int>(rng_.range(2, 8));
    world_.max_span = opt.max_span;
    world_.no_span = opt.no_span;
    lost_run_.resize(static_cast<std::size_t>(world_.cpus));
    lost_pending_.resize(static_cast<std::size_t>(world_.cpus));
    last_on_cpu_.resize(static_cast<std::size_t>(world_.cpus));
    add_shrinkers(world_, rng_);
    clock_start_ = add_tasks(rng_, world_.cpus, opt.tasks, opt.no_span, tasks_);
  }

  void run(std::FILE* trace, std::FILE* expected_file) {
    std::string expected;
    Oracle oracle(world_, expected);
    oracle_ = &oracle;
    trace_ = trace;
    buf_.reserve(kFlushAt + 4096);
    if (rng_.percent(50))
      header();
    using Item = std::pair<Nanos, std::size_t>;
    std::priority_queue<Item, std::vector<Item>, std::greater<>> ready;
    for (std::size_t i = 0; i < tasks_.size(); ++i) {
      Task& t = tasks_[i];
      plan(t, clock_start_ + rng_.range(0, 20 * kMilli));
      if (rng_.percent(50) && !t.steps.empty())
        t.cut = rng_.range(t.steps.front().ts, t.steps.back().ts);
      if (!t.steps.empty())
        ready.emplace(t.steps.front().ts, i);
    }
    while (!ready.empty() && !full()) {
      const std::size_t i = ready.top().second;
      ready.pop();
      Task& t = tasks_[i];
      if (t.next == 0)
        oracle.episode_start(task_key(t.pid, t.cpu), t.steps.front().ts);
      emit(t, t.steps[t.next++]);
      if (t.next == t.steps.size() && !full())
        plan(t, t.steps.back().ts + gap(t.steps.size()));
      if (t.next < t.steps.size())
        ready.emplace(t.steps[t.next].ts, i);
      if (expected.size() > kFlushAt) {
        write(expected_file, expected);
        expected.clear();
      }
    }
    if (rng_.percent(50))
      torn_tail();
    oracle.finish();
    write(trace_, buf_);
    write(expected_file, expected);
    std::fprintf(stderr,
                 "gentrace: %s seed %llu, %d cpus, %zu tasks, era %.*s, tracing_thresh %lld ns: "
                 "%llu lines, %llu bytes, %llu episodes, %llu incidents, %llu lines claimed "
                 "(%llu by the 1 us slack), %llu pairs closed, %llu lost, %llu malformed, "
                 "max %zu events per task in 10 s\n",
                 opt_.format == Format::Graph ? "graph" : "events",
                 static_cast<unsigned long long>(opt_.seed), world_.cpus, tasks_.size(),
                 static_cast<int>(world_.era->alloc.size()), world_.era->alloc.data(),
                 static_cast<long long>(world_.kernel_thresh),
                 static_cast<unsigned long long>(lines_), static_cast<unsigned long long>(written_),
                 static_cast<unsigned long long>(episodes_),
                 static_cast<unsigned long long>(oracle.incidents()),
                 static_cast<unsigned long long>(oracle.claimed()),
                 static_cast<unsigned long long>(oracle.claimed_by_slack()),
                 static_cast<unsigned long long>(oracle.pairs_closed()),
                 static_cast<unsigned long long>(lost_lines_),
                 static_cast<unsigned long long>(malformed_), oracle.max_pending());
    if (oracle.max_pending() >= kMaxPendingPerTask)
      std::fprintf(stderr, "gentrace: warning: a task exceeds allocwatch's per-task cap\n");
  }

private:
  static constexpr std::size_t kFlushAt = 1 << 22;

  int cpu() { return random_cpu(rng_, world_.cpus); }

  // Time from one episode of a task to its next: usually long enough that
  // nothing of one is within reach of the next, sometimes a few µs, and now
  // and then within the 1 µs slack on purpose. Long gaps grow with the
  // episode, so that no task comes near allocwatch's per-task cap.
  Nanos gap(std::size_t lines) {
    const std::uint64_t r = rng_.below(100);
    if (opt_.dense || opt_.no_span)
      return r < 6 ? rng_.range(0, 2500) : rng_.range(3 * kMicro, 30 * kMicro);
    if (r < 6)
      return rng_.range(0, 2500);
    if (r < 25)
      return rng_.range(3 * kMicro, 12 * kMicro);
    return static_cast<Nanos>(lines) * rng_.range(2 * kMilli, 8 * kMilli);
  }

  bool calls_left() const { return opt_.calls == 0 || episodes_ < opt_.calls; }

  // The task's next episode that leaves a line in the trace: a fast
  // allocation leaves none (its return is under tracing_thresh, and the nop
  // tracer has no function lines), but it takes time all the same.
  void plan(Task& t, Nanos now) {
    t.steps.clear();
    t.next = 0;
    while (t.steps.empty() && calls_left()) {
      now = plan_episode(world_, rng_, t.role, t.steps, now);
      ++episodes_;
      now += gap(1);
    }
  }

  bool full() const { return opt_.bytes != 0 && written_ >= opt_.bytes; }

  void emit(Task& t, const Step& step) {
    if (step.ts < t.cut)
      return; // before the trace began
    if (t.pid != 0 && rng_.one_in(200))
      t.cpu = cpu(); // the scheduler moved it
    const int c = t.cpu;
    if (lost_run_[static_cast<std::size_t>(c)] == 0 && rng_.one_in(3000))
      lost_run_[static_cast<std::size_t>(c)] = static_cast<int>(rng_.range(1, 6));
    const std::uint64_t key = task_key(t.pid, c);
    const bool stale =
        step.kind == StepKind::Event &&
        oracle_->closes_stale_pair(key, step.ts, static_cast<Ev>(step.id), step.shrinker);
    if (step.lost || stale || lost_run_[static_cast<std::size_t>(c)] > 0) {
      if (lost_run_[static_cast<std::size_t>(c)] > 0)
        --lost_run_[static_cast<std::size_t>(c)];
      ++lost_pending_[static_cast<std::size_t>(c)];
      return;
    }
    const Nanos ts = step.ts / kMicro * kMicro; // what the line shows
    last_ts_ = ts;
    if (lost_pending_[static_cast<std::size_t>(c)] > 0) {
      line_.clear();
      line_.append("CPU:");
      put_uint(line_, static_cast<std::uint64_t>(c));
      line_.append(" [LOST ");
      put_uint(line_, lost_pending_[static_cast<std::size_t>(c)] + rng_.below(40));
      line_.append(" EVENTS]");
      put_line();
      oracle_->lost(line_);
      lost_pending_[static_cast<std::size_t>(c)] = 0;
      ++lost_lines_;
    }
    if (rng_.one_in(4000))
      corrupt_record(ts, c);
    if (world_.format == Format::Graph)
      context_switch(c, t);

    line_.clear();
    if (world_.format == Format::Graph) {
      put_graph_prefix(line_, ts, c, t.gcomm, t.pid);
      if (step.kind == StepKind::Return) {
        const Nanos shown = shown_duration(step.dur);
        line_.push_back(duration_mark(step.dur));
        line_.push_back(' ');
        put_graph_duration(line_, step.dur);
        line_.append("|  ");
        line_.append(static_cast<std::size_t>(step.depth) * 2, ' ');
        line_.append("} /* ");
        line_.append(world_.fn_name(static_cast<Fn>(step.id)));
        line_.append(" */");
        if (torn())
          return;
        put_line();
        oracle_->function_return(key, ts, static_cast<Fn>(step.id), shown, line_);
        return;
      }
      line_.append("              |  ");
      if (step.depth > 0)
        line_.append((static_cast<std::size_t>(step.depth) + 1) * 2, ' ');
      line_.append("/* ");
      line_.append(kEventName[step.id]);
      line_.append(": ");
      put_fields(line_, static_cast<Ev>(step.id), step.shrinker, world_, text_rng_);
      line_.append(" */");
    } else {
      static constexpr std::string_view kFlags[] = {".....", ".....", ".....", ".....",
                                                    "d..1.", ".N...", "..s1.", "dNh2."};
      put_event_prefix(line_, ts, c, t.comm, t.pid, rng_.pick(kFlags));
      line_.append(kEventName[step.id]);
      line_.append(": ");
      put_fields(line_, static_cast<Ev>(step.id), step.shrinker, world_, text_rng_);
    }
    if (torn())
      return;
    put_line();
    oracle_->event(key, ts, static_cast<Ev>(step.id), step.shrinker, line_);
  }

  // function_graph prints a banner when another task's line follows on a cpu.
  void context_switch(int c, const Task& t) {
    LastOnCpu& last = last_on_cpu_[static_cast<std::size_t>(c)];
    if (last.task == &t)
      return;
    const Task* prev = last.task;
    last.task = &t;
    if (prev == nullptr)
      return;
    line_.assign(" ------------------------------------------");
    put_line();
    line_.assign(" ");
    put_uint(line_, static_cast<std::uint64_t>(c));
    line_.append(") ");
    put_graph_proc(line_, prev->gcomm, prev->pid);
    line_.append(" => ");
    put_graph_proc(line_, t.gcomm, t.pid);
    put_line();
    line_.assign(" ------------------------------------------");
    put_line();
    line_.clear();
    put_line();
  }

  // A record the ring buffer corrupted under overrun, as the kernel prints it.
  void corrupt_record(Nanos ts, int c) {
    std::string saved;
    saved.swap(line_);
    line_.clear();
    put_event_prefix(line_, ts, c, "<XXX>", -static_cast<int>(rng_.range(1000000, 99999999)),
                     ".....");
    line_.append("Unknown type ");
    put_uint(line_, rng_.below(3));
    put_line();
    ++malformed_;
    line_.swap(saved);
  }

  // Now and then a line is torn (a reader cut it mid-way): the cut always
  // falls inside the leading columns, so no reader can take it for an event.
  bool torn() {
    if (!rng_.one_in(5000))
      return false;
    line_.resize(rng_.range(1, static_cast<std::int64_t>(header_end(line_)) - 1));
    put_line();
    ++malformed_;
    return true;
  }

  // Where the leading columns end: graph, the third '|'; events, the ": "
  // after the timestamp.
  std::size_t header_end(const std::string& line) const {
    if (world_.format == Format::Graph) {
      std::size_t pos = 0;
      for (int i = 0; i < 3; ++i)
        pos = line.find('|', pos + 1);
      return pos;
    }
    return line.find(": ", line.find("] ")) + 1;
  }

  // The file ends in the middle of a line, without its newline.
  void torn_tail() {
    line_.clear();
    const Task& t = tasks_[rng_.below(tasks_.size())];
    if (world_.format == Format::Graph)
      put_graph_prefix(line_, last_ts_, t.cpu, t.gcomm, t.pid);
    else
      put_event_prefix(line_, last_ts_, t.cpu, t.comm, t.pid, ".....");
    line_.resize(rng_.range(1, static_cast<std::int64_t>(line_.size()) - 4));
    buf_.append(line_);
    written_ += line_.size();
    ++malformed_;
  }

  void header() {
    if (world_.format == Format::Graph) {
      line_ = "# tracer: function_graph\n#\n"
              "#     TIME        CPU  TASK/PID         DURATION                  FUNCTION CALLS\n"
              "#      |          |    |    |           |   |                     |   |   |   |";
    } else {
      line_ = "# tracer: nop\n#\n"
              "# entries-in-buffer/entries-written: 0/0   #P:" +
              std::to_string(world_.cpus) +
              "\n#\n"
              "#                                _-----=> irqs-off/BH-disabled\n"
              "#                               / _----=> need-resched\n"
              "#                              | / _---=> hardirq/softirq\n"
              "#                              || / _--=> preempt-depth\n"
              "#                              ||| / _-=> migrate-disable\n"
              "#                              |||| /     delay\n"
              "#           TASK-PID     CPU#  |||||  TIMESTAMP  FUNCTION\n"
              "#              | |         |   |||||     |         |";
    }
    put_line();
  }

  void put_line() {
    buf_.append(line_);
    buf_.push_back('\n');
    written_ += line_.size() + 1;
    ++lines_;
    if (buf_.size() > kFlushAt) {
      write(trace_, buf_);
      buf_.clear();
    }
  }

  static void write(std::FILE* f, const std::string& data) {
    if (!data.empty() && std::fwrite(data.data(), 1, data.size(), f) != data.size())
      die("write failed");
  }

  struct LastOnCpu {
    const Task* task = nullptr;
  };

  const Options& opt_;
  Rng rng_;
  Rng text_rng_; // field values: formatting changes must not change the plan
  World world_;
  std::vector<Task> tasks_;
  Nanos clock_start_ = 0;
  Nanos last_ts_ = 0;
  Oracle* oracle_ = nullptr;
  std::FILE* trace_ = nullptr;
  std::string buf_;
  std::string line_;
  std::vector<int> lost_run_;
  std::vector<std::uint64_t> lost_pending_;
  std::vector<LastOnCpu> last_on_cpu_;
  std::uint64_t written_ = 0;
  std::uint64_t lines_ = 0;
  std::uint64_t episodes_ = 0;
  std::uint64_t lost_lines_ = 0;
  std::uint64_t malformed_ = 0;
};

} // namespace

void generate(const Options& opt, std::FILE* trace, std::FILE* expected) {
  Generator(opt).run(trace, expected);
}

} // namespace gentrace

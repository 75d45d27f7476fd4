// RawSource: the live trace read from the binary ring buffer: each CPU's
// per_cpu/cpuN/trace_pipe_raw of the traced buffer, its pages merged in
// time order (ring/cpu_merge) and decoded (ring/event_decoder).
//
// Each CPU's file is opened O_RDONLY|O_NONBLOCK through the instance's path
// and wrapped with tracefs_cpu_alloc_fd(); all are waited on with one epoll
// for at most kPollInterval, never by spinning, and read with
// tracefs_cpu_read() without blocking. The session sets the buffer's
// buffer_percent to 0, so that a CPU's file polls readable at its first
// record (since 6.1, at 50 % full by default); after a wake-up the kernel is
// given the batch delay to gather more, as PipeSource does. A read takes at
// most kPagesPerTurn pages from one CPU before it turns to the next, and
// passes over a CPU that is backlogged in the merge (CpuMerge::backlogged)
// unless no other CPU has a page to read: a busy CPU's backlog waits in the
// kernel's buffer while a quiet CPU's read lets the merge move. A page less
// than half full is one the kernel copied out of the page it is still
// writing: the read of that CPU stops there, and once every CPU is so
// caught up, the source does not chase the writers page by page. If the
// merge holds records back, it sleeps kSettle first (the latency below);
// if not, it waits as when every CPU reads empty.
//
// should_stop is asked at least every kPollInterval plus the batch delay,
// and whenever what was read is given out. Once it says true, tracing is
// switched off in that buffer, every CPU is read until empty, everything
// is given out in order, and next() then returns nullptr. A signal cuts the
// batch delay short.
//
// Lost records. A page that reports missed events gives a Lost record
// (EventDecoder::lost) before its first record. The session keeps the
// kernel's overwrite mode (options/overwrite 1): a full buffer overwrites
// its oldest records, counts them in each CPU's stats `overrun`, and the next
// page read reports them. The stats are read at the start and at the end,
// and what `overrun` plus `dropped events` grew by beyond the pages' counts
// (a page that said "lost, count unknown", losses no page read reported)
// becomes one Lost record per CPU at the end. With overwrite off, no page
// reports a loss: `dropped events` is then also read every second or so and
// its growth given out as it comes.
//
// Comms. The decoder names a pid as the tep's table does, loaded with the
// formats from saved_cmdlines. Tasks start, exec and reuse pids: while
// records come, saved_cmdlines is read again once a second and the table
// brought up to date (tracefs/saved_comms.h), as the kernel's own text
// names a task by saved_cmdlines when it prints. A pid new to the run (a
// task that started, exec'd, or took over a reused pid, and may be named
// wrongly or not at all: the kernel saves a comm only at the task's next
// context switch) is named as /proc/PID/comm says, or, once the task is
// gone, by saved_cmdlines read again at once (at most every 100 ms); its
// record is decoded again if its name changed.
//
// Latency. A record goes out once the merge knows no CPU can precede it:
// after a read that found records, the source sleeps 2 ms and reads every
// CPU again; found empty, that gives out everything read (CpuMerge's quiet
// rule). Records are so handed on some 50 ms after a wake-up, as the text's.
#pragma once

#include "ring/cpu_merge.h"
#include "ring/event_decoder.h"
#include "ring/page_sink.h"
#include "trace/record_source.h"
#include "tracefs/cpu_stats.h"
#include "tracefs/local_events.h"
#include "tracefs/seen_pids.h"
#include "util/result.h"

#include <chrono>
#include <functional>
#include <iosfwd>
#include <memory>
#include <string>
#include <utility>
#include <vector>

struct tep_handle;
struct tracefs_cpu;
struct tracefs_instance;

namespace allocwatch {

class RawSource final : public RecordSource {
public:
  static constexpr std::chrono::milliseconds kPollInterval{200};
  static constexpr std::chrono::milliseconds kBatchDelay{50};
  static constexpr int kPagesPerTurn = 16;

  struct Options {
    tracefs_instance* instance = nullptr;         // the traced buffer (nullptr: the top level)
    tracefs_instance* top = nullptr;              // the top level, where saved_cmdlines is
    LineStyle style = LineStyle::Events;          // Graph when function_graph traces
    ReturnTime return_time = ReturnTime::Rettime; // Written: trace_clock is not "local"
    std::function<bool()> should_stop;
    std::chrono::milliseconds batch_delay = kBatchDelay;
    CpuMerge::Options merge{};
    // Each page as read, whole (--save's trace.dat); nullptr: none.
    PageSink* pages = nullptr;
    // At the end, one line if the merge had to give records out of order
    // or cut damaged pages; nullptr: quiet.
    std::ostream* messages = nullptr;
  };

  // Opens every CPU's trace_pipe_raw of the traced buffer. `events` holds
  // the running kernel's formats (load_local_events); the source keeps
  // them. The instances must outlive the source.
  static Result<std::unique_ptr<RawSource>> open(LocalEvents events, Options options);
  ~RawSource() override;
  RawSource(const RawSource&) = delete;
  RawSource& operator=(const RawSource&) = delete;

  // The next record in time order; nullptr at the end. Throws FatalError
  // when a CPU's file cannot be read or waited on, or tracing cannot be
  // switched off.
  const Record* next() override;
  bool blobs() const override { return true; }

  // Ends the input now: later calls return nullptr, the files are closed
  // and the instance can be removed.
  void close();

  const CpuMerge& merge() const { return merge_; }
  int cpus() const { return static_cast<int>(cpus_.size()); }

  // The names the run gives the tasks whose records it has read (of the
  // last SeenPids::kCapacity): pid and comm, none unknown ("<...>") or idle.
  std::vector<std::pair<std::int32_t, std::string>> task_names() const;

private:
  struct Cpu {
    int number = -1;             // the CPU's number
    tracefs_cpu* tcpu = nullptr; // owns the descriptor
    int fd = -1;
    CpuStats at_start;
    std::uint64_t reported = 0; // losses given out since the start
  };

  // How a read of one CPU, or a turn over all, ended.
  enum class ReadEnd {
    Empty,    // no page read (in this order: a turn is its furthest-behind read)
    CaughtUp, // pages read, up to the page the kernel is still writing, or empty
    Behind,   // kPagesPerTurn full pages read from a CPU: it may hold more
  };

  RawSource(LocalEvents events, Options options, std::size_t page_size, int cpus);
  // One turn over the CPUs: Behind if any CPU's read was, else CaughtUp if
  // any page was read.
  ReadEnd read_turn();
  // Up to kPagesPerTurn pages of the CPU in cpus_[slot], until it reads
  // empty or gives a page less than half full.
  ReadEnd read_cpu(std::size_t slot);
  // Sleeps kSettle, then note_quiet().
  void settle();
  void wait();
  // If nothing was read in the slack before `now`, tells the merge it
  // waited: a CPU read empty then holds nothing back (its quiet rule).
  void note_quiet(std::chrono::steady_clock::time_point now);
  // What each CPU's stats say was lost beyond what was given out, as Lost
  // records to give.
  void collect_stats_losses();
  void refresh_comms();
  void say_merge_trouble() const;
  // The record of `item` (whose event's cpu it sets to the CPU's number).
  const Record* deliver(CpuMerge::Item& item);

  LocalEvents events_;
  tep_handle* tep_;
  Options options_;
  EventDecoder decoder_;
  CpuMerge merge_;
  std::vector<Cpu> cpus_;
  int epoll_fd_ = -1;
  bool overwrite_ = true;
  bool draining_ = false; // tracing is off: read what is left, then end
  bool finished_ = false; // everything read: the merge gives out the rest
  bool closed_ = false;
  std::vector<std::pair<int, long long>> pending_lost_; // (cpu, count) to give out
  std::chrono::steady_clock::time_point last_push_;
  std::chrono::steady_clock::time_point last_stats_;
  std::chrono::steady_clock::time_point last_comms_; // saved_cmdlines last read
  std::string saved_cmdlines_;                       // as then
  std::uint64_t names_forgotten_ = 0;                // the decoder's count then
  SeenPids seen_pids_;
  bool settled_ = false;   // slept kSettle since the last page read
  bool caught_up_ = false; // the last turn read every CPU to its writer
};

} // namespace allocwatch

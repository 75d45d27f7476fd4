// Binder: applies DESIGN.md's binding rule to the parser's records. It turns
// graph lines and begin/end tracepoint pairs into spans, holds each task's
// tracepoint lines until an over-threshold span of the same task claims them,
// and hands every over-threshold span to the sink as one Incident, the moment
// the span's closing line is read, each line with its tracepoint as parsed.
#pragma once

#include "bind/background_work.h"
#include "bind/event_table.h"
#include "bind/incident.h"
#include "bind/incident_lines.h"
#include "bind/run_stats.h"
#include "bind/shrinker_keys.h"
#include "bind/shrinker_stats.h"
#include "bind/task_state.h"
#include "bind/task_table.h"
#include "profile/profile.h"
#include "trace/record.h"
#include "util/flat_map.h"
#include "util/string_hash.h"

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace allocwatch {

struct BinderOptions {
  Nanos threshold = 0;
  std::optional<Mode> mode; // unset: taken from the first graph or event line
  // Release held lines as soon as no span can claim them any more (DESIGN.md,
  // "Releasing held lines"). Off, they leave only when claimed, when the
  // window passes them or over the bounds: the same output, more memory. The
  // switch is for the tests that prove it.
  bool release = true;
  // Where the lines of background tasks go that tell what they did; null:
  // nowhere. Must outlive the binder.
  BackgroundWork* background_work = nullptr;
  // The part of the held-line store made resident at the start
  // (HeldStore's `resident`): a quarter of it for records kept as blobs.
  std::size_t held_resident = HeldStore::kResident;
};

class Binder {
public:
  // The profile is copied; sink, shrinkers and stats must outlive the binder.
  Binder(const Profile& profile, BinderOptions options, Sink& sink, ShrinkerStats& shrinkers,
         RunStats& stats);
  ~Binder();
  Binder(const Binder&) = delete;
  Binder& operator=(const Binder&) = delete;

  // Every line, in input order. The record's views are not kept.
  void feed(const Record& record);
  // End of input: spans still open print nothing; held lines that aged out of
  // the window are counted as dropped; then sink.finish(shrinkers).
  void finish();
  // The mode in use: given, or detected from the first graph or event line.
  std::optional<Mode> mode() const { return mode_; }

  // Memory in use, for tests: the tasks known (an idle one is forgotten by the
  // sweep that runs every 65536 lines, and whenever the tasks known have
  // doubled), and the lines they hold.
  std::size_t tasks() const { return tasks_.size(); }
  std::size_t held_lines() const { return store_.lines(); }
  const HeldStore& store() const { return store_; }

private:
  // A set of EventIds, as bits.
  struct EventSet {
    std::vector<std::uint64_t> words;
    void insert(EventId id);
    bool contains(EventId id) const {
      return id / 64 < words.size() && (words[id / 64] >> (id % 64) & 1u) != 0;
    }
  };
  // What an event name means in the mode in use.
  struct EventRole {
    EventId id = 0;
    bool claimable = false;              // some span claims it: hold it
    bool bound_to_function = false;      // some function's span claims it
    std::vector<std::size_t> begins;     // active pairs it begins
    std::vector<std::size_t> ends;       // active pairs it ends
    std::vector<std::size_t> claimed_by; // active pairs that claim it
    // Its role in the kernel table, where BackgroundWork counts its lines of
    // background tasks; None otherwise.
    allocwatch::EventRole work = allocwatch::EventRole::None;
  };
  struct FunctionRole {
    EventSet claims;
    std::string_view kind;                   // its stall kind, from the profile; empty: none
    std::uint64_t* over_threshold = nullptr; // its counter in RunStats, once it has one
  };
  struct ActivePair {
    const PairSpec* spec;
    EventSet claims;
    std::string_view kind; // its stall kind, from the profile; empty: none
    std::uint64_t* over_threshold = nullptr;
    // Graph mode's count of an events-mode pair (RunStats::graph_pairs):
    // its index there; it claims, prints and counts nothing else. -1: a
    // pair of the mode.
    std::ptrdiff_t check = -1;
  };

  void use_mode(Mode mode);
  EventRole& event_role(const std::string& name);
  static std::uint64_t&
  over_threshold_counter(std::map<std::string, std::uint64_t, std::less<>>& counts,
                         std::uint64_t*& cached, std::string_view name);
  Nanos cutoff() const { return newest_ts_ - window_; }

  TaskState* find_task(const Record& record);
  TaskState& task_for(const Record& record);
  void sweep();

  void on_event(const Record& record);
  void hold(TaskState& task, const Record& record, EventId event);
  void drop_held_before(TaskState& task, Nanos cutoff);
  // Whether some span could still claim the task's oldest held line.
  // `now`: a time the task has certainly passed (its own newest line's).
  bool claimable_later(const TaskState& task, Nanos now) const;
  void release(TaskState& task, Nanos now);
  void passed_outermost(const Record& record);
  void open_pair(TaskState& task, std::size_t pair, const Record& record);
  bool close_pair(TaskState& task, std::size_t pair, const Record& record);
  void count_pair(TaskState& task, const ActivePair& active, const Record& record);
  void on_entry(const Record& record);
  void on_leaf(const Record& record);
  void on_return(const Record& record);
  void emit_function(const Record& closing, std::string_view name, TaskState* task, Nanos start,
                     Nanos end, std::string_view opening);
  void emit(const Record& closing, std::string_view span, std::string_view kind, TaskState* task,
            const EventSet* claims, Nanos start, Nanos end, std::string_view opening,
            std::uint64_t opening_seq);

  Profile profile_;
  Nanos threshold_;
  Nanos window_;
  Sink& sink_;
  ShrinkerStats& shrinkers_;
  RunStats& stats_;
  BackgroundWork* background_work_;
  std::optional<Mode> mode_;

  std::unordered_map<std::string, EventRole, StringHash, std::equal_to<>> events_;
  EventTable<const EventRole> event_roles_; // events_, for the per-line lookup
  std::unordered_map<std::string, FunctionRole, StringHash, std::equal_to<>> functions_;
  std::vector<ActivePair> pairs_;
  std::vector<const EventRole*> roles_by_id_;
  ShrinkerKeys shrinker_keys_;                // the open begins of shrinker pairs point in
  std::vector<std::string_view> event_names_; // by EventId: the keys of events_
  std::uint64_t* orphan_over_threshold_ = nullptr;

  std::uint64_t seq_ = 0; // input line number of the record being fed
  Nanos newest_ts_ = 0;
  Nanos swept_at_ts_ = 0; // newest_ts_ at the last sweep by trace time
  // Key: pid, or the cpu for pid 0 (each cpu has its own idle task) and for
  // lines without a pid.
  HeldStore store_; // before tasks_: the tasks' lists point into it
  bool release_;
  std::uint64_t last_sweep_ = 0; // seq_ of the last sweep
  std::size_t sweep_at_tasks_ = 4096;
  TaskTable tasks_;
  std::vector<std::unique_ptr<TaskState>> spare_tasks_; // idle, reused to spare allocations
  std::uint64_t cached_key_ = 0;
  TaskState* cached_task_ = nullptr; // consecutive lines are mostly of one task
  std::string record_text_;          // a binary record's text, when the binder reads it
  IncidentLines lines_;              // an incident's lines, reused
  std::vector<HeldRef> in_span_;     // held lines an incident looks at, reused
};

} // namespace allocwatch

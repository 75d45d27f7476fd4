// StallStats: the stall report's numbers, aggregated from the incidents the
// binder hands every sink: per task and kind of stall (count, total, max,
// p99, and what the stalls got: orders, reclaim's and compaction's yield,
// stall_yield.h), background work apart, per kind and order and gfp flags,
// what slow reclaim got for its time, and a log2 latency histogram per kind.
//
// Only over-threshold spans feed it, never lines: it costs nothing per line
// read. It reads an incident's tracepoints as the binder parsed them
// (Incident::tracepoints), not its lines again. Its size is bounded for runs of
// weeks: at most `task_rows` task rows (when a new task needs room, the eighth
// of them with the smallest totals is folded into "other tasks" rows of their
// kinds) and `order_rows` order/gfp rows, sketches and histograms of bounded
// size, and at most kHeldFigures (4096) held reclaim figures (oldest dropped
// first) that also age out with the profile's window. It is a Sink so that a
// FanoutSink can feed it; the report writers (stall_report.h), the status line
// and the metrics read it.
#pragma once

#include "bind/incident.h"
#include "bind/shrinker_stats.h"
#include "kernel/vocabulary.h"
#include "output/latency.h"
#include "output/stall_yield.h"
#include "profile/profile.h"
#include "util/flat_map.h"

#include <array>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

namespace allocwatch {

struct TaskCgroup; // cgroup/task_cgroups.h

// One task's stalls of one kind and span (or, `other`, the tasks folded away).
struct StallRow {
  std::int32_t pid = -1;
  // The task's comm: the newest its lines printed, but `<...>` (the kernel
  // had not saved it) only while no other was seen; the same in every row
  // of the pid.
  std::string comm;
  // Views into the StallStats that made the row: each name is kept once.
  std::string_view kind; // "direct reclaim"
  std::string_view span; // "try_to_free_pages", "memcg_reclaim"
  // A shrinker call (a span of its mm_shrink_slab_start and _end lines):
  // which shrinker, "super_cache_scan" and its instance "0000000052cfc56b";
  // a row per shrinker. Empty for other spans.
  std::string_view shrinker;
  std::string_view instance;
  bool background = false;
  bool other = false; // the sum of the task rows folded to make room
  // The task's memory cgroup and its container, where the run learnt them
  // (cli/attribution.h): as of its newest stall. Null when unknown, as in
  // every replay of a text trace: a pointer, so that a thousand rows
  // without one do not each carry three empty strings.
  std::shared_ptr<const TaskCgroup> cgroup;
  LatencySketch durations;
  // What its stalls got: their orders, and what reclaim and compaction
  // yielded (the same lines as the reclaim table's, summed per task).
  StallYield yield;
};

// Which spans' stalls count in the order and reclaim tables, whether or not
// a given stall's own begin or end line was claimed (a return stamped late
// leaves its begin outside the computed window): every table counts the
// same stalls. From the profile (stall_spans), by span name.
struct StallSpans {
  // Spans bound to an event that prints the order (a reclaim begin,
  // mm_compaction_try_to_compact_pages): each stall is an order row, `?`
  // when its line was not claimed.
  std::vector<std::string> ordered;
  // Spans bound to a reclaim begin or end event: each stall is a reclaim.
  std::vector<std::string> reclaim;
  // Spans bound to an event that says what compaction did
  // (mm_compaction_try_to_compact_pages, _migratepages, _end): each stall
  // is a compaction, its yield in the compaction table.
  std::vector<std::string> compaction;
  // Spans bound to mm_compaction_end: a stall whose end line was not
  // claimed ended in a way unknown (`?`).
  std::vector<std::string> ended;
};

// The profile's spans (every kernel name of a function) by the events its
// bindings and pairs give them.
StallSpans stall_spans(const Profile& profile);

// Reclaim and compaction stalls by the order and gfp flags their begin
// tracepoint printed (mm_vmscan_*_reclaim_begin,
// mm_compaction_try_to_compact_pages).
struct OrderRow {
  std::string kind;
  // None: the stall's begin line was not claimed; its flags are unknown too.
  std::optional<std::int64_t> order = 0;
  std::string gfp_flags;
  bool other = false; // the rows folded to make room: order and flags unknown
  std::uint64_t count = 0;
  Nanos total = 0;
  Nanos max = 0;
};

// What the reclaim stalls of one kind got for their time. A reclaim stall is
// a stall of a StallSpans::reclaim span, or one that printed an
// mm_vmscan_*_reclaim_begin or _end line. Its pages scanned and written,
// its throttling and its shrinker time are those of the lines of its task printed
// before it closed (by it, or by a slow call before it) whose timestamps lie
// in its binding window [start - 1 us, end]: the lines DESIGN.md's rule
// would have it claim. The line's own timestamp decides, not the nesting of
// the spans: a return's timestamp is taken after the call's end, a little
// later on a busy machine, so a call nested in the stall may seem to start
// before it. A line counts for the first reclaim stall that takes it and for
// the reclaims whose windows hold that one's (a soft limit reclaim inside a
// direct reclaim counts for both). Its pages reclaimed are what its own end line says,
// which the kernel counts with the reclaims nested in it.
struct ReclaimTotals {
  std::string kind;
  std::uint64_t count = 0;
  Nanos total = 0;
  ReclaimFigures figures;            // pages scanned, written; throttling; shrinkers
  std::uint64_t pages_reclaimed = 0; // its mm_vmscan_*_reclaim_end nr_reclaimed
};

// A shrinker's totals over every call the run saw, slow or not (the
// binder's ShrinkerStats, kept for the report): `instance` empty for the
// symbol's own row, which its instances' rows follow when it has several.
struct ShrinkerRow {
  std::string symbol;
  std::string instance;
  ShrinkerTotals totals;
};

struct KindHistogram {
  std::string kind;
  Nanos total = 0;
  Log2Histogram histogram;
};

struct WorstStall {
  std::int32_t pid = -1;
  std::string comm;
  std::string kind;
  std::string span;
  Nanos duration = 0;
};

// The two tables of task rows: the stalls of tasks that allocate, and the
// background work of the profile's background tasks (kswapd, kcompactd).
enum class StallTable : std::uint8_t { Tasks, Background };

class StallStats : public Sink {
public:
  struct Limits {
    std::size_t task_rows = 1000;
    std::size_t order_rows = 256;
    // Figures of nested spans wait this long for the stall around them.
    Nanos window = 10 * kSecond;
  };

  StallStats() : StallStats(Limits{}) {}
  // A span that `spans` does not name is a reclaim or has an order row only
  // when a stall of it printed the line that says so.
  explicit StallStats(Limits limits, const StallSpans& spans = {});

  void incident(const Incident& incident) override;
  void passthrough(std::string_view, Nanos) override {}
  void finish(const ShrinkerStats& shrinkers) override;

  // The rows of one table, largest total first (then more stalls, then by
  // comm, pid, kind, span, shrinker); the "other tasks" rows last.
  std::vector<const StallRow*> rows(StallTable table) const;
  // Largest total first (then by kind, order, flags); folded rows last.
  std::vector<const OrderRow*> order_rows() const;
  // By kind, largest total first.
  std::vector<ReclaimTotals> reclaim() const;
  // Stalls of tasks (not background work), one per kind, largest total first.
  std::vector<const KindHistogram*> histograms() const;

  // Every shrinker's totals, largest first, once finish() has run.
  const std::vector<ShrinkerRow>& shrinkers() const { return shrinkers_; }
  // Whether the rows name more than one instance of the shrinker `symbol`.
  bool several_instances(std::string_view symbol) const;

  // Stall spans of tasks so far (a span of a kind, not background work).
  std::uint64_t stalls() const { return stalls_; }
  // The longest of them.
  const std::optional<WorstStall>& worst() const { return worst_; }
  // Task rows folded into "other tasks" rows to make room.
  std::uint64_t folded_rows() const { return folded_rows_; }
  const Limits& limits() const { return limits_; }
  // Task rows (at most limits().task_rows) and order rows (at most
  // limits().order_rows), the folded rows not counted.
  std::size_t task_rows() const { return task_rows_; }
  std::size_t order_rows_kept() const;
  // Figures held for a reclaim stall around them, for tests.
  std::size_t held_figures() const { return held_figures_; }
  static constexpr std::size_t kHeldFigures = 4096;

private:
  using Figures = ReclaimFigures;
  // Figures printed by lines between `first` and `last` (their timestamps),
  // held for the reclaim stall whose window holds them: one line's (or one
  // shrinker call's) that a span other than a reclaim stall printed, or,
  // `counted`, what a reclaim stall took, over its window, for a reclaim
  // whose window holds that one.
  struct HeldFigures {
    Nanos first;
    Nanos last;
    Figures figures;
    bool counted = false;
  };
  // What an incident's lines say, read once.
  struct LineFacts {
    Figures figures;
    std::uint64_t pages_reclaimed = 0; // its own *_reclaim_end lines say
    bool reclaim = false;              // it printed a *_reclaim_begin or _end line
    CompactionYield compacted;         // its own migratepages and end lines
    bool compaction = false;           // it printed one, or a try_to_compact_pages line
    bool ended = false;                // it printed an mm_compaction_end line
    std::optional<std::int64_t> order;
    std::string_view gfp_flags;
  };

  // Sums the figures of the incident's tracepoints into `facts` and lists
  // them line by line in lines_.
  void read_lines(const Incident& incident, LineFacts& facts);
  StallRow& row_for(const Incident& incident);
  // Keeps the incident's cgroup, where it has one, in its row.
  void attribute(StallRow& row, const Incident& incident);
  // Names the task `pid`, and every row of it, `comm`.
  void rename_task(std::int32_t pid, std::string_view comm);
  std::string_view intern(std::string_view name);
  void fold_smallest_rows();
  void add_order(std::string_view kind, std::optional<std::int64_t> order, std::string_view gfp,
                 Nanos duration);
  // What `spans` says of an interned span name.
  struct SpanClass {
    bool ordered = false;
    bool reclaim = false;
    bool compaction = false;
    bool ended = false;
  };
  SpanClass span_class(std::string_view span);
  HeldFigures take_held(const Incident& incident);
  void drop_counted(const Incident& incident);
  void hold(std::int32_t pid, const HeldFigures& figures);
  void hold_lines(const Incident& incident); // lines_, each held apart
  enum class IfMissing { Nothing, Create };
  std::vector<HeldFigures>* held_for(std::int32_t pid, IfMissing missing);
  enum class Sweep { Aged, MakeRoom };
  void sweep_held(Sweep sweep);

  struct Hash {
    using is_transparent = void;
    std::size_t operator()(std::string_view key) const {
      return std::hash<std::string_view>{}(key);
    }
  };

  // A task row's key: who (a pid; or the "other tasks" of a kind), what
  // (interned names). Not the comm: lines of one pid are one task, whatever
  // comm the kernel printed on each (`<...>` when it had not saved it).
  struct RowKey {
    std::int32_t pid;
    bool other;
    bool background;
    std::string_view kind;
    std::string_view span;
    std::string_view shrinker;
    std::string_view instance;
    // The names are interned: one address each.
    bool operator==(const RowKey& other) const {
      return pid == other.pid && this->other == other.other && background == other.background &&
             kind.data() == other.kind.data() && span.data() == other.span.data() &&
             shrinker.data() == other.shrinker.data() && instance.data() == other.instance.data();
    }
    static RowKey of(const StallRow& row) {
      return {row.pid, row.other, row.background, row.kind, row.span, row.shrinker, row.instance};
    }
  };
  struct RowKeyHash {
    std::size_t operator()(const RowKey& key) const;
  };
  // An order row's key: the kind (interned), the order, the flags (the
  // row's own).
  struct OrderKey {
    bool other;
    std::string_view kind;
    std::optional<std::int64_t> order;
    std::string_view gfp_flags;
    bool operator==(const OrderKey&) const = default;
  };
  struct OrderKeyHash {
    std::size_t operator()(const OrderKey& key) const;
  };

  Limits limits_;
  StallSpans spans_;
  // span_class' answers by interned name (a handful of spans).
  std::vector<std::pair<std::string_view, SpanClass>> span_classes_;
  // A deque: rows stay put, so that the index can point at them and their
  // comms, with no key to build or allocate when thousands of tasks come
  // and go.
  std::deque<StallRow> rows_;
  FlatMap<RowKey, StallRow*, RowKeyHash> row_index_;
  // The comm of each pid that has task rows, and how many it has.
  struct TaskName {
    std::string comm;
    std::size_t rows = 0;
  };
  FlatMap<std::int32_t, std::unique_ptr<TaskName>, IntegerHash> task_names_;
  // Kind and span names, each kept once; rows point into them.
  std::unordered_set<std::string, Hash, std::equal_to<>> names_;
  std::array<std::string_view, 64> recent_names_; // a cache of names_, by address
  std::size_t task_rows_ = 0;
  std::vector<StallRow*> free_rows_; // slots of folded rows, for new ones
  struct FoldKey {
    Nanos total;
    std::uint64_t count;
    StallRow* row;
  };
  std::vector<FoldKey> scratch_keys_; // fold_smallest_rows' list, reused
  std::vector<Nanos> scratch_ends_;   // sweep_held's list, reused
  std::deque<OrderRow> orders_;       // as rows_
  FlatMap<OrderKey, OrderRow*, OrderKeyHash> order_index_;
  std::vector<ReclaimTotals> reclaim_;
  std::vector<ShrinkerRow> shrinkers_;
  std::vector<KindHistogram> histograms_;
  // Per task, by their first timestamp; at most kHeldFigures in all: a slow
  // reclaim may hold hundreds of quicker shrinker calls whose caller was too
  // quick to print, and thousands of tasks may reclaim at once.
  // A flat map: with thousands of tasks in reclaim, a node of
  // std::unordered_map was a cache miss at most incidents.
  FlatMap<std::int32_t, std::unique_ptr<std::vector<HeldFigures>>, IntegerHash> held_;
  std::size_t held_figures_ = 0; // in all of held_
  std::int32_t held_pid_ = 0;
  std::vector<HeldFigures>* held_task_ = nullptr; // held_[held_pid_], or none
  std::size_t histogram_ = 0;                     // the last kind's, a cache
  Nanos newest_end_ = 0;
  std::uint64_t incidents_ = 0;
  std::uint64_t stalls_ = 0;
  std::uint64_t folded_rows_ = 0;
  std::optional<WorstStall> worst_;
  struct OpenShrink {
    std::string_view instance;
    Nanos ts;
  };
  std::vector<OpenShrink> open_shrinks_;  // reused from span to span
  std::vector<HeldFigures> lines_;        // read_lines' figures, line by line, reused
  std::vector<const KnownEvent*> events_; // read_lines' table entries, line by line, reused
};

} // namespace allocwatch

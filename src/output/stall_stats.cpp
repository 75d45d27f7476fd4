#include "output/stall_stats.h"

#include "cgroup/task_cgroups.h"
#include "kernel/vocabulary.h"
#include "trace/event_fields.h"

#include <algorithm>
#include <initializer_list>
#include <tuple>

namespace allocwatch {

namespace {

// Held figures are swept for age every this many incidents.
constexpr std::uint64_t kSweepEvery = 4096;

// `text`'s hash with `words` mixed in (boost's hash_combine, 64-bit).
std::uint64_t hash_with(std::string_view text, std::initializer_list<std::uint64_t> words) {
  std::uint64_t h = StringHash{}(text);
  for (const std::uint64_t word : words)
    h ^= word + 0x9E3779B97F4A7C15ULL + (h << 6) + (h >> 2);
  return h;
}

std::uint64_t address_of(std::string_view interned) {
  return static_cast<std::uint64_t>(reinterpret_cast<std::uintptr_t>(interned.data()));
}

// A hash of 64 bits as a FlatMap wants it: its high bits, mixed (a row's
// hash combines words whose low bits are alike: pids, aligned addresses).
std::size_t spread(std::uint64_t hash) {
  return static_cast<std::size_t>((hash * 0x9E3779B97F4A7C15ULL) >> 32);
}

template <class Row> Row& find_kind(std::vector<Row>& rows, std::string_view kind) {
  for (Row& row : rows)
    if (row.kind == kind)
      return row;
  Row& row = rows.emplace_back();
  row.kind = std::string(kind);
  return row;
}

bool says_compaction(EventRole role) {
  return role == EventRole::CompactPages || role == EventRole::CompactMigrate ||
         role == EventRole::CompactEnd;
}

} // namespace

StallSpans stall_spans(const Profile& profile) {
  StallSpans spans;
  const auto add = [&spans](const std::string& span, EventRole role) {
    const auto put = [&span](std::vector<std::string>& list) {
      if (std::find(list.begin(), list.end(), span) == list.end())
        list.push_back(span);
    };
    if (role == EventRole::ReclaimBegin || role == EventRole::CompactPages)
      put(spans.ordered);
    if (role == EventRole::ReclaimBegin || role == EventRole::ReclaimEnd)
      put(spans.reclaim);
    if (says_compaction(role))
      put(spans.compaction);
    if (role == EventRole::CompactEnd)
      put(spans.ended);
  };
  for (const Binding& binding : profile.bindings)
    for (const std::string& function : binding.functions) {
      // A binding names a function by any of its kernel names; a span has
      // the one this kernel uses.
      std::vector<std::string> names{function};
      for (const FunctionSpec& spec : profile.functions)
        if (std::find(spec.alternatives.begin(), spec.alternatives.end(), function) !=
            spec.alternatives.end())
          names = spec.alternatives;
      for (const std::string& event : binding.events)
        for (const std::string& name : names)
          add(name, event_role(event));
    }
  for (const PairSpec& pair : profile.pairs) {
    add(pair.name, event_role(pair.begin));
    add(pair.name, event_role(pair.end));
    for (const std::string& event : pair.claims)
      add(pair.name, event_role(event));
  }
  return spans;
}

StallStats::StallStats(Limits limits, const StallSpans& spans) : limits_(limits), spans_(spans) {
  limits_.task_rows = std::max<std::size_t>(limits_.task_rows, 1);
  recent_names_.fill({});
}

void StallStats::read_lines(const Incident& incident, LineFacts& facts) {
  lines_.clear();
  const std::span<const Tracepoint> points = incident.tracepoints;
  if (points.empty())
    return;
  const auto add = [&](Nanos first, Nanos last, Figures figures) {
    facts.figures.add(figures);
    if (figures.any())
      lines_.push_back({first, last, figures});
  };
  events_.clear();
  for (const Tracepoint& point : points)
    events_.push_back(point.name.empty() ? nullptr : known_event(point.name));
  const auto role = [this](std::size_t i) {
    return events_[i] != nullptr ? events_[i]->role : EventRole::None;
  };
  // A shrinker pair prints its start and end: the span is the call, and its
  // times are the span's. Within other spans, starts and ends pair by
  // instance, with their own times.
  const bool shrinker_pair = role(points.size() - 1) == EventRole::ShrinkSlabEnd;
  if (shrinker_pair && (points.size() == 1 || role(0) == EventRole::ShrinkSlabStart))
    add(incident.start, incident.end, {.shrinker_time = incident.end - incident.start});
  open_shrinks_.clear();
  for (std::size_t i = 0; i < points.size(); ++i) {
    const KnownEvent* const event = events_[i];
    if (event == nullptr)
      continue;
    const std::string_view fields = points[i].fields;
    const Nanos ts = points[i].ts;
    switch (event->role) {
    case EventRole::None:
    case EventRole::KswapdWake: // what background tasks did: BackgroundWork's
    case EventRole::KswapdSleep:
    case EventRole::KcompactdWake:
    case EventRole::KcompactdSleep:
      break;
    case EventRole::LruShrinkInactive:
    case EventRole::ReclaimWrite:
    case EventRole::ReclaimThrottled:
      add(ts, ts, reclaim_figures(*event, fields));
      break;
    case EventRole::CompactMigrate:
    case EventRole::CompactEnd:
      facts.compaction = facts.compacted.read(*event, fields) || facts.compaction;
      facts.ended = facts.ended || event->role == EventRole::CompactEnd;
      break;
    case EventRole::ShrinkSlabStart:
    case EventRole::ShrinkSlabEnd: {
      if (shrinker_pair && (i == 0 || i + 1 == points.size()))
        break; // the span itself, counted above
      const std::string_view instance = parse_shrinker_id(fields).instance;
      if (event->role == EventRole::ShrinkSlabStart) {
        open_shrinks_.push_back({instance, ts});
        break;
      }
      const auto start = std::find_if(open_shrinks_.rbegin(), open_shrinks_.rend(),
                                      [&](const OpenShrink& s) { return s.instance == instance; });
      if (start == open_shrinks_.rend())
        break; // its start was printed by another span, or not at all
      if (start->ts >= 0 && ts >= start->ts)
        add(start->ts, ts, {.shrinker_time = ts - start->ts});
      open_shrinks_.erase(std::next(start).base());
      break;
    }
    case EventRole::ReclaimEnd:
      facts.reclaim = true;
      facts.pages_reclaimed += positive_field(fields, event->pages_key);
      break;
    case EventRole::ReclaimBegin:
    case EventRole::CompactPages: // the stall's order and flags
      facts.reclaim = facts.reclaim || event->role == EventRole::ReclaimBegin;
      facts.compaction = facts.compaction || event->role == EventRole::CompactPages;
      if (facts.order)
        break;
      if (const auto order = key_value_field(fields, event->order_key))
        facts.order = parse_integer(*order);
      facts.gfp_flags = key_value_field(fields, event->gfp_key).value_or("");
      break;
    }
  }
}

std::string_view StallStats::intern(std::string_view name) {
  // The binder's names mostly sit at the same addresses from span to span:
  // a slot by address, checked by content.
  const auto address = static_cast<std::uint64_t>(reinterpret_cast<std::uintptr_t>(name.data()));
  std::string_view& cached = recent_names_[(address * 0x9E3779B97F4A7C15ULL) >> 58]; // 64 slots
  if (cached == name && !cached.empty())
    return cached;
  auto found = names_.find(name);
  if (found == names_.end())
    found = names_.emplace(name).first;
  cached = *found;
  return cached;
}

std::size_t StallStats::RowKeyHash::operator()(const RowKey& key) const {
  return spread(
      hash_with({}, {static_cast<std::uint64_t>(static_cast<std::uint32_t>(key.pid)) << 2 |
                         (key.other ? 2u : 0u) | (key.background ? 1u : 0u),
                     address_of(key.kind), address_of(key.span), address_of(key.shrinker),
                     address_of(key.instance)}));
}

std::size_t StallStats::OrderKeyHash::operator()(const OrderKey& key) const {
  return spread(hash_with(key.gfp_flags, {static_cast<std::uint64_t>(key.order.value_or(-1)) << 2 |
                                              (key.order ? 2u : 0u) | (key.other ? 1u : 0u),
                                          address_of(key.kind)}));
}

namespace {
// The comm function_graph and the event lines print for a task whose comm
// the kernel had not saved (trace_find_cmdline()).
constexpr std::string_view kUnsavedComm = "<...>";
} // namespace

namespace {
// The shrinker of a shrinker call: a span whose lines are its own
// mm_shrink_slab_start and _end (or the end alone).
std::optional<ShrinkerId> shrinker_call(const Incident& incident) {
  const std::span<const Tracepoint> points = incident.tracepoints;
  if (points.empty() || event_role(points.back().name) != EventRole::ShrinkSlabEnd ||
      (points.size() > 1 && event_role(points.front().name) != EventRole::ShrinkSlabStart))
    return std::nullopt;
  return parse_shrinker_id(points.back().fields);
}
} // namespace

StallRow& StallStats::row_for(const Incident& incident) {
  RowKey key{incident.pid, false, incident.background, intern(incident.kind), intern(incident.span),
             {},           {}};
  if (const std::optional<ShrinkerId> shrinker = shrinker_call(incident)) {
    key.shrinker = intern(shrinker->symbol);
    key.instance = intern(shrinker->instance);
  }
  if (StallRow* const found = row_index_.find(key)) {
    if (found->comm != incident.comm && incident.comm != kUnsavedComm)
      rename_task(incident.pid, incident.comm); // `<...>` until now, or an exec
    attribute(*found, incident);
    return *found;
  }
  if (task_rows_ >= limits_.task_rows)
    fold_smallest_rows();
  StallRow* row = nullptr;
  if (free_rows_.empty()) {
    row = &rows_.emplace_back();
  } else {
    row = free_rows_.back();
    free_rows_.pop_back();
  }
  row->pid = key.pid;
  row->kind = key.kind;
  row->span = key.span;
  row->shrinker = key.shrinker;
  row->instance = key.instance;
  row->background = key.background;
  row->other = false;
  row_index_.insert(RowKey::of(*row), row);
  ++task_rows_;
  TaskName* name = task_names_.find(key.pid);
  if (name == nullptr)
    name = &task_names_.insert(key.pid,
                               std::make_unique<TaskName>(TaskName{std::string(incident.comm), 0}));
  else if (name->comm != incident.comm && incident.comm != kUnsavedComm)
    rename_task(key.pid, incident.comm);
  row->comm = name->comm;
  ++name->rows;
  row->cgroup.reset();
  attribute(*row, incident);
  return *row;
}

void StallStats::attribute(StallRow& row, const Incident& incident) {
  if (incident.cgroup == nullptr ||
      (row.cgroup != nullptr && row.cgroup->path == incident.cgroup->path))
    return;
  row.cgroup = std::make_shared<const TaskCgroup>(*incident.cgroup);
}

void StallStats::rename_task(std::int32_t pid, std::string_view comm) {
  if (TaskName* const name = task_names_.find(pid))
    name->comm.assign(comm);
  for (StallRow& row : rows_)
    if (row.pid == pid && !row.other)
      row.comm.assign(comm);
}

// Folds the task rows with the smallest totals (an eighth of the table) into
// their kinds' "other tasks" rows, and frees their slots. Runs only when a
// new task needs a row and the table is full; folding a batch keeps that
// rare when thousands of tasks come and go.
void StallStats::fold_smallest_rows() {
  // The rows' sizes side by side, so that the selection reads no row.
  std::vector<FoldKey>& tasks = scratch_keys_; // reused: folds come often with many tasks
  tasks.clear();
  for (StallRow& row : rows_)
    if (!row.other && row.durations.count() > 0)
      tasks.push_back({row.durations.total(), row.durations.count(), &row});
  const std::size_t batch = std::clamp<std::size_t>(limits_.task_rows / 8, 1, tasks.size());
  std::nth_element(tasks.begin(), tasks.begin() + static_cast<std::ptrdiff_t>(batch - 1),
                   tasks.end(), [](const FoldKey& a, const FoldKey& b) {
                     return std::pair(a.total, a.count) < std::pair(b.total, b.count);
                   });
  for (std::size_t n = 0; n < batch; ++n) {
    StallRow& folded = *tasks[n].row;
    row_index_.erase(RowKey::of(folded));
    const RowKey other_key{
        -1, true, folded.background, folded.kind, folded.span, folded.shrinker, folded.instance};
    if (TaskName* const name = task_names_.find(folded.pid); name && --name->rows == 0)
      task_names_.erase(folded.pid);
    StallRow* into = row_index_.find(other_key);
    if (into == nullptr) {
      into = &rows_.emplace_back(StallRow{-1,
                                          {},
                                          folded.kind,
                                          folded.span,
                                          folded.shrinker,
                                          folded.instance,
                                          folded.background,
                                          true,
                                          {},
                                          {},
                                          {}});
      row_index_.insert(other_key, into);
    }
    into->durations.merge(folded.durations);
    into->yield.merge(folded.yield);
    folded = StallRow{};
    free_rows_.push_back(&folded);
    --task_rows_;
    ++folded_rows_;
  }
}

std::size_t StallStats::order_rows_kept() const {
  return static_cast<std::size_t>(std::count_if(orders_.begin(), orders_.end(),
                                                [](const OrderRow& row) { return !row.other; }));
}

StallStats::SpanClass StallStats::span_class(std::string_view span) {
  for (const auto& [name, known] : span_classes_)
    if (name.data() == span.data())
      return known;
  const auto named = [span](const std::vector<std::string>& names) {
    return std::find(names.begin(), names.end(), span) != names.end();
  };
  const SpanClass known{named(spans_.ordered), named(spans_.reclaim), named(spans_.compaction),
                        named(spans_.ended)};
  span_classes_.emplace_back(span, known);
  return known;
}

void StallStats::add_order(std::string_view kind, std::optional<std::int64_t> order,
                           std::string_view gfp, Nanos duration) {
  kind = intern(kind);
  OrderRow* row = order_index_.find(OrderKey{false, kind, order, gfp});
  if (row == nullptr) {
    const bool full = order_index_.size() >= limits_.order_rows;
    const OrderKey folded_key{true, kind, 0, {}};
    if (full) // new combinations go to the kind's folded row
      row = order_index_.find(folded_key);
    if (row == nullptr) {
      row = &orders_.emplace_back(OrderRow{std::string(kind), full ? 0 : order,
                                           full ? std::string() : std::string(gfp), full, 0, 0, 0});
      order_index_.insert(full ? folded_key : OrderKey{false, kind, order, row->gfp_flags}, row);
    }
  }
  ++row->count;
  row->total += duration;
  row->max = std::max(row->max, duration);
}

void StallStats::incident(const Incident& incident) {
  const bool stall = !incident.kind.empty();
  const bool timed = incident.start >= 0 && incident.end >= incident.start;
  if (!timed) // a trace without timestamps: no duration to count
    return;
  const Nanos duration = incident.end - incident.start;
  newest_end_ = std::max(newest_end_, incident.end);
  if (++incidents_ % kSweepEvery == 0)
    sweep_held(Sweep::Aged);
  if (incident.background) { // kswapd, kcompactd: their own table, nothing else
    if (stall)
      row_for(incident).durations.add(duration);
    return;
  }
  LineFacts facts;
  read_lines(incident, facts);
  if (!stall) {
    hold_lines(incident); // for a reclaim stall around them
    return;
  }
  ++stalls_;
  StallRow& row = row_for(incident);
  row.durations.add(duration);
  if (histogram_ >= histograms_.size() || histograms_[histogram_].kind != incident.kind)
    histogram_ =
        static_cast<std::size_t>(&find_kind(histograms_, incident.kind) - histograms_.data());
  KindHistogram& histogram = histograms_[histogram_];
  histogram.histogram.add(duration);
  histogram.total += duration;
  if (!worst_ || duration > worst_->duration)
    worst_ = WorstStall{incident.pid, row.comm, std::string(incident.kind),
                        std::string(incident.span), duration};
  const SpanClass known = span_class(intern(incident.span));
  if (facts.order || known.ordered) {
    add_order(incident.kind, facts.order, facts.gfp_flags, duration);
    row.yield.orders.add(facts.order);
  }
  if (facts.compaction || known.compaction) {
    row.yield.compaction = true;
    row.yield.compacted.add(facts.compacted);
    if (known.ended && !facts.ended)
      ++row.yield.compacted.ends[CompactionYield::kUnknownEnd];
  }
  if (!facts.reclaim && !known.reclaim) {
    drop_counted(incident);
    hold_lines(incident); // for a reclaim stall around this one
    return;
  }
  HeldFigures taken = take_held(incident);
  taken.figures.add(facts.figures);
  ReclaimTotals& reclaim = find_kind(reclaim_, incident.kind);
  ++reclaim.count;
  reclaim.total += duration;
  reclaim.figures.add(taken.figures);
  reclaim.pages_reclaimed += facts.pages_reclaimed;
  row.yield.reclaim = true;
  row.yield.figures.add(taken.figures);
  row.yield.pages_reclaimed += facts.pages_reclaimed;
  if (taken.figures.any()) {
    taken.counted = true;
    hold(incident.pid, taken); // for a reclaim around this one (soft limit in direct)
  }
}

std::vector<const StallRow*> StallStats::rows(StallTable table) const {
  const bool background = table == StallTable::Background;
  std::vector<const StallRow*> rows;
  for (const StallRow& row : rows_)
    if (row.background == background && row.durations.count() > 0)
      rows.push_back(&row);
  std::sort(rows.begin(), rows.end(), [](const StallRow* a, const StallRow* b) {
    return std::forward_as_tuple(a->other, b->durations.total(), b->durations.count(), a->comm,
                                 a->pid, a->kind, a->span, a->shrinker, a->instance) <
           std::forward_as_tuple(b->other, a->durations.total(), a->durations.count(), b->comm,
                                 b->pid, b->kind, b->span, b->shrinker, b->instance);
  });
  return rows;
}

void StallStats::finish(const ShrinkerStats& shrinkers) {
  shrinkers_.clear();
  for (const ShrinkerSummary& shrinker : shrinkers.summary()) {
    shrinkers_.push_back({std::string(shrinker.symbol), {}, shrinker.totals});
    if (shrinker.instances.size() > 1)
      for (const ShrinkerSummary::Instance& instance : shrinker.instances)
        shrinkers_.push_back(
            {std::string(shrinker.symbol), std::string(instance.name), instance.totals});
  }
}

bool StallStats::several_instances(std::string_view symbol) const {
  std::string_view seen;
  for (const StallRow& row : rows_)
    if (row.shrinker == symbol && row.durations.count() > 0) {
      if (!seen.empty() && seen.data() != row.instance.data())
        return true;
      seen = row.instance;
    }
  return false;
}

std::vector<const OrderRow*> StallStats::order_rows() const {
  std::vector<const OrderRow*> rows;
  for (const OrderRow& row : orders_)
    rows.push_back(&row);
  std::sort(rows.begin(), rows.end(), [](const OrderRow* a, const OrderRow* b) {
    return std::forward_as_tuple(a->other, b->total, a->kind, a->order, a->gfp_flags) <
           std::forward_as_tuple(b->other, a->total, b->kind, b->order, b->gfp_flags);
  });
  return rows;
}

std::vector<ReclaimTotals> StallStats::reclaim() const {
  std::vector<ReclaimTotals> totals = reclaim_;
  std::sort(totals.begin(), totals.end(), [](const ReclaimTotals& a, const ReclaimTotals& b) {
    return std::tie(b.total, a.kind) < std::tie(a.total, b.kind);
  });
  return totals;
}

std::vector<const KindHistogram*> StallStats::histograms() const {
  std::vector<const KindHistogram*> histograms;
  for (const KindHistogram& histogram : histograms_)
    histograms.push_back(&histogram);
  std::sort(histograms.begin(), histograms.end(),
            [](const KindHistogram* a, const KindHistogram* b) {
              return std::tie(b->total, a->kind) < std::tie(a->total, b->kind);
            });
  return histograms;
}

} // namespace allocwatch

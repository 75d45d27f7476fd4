#include "report/stall_stats.h"

#include "trace/parser.h"

#include <algorithm>
#include <cstring>
#include <tuple>

namespace allocwatch {

namespace {

// Held figures are swept for age every this many incidents.
constexpr std::uint64_t kSweepEvery = 4096;

// "mm_vmscan_direct_reclaim_begin", "mm_vmscan_memcg_softlimit_reclaim_end", ...
bool is_reclaim_event(std::string_view name, std::string_view suffix) {
  return name.starts_with("mm_vmscan_") && name.ends_with(suffix);
}

// `name` starts with "mm_".
bool is_report_event(std::string_view name) {
  switch (name.size() > 3 ? name[3] : '\0') {
  case 'v':
    return name == "mm_vmscan_lru_shrink_inactive" || is_reclaim_event(name, "_reclaim_begin") ||
           is_reclaim_event(name, "_reclaim_end");
  case 's':
    return name == "mm_shrink_slab_start" || name == "mm_shrink_slab_end";
  case 'c':
    return name == "mm_compaction_try_to_compact_pages";
  default:
    return false;
  }
}

// Finds the report's events in a line without parsing all of it (a span
// prints its return, compaction's events, ...: most lines are not of
// interest): the event name is the first "mm_" word that runs to a ':', in
// both line forms ("... |  /* name: fields */", "comm-pid [cpu] ... ts: name:
// fields"). A comm that starts with "mm_" is followed by a space before any
// ':', so it is passed over.
StallStats::LineEvent find_report_event(std::string_view line) {
  const char* const begin = line.data();
  const char* const end = begin + line.size();
  // By the '_' of "mm_": the first one on most lines, where 'm' is in many comms.
  for (const char* under = begin + 2; under < end; ++under) {
    under =
        static_cast<const char*>(std::memchr(under, '_', static_cast<std::size_t>(end - under)));
    if (under == nullptr)
      return {};
    if (under[-1] != 'm' || under[-2] != 'm')
      continue;
    const char* const m = under - 2;
    const auto* colon =
        static_cast<const char*>(std::memchr(m, ':', static_cast<std::size_t>(end - m)));
    if (colon == nullptr)
      return {};
    const std::string_view name(m, static_cast<std::size_t>(colon - m));
    if (name.find(' ') != std::string_view::npos)
      continue; // part of a comm
    if (!is_report_event(name))
      return {};
    const std::size_t at = static_cast<std::size_t>(m - begin);
    const std::size_t colon_at = at + name.size();
    std::string_view fields = line.substr(std::min(colon_at + 2, line.size()));
    if (fields.ends_with(" */"))
      fields.remove_suffix(3);
    return {name, fields};
  }
  return {};
}

void append(std::string& key, const void* bytes, std::size_t size) {
  key.append(static_cast<const char*>(bytes), size);
}

void append_text(std::string& key, std::string_view text) {
  const auto size = static_cast<std::uint32_t>(text.size());
  append(key, &size, sizeof size); // sized, so that no byte of a comm can fake a boundary
  key.append(text);
}

// A row's key: who (pid, comm; or the "other tasks" of a kind), what.
void row_key(std::string& key, std::int32_t pid, bool other, bool background, std::string_view comm,
             std::string_view kind, std::string_view span) {
  key.clear();
  append(key, &pid, sizeof pid);
  key.push_back(static_cast<char>((other ? 2 : 0) | (background ? 1 : 0)));
  append_text(key, comm);
  append_text(key, kind);
  key.append(span);
}

void order_key(std::string& key, bool other, std::string_view kind, std::int64_t order,
               std::string_view gfp) {
  key.clear();
  key.push_back(other ? 1 : 0);
  append(key, &order, sizeof order);
  append_text(key, kind);
  key.append(gfp);
}

template <class Row> Row& find_kind(std::vector<Row>& rows, std::string_view kind) {
  for (Row& row : rows)
    if (row.kind == kind)
      return row;
  Row& row = rows.emplace_back();
  row.kind = std::string(kind);
  return row;
}

std::uint64_t non_negative(std::optional<std::int64_t> value) {
  return value && *value > 0 ? static_cast<std::uint64_t>(*value) : 0;
}

} // namespace

void StallStats::Figures::add(const Figures& other) {
  pages_scanned += other.pages_scanned;
  shrinker_time += other.shrinker_time;
}

StallStats::StallStats(Limits limits) : limits_(limits) {
  limits_.task_rows = std::max<std::size_t>(limits_.task_rows, 1);
  recent_rows_.fill(SIZE_MAX); // none yet
  recent_orders_.fill(SIZE_MAX);
}

void StallStats::read_lines(const Incident& incident, LineFacts& facts) {
  const std::span<const std::string_view> lines = incident.lines;
  if (lines.empty())
    return;
  events_.clear();
  for (std::string_view line : lines)
    events_.push_back(find_report_event(line));
  // A shrinker pair prints its start and end: the span is the call, and its
  // times are the span's. Within other spans, starts and ends pair by
  // instance, with their own times.
  const bool shrinker_pair = events_.back().name == "mm_shrink_slab_end";
  if (shrinker_pair && (events_.size() == 1 || events_.front().name == "mm_shrink_slab_start"))
    facts.figures.shrinker_time += incident.end - incident.start;
  open_shrinks_.clear();
  for (std::size_t i = 0; i < events_.size(); ++i) {
    const std::string_view name = events_[i].name;
    const std::string_view fields = events_[i].fields;
    if (name.empty()) {
      continue;
    } else if (name == "mm_vmscan_lru_shrink_inactive") {
      facts.figures.pages_scanned += non_negative(event_field_number(name, fields, "nr_scanned"));
    } else if (name == "mm_shrink_slab_start" || name == "mm_shrink_slab_end") {
      if (shrinker_pair && (i == 0 || i + 1 == events_.size()))
        continue; // the span itself, counted above
      const Nanos ts = parse_line(lines[i]).ts;
      const std::string_view instance = parse_shrinker_id(fields).instance;
      if (name == "mm_shrink_slab_start") {
        open_shrinks_.push_back({instance, ts});
        continue;
      }
      const auto start = std::find_if(open_shrinks_.rbegin(), open_shrinks_.rend(),
                                      [&](const OpenShrink& s) { return s.instance == instance; });
      if (start == open_shrinks_.rend())
        continue; // its start was printed by another span, or not at all
      if (start->ts >= 0 && ts >= start->ts)
        facts.figures.shrinker_time += ts - start->ts;
      open_shrinks_.erase(std::next(start).base());
    } else if (is_reclaim_event(name, "_reclaim_end")) {
      facts.reclaim = true;
      facts.pages_reclaimed += non_negative(event_field_number(name, fields, "nr_reclaimed"));
    } else { // a reclaim's begin, or try_to_compact_pages: the stall's order and flags
      facts.reclaim = facts.reclaim || name.ends_with("_reclaim_begin");
      if (facts.order)
        continue;
      facts.order = event_field_number(name, fields, "order");
      // try_to_compact_pages prints gfp_mask
      facts.gfp_flags = event_field(name, fields, "gfp_flags")
                            .value_or(event_field(name, fields, "gfp_mask").value_or(""));
    }
  }
}

StallRow& StallStats::row_for(const Incident& incident) {
  // A task's stalls come in runs: most find their row in the cache, checked
  // field by field, without building and hashing the key.
  std::size_t& cached =
      recent_rows_[(static_cast<std::uint32_t>(incident.pid) * 31 + incident.span.size()) %
                   recent_rows_.size()];
  if (cached < rows_.size()) {
    StallRow& row = rows_[cached];
    if (row.pid == incident.pid && !row.other && row.background == incident.background &&
        row.span == incident.span && row.kind == incident.kind && row.comm == incident.comm)
      return row;
  }
  row_key(key_, incident.pid, false, incident.background, incident.comm, incident.kind,
          incident.span);
  if (const auto found = row_index_.find(std::string_view(key_)); found != row_index_.end()) {
    cached = found->second;
    return rows_[found->second];
  }
  if (task_rows_ >= limits_.task_rows)
    fold_smallest_rows();
  std::size_t slot = rows_.size();
  if (free_rows_.empty()) {
    rows_.emplace_back();
  } else {
    slot = free_rows_.back();
    free_rows_.pop_back();
  }
  StallRow& row = rows_[slot];
  row = StallRow{incident.pid,
                 std::string(incident.comm),
                 std::string(incident.kind),
                 std::string(incident.span),
                 incident.background,
                 false,
                 {}};
  row_index_.emplace(key_, slot);
  ++task_rows_;
  cached = slot;
  return row;
}

// Folds the task rows with the smallest totals (an eighth of the table) into
// their kinds' "other tasks" rows, and frees their slots. Runs only when a
// new task needs a row and the table is full; folding a batch keeps that
// rare when thousands of tasks come and go.
void StallStats::fold_smallest_rows() {
  std::vector<std::size_t>& tasks = scratch_slots_; // reused: folds come often with many tasks
  tasks.clear();
  for (std::size_t i = 0; i < rows_.size(); ++i)
    if (!rows_[i].other && rows_[i].durations.count() > 0)
      tasks.push_back(i);
  const std::size_t batch = std::clamp<std::size_t>(limits_.task_rows / 8, 1, tasks.size());
  const auto smaller = [this](std::size_t a, std::size_t b) {
    return std::pair(rows_[a].durations.total(), rows_[a].durations.count()) <
           std::pair(rows_[b].durations.total(), rows_[b].durations.count());
  };
  std::nth_element(tasks.begin(), tasks.begin() + static_cast<std::ptrdiff_t>(batch - 1),
                   tasks.end(), smaller);
  std::string key;
  for (std::size_t n = 0; n < batch; ++n) {
    const std::size_t slot = tasks[n];
    StallRow folded = std::move(rows_[slot]);
    rows_[slot] = StallRow{};
    row_key(key, folded.pid, false, folded.background, folded.comm, folded.kind, folded.span);
    row_index_.erase(key);
    row_key(key, -1, true, folded.background, {}, folded.kind, folded.span);
    auto other = row_index_.find(key);
    if (other == row_index_.end()) {
      rows_.push_back(StallRow{-1, {}, folded.kind, folded.span, folded.background, true, {}});
      other = row_index_.emplace(key, rows_.size() - 1).first;
    }
    rows_[other->second].durations.merge(folded.durations);
    free_rows_.push_back(slot);
    --task_rows_;
    ++folded_rows_;
  }
}

void StallStats::add_order(std::string_view kind, std::int64_t order, std::string_view gfp,
                           Nanos duration) {
  // As for task rows: a verified cache first, by order and flags.
  std::size_t& cached =
      recent_orders_[(static_cast<std::size_t>(order) * 31 + gfp.size()) % recent_orders_.size()];
  if (cached < orders_.size()) {
    OrderRow& row = orders_[cached];
    if (!row.other && row.order == order && row.gfp_flags == gfp && row.kind == kind) {
      ++row.count;
      row.total += duration;
      row.max = std::max(row.max, duration);
      return;
    }
  }
  order_key(key_, false, kind, order, gfp);
  auto found = order_index_.find(std::string_view(key_));
  if (found == order_index_.end()) {
    const bool full = order_index_.size() >= limits_.order_rows;
    if (full) { // new combinations go to the kind's folded row
      order_key(key_, true, kind, 0, {});
      found = order_index_.find(std::string_view(key_));
    }
    if (found == order_index_.end()) {
      orders_.push_back(OrderRow{std::string(kind), full ? 0 : order,
                                 full ? std::string() : std::string(gfp), full, 0, 0, 0});
      found = order_index_.emplace(key_, orders_.size() - 1).first;
    }
  }
  cached = found->second;
  OrderRow& row = orders_[found->second];
  ++row.count;
  row.total += duration;
  row.max = std::max(row.max, duration);
}

StallStats::Figures StallStats::take_nested(const Incident& incident, const Figures& own) {
  Figures sum = own;
  std::vector<HeldFigures>* const held_of_task = held_for(incident.pid, false);
  if (held_of_task == nullptr)
    return sum;
  std::vector<HeldFigures>& held = *held_of_task;
  // Timestamps are truncated to whole microseconds: a call nested in this one
  // may seem to start up to 1 us before it. Spans close in time order, so the
  // nested ones are the newest held: scan back to the first that ended before.
  const Nanos from = incident.start - kMicro;
  auto first = held.end();
  while (first != held.begin() && std::prev(first)->end >= from)
    --first;
  const auto kept = std::remove_if(first, held.end(), [&](const HeldFigures& h) {
    if (h.start < from || h.end > incident.end)
      return false;
    sum.add(h.figures);
    return true;
  });
  held_spans_ -= static_cast<std::size_t>(held.end() - kept);
  held.erase(kept, held.end()); // an empty one stays until the sweep: tasks come back
  return sum;
}

std::vector<StallStats::HeldFigures>* StallStats::held_for(std::int32_t pid, bool create) {
  // Consecutive spans are mostly of one task: its list is remembered
  // (the map's nodes stay put; the sweep forgets it).
  if (held_task_ != nullptr && held_pid_ == pid)
    return held_task_;
  auto found = held_.find(pid);
  if (found == held_.end()) {
    if (!create)
      return nullptr;
    found = held_.emplace(pid, std::vector<HeldFigures>{}).first;
  }
  held_pid_ = pid;
  held_task_ = &found->second;
  return held_task_;
}

void StallStats::hold(const Incident& incident, const Figures& figures) {
  if (held_spans_ >= kHeldSpans)
    sweep_held(true);
  std::vector<HeldFigures>& held = *held_for(incident.pid, true);
  held.push_back({incident.start, incident.end, figures});
  ++held_spans_;
}

// Drops the figures that aged out of the window; `make_room`: also the
// oldest, until a quarter of kHeldSpans is free (a long-running stall around
// them, if any, misses them), so that the held figures of thousands of tasks
// stay bounded all together.
void StallStats::sweep_held(bool make_room) {
  Nanos cut = newest_end_ - limits_.window;
  if (make_room) {
    std::vector<Nanos>& ends = scratch_ends_; // reused, as the room it makes is
    ends.clear();
    for (const auto& [pid, held] : held_)
      for (const HeldFigures& h : held)
        ends.push_back(h.end);
    const std::size_t drop = ends.size() - kHeldSpans * 3 / 4;
    std::nth_element(ends.begin(), ends.begin() + static_cast<std::ptrdiff_t>(drop), ends.end());
    cut = std::max(cut, ends[drop]);
  }
  held_task_ = nullptr;
  for (auto task = held_.begin(); task != held_.end();) {
    std::vector<HeldFigures>& held = task->second;
    const auto kept = std::remove_if(held.begin(), held.end(),
                                     [cut](const HeldFigures& h) { return h.end < cut; });
    held_spans_ -= static_cast<std::size_t>(held.end() - kept);
    held.erase(kept, held.end());
    if (held.capacity() > 64 && held.size() < held.capacity() / 4)
      held.shrink_to_fit(); // a burst is over: give its room back
    task = held.empty() ? held_.erase(task) : std::next(task);
  }
}

void StallStats::incident(const Incident& incident) {
  const bool stall = !incident.kind.empty();
  const bool timed = incident.start >= 0 && incident.end >= incident.start;
  if (!timed) // a trace without timestamps: no duration to count
    return;
  const Nanos duration = incident.end - incident.start;
  newest_end_ = std::max(newest_end_, incident.end);
  if (++incidents_ % kSweepEvery == 0)
    sweep_held(false);
  if (incident.background) { // kswapd, kcompactd: their own table, nothing else
    if (stall)
      row_for(incident).durations.add(duration);
    return;
  }
  LineFacts facts;
  read_lines(incident, facts);
  const Figures figures = take_nested(incident, facts.figures);
  if (!stall) {
    if (figures.any())
      hold(incident, figures);
    return;
  }
  ++stalls_;
  row_for(incident).durations.add(duration);
  if (histogram_ >= histograms_.size() || histograms_[histogram_].kind != incident.kind)
    histogram_ =
        static_cast<std::size_t>(&find_kind(histograms_, incident.kind) - histograms_.data());
  KindHistogram& histogram = histograms_[histogram_];
  histogram.histogram.add(duration);
  histogram.total += duration;
  if (!worst_ || duration > worst_->duration)
    worst_ = WorstStall{incident.pid, std::string(incident.comm), std::string(incident.kind),
                        std::string(incident.span), duration};
  if (facts.order)
    add_order(incident.kind, *facts.order, facts.gfp_flags, duration);
  if (facts.reclaim) {
    ReclaimTotals& reclaim = find_kind(reclaim_, incident.kind);
    ++reclaim.count;
    reclaim.total += duration;
    reclaim.pages_scanned += figures.pages_scanned;
    reclaim.pages_reclaimed += facts.pages_reclaimed;
    reclaim.shrinker_time += figures.shrinker_time;
  }
  if (figures.any())
    hold(incident, figures); // for a reclaim stall around this one
}

std::vector<const StallRow*> StallStats::rows(bool background) const {
  std::vector<const StallRow*> rows;
  for (const StallRow& row : rows_)
    if (row.background == background && row.durations.count() > 0)
      rows.push_back(&row);
  std::sort(rows.begin(), rows.end(), [](const StallRow* a, const StallRow* b) {
    return std::forward_as_tuple(a->other, b->durations.total(), b->durations.count(), a->comm,
                                 a->pid, a->kind, a->span) <
           std::forward_as_tuple(b->other, a->durations.total(), a->durations.count(), b->comm,
                                 b->pid, b->kind, b->span);
  });
  return rows;
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

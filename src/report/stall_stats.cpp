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

// A row's key, hashed: who (pid, comm; or the "other tasks" of a kind), what
// (interned names: their addresses tell them apart).
std::uint64_t row_hash(std::int32_t pid, bool other, bool background, std::string_view comm,
                       std::string_view kind, std::string_view span) {
  std::uint64_t h = std::hash<std::string_view>{}(comm);
  for (const std::uint64_t word :
       {static_cast<std::uint64_t>(static_cast<std::uint32_t>(pid)) << 2 | (other ? 2u : 0u) |
            (background ? 1u : 0u),
        static_cast<std::uint64_t>(reinterpret_cast<std::uintptr_t>(kind.data())),
        static_cast<std::uint64_t>(reinterpret_cast<std::uintptr_t>(span.data()))}) {
    h ^= word + 0x9E3779B97F4A7C15ULL + (h << 6) + (h >> 2);
  }
  return h;
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
  recent_names_.fill({});
  recent_orders_.fill(SIZE_MAX);
}

void StallStats::read_lines(const Incident& incident, LineFacts& facts) {
  const std::span<const std::string_view> lines = incident.lines;
  lines_.clear();
  if (lines.empty())
    return;
  events_.clear();
  for (std::string_view line : lines)
    events_.push_back(find_report_event(line));
  const auto add = [&](std::size_t line, Nanos first, Nanos last, Figures figures) {
    facts.figures.add(figures);
    if (figures.any())
      lines_.push_back({line, {first, last, figures}});
  };
  // A shrinker pair prints its start and end: the span is the call, and its
  // times are the span's. Within other spans, starts and ends pair by
  // instance, with their own times.
  const bool shrinker_pair = events_.back().name == "mm_shrink_slab_end";
  if (shrinker_pair && (events_.size() == 1 || events_.front().name == "mm_shrink_slab_start"))
    add(0, incident.start, incident.end, {0, incident.end - incident.start});
  open_shrinks_.clear();
  for (std::size_t i = 0; i < events_.size(); ++i) {
    const std::string_view name = events_[i].name;
    const std::string_view fields = events_[i].fields;
    if (name.empty()) {
      continue;
    } else if (name == "mm_vmscan_lru_shrink_inactive") {
      // Its time is read only if it is held: most are a reclaim stall's own.
      add(i, kUnread, kUnread, {non_negative(event_field_number(name, fields, "nr_scanned")), 0});
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
        add(i, start->ts, ts, {0, ts - start->ts});
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

std::string_view StallStats::intern(std::string_view name) {
  // The binder's names mostly sit at the same addresses from span to span:
  // a slot by address, checked by content.
  std::string_view& cached =
      recent_names_[(reinterpret_cast<std::uintptr_t>(name.data()) >> 3) % recent_names_.size()];
  if (cached == name && !cached.empty())
    return cached;
  auto found = names_.find(name);
  if (found == names_.end())
    found = names_.emplace(name).first;
  cached = *found;
  return cached;
}

std::size_t StallStats::find_row(std::uint64_t hash, std::int32_t pid, bool other, bool background,
                                 std::string_view comm, std::string_view kind,
                                 std::string_view span) const {
  const auto [first, last] = row_index_.equal_range(hash);
  for (auto it = first; it != last; ++it) {
    const StallRow& row = rows_[it->second];
    if (row.pid == pid && row.other == other && row.background == background &&
        row.kind.data() == kind.data() && row.span.data() == span.data() && row.comm == comm)
      return it->second;
  }
  return rows_.size();
}

StallRow& StallStats::row_for(const Incident& incident) {
  // A task's stalls come in runs: most find their row in the cache, checked
  // field by field.
  std::size_t& cached =
      recent_rows_[(static_cast<std::uint32_t>(incident.pid) * 31 + incident.span.size()) %
                   recent_rows_.size()];
  if (cached < rows_.size()) {
    StallRow& row = rows_[cached];
    if (row.pid == incident.pid && !row.other && row.background == incident.background &&
        row.span == incident.span && row.kind == incident.kind && row.comm == incident.comm)
      return row;
  }
  const std::string_view kind = intern(incident.kind);
  const std::string_view span = intern(incident.span);
  const std::uint64_t hash =
      row_hash(incident.pid, false, incident.background, incident.comm, kind, span);
  if (const std::size_t found =
          find_row(hash, incident.pid, false, incident.background, incident.comm, kind, span);
      found < rows_.size()) {
    cached = found;
    return rows_[found];
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
  row.pid = incident.pid;
  row.comm.assign(incident.comm);
  row.kind = kind;
  row.span = span;
  row.background = incident.background;
  row.other = false;
  row_index_.emplace(hash, slot);
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
  for (std::size_t n = 0; n < batch; ++n) {
    const std::size_t slot = tasks[n];
    StallRow& folded = rows_[slot];
    const std::uint64_t hash =
        row_hash(folded.pid, false, folded.background, folded.comm, folded.kind, folded.span);
    const auto [first, last] = row_index_.equal_range(hash);
    for (auto it = first; it != last; ++it)
      if (it->second == slot) {
        row_index_.erase(it);
        break;
      }
    const std::uint64_t other_hash =
        row_hash(-1, true, folded.background, {}, folded.kind, folded.span);
    std::size_t other =
        find_row(other_hash, -1, true, folded.background, {}, folded.kind, folded.span);
    if (other == rows_.size()) {
      rows_.push_back(StallRow{-1, {}, folded.kind, folded.span, folded.background, true, {}});
      row_index_.emplace(other_hash, other);
    }
    StallRow& into = rows_[other]; // rows_ may have grown: no reference to `folded` below
    into.durations.merge(rows_[slot].durations);
    rows_[slot] = StallRow{};
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

namespace {

// The held figures of a task (by their first timestamp) whose first line
// lies in an incident's window, [start - 1 us, end]: that window is the
// binding rule's (DESIGN.md), the microsecond for truncated timestamps.
template <class Held>
std::pair<typename std::vector<Held>::iterator, typename std::vector<Held>::iterator>
starting_in_window(std::vector<Held>& held, const Incident& incident) {
  const auto first = std::lower_bound(held.begin(), held.end(), incident.start - kMicro,
                                      [](const Held& h, Nanos ts) { return h.first < ts; });
  const auto last = std::upper_bound(first, held.end(), incident.end,
                                     [](Nanos ts, const Held& h) { return ts < h.first; });
  return {first, last};
}

} // namespace

// Takes the figures held for this reclaim stall: those whose lines lie in
// its window (a call nested in it, or a sibling's last line within the
// microsecond before it), as one, over its window: a reclaim whose window
// holds this one's takes them again.
StallStats::HeldFigures StallStats::take_held(const Incident& incident) {
  HeldFigures sum{incident.start - kMicro, incident.end, {}};
  std::vector<HeldFigures>* const held = held_for(incident.pid, false);
  if (held == nullptr)
    return sum;
  const auto [first, last] = starting_in_window(*held, incident);
  const auto kept = std::remove_if(first, last, [&](const HeldFigures& h) {
    if (h.last > incident.end)
      return false;
    sum.figures.add(h.figures);
    return true;
  });
  held_figures_ -= static_cast<std::size_t>(last - kept);
  held->erase(kept, last); // an empty one stays until the sweep: tasks come back
  return sum;
}

// A stall that is not a reclaim has no reclaim around it (an allocation is
// around a reclaim, not inside one): what the reclaims inside it took would
// only fill the held figures of every task.
void StallStats::drop_counted(const Incident& incident) {
  std::vector<HeldFigures>* const held = held_for(incident.pid, false);
  if (held == nullptr)
    return;
  const auto [first, last] = starting_in_window(*held, incident);
  const auto kept = std::remove_if(
      first, last, [&](const HeldFigures& h) { return h.counted && h.last <= incident.end; });
  held_figures_ -= static_cast<std::size_t>(last - kept);
  held->erase(kept, last);
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

void StallStats::hold(std::int32_t pid, const HeldFigures& figures) {
  if (held_figures_ >= kHeldFigures)
    sweep_held(true);
  std::vector<HeldFigures>& held = *held_for(pid, true);
  // Lines come nearly in time order: the place is at or near the end.
  auto at = held.end();
  while (at != held.begin() && std::prev(at)->first > figures.first)
    --at;
  held.insert(at, figures);
  ++held_figures_;
}

// Drops the figures that aged out of the window; `make_room`: also the
// oldest, until a quarter of kHeldFigures is free (a long-running stall around
// them, if any, misses them), so that the held figures of thousands of tasks
// stay bounded all together.
void StallStats::sweep_held(bool make_room) {
  Nanos cut = newest_end_ - limits_.window;
  if (make_room) {
    std::vector<Nanos>& ends = scratch_ends_; // reused, as the room it makes is
    ends.clear();
    for (const auto& [pid, held] : held_)
      for (const HeldFigures& h : held)
        ends.push_back(h.last);
    const std::size_t drop = ends.size() - kHeldFigures * 3 / 4;
    std::nth_element(ends.begin(), ends.begin() + static_cast<std::ptrdiff_t>(drop), ends.end());
    cut = std::max(cut, ends[drop]);
  }
  held_task_ = nullptr;
  for (auto task = held_.begin(); task != held_.end();) {
    std::vector<HeldFigures>& held = task->second;
    const auto kept = std::remove_if(held.begin(), held.end(),
                                     [cut](const HeldFigures& h) { return h.last < cut; });
    held_figures_ -= static_cast<std::size_t>(held.end() - kept);
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
  if (!stall) {
    hold_lines(incident); // for a reclaim stall around them
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
  if (!facts.reclaim) {
    drop_counted(incident);
    hold_lines(incident); // for a reclaim stall around this one
    return;
  }
  HeldFigures taken = take_held(incident);
  taken.figures.add(facts.figures);
  ReclaimTotals& reclaim = find_kind(reclaim_, incident.kind);
  ++reclaim.count;
  reclaim.total += duration;
  reclaim.pages_scanned += taken.figures.pages_scanned;
  reclaim.pages_reclaimed += facts.pages_reclaimed;
  reclaim.shrinker_time += taken.figures.shrinker_time;
  if (taken.figures.any()) {
    taken.counted = true;
    hold(incident.pid, taken); // for a reclaim around this one (soft limit in direct)
  }
}

void StallStats::hold_lines(const Incident& incident) {
  for (LineFigures& line : lines_) {
    if (line.held.first == kUnread)
      line.held.first = line.held.last = parse_line(incident.lines[line.line]).ts;
    if (line.held.first >= 0)
      hold(incident.pid, line.held);
  }
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

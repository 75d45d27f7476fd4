#include "bind/binder.h"

#include "kernel/vocabulary.h"
#include "profile/stalls.h"
#include "trace/parser.h"
#include "trace/record_text.h"

#include <algorithm>

namespace allocwatch {

namespace {

// Idle tasks are forgotten, and lines older than the window dropped from all
// tasks, every this many lines: often enough to keep memory flat, rarely
// enough that the walk over all tasks costs nothing per line. A trace that
// is slow to come (a watch on a quiet machine: 65536 lines can take hours)
// is also swept once per window of its own time, so that the tasks kept are
// at most those of the last two windows, however long it runs.
constexpr std::uint64_t kSweepEvery = 1u << 16;
// Idle task states kept for reuse.
constexpr std::size_t kSpareTasks = 64;
// A sweep also runs when the tasks known have doubled since the last one
// (and are at least this many): a storm of tasks that appear once each is
// forgotten as fast as it comes, at O(1) a task.
constexpr std::size_t kSweepAtTasks = 4096;
// When the held lines fill this much of the store, a sweep releases what it
// can before the store has to drop lines; at most once per this many lines.
constexpr std::size_t kFullEighths = 7;
constexpr std::uint64_t kFullSweepEvery = 4096;
// Timestamps are truncated to whole microseconds and graph durations to
// 10 ns (whole microseconds from 1 s on), so a span's start as computed can
// lie up to 1 us before the true one, and the rule's slack adds 1 us more:
// a span that truly begins after time X can claim a line down to X - 2 us.
// A line is released only when it is older than that, with 1 us to spare.
constexpr Nanos kReleaseMargin = 3 * kMicro;
// A task's own lines come in its time order, so its newest line is a time it
// has passed. The sweep has no such line for an idle task and takes the
// newest time read from any cpu instead: trace_pipe merges the cpus by time,
// but a record whose commit was delayed (an interrupt wrote one meanwhile)
// can come after a later one from another cpu, so the sweep allows that much
// reordering on top.
constexpr Nanos kReorderMargin = 1 * kMilli;

std::uint64_t task_key(const Record& record) {
  if (record.pid > 0)
    return static_cast<std::uint32_t>(record.pid);
  const std::uint64_t kind = record.pid == 0 ? 1 : 2;
  return kind << 32 | static_cast<std::uint32_t>(record.cpu);
}

bool is_graph_kind(LineKind kind) {
  return kind == LineKind::GraphEntry || kind == LineKind::GraphLeaf ||
         kind == LineKind::GraphReturn;
}

} // namespace

void Binder::EventSet::insert(EventId id) {
  if (words.size() <= id / 64)
    words.resize(id / 64 + 1);
  words[id / 64] |= std::uint64_t{1} << (id % 64);
}

Binder::Binder(const Profile& profile, BinderOptions options, Sink& sink, ShrinkerStats& shrinkers,
               RunStats& stats)
    : profile_(profile), threshold_(options.threshold), window_(profile.window), sink_(sink),
      shrinkers_(shrinkers), stats_(stats), background_work_(options.background_work),
      store_(profile.max_held_bytes, HeldStore::kFirstExtent, options.held_resident),
      release_(options.release) {
  stats_.max_held_bytes = profile.max_held_bytes;
  stats_.threshold = options.threshold;
  if (options.mode)
    use_mode(*options.mode);
}

Binder::~Binder() = default;

Binder::EventRole& Binder::event_role(const std::string& name) {
  auto found = events_.find(name);
  if (found == events_.end()) {
    EventRole role;
    role.id = static_cast<EventId>(events_.size());
    found = events_.emplace(name, std::move(role)).first;
  }
  return found->second;
}

void Binder::use_mode(Mode mode) {
  mode_ = mode;
  for (const PairSpec& spec : profile_.pairs) {
    if (std::find(spec.modes.begin(), spec.modes.end(), mode) == spec.modes.end())
      continue;
    const std::size_t index = pairs_.size();
    ActivePair& pair = pairs_.emplace_back(ActivePair{&spec, {}, {}, nullptr});
    for (const StallKind& stall : profile_.stalls)
      if (std::find(stall.pairs.begin(), stall.pairs.end(), spec.name) != stall.pairs.end())
        pair.kind = stall.kind;
    event_role(spec.begin).begins.push_back(index);
    event_role(spec.end).ends.push_back(index);
    for (const std::string& event : spec.claims) {
      EventRole& role = event_role(event);
      role.claimable = true;
      if (!pair.claims.contains(role.id))
        role.claimed_by.push_back(index);
      pair.claims.insert(role.id);
    }
  }
  if (mode == Mode::Graph) {
    for (const StallKind& stall : profile_.stalls)
      for (const std::string& function : stall.functions)
        functions_[function].kind = stall.kind;
    // Only the kernel's own begin/end pairs, which bracket one call of the
    // function (kswapd_wake..kswapd_sleep also holds kswapd's naps).
    for (const PairSpec& spec : profile_.pairs) {
      const KnownEvent* const begin = known_event(spec.begin);
      if (spec.shrinker || begin == nullptr || begin->pairs_with != spec.end ||
          std::find(spec.modes.begin(), spec.modes.end(), mode) != spec.modes.end())
        continue;
      for (const StallKind& stall : profile_.stalls) {
        if (stall.functions.empty() ||
            std::find(stall.pairs.begin(), stall.pairs.end(), spec.name) == stall.pairs.end())
          continue;
        const std::size_t index = pairs_.size();
        pairs_.push_back(ActivePair{&spec,
                                    {},
                                    stall.kind,
                                    nullptr,
                                    static_cast<std::ptrdiff_t>(stats_.graph_pairs.size())});
        stats_.graph_pairs.push_back({spec.name, stall.functions, 0, 0});
        event_role(spec.begin).begins.push_back(index);
        event_role(spec.end).ends.push_back(index);
        break;
      }
    }
    for (const Binding& binding : profile_.bindings) {
      for (const std::string& function : binding.functions) {
        FunctionRole& role = functions_[function];
        for (const std::string& event : binding.events) {
          EventRole& event_info = event_role(event);
          event_info.claimable = true;
          event_info.bound_to_function = true;
          role.claims.insert(event_info.id);
        }
      }
    }
  }
  if (background_work_ != nullptr)
    for (const KnownEvent& event : known_events())
      if (BackgroundWork::counts(event.role))
        event_role(std::string(event.name)).work = event.role;
  roles_by_id_.assign(events_.size(), nullptr);
  event_names_.assign(events_.size(), {});
  event_roles_.clear();
  for (const auto& [name, role] : events_) {
    roles_by_id_[role.id] = &role; // unordered_map keys and values stay where they are
    event_names_[role.id] = name;
    event_roles_.insert(EventName{name}, &role);
  }
}

std::uint64_t&
Binder::over_threshold_counter(std::map<std::string, std::uint64_t, std::less<>>& counts,
                               std::uint64_t*& cached, std::string_view name) {
  if (cached == nullptr) {
    auto found = counts.find(name);
    if (found == counts.end())
      found = counts.emplace(std::string(name), 0).first;
    cached = &found->second; // std::map values stay where they are
  }
  return *cached;
}

TaskState* Binder::find_task(const Record& record) {
  const std::uint64_t key = task_key(record);
  if (cached_task_ != nullptr && cached_key_ == key)
    return cached_task_;
  TaskState* found = tasks_.find(key);
  if (found == nullptr)
    return nullptr;
  cached_key_ = key;
  cached_task_ = found;
  return cached_task_;
}

TaskState& Binder::task_for(const Record& record) {
  if (TaskState* task = find_task(record))
    return *task;
  if (tasks_.size() >= sweep_at_tasks_)
    sweep();
  std::unique_ptr<TaskState> task;
  if (spare_tasks_.empty()) {
    task = std::make_unique<TaskState>();
  } else {
    task = std::move(spare_tasks_.back());
    spare_tasks_.pop_back();
  }
  cached_key_ = task_key(record);
  cached_task_ = &tasks_.insert(cached_key_, std::move(task));
  return *cached_task_;
}

void Binder::sweep() {
  last_sweep_ = seq_;
  stats_.tasks_known = tasks_.size();
  stats_.shrinker_keys = shrinker_keys_.size();
  const Nanos cut = cutoff();
  tasks_.forget_if([&](std::unique_ptr<TaskState>& owned) {
    TaskState& task = *owned;
    drop_held_before(task, cut);
    stats_.held_expired += task.expire_open(cut);
    if (release_)
      release(task, newest_ts_ - kReorderMargin);
    if (!task.idle())
      return false;
    if (spare_tasks_.size() < kSpareTasks && task.heap_bytes() == 0)
      spare_tasks_.push_back(std::move(owned));
    return true;
  });
  cached_task_ = nullptr;
  sweep_at_tasks_ = std::max(kSweepAtTasks, 2 * tasks_.size());
}

void Binder::drop_held_before(TaskState& task, Nanos cutoff) {
  while (!task.held.empty() && task.held.oldest_ts < cutoff) {
    store_.remove(task.held.oldest);
    ++stats_.held_expired;
  }
}

// DESIGN.md, "Releasing held lines": whether some span that has not closed
// yet could still claim the task's oldest held line. Every answer "no" is a
// proof, assuming what the claim scan assumes already: each task's lines come
// in time order.
bool Binder::claimable_later(const TaskState& task, Nanos now) const {
  const Nanos ts = task.held.oldest_ts;
  const EventRole& role = *roles_by_id_[task.held.oldest_event];
  // A function's span: only a call still running, or one that begins later.
  // A line of the task at depth 0 proved that every call running at `ts`
  // has returned, and later calls begin after that line.
  if (role.bound_to_function && ts >= task.outermost - kReleaseMargin)
    return true;
  // A pair's span: only the task's open begin of that pair, or a later one.
  for (std::size_t pair : role.claimed_by) {
    const OpenBegin* begin = task.open_begin_of(pair);
    const Nanos from = begin != nullptr ? begin->ts : now;
    if (ts >= from - kReleaseMargin)
      return true;
  }
  return false;
}

// Lines are released oldest first and the first line some span could still
// claim stops it: what stays behind it is released later.
void Binder::release(TaskState& task, Nanos now) {
  while (!task.held.empty() && !claimable_later(task, now)) {
    store_.remove(task.held.oldest);
    ++stats_.held_released;
  }
}

void Binder::passed_outermost(const Record& record) {
  if (record.depth != 0 || record.ts < 0)
    return;
  TaskState* task = find_task(record);
  if (task == nullptr)
    return;
  task->outermost = std::max(task->outermost, record.ts);
  if (release_)
    release(*task, record.ts);
}

void Binder::feed(const Record& record) {
  ++stats_.lines_read;
  ++seq_;
  if (seq_ % kSweepEvery == 0)
    sweep();
  switch (record.kind) {
  case LineKind::Skip:
    return;
  case LineKind::Malformed:
    ++stats_.lines_malformed;
    return;
  case LineKind::Lost:
    ++stats_.lost_lines;
    stats_.lost_events += record.lost;
    stats_.lost_uncounted += record.lost == 0;
    sink_.passthrough(record.line, newest_ts_);
    return;
  default:
    break;
  }
  if (!mode_) {
    const bool graph = record.format == TraceFormat::Graph ||
                       (record.format == TraceFormat::Unknown && is_graph_kind(record.kind));
    use_mode(graph ? Mode::Graph : Mode::Events);
  }
  newest_ts_ = std::max(newest_ts_, record.ts);
  if (newest_ts_ - swept_at_ts_ >= window_) {
    sweep();
    swept_at_ts_ = newest_ts_;
  }
  if (record.kind == LineKind::Event) {
    on_event(record);
    return;
  }
  if (*mode_ != Mode::Graph)
    return; // events mode has no function spans
  switch (record.kind) {
  case LineKind::GraphEntry:
    stats_.graph_entries = true;
    on_entry(record);
    break;
  case LineKind::GraphLeaf:
    stats_.graph_entries = true;
    on_leaf(record);
    break;
  case LineKind::GraphReturn:
    if (record.duration >= 0 &&
        (stats_.shortest_return < 0 || record.duration < stats_.shortest_return))
      stats_.shortest_return = record.duration;
    on_return(record);
    break;
  default:
    return;
  }
  passed_outermost(record);
}

void Binder::finish() {
  sweep(); // what aged out of the window is dropped, as if the input had gone on
  for (RunStats::PairCheck& check : stats_.graph_pairs) {
    check.returns = 0;
    for (const std::string& function : check.functions)
      if (const auto found = stats_.functions_over_threshold.find(function);
          found != stats_.functions_over_threshold.end())
        check.returns += found->second;
  }
  sink_.finish(shrinkers_);
}

void Binder::on_event(const Record& record) {
  const EventRole* const found = event_roles_.find(EventName{record.name});
  if (found == nullptr || record.ts < 0)
    return;
  const EventRole& role = *found;
  if (role.work != allocwatch::EventRole::None &&
      is_background_comm(profile_.background, record.comm))
    background_work_->add(record.pid, record.comm, role.work, text_of(record, record_text_).fields,
                          record.ts);
  if (!role.claimable && role.begins.empty() && role.ends.empty())
    return; // no span's line: a task needs no state for it
  // Nearly full: release what every task can before the store must drop.
  if (release_ && store_.held_bytes() > store_.capacity() / 8 * kFullEighths &&
      seq_ - last_sweep_ >= kFullSweepEvery)
    sweep();
  TaskState& task = task_for(record);
  bool emitted = false;
  for (std::size_t pair : role.ends)
    emitted = close_pair(task, pair, record) || emitted;
  for (std::size_t pair : role.begins)
    open_pair(task, pair, record);
  if (release_)
    release(task, record.ts);
  if (role.claimable && !emitted)
    hold(task, record, role.id);
}

void Binder::hold(TaskState& task, const Record& record, EventId event) {
  drop_held_before(task, cutoff());
  if (profile_.max_pending_per_task == 0) {
    ++stats_.held_over_cap;
    return;
  }
  if (task.held.count >= profile_.max_pending_per_task) {
    store_.remove(task.held.oldest);
    ++stats_.held_over_cap;
  }
  stats_.held_dropped +=
      store_.push(task.held, record.ts, seq_, event, kept_bytes(record), record.fields);
}

void Binder::open_pair(TaskState& task, std::size_t pair, const Record& record) {
  OpenBegin& begin = task.begin(pair);
  if (pairs_[pair].check >= 0) { // only its time is needed
    task.open_begin(begin, record.ts, seq_, nullptr, {}, {});
    return;
  }
  if (begin.open && begin.ts < cutoff()) {
    task.close_begin(begin); // aged out before being replaced: expired, not replaced
    ++stats_.held_expired;
  }
  ShrinkerKey* shrinker = nullptr;
  std::string_view instance;
  if (pairs_[pair].spec->shrinker) {
    const std::string_view fields = shrinker_fields(record);
    // The slot still has the key of the task's last begin of this pair.
    shrinker = shrinker_keys_.find_after(begin.shrinker, fields);
    if (shrinker == nullptr) // no instance, or not a kernel's number of shrinkers
      instance = parse_shrinker_id(fields).instance;
  }
  if (task.open_begin(begin, record.ts, seq_, shrinker, instance, kept_bytes(record)))
    ++stats_.replaced_begins;
}

void Binder::count_pair(TaskState& task, const ActivePair& active, const Record& record) {
  OpenBegin& begin = task.begin(static_cast<std::size_t>(&active - pairs_.data()));
  if (!begin.open)
    return;
  task.close_begin(begin);
  if (begin.ts >= cutoff() && record.ts - begin.ts >= threshold_)
    ++stats_.graph_pairs[static_cast<std::size_t>(active.check)].pairs;
}

bool Binder::close_pair(TaskState& task, std::size_t pair, const Record& record) {
  ActivePair& active = pairs_[pair];
  if (active.check >= 0) {
    count_pair(task, active, record);
    return false;
  }
  OpenBegin& begin = task.begin(pair);
  if (begin.open && begin.ts < cutoff()) {
    task.close_begin(begin);
    ++stats_.held_expired;
  }
  if (!begin.open) {
    ++stats_.unmatched_ends;
    return false;
  }
  if (active.spec->shrinker) {
    const std::string_view fields = shrinker_fields(record);
    ShrinkerKey* const key = begin.shrinker;
    if (key != nullptr && key->named_by(fields)) {
      // The same prefix as the begin's: the same shrinker, parsed already.
      if (key->totals == nullptr)
        key->totals = &shrinkers_.totals(key->symbol, key->instance);
      key->totals->add(record.ts - begin.ts);
    } else {
      const ShrinkerId id = parse_shrinker_id(fields);
      if (id.instance != begin.instance()) {
        // Another shrinker's end: its start was lost, or this one's end was.
        // Either way pairing them would invent a latency.
        ++stats_.unmatched_ends;
        return false;
      }
      shrinkers_.add(id.symbol, id.instance, record.ts - begin.ts);
    }
  }
  task.close_begin(begin);
  if (record.ts - begin.ts < threshold_)
    return false;
  ++over_threshold_counter(stats_.pairs_over_threshold, active.over_threshold, active.spec->name);
  emit(record, active.spec->name, active.kind, &task, &active.claims, begin.ts, record.ts,
       begin.emitted ? std::string_view{} : std::string_view(begin.line), begin.seq);
  return true;
}

void Binder::on_entry(const Record& record) {
  task_for(record).open_entry(record.depth, record.ts, record.name, kept_bytes(record));
}

void Binder::on_leaf(const Record& record) {
  if (record.duration < 0 || record.duration < threshold_)
    return;
  if (record.ts < 0) {
    emit_function(record, record.name, nullptr, -1, -1, {});
    return;
  }
  // A leaf's timestamp is its entry: the call ran after it.
  emit_function(record, record.name, find_task(record), record.ts, record.ts + record.duration, {});
}

void Binder::on_return(const Record& record) {
  TaskState* task = find_task(record);
  const OpenEntry* entry = task != nullptr && task->has_open_entries()
                               ? task->close_entry(record.depth, cutoff())
                               : nullptr;
  const bool orphan = record.name.empty() && entry == nullptr;
  if (orphan)
    ++stats_.orphan_returns;
  Nanos start = -1;
  Nanos end = -1;
  if (record.ts < 0) {
    // Without timestamps only the duration tells: the line prints, alone.
    if (record.duration < 0 || record.duration < threshold_)
      return;
    task = nullptr;
  } else {
    end = record.ts;
    if (record.duration >= 0)
      start = end - record.duration;
    else if (entry != nullptr && entry->ts >= 0)
      start = entry->ts;
    else
      return; // neither a duration nor an entry: not a span
    if (end - start < threshold_)
      return;
  }
  if (orphan) {
    // Began before the trace: its name is unknown, so it claims nothing.
    ++over_threshold_counter(stats_.functions_over_threshold, orphan_over_threshold_, {});
    emit(record, {}, {}, nullptr, nullptr, start, end, {}, 0);
  } else if (record.name.empty()) {
    // The entry line tells the reader which function the bare "}" closes.
    emit_function(record, entry->name, task, start, end, entry->line);
  } else {
    emit_function(record, record.name, task, start, end, {});
  }
}

void Binder::emit_function(const Record& closing, std::string_view name, TaskState* task,
                           Nanos start, Nanos end, std::string_view opening) {
  auto found = functions_.find(name);
  if (found == functions_.end()) // a function no binding names: it claims nothing
    found = functions_.emplace(std::string(name), FunctionRole{}).first;
  FunctionRole& role = found->second;
  ++over_threshold_counter(stats_.functions_over_threshold, role.over_threshold, name);
  const bool claims_any = !role.claims.words.empty();
  emit(closing, name, role.kind, claims_any ? task : nullptr, &role.claims, start, end, opening, 0);
}

void Binder::emit(const Record& closing, std::string_view span, std::string_view kind,
                  TaskState* task, const EventSet* claims, Nanos start, Nanos end,
                  std::string_view opening, std::uint64_t opening_seq) {
  // Each line's tracepoint, from what was read when it was parsed, so that
  // no sink parses it again. A function's opening line is its entry, with
  // none; a pair's is its begin, kept as text only: read once more here.
  lines_.clear();
  if (!opening.empty())
    lines_.add_opening(opening, opening_seq != 0);
  in_span_.clear();
  if (task != nullptr) {
    drop_held_before(*task, cutoff());
    // A task's lines are in time order: only the newest can lie in the span.
    // Text timestamps are whole µs; the ring buffer's are exact.
    const Nanos from = start - (closing.formatter == nullptr ? kMicro : 0);
    for (HeldRef ref = task->held.newest; ref != kNoLine && store_.ts(ref) >= from;
         ref = store_.older(ref))
      in_span_.push_back(ref);
    std::reverse(in_span_.begin(), in_span_.end());
    std::size_t claimed = 0;
    for (HeldRef ref : in_span_) {
      if (store_.seq(ref) == opening_seq) {
        in_span_[claimed++] = ref; // the pair's begin, printed as its first line
      } else if (store_.ts(ref) <= end && claims != nullptr &&
                 claims->contains(store_.event(ref))) {
        in_span_[claimed++] = ref;
        lines_.add(store_.line(ref),
                   {event_names_[store_.event(ref)], store_.fields(ref), store_.ts(ref)});
        task->note_emitted(store_.seq(ref));
      }
    }
    in_span_.resize(claimed);
  }
  lines_.add(kept_bytes(closing), tracepoint_of(closing));
  lines_.print(closing.formatter);
  const bool background = is_background_comm(profile_.background, closing.comm);
  sink_.incident(Incident{span, kind, background, closing.pid, closing.comm, start, end,
                          lines_.lines(), lines_.tracepoints()});
  for (HeldRef ref : in_span_)
    store_.remove(ref);
}

} // namespace allocwatch

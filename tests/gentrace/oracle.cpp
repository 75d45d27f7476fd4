#include "oracle.h"

#include "text.h"

#include <algorithm>
#include <map>
#include <utility>

namespace gentrace {

std::uint64_t task_key(int pid, int cpu) {
  return pid == 0 ? (1ULL << 32) | static_cast<std::uint32_t>(cpu)
                  : static_cast<std::uint64_t>(pid);
}

Oracle::Oracle(const World& world, std::string& expected) : world_(world), expected_(expected) {
  claimable_ = claimable(world.format);
  stats_.resize(world.shrinkers.size());
}

void Oracle::event(std::uint64_t key, Nanos ts, Ev ev, int shrinker, std::string_view line) {
  TaskState& t = tasks_[key];
  note_pending(t, ts);
  for (std::size_t i = 0; i < kPairCount; ++i) {
    const Pair& p = kPairs[i];
    if (world_.format == Format::Graph && !p.in_graph)
      continue;
    Open& open = t.open[i];
    if (ev == p.begin) {
      open.is_open = true;
      open.ts = ts;
      open.shrinker = shrinker;
      open.line.assign(line);
    } else if (ev == p.end && open.is_open && (!p.shrinker || open.shrinker == shrinker)) {
      close_pair(t, p, open, ts, line);
    }
  }
  if ((claimable_ & bit(ev)) && !world_.no_span) // --no-span: nothing can claim it
    t.held.push_back(Held{ts, ev, false, std::string(line)});
}

void Oracle::function_return(std::uint64_t key, Nanos ts, Fn fn, Nanos duration,
                             std::string_view line) {
  if (duration > kLongestSpan)
    die("internal: a planned call is longer than kLongestSpan");
  if (duration < world_.threshold)
    return;
  TaskState& t = tasks_[key];
  const Nanos start = ts - duration;
  claim(t, kBinding[fn], start - kMicro, ts);
  emit(line);
  ++incidents_;
}

void Oracle::episode_start(std::uint64_t key, Nanos ts) {
  const auto it = tasks_.find(key);
  if (it == tasks_.end())
    return;
  TaskState& t = it->second;
  Nanos keep_from = ts - 3 * kMicro; // truncation and the slack, with room
  for (const Open& open : t.open)
    if (open.is_open)
      keep_from = std::min(keep_from, open.ts - kMicro);
  while (!t.held.empty() && t.held.front().ts < keep_from)
    t.held.pop_front();
}

bool Oracle::closes_stale_pair(std::uint64_t key, Nanos ts, Ev ev, int shrinker) const {
  const auto it = tasks_.find(key);
  if (it == tasks_.end())
    return false;
  for (std::size_t i = 0; i < kPairCount; ++i) {
    const Pair& p = kPairs[i];
    const Open& open = it->second.open[i];
    if ((world_.format == Format::Events || p.in_graph) && ev == p.end && open.is_open &&
        (!p.shrinker || open.shrinker == shrinker) && ts - open.ts > kLongestSpan)
      return true;
  }
  return false;
}

void Oracle::finish() {
  struct Total {
    Nanos total = 0;
    Nanos max = 0;
    std::vector<std::size_t> instances;
  };
  std::map<std::string, Total> symbols;
  for (std::size_t i = 0; i < stats_.size(); ++i) {
    if (stats_[i].calls == 0)
      continue;
    Total& sym = symbols[world_.shrinkers[i].symbol];
    sym.total += stats_[i].total;
    sym.max = std::max(sym.max, stats_[i].max);
    sym.instances.push_back(i);
  }
  std::vector<const std::pair<const std::string, Total>*> order;
  for (const auto& entry : symbols)
    order.push_back(&entry);
  std::stable_sort(order.begin(), order.end(),
                   [](auto* a, auto* b) { return a->second.total > b->second.total; });
  for (const auto* sym : order) {
    emit(sym->first + " : total time = " + format_ms(sym->second.total) +
         " ms, max latency = " + format_ms(sym->second.max) + " ms");
  }
  for (const auto* sym : order) {
    std::vector<std::size_t> inst = sym->second.instances;
    if (inst.size() < 2)
      continue;
    std::sort(inst.begin(), inst.end(), [&](std::size_t a, std::size_t b) {
      if (stats_[a].total != stats_[b].total)
        return stats_[a].total > stats_[b].total;
      return world_.shrinkers[a].instance < world_.shrinkers[b].instance;
    });
    for (std::size_t i : inst) {
      emit(sym->first + "[" + world_.shrinkers[i].instance + "] : total time = " +
           format_ms(stats_[i].total) + " ms, max latency = " + format_ms(stats_[i].max) +
           " ms, calls = " + std::to_string(stats_[i].calls));
    }
  }
}

void Oracle::note_pending(TaskState& t, Nanos ts) {
  while (!t.held.empty() && t.held.front().ts < ts - kHoldFor)
    t.held.pop_front();
  while (!t.recent.empty() && t.recent.front() < ts - kWindow)
    t.recent.pop_front();
  t.recent.push_back(ts);
  max_pending_ = std::max(max_pending_, t.recent.size());
}

void Oracle::claim(TaskState& t, std::uint32_t mask, Nanos from, Nanos to) {
  auto it = std::lower_bound(t.held.begin(), t.held.end(), from,
                             [](const Held& h, Nanos ts) { return h.ts < ts; });
  for (; it != t.held.end() && it->ts <= to; ++it) {
    if (it->printed || !(mask & bit(it->ev)))
      continue;
    it->printed = true;
    emit(it->line);
    ++claimed_;
    if (it->ts < from + kMicro)
      ++claimed_by_slack_;
  }
}

void Oracle::close_pair(TaskState& t, const Pair& p, Open& open, Nanos end, std::string_view line) {
  open.is_open = false;
  ++pairs_closed_;
  const Nanos duration = end - open.ts;
  if (duration > kLongestSpan)
    die("internal: a pair longer than kLongestSpan was let through");
  if (p.shrinker) {
    ShrinkerTotal& s = stats_[static_cast<std::size_t>(open.shrinker)];
    s.total += duration;
    s.max = std::max(s.max, duration);
    ++s.calls;
  }
  if (duration < world_.threshold)
    return;
  emit(open.line);
  claim(t, p.claims, open.ts - kMicro, end);
  emit(line);
  ++incidents_;
}

} // namespace gentrace

#include "bind/shrinker_stats.h"

#include <algorithm>
#include <map>
#include <ostream>
#include <vector>

namespace allocwatch {

namespace {

// Largest total first; equal totals by name, so that the output is stable.
template <class Entry>
void sort_by_total(std::vector<Entry>& entries, std::string_view Entry::*name) {
  std::sort(entries.begin(), entries.end(), [name](const Entry& a, const Entry& b) {
    return a.totals.total != b.totals.total ? a.totals.total > b.totals.total : a.*name < b.*name;
  });
}

} // namespace

void ShrinkerTotals::add(Nanos duration) {
  total += duration;
  max = std::max(max, duration);
  ++calls;
}

void ShrinkerTotals::add(const ShrinkerTotals& other) {
  total += other.total;
  max = std::max(max, other.max);
  calls += other.calls;
}

void ShrinkerStats::add(std::string_view symbol, std::string_view instance, Nanos duration) {
  totals(symbol, instance).add(duration);
}

ShrinkerTotals& ShrinkerStats::totals(std::string_view symbol, std::string_view instance) {
  auto found = instances_.find(instance);
  if (found != instances_.end()) {
    std::deque<Shrinker>& shrinkers = found->second;
    auto same = std::find_if(shrinkers.begin(), shrinkers.end(),
                             [&](const Shrinker& s) { return s.symbol == symbol; });
    if (same != shrinkers.end())
      return same->totals;
  }
  const bool other = instance == kOtherInstance || own_instances_ >= kMaxInstances;
  if (other && instance != kOtherInstance)
    return totals(symbol, kOtherInstance);
  if (found == instances_.end())
    found = instances_.emplace(std::string(instance), std::deque<Shrinker>{}).first;
  own_instances_ += !other;
  return found->second.emplace_back(Shrinker{std::string(symbol), {}}).totals;
}

std::vector<ShrinkerSummary> ShrinkerStats::summary() const {
  std::map<std::string_view, ShrinkerSummary> by_symbol;
  for (const auto& [instance, shrinkers] : instances_) {
    for (const Shrinker& shrinker : shrinkers) {
      ShrinkerSummary& symbol = by_symbol[shrinker.symbol];
      symbol.symbol = shrinker.symbol;
      symbol.totals.add(shrinker.totals);
      symbol.instances.push_back({instance, shrinker.totals});
    }
  }
  std::vector<ShrinkerSummary> symbols;
  symbols.reserve(by_symbol.size());
  for (auto& [name, symbol] : by_symbol) {
    sort_by_total(symbol.instances, &ShrinkerSummary::Instance::name);
    symbols.push_back(std::move(symbol));
  }
  sort_by_total(symbols, &ShrinkerSummary::symbol);
  return symbols;
}

void ShrinkerStats::print(std::ostream& out) const {
  const std::vector<ShrinkerSummary> symbols = summary();
  for (const ShrinkerSummary& symbol : symbols)
    out << symbol.symbol << " : total time = " << format_ms(symbol.totals.total)
        << " ms, max latency = " << format_ms(symbol.totals.max) << " ms\n";
  for (const ShrinkerSummary& symbol : symbols) {
    if (symbol.instances.size() < 2)
      continue;
    for (const ShrinkerSummary::Instance& instance : symbol.instances)
      out << symbol.symbol << '[' << instance.name
          << "] : total time = " << format_ms(instance.totals.total)
          << " ms, max latency = " << format_ms(instance.totals.max)
          << " ms, calls = " << instance.totals.calls << '\n';
  }
}

} // namespace allocwatch

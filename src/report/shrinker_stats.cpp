#include "report/shrinker_stats.h"

#include <algorithm>
#include <ostream>
#include <vector>

namespace allocwatch {

namespace {

// The next space-separated token of `text` from `pos`, moving `pos` past it.
std::string_view next_token(std::string_view text, std::size_t& pos) {
  const std::size_t start = text.find_first_not_of(' ', pos);
  if (start == std::string_view::npos) {
    pos = text.size();
    return {};
  }
  const std::size_t end = std::min(text.find(' ', start), text.size());
  pos = end;
  return text.substr(start, end - start);
}

// Largest total first; equal totals by name, so that the output is stable.
template <class Entry> std::vector<const Entry*> by_total(const auto& map, auto totals_of) {
  std::vector<const Entry*> sorted;
  sorted.reserve(map.size());
  for (const Entry& entry : map)
    sorted.push_back(&entry);
  std::sort(sorted.begin(), sorted.end(), [&](const Entry* a, const Entry* b) {
    const Nanos ta = totals_of(*a).total;
    const Nanos tb = totals_of(*b).total;
    return ta != tb ? ta > tb : a->first < b->first;
  });
  return sorted;
}

} // namespace

ShrinkerId parse_shrinker_id(std::string_view fields) {
  std::size_t pos = 0;
  std::string_view symbol = next_token(fields, pos);
  symbol = symbol.substr(0, symbol.find('+'));
  std::string_view instance = next_token(fields, pos);
  if (!instance.empty() && instance.back() == ':')
    instance.remove_suffix(1);
  return {symbol, instance};
}

void ShrinkerStats::Totals::add(Nanos duration) {
  total += duration;
  max = std::max(max, duration);
  ++calls;
}

void ShrinkerStats::add(std::string_view symbol, std::string_view instance, Nanos duration) {
  auto found = symbols_.find(symbol);
  if (found == symbols_.end())
    found = symbols_.emplace(std::string(symbol), Symbol{}).first;
  Symbol& entry = found->second;
  entry.totals.add(duration);
  auto inst = entry.instances.find(instance);
  if (inst == entry.instances.end())
    inst = entry.instances.emplace(std::string(instance), Totals{}).first;
  inst->second.add(duration);
}

void ShrinkerStats::print(std::ostream& out) const {
  using SymbolEntry = std::pair<const std::string, Symbol>;
  using InstanceEntry = std::pair<const std::string, Totals>;
  const auto symbols = by_total<SymbolEntry>(
      symbols_, [](const SymbolEntry& e) -> const Totals& { return e.second.totals; });
  for (const SymbolEntry* symbol : symbols) {
    const Totals& t = symbol->second.totals;
    out << symbol->first << " : total time = " << format_ms(t.total)
        << " ms, max latency = " << format_ms(t.max) << " ms\n";
  }
  for (const SymbolEntry* symbol : symbols) {
    if (symbol->second.instances.size() < 2)
      continue;
    const auto instances = by_total<InstanceEntry>(
        symbol->second.instances, [](const InstanceEntry& e) -> const Totals& { return e.second; });
    for (const InstanceEntry* instance : instances) {
      const Totals& t = instance->second;
      out << symbol->first << '[' << instance->first << "] : total time = " << format_ms(t.total)
          << " ms, max latency = " << format_ms(t.max) << " ms, calls = " << t.calls << '\n';
    }
  }
}

} // namespace allocwatch

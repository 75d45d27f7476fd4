#include "report/shrinker_stats.h"

#include <algorithm>
#include <map>
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
template <class Entry> void sort_by_total(std::vector<Entry>& entries) {
  std::sort(entries.begin(), entries.end(), [](const Entry& a, const Entry& b) {
    return a.totals.total != b.totals.total ? a.totals.total > b.totals.total : a.name < b.name;
  });
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

void ShrinkerStats::Totals::add(const Totals& other) {
  total += other.total;
  max = std::max(max, other.max);
  calls += other.calls;
}

void ShrinkerStats::add(std::string_view symbol, std::string_view instance, Nanos duration) {
  auto found = instances_.find(instance);
  if (found == instances_.end())
    found = instances_.emplace(std::string(instance), std::vector<Shrinker>{}).first;
  std::vector<Shrinker>& shrinkers = found->second;
  auto same = std::find_if(shrinkers.begin(), shrinkers.end(),
                           [&](const Shrinker& s) { return s.symbol == symbol; });
  if (same == shrinkers.end())
    same = shrinkers.insert(shrinkers.end(), Shrinker{std::string(symbol), {}});
  same->totals.add(duration);
}

void ShrinkerStats::print(std::ostream& out) const {
  struct Named {
    std::string_view name;
    Totals totals;
  };
  struct Symbol {
    std::string_view name;
    Totals totals;
    std::vector<Named> instances;
  };
  std::map<std::string_view, Symbol> by_symbol;
  for (const auto& [instance, shrinkers] : instances_) {
    for (const Shrinker& shrinker : shrinkers) {
      Symbol& symbol = by_symbol[shrinker.symbol];
      symbol.name = shrinker.symbol;
      symbol.totals.add(shrinker.totals);
      symbol.instances.push_back({instance, shrinker.totals});
    }
  }
  std::vector<Symbol> symbols;
  symbols.reserve(by_symbol.size());
  for (auto& [name, symbol] : by_symbol)
    symbols.push_back(std::move(symbol));
  sort_by_total(symbols);
  for (const Symbol& symbol : symbols)
    out << symbol.name << " : total time = " << format_ms(symbol.totals.total)
        << " ms, max latency = " << format_ms(symbol.totals.max) << " ms\n";
  for (Symbol& symbol : symbols) {
    if (symbol.instances.size() < 2)
      continue;
    sort_by_total(symbol.instances);
    for (const Named& instance : symbol.instances)
      out << symbol.name << '[' << instance.name
          << "] : total time = " << format_ms(instance.totals.total)
          << " ms, max latency = " << format_ms(instance.totals.max)
          << " ms, calls = " << instance.totals.calls << '\n';
  }
}

} // namespace allocwatch

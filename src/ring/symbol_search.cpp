#include "ring/symbol_search.h"

#include <algorithm>
#include <charconv>

namespace allocwatch {

SymbolSearch::SymbolSearch(std::vector<std::string> names)
    : names_(std::move(names)), found_(names_.size()) {}

void SymbolSearch::add(std::string_view text) {
  lines_.add(text, [this](std::string_view line) { add_line(line); });
}

std::vector<std::pair<std::string, std::uint64_t>> SymbolSearch::finish() {
  lines_.finish([this](std::string_view line) { add_line(line); });
  std::vector<std::pair<std::string, std::uint64_t>> found;
  for (std::size_t i = 0; i < names_.size(); ++i)
    if (found_[i])
      found.emplace_back(names_[i], *found_[i]);
  return found;
}

void SymbolSearch::add_line(std::string_view line) {
  // "ADDR TYPE NAME[\t[MODULE]]"; tep_parse_kallsyms() reads at most 16
  // digits of address.
  constexpr std::size_t kMaxDigits = 16;
  const std::size_t at = line.find(' ');
  if (at == 0 || at == std::string_view::npos || at > kMaxDigits || line.size() < at + 4 ||
      line[at + 2] != ' ')
    return;
  const char type = line[at + 1];
  std::string_view name = line.substr(at + 3);
  name = name.substr(0, name.find_first_of(" \t"));
  if (type == 'A' || type == 'a' || name.empty() || name.front() == '$')
    return;
  const auto asked = std::find(names_.begin(), names_.end(), name);
  if (asked == names_.end())
    return;
  std::uint64_t address = 0;
  const auto [after, ec] = std::from_chars(line.data(), line.data() + at, address, 16);
  if (ec != std::errc() || after != line.data() + at)
    return;
  std::optional<std::uint64_t>& found = found_[static_cast<std::size_t>(asked - names_.begin())];
  found = found ? std::min(*found, address) : address;
}

} // namespace allocwatch

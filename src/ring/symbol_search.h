// SymbolSearch: the addresses of a few kernel symbols, found by name in
// /proc/kallsyms text (or a trace.dat's copy) given in chunks, as
// libtraceevent's tep_parse_kallsyms() reads that text into a tep's function
// list: symbols of every type but the absolute ones (A, a), "$" names left
// out, the name the run of non-blanks after the type.
//
//   SymbolSearch search({"vmemmap_base"});
//   search.add(chunk) ...;
//   for (auto& [name, address] : search.finish()) ...
//
// Unlike KernelSymbols (functions only, all of them), it keeps nothing but
// the names it was asked for.
#pragma once

#include "util/line_splitter.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace allocwatch {

class SymbolSearch {
public:
  explicit SymbolSearch(std::vector<std::string> names);
  void add(std::string_view text);
  // The end of the text: each name asked for that a symbol has, in the
  // order asked, with the lowest address of the symbols so named (the
  // first in a tep's table, which is sorted by address).
  std::vector<std::pair<std::string, std::uint64_t>> finish();

private:
  void add_line(std::string_view line);

  std::vector<std::string> names_;
  std::vector<std::optional<std::uint64_t>> found_; // by names_' index
  LineSplitter lines_;
};

} // namespace allocwatch

#include "ring/symbol_search.h"

#include <doctest/doctest.h>
#include <string>
#include <vector>

using namespace allocwatch;

namespace {

using Found = std::vector<std::pair<std::string, std::uint64_t>>;

Found search(const std::vector<std::string>& names, const std::string& text, std::size_t chunk) {
  SymbolSearch s(names);
  for (std::size_t at = 0; at < text.size(); at += chunk)
    s.add(std::string_view(text).substr(at, chunk));
  return s.finish();
}

const std::string kKallsyms = "ffffffff81000000 T _stext\n"
                              "0000000000000000 A fixed_percpu_data\n"
                              "ffffffff8e215730 D vmemmap_base\n"
                              "ffffffffc0a01000 t twin\t[ext4]\n"
                              "ffffffff81400000 t twin\n"
                              "ffffffff81500000 a absolute_one\n"
                              "ffffffff81600000 t $x\n"
                              "not a line at all\n"
                              "ffffffff81700000 b last_without_newline";

} // namespace

TEST_CASE("SymbolSearch: named symbols of any type, as tep_parse_kallsyms lists them") {
  for (std::size_t chunk : {kKallsyms.size(), std::size_t{1}, std::size_t{7}}) {
    CAPTURE(chunk);
    // In the order asked; a data symbol as well as a function.
    CHECK(search({"vmemmap_base", "_stext"}, kKallsyms, chunk) ==
          Found{{"vmemmap_base", 0xffffffff8e215730ULL}, {"_stext", 0xffffffff81000000ULL}});
    // Of a name two symbols share (a module's among them), the lowest address.
    CHECK(search({"twin"}, kKallsyms, chunk) == Found{{"twin", 0xffffffff81400000ULL}});
    // Absolute symbols and "$" names are not listed; names not asked for,
    // not kept; a last line without '\n' is read.
    CHECK(search({"fixed_percpu_data", "absolute_one", "$x", "missing"}, kKallsyms, chunk).empty());
    CHECK(search({"last_without_newline"}, kKallsyms, chunk) ==
          Found{{"last_without_newline", 0xffffffff81700000ULL}});
  }
}

TEST_CASE("SymbolSearch: a line with a bad address or no type is skipped") {
  CHECK(search({"f"}, "zzzz T f\nffffffff81000000T f\n ffffffff81000000 T f\n", 64).empty());
  CHECK(search({"f"}, "11112222333344445 T f\n", 64).empty()); // 17 digits: more than a tep reads
  CHECK(search({"f"}, "81000000 T f\n", 64) == Found{{"f", 0x81000000ULL}}); // a 32-bit kernel's
}

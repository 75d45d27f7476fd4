#include "output/text_table.h"

#include <doctest/doctest.h>
#include <sstream>
#include <string>
#include <vector>

using namespace allocwatch;

namespace {

std::vector<std::string> lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);)
    out.push_back(line);
  return out;
}

Table sample() {
  Table table({"KIND", "GFP_FLAGS", "COUNT", "P99_MS"}, "llrr");
  table.add({"direct compaction", "GFP_TRANSHUGE|__GFP_NORETRY|__GFP_THISNODE", "16", "45.870"});
  table.add({"direct reclaim", "GFP_KERNEL", "1", "119.950"});
  return table;
}

} // namespace

TEST_CASE("text table: milliseconds rounded to the microsecond, half up") {
  CHECK(ms(90'954'979) == "90.955");
  CHECK(ms(90'954'499) == "90.954");
  CHECK(ms(500) == "0.001");
  CHECK(ms(0) == "0.000");
}

TEST_CASE("text table: whole, then fitted to a width by the columns that give way") {
  std::ostringstream whole;
  sample().write(whole);
  CHECK(lines(whole.str())[1] ==
        "  direct compaction  GFP_TRANSHUGE|__GFP_NORETRY|__GFP_THISNODE     16   45.870");

  Table table = sample();
  table.drop_to_fit(3);
  table.narrow_to_fit(1, 8);
  std::ostringstream fitted;
  table.write(fitted, 50);
  CHECK(table.drops(50));
  CHECK_FALSE(table.drops(200));
  // P99_MS left out first; the flags wrap at '|', the row's other cells on
  // its first line.
  CHECK(lines(fitted.str()) == std::vector<std::string>{
                                   "  KIND               GFP_FLAGS               COUNT",
                                   "  direct compaction  GFP_TRANSHUGE|             16",
                                   "                     __GFP_NORETRY|",
                                   "                     __GFP_THISNODE",
                                   "  direct reclaim     GFP_KERNEL                  1",
                               });
  for (const std::string& line : lines(fitted.str()))
    CHECK(line.size() <= 50);
}

TEST_CASE("text table: a cell wraps at '|' or ' ', then '_' or '[', then anywhere") {
  CHECK(wrap_cell("GFP_KERNEL|__GFP_ZERO", 12) ==
        std::vector<std::string>{"GFP_KERNEL|", "__GFP_ZERO"});
  CHECK(wrap_cell("super_cache_scan[0000000052cfc56b]", 20) ==
        std::vector<std::string>{"super_cache_scan[", "0000000052cfc56b]"});
  CHECK(wrap_cell("abcdefghij", 4) == std::vector<std::string>{"abcd", "efgh", "ij"});
  CHECK(wrap_cell("short", 10) == std::vector<std::string>{"short"});
}

TEST_CASE("text table: long lines cut at their spaces, continued indented") {
  std::ostringstream out;
  write_wrapped(out, "allocwatch: functions over threshold: a=1 bb=2 ccc=3\nshort\n", 24);
  CHECK(out.str() == "allocwatch: functions\n    over threshold: a=1\n    bb=2 ccc=3\nshort\n");
  std::ostringstream whole;
  write_wrapped(whole, "a line that stays whole\n", kWhole);
  CHECK(whole.str() == "a line that stays whole\n");
}

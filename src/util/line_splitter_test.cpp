#include "util/line_splitter.h"

#include <doctest/doctest.h>
#include <string>
#include <vector>

using namespace allocwatch;

TEST_CASE("LineSplitter: whole lines, however the text is cut") {
  const std::string text = "first\n\nthird line\nlast";
  for (std::size_t chunk = 1; chunk <= text.size(); ++chunk) {
    CAPTURE(chunk);
    LineSplitter splitter;
    std::vector<std::string> lines;
    auto take = [&](std::string_view line) { lines.emplace_back(line); };
    for (std::size_t at = 0; at < text.size(); at += chunk)
      splitter.add(std::string_view(text).substr(at, chunk), take);
    CHECK(lines == std::vector<std::string>{"first", "", "third line"});
    splitter.finish(take);
    CHECK(lines == std::vector<std::string>{"first", "", "third line", "last"});
    splitter.finish(take); // nothing left
    CHECK(lines.size() == 4);
  }
}

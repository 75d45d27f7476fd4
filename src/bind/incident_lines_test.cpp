#include "bind/incident_lines.h"

#include <doctest/doctest.h>
#include <string>
#include <vector>

using namespace allocwatch;

namespace {

// Prints a blob twice over, its fields the second copy.
class Doubling final : public RecordFormatter {
public:
  void format(std::string_view blob, std::string& out, std::size_t& fields_at,
              std::size_t& fields_size) const override {
    out.append(blob);
    fields_at = out.size();
    out.append(blob);
    fields_size = blob.size();
  }
};

} // namespace

TEST_CASE("text lines are the kept bytes; a pair's begin has its tracepoint read from it") {
  IncidentLines lines;
  const std::string begin = "  dd-1 [000] ..... 1.000000: mm_vmscan_direct_reclaim_begin: order=0";
  lines.add_opening(begin, true);
  lines.add("} /* try_to_free_pages */", {});
  lines.print(nullptr);
  REQUIRE(lines.lines().size() == 2);
  CHECK(lines.lines()[0].data() == begin.data());
  CHECK(lines.tracepoints()[0].name == "mm_vmscan_direct_reclaim_begin");
  CHECK(lines.tracepoints()[0].fields == "order=0");
  CHECK(lines.tracepoints()[1].name.empty());
}

TEST_CASE("blobs are printed; the views survive the text growing") {
  Doubling doubling;
  IncidentLines lines;
  std::vector<std::string> blobs;
  for (int i = 0; i < 200; ++i)
    blobs.push_back("line " + std::to_string(i) + std::string(static_cast<std::size_t>(i), 'x'));
  for (const std::string& blob : blobs)
    lines.add(blob, {"mm_shrink_slab_end", "stale", 5});
  lines.print(&doubling);
  REQUIRE(lines.lines().size() == blobs.size());
  for (std::size_t i = 0; i < blobs.size(); ++i) {
    CHECK(lines.lines()[i] == blobs[i] + blobs[i]);
    CHECK(lines.tracepoints()[i].fields == blobs[i]);
    CHECK(lines.tracepoints()[i].ts == 5);
  }
  lines.clear();
  lines.print(&doubling);
  CHECK(lines.lines().empty());
}

#include "fake_dat_sources.h"
#include "ring/header_page.h"

#include <doctest/doctest.h>

namespace allocwatch {
namespace {

TEST_CASE("header_page_field: the page layout from the kernel's header_page text") {
  auto commit = header_page_field(testing::kHeaderPage, "commit");
  REQUIRE(commit.ok());
  CHECK(commit->offset == 8);
  CHECK(commit->size == 8);
  auto data = header_page_field(testing::kHeaderPage, "data");
  REQUIRE(data.ok());
  CHECK(data->offset == 16);
  CHECK(data->size == 4080);
  CHECK(header_page_field(testing::kHeaderPage, "timestamp")->size == 8);

  auto missing = header_page_field("\tfield: u64 timestamp;\toffset:0;\tsize:8;\n", "data");
  REQUIRE_FALSE(missing.ok());
  CHECK(missing.error().message == "events/header_page has no field data");
  auto no_size = header_page_field("\tfield: char data;\toffset:16;\n", "data");
  REQUIRE_FALSE(no_size.ok());
  CHECK(no_size.error().message == "events/header_page: field data has no offset or size");
  auto huge =
      header_page_field("\tfield: char data;\toffset:99999999999999999999999;\tsize:1;\n", "data");
  REQUIRE_FALSE(huge.ok());
  CHECK(huge.error().message == "events/header_page: field data is out of range");
}

} // namespace
} // namespace allocwatch

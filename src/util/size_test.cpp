#include "util/size.h"

#include <doctest/doctest.h>

using namespace allocwatch;

TEST_CASE("sizes: bytes, binary units, a space before the unit") {
  CHECK(parse_size("65536").value() == 65536);
  CHECK(parse_size("100B").value() == 100);
  CHECK(parse_size("512KiB").value() == 512 * 1024);
  CHECK(parse_size("8MiB").value() == 8 << 20);
  CHECK(parse_size("8M").value() == 8 << 20);
  CHECK(parse_size("8 MB").value() == 8 << 20);
  CHECK(parse_size("1GiB").value() == std::uint64_t{1} << 30);
  CHECK(parse_size("4k").value() == 4096);
}

TEST_CASE("sizes: what is refused, and why") {
  CHECK(parse_size("").error().message ==
        "invalid size '': a whole number comes first (examples: 8MiB, 512KiB, 65536)");
  CHECK(parse_size("MiB").error().message.find("a whole number comes first") != std::string::npos);
  CHECK(parse_size("1.5MiB").error().message.find("unknown unit") != std::string::npos);
  CHECK(parse_size("8 mb").error().message.find("unknown unit") != std::string::npos);
  CHECK(parse_size("-1").error().message.find("a whole number comes first") != std::string::npos);
  CHECK(parse_size("99999999999999999999").error().message.find("too large") != std::string::npos);
  CHECK(parse_size("2000000000GiB").error().message.find("too large") != std::string::npos);
}

TEST_CASE("size: format_size writes the largest exact unit, which parse_size reads back") {
  CHECK(format_size(8 << 20) == "8MiB");
  CHECK(format_size(1536 * 1024) == "1536KiB");
  CHECK(format_size(1000) == "1000B");
  CHECK(format_size(0) == "0B");
  CHECK(format_size(std::uint64_t{3} << 40) == "3072GiB");
  for (std::uint64_t bytes : {std::uint64_t{1}, std::uint64_t{4096}, std::uint64_t{67112960}})
    CHECK(parse_size(format_size(bytes)).value() == bytes);
}

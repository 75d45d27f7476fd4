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

#include "util/digits.h"

#include <cstdio>
#include <doctest/doctest.h>
#include <random>
#include <string>

using namespace allocwatch;

namespace {

std::string decimal(std::uint64_t v) {
  char buffer[kMaxDigits];
  char* const end = buffer + sizeof buffer;
  char* begin = decimal_digits(v, end);
  return std::string(begin, end);
}

std::string hex(std::uint64_t v) {
  char buffer[kMaxDigits];
  char* const end = buffer + sizeof buffer;
  char* begin = hex_digits(v, end);
  return std::string(begin, end);
}

} // namespace

TEST_CASE("digits are printf's, at the edges and anywhere between") {
  CHECK(decimal(0) == "0");
  CHECK(decimal(9) == "9");
  CHECK(decimal(10) == "10");
  CHECK(decimal(99) == "99");
  CHECK(decimal(100) == "100");
  CHECK(decimal(18446744073709551615ULL) == "18446744073709551615");
  CHECK(hex(0) == "0");
  CHECK(hex(0xffffffffffffffffULL) == "ffffffffffffffff");
  for (std::uint64_t v : {0ULL, 9ULL, 10ULL, 9999ULL, 10000ULL, 18446744073709551615ULL})
    CHECK(decimal_width(v) == decimal(v).size());
  for (std::uint64_t v : {0ULL, 15ULL, 16ULL, 0xffffffffffffffffULL})
    CHECK(hex_width(v) == hex(v).size());
  std::mt19937_64 random(7);
  for (int i = 0; i < 20000; ++i) {
    const std::uint64_t v = random() >> (random() % 64);
    char expected[32];
    std::snprintf(expected, sizeof expected, "%llu", static_cast<unsigned long long>(v));
    REQUIRE(decimal(v) == expected);
    REQUIRE(decimal_width(v) == std::string(expected).size());
    std::snprintf(expected, sizeof expected, "%llx", static_cast<unsigned long long>(v));
    REQUIRE(hex(v) == expected);
    REQUIRE(hex_width(v) == std::string(expected).size());
  }
}

TEST_CASE("hex_text is printf's %#llx but for 0, which it writes 0x0") {
  char buffer[kMaxHexText];
  CHECK(hex_text(0, buffer) == "0x0");
  CHECK(hex_text(0x44, buffer) == "0x44");
  CHECK(hex_text(0xffffffffffffffffULL, buffer) == "0xffffffffffffffff");
}

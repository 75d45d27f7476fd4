#include "trace/swar.h"

#include <cstdint>
#include <doctest/doctest.h>
#include <string>

namespace allocwatch::swar {
namespace {

std::uint64_t word_of(const std::string& eight) {
  REQUIRE(eight.size() == 8);
  return load8(eight.data());
}

// 0x80 where `text` (8 bytes) has an 'x', 0 elsewhere.
std::uint64_t marks(const std::string& text) {
  std::uint64_t mask = 0;
  for (std::size_t i = 0; i < 8; ++i)
    if (text[i] == 'x')
      mask |= std::uint64_t{0x80} << (8 * i);
  return mask;
}

TEST_CASE("swar: load8 puts the first byte lowest on any machine") {
  CHECK(word_of("abcdefgh") % 256 == 'a');
  CHECK((word_of("abcdefgh") >> 56) == 'h');
}

TEST_CASE("swar: nonzero_bytes marks exactly the bytes that are not zero") {
  CHECK(nonzero_bytes(0) == 0);
  CHECK(nonzero_bytes(~std::uint64_t{0}) == repeat(0x80));
  for (unsigned byte = 0; byte < 256; ++byte)
    for (std::size_t at = 0; at < 8; ++at) {
      const std::uint64_t word = std::uint64_t{byte} << (8 * at);
      CHECK(nonzero_bytes(word) == (byte == 0 ? 0 : std::uint64_t{0x80} << (8 * at)));
      // Neighbours of every value: no carry may leak into them.
      const std::uint64_t full = word | (repeat(0xff) & ~(std::uint64_t{0xff} << (8 * at)));
      CHECK(nonzero_bytes(full) ==
            (repeat(0x80) & ~(byte == 0 ? std::uint64_t{0x80} << (8 * at) : 0)));
    }
}

TEST_CASE("swar: zero_bytes marks exactly the zero bytes") {
  CHECK(zero_bytes(0) == repeat(0x80));
  CHECK(zero_bytes(~std::uint64_t{0}) == 0);
  for (unsigned byte = 0; byte < 256; ++byte)
    for (std::size_t at = 0; at < 8; ++at) {
      const std::uint64_t word = std::uint64_t{byte} << (8 * at);
      const std::uint64_t others = repeat(0x80) & ~(std::uint64_t{0x80} << (8 * at));
      CHECK(zero_bytes(word) == (byte == 0 ? repeat(0x80) : others));
    }
  const std::uint64_t word = word_of("ab: c:d ");
  CHECK((zero_bytes(word ^ repeat(':')) | zero_bytes(word ^ repeat(' '))) == marks("..xx.x.x"));
}

TEST_CASE("swar: nondigit_bytes marks every byte but '0'..'9', whatever is beside it") {
  for (unsigned byte = 0; byte < 256; ++byte) {
    const bool digit = byte >= '0' && byte <= '9';
    for (unsigned fill : {0u, unsigned{'0'}, unsigned{'9'}, 0x2fu, 0x3au, 0xffu}) {
      const bool fill_digit = fill >= '0' && fill <= '9';
      for (std::size_t at = 0; at < 8; ++at) {
        const std::uint64_t others =
            repeat(static_cast<unsigned char>(fill)) & ~(std::uint64_t{0xff} << (8 * at));
        const std::uint64_t word = others | std::uint64_t{byte} << (8 * at);
        std::uint64_t expected = fill_digit ? 0 : repeat(0x80) & ~(std::uint64_t{0x80} << (8 * at));
        if (!digit)
          expected |= std::uint64_t{0x80} << (8 * at);
        CHECK(nondigit_bytes(word) == expected);
      }
    }
  }
  CHECK(nondigit_bytes(word_of("12-45 7:")) == marks("..x..x.x"));
}

TEST_CASE("swar: first and last nonzero byte") {
  CHECK(first_nonzero(marks("x.......")) == 0);
  CHECK(first_nonzero(marks("...x..x.")) == 3);
  CHECK(first_nonzero(marks(".......x")) == 7);
  CHECK(last_nonzero(marks("x.......")) == 0);
  CHECK(last_nonzero(marks("...x..x.")) == 6);
  CHECK(last_nonzero(std::uint64_t{1} << 56) == 7);
  CHECK(first_nonzero(0x0100) == 1);
}

TEST_CASE("swar: digits to numbers, leading or trailing, every length") {
  CHECK(digits_value(0) == 0);
  CHECK(leading_digits_value(word_of("3141592."), 7) == 3141592);
  CHECK(leading_digits_value(word_of("0) x-1  "), 1) == 0);
  CHECK(leading_digits_value(word_of("99999999"), 7) == 9999999);
  CHECK(trailing_digits_value(word_of("<idle>-0"), 1) == 0);
  CHECK(trailing_digits_value(word_of("x-123456"), 6) == 123456);
  CHECK(trailing_digits_value(word_of("87654321"), 8) == 87654321);
  CHECK(trailing_digits_value(word_of("00000042"), 8) == 42);
  for (std::size_t n = 1; n <= 7; ++n) {
    std::string digits = std::string("90817263").substr(0, n);
    const std::uint32_t value = static_cast<std::uint32_t>(std::stoul(digits));
    CHECK(leading_digits_value(word_of(digits + std::string(8 - n, ' ')), n) == value);
    CHECK(trailing_digits_value(word_of(std::string(8 - n, '-') + digits), n) == value);
  }
}

TEST_CASE("swar: first_zero_byte finds the first zero byte, whatever follows it") {
  CHECK(first_zero_byte(repeat(0x01)) == 0);
  CHECK(first_zero_byte(~std::uint64_t{0}) == 0);
  for (unsigned byte = 0; byte < 256; ++byte)
    for (std::size_t at = 0; at < 8; ++at)
      for (std::uint64_t rest : {std::uint64_t{0}, repeat(0x01), repeat(0x80), repeat(0xff)}) {
        // `byte` at `at`, nonzero bytes below it, `rest` above it.
        const std::uint64_t below = at == 0 ? 0 : repeat(0x01) >> (8 * (8 - at));
        const std::uint64_t above = at == 7 ? 0 : rest << (8 * (at + 1));
        const std::uint64_t word = below | (std::uint64_t{byte} << (8 * at)) | above;
        const std::uint64_t found = first_zero_byte(word);
        if (byte == 0) {
          REQUIRE(found != 0);
          CHECK(first_nonzero(found) == at);
        } else if (rest != 0) {
          CHECK(found == 0);
        }
      }
}

TEST_CASE("swar: all_digits is exact per byte of the field") {
  const std::uint64_t six = 0x0000ffffffffffffULL;
  CHECK(all_digits(word_of("123456:x"), six));
  CHECK(all_digits(word_of("0000009x"), six));
  CHECK_FALSE(all_digits(word_of("12345 :x"), six));
  CHECK(all_digits(word_of("abcdefgh"), 0)); // no byte counts
  CHECK(all_digits(word_of("12345678"), ~std::uint64_t{0}));
  for (unsigned byte = 0; byte < 256; ++byte)
    for (std::size_t at = 0; at < 8; ++at) {
      std::string text = "99999999";
      text[at] = static_cast<char>(byte);
      const bool digit = byte >= '0' && byte <= '9';
      CHECK(all_digits(word_of(text), ~std::uint64_t{0}) == digit);
      CHECK(all_digits(word_of(text), six) == (digit || at >= 6));
    }
}

} // namespace
} // namespace allocwatch::swar

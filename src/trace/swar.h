// SWAR ("SIMD within a register"): eight bytes of a trace line tested or
// converted at once in a 64-bit word, for the parser's hot paths. Every
// helper here is exact per byte (no carry or borrow crosses from one byte
// into another, so a byte's answer never depends on its neighbours), except
// first_zero_byte(), exact only for the first zero byte, and all_digits(),
// one answer for the whole field.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>

namespace allocwatch::swar {

// `byte` in each of the eight bytes.
constexpr std::uint64_t repeat(unsigned char byte) {
  return 0x0101010101010101ULL * byte;
}

// The eight bytes at p, the first in the lowest byte of the word whatever
// the machine's byte order, so that "byte i" below means p[i].
inline std::uint64_t load8(const char* p) {
  std::uint64_t word;
  std::memcpy(&word, p, sizeof word);
  if constexpr (std::endian::native == std::endian::big)
    word = __builtin_bswap64(word);
  return word;
}

// 0x80 in each byte of x that is not zero, 0 in the others.
constexpr std::uint64_t nonzero_bytes(std::uint64_t x) {
  // (x & 0x7f) + 0x7f sets the high bit iff the low seven bits are not all
  // zero, and stays below 0x100; or-ing x adds its own high bit.
  return (((x & repeat(0x7f)) + repeat(0x7f)) | x) & repeat(0x80);
}

// 0x80 in each byte of x that is zero, 0 in the others.
constexpr std::uint64_t zero_bytes(std::uint64_t x) {
  return nonzero_bytes(x) ^ repeat(0x80);
}

// 0x80 in the first (lowest) byte of x that is zero and maybe in bytes above
// it, never below: exact for where the first zero byte is, and whether there
// is one, in fewer steps than zero_bytes(). A borrow starts only at a zero
// byte and only moves up; a byte without one sets its bit only when zero.
constexpr std::uint64_t first_zero_byte(std::uint64_t x) {
  return (x - repeat(0x01)) & ~x & repeat(0x80);
}

// 0x80 in each byte that is not an ASCII digit, 0 in each digit.
constexpr std::uint64_t nondigit_bytes(std::uint64_t word) {
  // Digits become 0..9; (x & 0x7f) + 0x76 reaches the high bit iff x & 0x7f
  // is 10 or more, and stays below 0x100.
  const std::uint64_t x = word ^ repeat('0');
  return (((x & repeat(0x7f)) + repeat(0x76)) | x) & repeat(0x80);
}

// Whether each byte of `field` (0xff in the bytes that count) in word is an
// ASCII digit: its high nibble 3, and its low one 0..9, so that adding 6
// keeps the high nibble. Adding 6 carries out of a byte only when the byte
// is 0xfa or more, which already fails the first test.
constexpr bool all_digits(std::uint64_t word, std::uint64_t field) {
  const std::uint64_t high = field & repeat(0xf0);
  return (word & high) == (field & repeat(0x30)) &&
         ((word + (field & repeat(0x06))) & high) == (field & repeat(0x30));
}

// Index of the first (lowest) byte of a nonzero word that is not zero.
constexpr std::size_t first_nonzero(std::uint64_t word) {
  return static_cast<std::size_t>(std::countr_zero(word)) / 8;
}

// Index of the last (highest) byte of a nonzero word that is not zero.
constexpr std::size_t last_nonzero(std::uint64_t word) {
  return 7 - static_cast<std::size_t>(std::countl_zero(word)) / 8;
}

// The number written by eight decimal digit values (each byte 0..9, byte 0
// the most significant): 0 to 99,999,999. Leading zero bytes stand for
// leading zeros, so fewer digits are converted by shifting them up first.
constexpr std::uint32_t digits_value(std::uint64_t digits) {
  // Pairs of digits to 0..99 in bytes 0, 2, 4 and 6, then the four pairs to
  // one number with two multiplications (no carry leaves its byte or half).
  digits = digits * 10 + (digits >> 8);
  constexpr std::uint64_t kPairs = 0x000000FF000000FFULL;
  constexpr std::uint64_t kHigh = 100 + (1000000ULL << 32);
  constexpr std::uint64_t kLow = 1 + (10000ULL << 32);
  return static_cast<std::uint32_t>(
      (((digits & kPairs) * kHigh) + (((digits >> 16) & kPairs) * kLow)) >> 32);
}

// The value of the first n (1..7) bytes of `word`, all ASCII digits.
constexpr std::uint32_t leading_digits_value(std::uint64_t word, std::size_t n) {
  return digits_value((word ^ repeat('0')) << (8 * (8 - n)));
}

// The value of the last n (1..8) bytes of `word`, all ASCII digits.
constexpr std::uint32_t trailing_digits_value(std::uint64_t word, std::size_t n) {
  return digits_value((word ^ repeat('0')) & (~std::uint64_t{0} << (8 * (8 - n))));
}

} // namespace allocwatch::swar

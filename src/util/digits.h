// Digits of an unsigned integer, written backwards so that they end at
// `end`; each returns where they begin. A buffer of kMaxDigits bytes holds
// any 64-bit value's.
//
//   char buffer[kMaxDigits];
//   char* const end = buffer + sizeof buffer;
//   const char* begin = decimal_digits(v, end);
//   out.append(begin, static_cast<std::size_t>(end - begin));
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace allocwatch {

inline constexpr std::size_t kMaxDigits = 20; // 18446744073709551615

inline char* decimal_digits(std::uint64_t v, char* end) {
  static constexpr char kPairs[] = "00010203040506070809"
                                   "10111213141516171819"
                                   "20212223242526272829"
                                   "30313233343536373839"
                                   "40414243444546474849"
                                   "50515253545556575859"
                                   "60616263646566676869"
                                   "70717273747576777879"
                                   "80818283848586878889"
                                   "90919293949596979899";
  char* p = end;
  while (v >= 100) {
    const auto pair = static_cast<std::size_t>(v % 100) * 2;
    v /= 100;
    *--p = kPairs[pair + 1];
    *--p = kPairs[pair];
  }
  if (v >= 10) {
    const auto pair = static_cast<std::size_t>(v) * 2;
    *--p = kPairs[pair + 1];
    *--p = kPairs[pair];
  } else {
    *--p = static_cast<char>('0' + v);
  }
  return p;
}

// How many digits decimal_digits() writes for `v`.
inline std::size_t decimal_width(std::uint64_t v) {
  std::size_t width = 1;
  for (; v >= 10000; v /= 10000)
    width += 4;
  return width + (v >= 10) + (v >= 100) + (v >= 1000);
}

// Lower-case hexadecimal, no "0x".
inline char* hex_digits(std::uint64_t v, char* end) {
  static constexpr char kHex[] = "0123456789abcdef";
  char* p = end;
  do {
    *--p = kHex[v & 15];
    v >>= 4;
  } while (v != 0);
  return p;
}

// How many digits hex_digits() writes for `v`.
inline std::size_t hex_width(std::uint64_t v) {
  return (64 - static_cast<std::size_t>(__builtin_clzll(v | 1)) + 3) / 4;
}

// The bytes hex_text() needs: "0x" and 16 digits.
inline constexpr std::size_t kMaxHexText = 18;

// "0x" and the hexadecimal digits of `v`, written into `buffer`; the view
// lives as long as the buffer.
inline std::string_view hex_text(std::uint64_t v, char (&buffer)[kMaxHexText]) {
  char* const end = buffer + sizeof buffer;
  char* begin = hex_digits(v, end);
  *--begin = 'x';
  *--begin = '0';
  return {begin, static_cast<std::size_t>(end - begin)};
}

} // namespace allocwatch

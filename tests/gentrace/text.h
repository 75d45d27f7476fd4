// Numbers into text (no printf per field: this writes 500 MB in seconds).
#pragma once

#include "common.h"

#include <cstdint>
#include <string>

namespace gentrace {

inline void put_uint(std::string& s, std::uint64_t v) {
  char digits[20];
  int n = 0;
  do {
    digits[n++] = static_cast<char>('0' + v % 10);
    v /= 10;
  } while (v != 0);
  while (n > 0)
    s.push_back(digits[--n]);
}

inline void put_int(std::string& s, std::int64_t v) {
  if (v < 0) {
    s.push_back('-');
    put_uint(s, static_cast<std::uint64_t>(-v));
  } else {
    put_uint(s, static_cast<std::uint64_t>(v));
  }
}

inline int digit_count(std::uint64_t v) {
  int n = 1;
  while (v >= 10) {
    v /= 10;
    ++n;
  }
  return n;
}

// printf("%*lu") with `pad` as the fill: right-aligned in `width`.
inline void put_uint_right(std::string& s, std::uint64_t v, int width, char pad) {
  for (int i = digit_count(v); i < width; ++i)
    s.push_back(pad);
  put_uint(s, v);
}

inline void put_hex(std::string& s, std::uint64_t v, int width) {
  static constexpr char kHex[] = "0123456789abcdef";
  char digits[16];
  int n = 0;
  do {
    digits[n++] = kHex[v & 15];
    v >>= 4;
  } while (v != 0);
  for (int i = n; i < width; ++i)
    s.push_back('0');
  while (n > 0)
    s.push_back(digits[--n]);
}

// "8.455000": milliseconds with six decimals, as allocwatch's format_ms.
inline std::string format_ms(Nanos ns) {
  std::string s;
  put_uint(s, static_cast<std::uint64_t>(ns / kMilli));
  s.push_back('.');
  put_uint_right(s, static_cast<std::uint64_t>(ns % kMilli), 6, '0');
  return s;
}

} // namespace gentrace

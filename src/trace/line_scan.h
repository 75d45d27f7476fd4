// The parser's scanning helpers (trace/parser.cpp, the only includer):
// spaces, literals, numbers, timestamps, durations and pids in a line of
// trace_pipe, most a word of eight bytes at a time (trace/swar.h). In a
// header so that parse_line, flattened, inlines them.
//
// Each walks [p, end) with raw pointers: it takes the end and never returns
// a position past it, so no input can make it read outside the line. Those
// that return a position return nullptr when the text does not match.
#pragma once

#include "trace/record.h"
#include "trace/swar.h"

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>

namespace allocwatch::line_scan {

constexpr bool is_digit(char c) {
  return c >= '0' && c <= '9';
}

// Comparisons with a literal whose length is known at compile time, so that
// they compile to a few instructions rather than a call to memcmp.
template <std::size_t N> bool starts(const char* p, const char* end, const char (&literal)[N]) {
  return static_cast<std::size_t>(end - p) >= N - 1 && std::memcmp(p, literal, N - 1) == 0;
}
template <std::size_t N> bool starts(std::string_view s, const char (&literal)[N]) {
  return starts(s.data(), s.data() + s.size(), literal);
}
template <std::size_t N> bool ends(std::string_view s, const char (&literal)[N]) {
  return s.size() >= N - 1 && std::memcmp(s.data() + s.size() - (N - 1), literal, N - 1) == 0;
}

// Trace lines are mostly padding: skip spaces eight at a time.
inline const char* skip_spaces(const char* p, const char* end) {
  while (end - p >= 8) {
    const std::uint64_t differs = swar::load8(p) ^ swar::repeat(' ');
    if (differs != 0)
      return p + swar::first_nonzero(differs);
    p += 8;
  }
  while (p < end && *p == ' ')
    ++p;
  return p;
}

// The end of [p, end) without its trailing spaces, eight at a time.
inline const char* trim_spaces_back(const char* p, const char* end) {
  while (end - p >= 8) {
    const std::uint64_t differs = swar::load8(end - 8) ^ swar::repeat(' ');
    if (differs != 0)
      return end - 8 + swar::last_nonzero(differs) + 1;
    end -= 8;
  }
  while (end > p && end[-1] == ' ')
    --end;
  return end;
}

// Whether [p, end) holds only '-' and ' ' (the rules around a banner), eight
// bytes at a time: a byte is neither when it differs from both.
inline bool only_dashes_and_spaces(const char* p, const char* end) {
  for (; end - p >= 8; p += 8) {
    // A rule is dashes but for its first byte: one compare for most words.
    const std::uint64_t word = swar::load8(p);
    if (word != swar::repeat('-') && (swar::nonzero_bytes(word ^ swar::repeat('-')) &
                                      swar::nonzero_bytes(word ^ swar::repeat(' '))) != 0)
      return false;
  }
  for (; p < end; ++p)
    if (*p != '-' && *p != ' ')
      return false;
  return true;
}

// The first of a or b in [p, end), or end; eight bytes at a time. Inlined:
// with a and b known at the call, the byte masks fold to constants.
[[gnu::always_inline]] inline const char* find_either(const char* p, const char* end, char a,
                                                      char b) {
  for (; end - p >= 8; p += 8) {
    const std::uint64_t word = swar::load8(p);
    const std::uint64_t found =
        swar::first_zero_byte(word ^ swar::repeat(static_cast<unsigned char>(a))) |
        swar::first_zero_byte(word ^ swar::repeat(static_cast<unsigned char>(b)));
    if (found != 0)
      return p + swar::first_nonzero(found);
  }
  while (p < end && *p != a && *p != b)
    ++p;
  return p;
}

// read_number for what one word does not hold: a digit at a time.
inline const char* read_long_number(const char* p, const char* end, std::size_t max_digits,
                                    std::uint64_t& value) {
  const char* first = p;
  const char* last = static_cast<std::size_t>(end - p) > max_digits ? p + max_digits : end;
  std::uint64_t v = 0;
  // One unsigned compare per character: every line has 20 to 30 digits.
  for (; p < last; ++p) {
    const unsigned digit = static_cast<unsigned char>(*p) - unsigned{'0'};
    if (digit > 9)
      break;
    v = v * 10 + digit;
  }
  if (p == first || (p < end && is_digit(*p)))
    return nullptr;
  value = v;
  return p;
}

// 1 to max_digits decimal digits (so no overflow); nullptr on none or more.
// Inlined: a line has four or five numbers, and the common case is a few
// instructions, fewer than a call.
[[gnu::always_inline]] inline const char*
read_number(const char* p, const char* end, std::size_t max_digits, std::uint64_t& value) {
  if (end - p >= 8) {
    // Numbers of up to 7 digits (every cpu, pid and seconds of uptime below
    // 115 days) end within one word: find the end and convert at once.
    const std::uint64_t word = swar::load8(p);
    const std::uint64_t stops = swar::nondigit_bytes(word);
    if (stops != 0) {
      const std::size_t n = swar::first_nonzero(stops);
      if (n == 0 || n > max_digits)
        return nullptr;
      value = swar::leading_digits_value(word, n);
      return p + n;
    }
  }
  return read_long_number(p, end, max_digits, value);
}

inline constexpr std::uint64_t kPow10[] = {1,      10,      100,      1000,      10000,
                                           100000, 1000000, 10000000, 100000000, 1000000000};

// "224.593574" (any 1..9 fraction digits) to ns. Seconds are bounded so the
// result fits in Nanos. A microsecond clock's 6 digits take read_number's
// one-word path.
inline const char* read_timestamp(const char* p, const char* end, Nanos& ns) {
  constexpr std::uint64_t kMaxSeconds = INT64_MAX / kSecond - 1;
  std::uint64_t seconds = 0;
  std::uint64_t fraction = 0;
  p = read_number(p, end, 10, seconds);
  if (p == nullptr || seconds > kMaxSeconds || p == end || *p != '.')
    return nullptr;
  const char* fraction_begin = ++p;
  if ((p = read_number(p, end, 9, fraction)) == nullptr)
    return nullptr;
  ns = static_cast<Nanos>(seconds * kSecond + fraction * kPow10[9 - (p - fraction_begin)]);
  return p;
}

// "431.377 us", "57988.55 us", "3594274 us" to ns: the kernel keeps 7 digits
// and drops decimals to do so.
inline const char* read_duration(const char* p, const char* end, Nanos& ns) {
  std::uint64_t micros = 0;
  std::uint64_t fraction = 0;
  std::size_t fraction_digits = 0;
  p = read_number(p, end, 12, micros);
  if (p == nullptr)
    return nullptr;
  if (p < end && *p == '.') {
    const char* fraction_begin = ++p;
    p = read_number(p, end, 3, fraction);
    if (p == nullptr)
      return nullptr;
    fraction_digits = static_cast<std::size_t>(p - fraction_begin);
  }
  if (!starts(p, end, " us"))
    return nullptr;
  ns = static_cast<Nanos>(micros * kMicro + fraction * kPow10[3 - fraction_digits]);
  return p + 3;
}

inline bool parse_pid(const char* p, const char* end, std::int32_t& pid) {
  std::uint64_t value = 0;
  p = read_number(p, end, 10, value);
  if (p != end || value > INT32_MAX)
    return false;
  pid = static_cast<std::int32_t>(value);
  return true;
}

// The pid whose digits end at `end` and start after `begin` (so something,
// the '-' before it, can stand there), and where its digits start.
struct PidDigits {
  const char* digits = nullptr; // nullptr: there are no digits, they reach
                                // `begin`, or parse_pid refuses them
  std::int32_t pid = 0;
};
// Inlined into both callers: called on every line, and small.
[[gnu::always_inline]] inline PidDigits read_pid_back(const char* begin, const char* end) {
  if (end - begin >= 8) {
    // pid_max is at most 4194304: a pid's digits end the last word.
    const std::uint64_t word = swar::load8(end - 8);
    const std::uint64_t stops = swar::nondigit_bytes(word);
    if (stops != 0) {
      const std::size_t n = 7 - swar::last_nonzero(stops);
      if (n == 0)
        return {};
      return {end - n, static_cast<std::int32_t>(swar::trailing_digits_value(word, n))};
    }
  }
  const char* k = end;
  while (k > begin && is_digit(k[-1]))
    --k;
  PidDigits found;
  if (k == begin || !parse_pid(k, end, found.pid))
    return {};
  found.digits = k;
  return found;
}

// The first c in [p, end), or nullptr, as memchr; a word at a time over the
// first 32 bytes, where the graph columns' '|' stands, since memchr's set-up
// costs more than such a short search.
[[gnu::always_inline]] inline const char* find_byte(const char* p, const char* end, char c) {
  for (int words = 0; words < 4 && end - p >= 8; ++words, p += 8) {
    const std::uint64_t found =
        swar::first_zero_byte(swar::load8(p) ^ swar::repeat(static_cast<unsigned char>(c)));
    if (found != 0)
      return p + swar::first_nonzero(found);
  }
  return static_cast<const char*>(std::memchr(p, c, static_cast<std::size_t>(end - p)));
}

} // namespace allocwatch::line_scan

// parse_line's fixed-layout shortcuts (trace/parser.cpp, the only
// includer). The kernel pads its columns to fixed widths
// (trace_print_context in kernel/trace/trace_output.c; print_graph_abs_time,
// print_graph_cpu and print_graph_duration in trace_functions_graph.c), so
// nearly every line has its timestamp, cpu and blank duration column where
// the layout puts them, and a shortcut that expects them there skips the
// general walk's searches. Each checks every byte it relies on and gives up
// at the first that differs from the layout; the general walk then decides
// as before. Where one answers, it answers exactly what the general walk
// would (the comments say why): the same values, the same position to go on
// from. Each checks the line's length once before it reads, so the helpers
// below (short_number, seconds_number, micro_fraction) take no end.
// parse_line_general() runs without them, so that tests and the fuzzer can
// compare the two.
// Numbers are read a digit at a time: a column's number has a few digits,
// and a loop over them costs fewer instructions than setting up a
// word-at-a-time conversion; but seconds of three digits or more, which
// seconds_number() converts as a word.
#pragma once

#include "trace/line_scan.h"
#include "trace/record.h"
#include "trace/swar.h"

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace allocwatch::line_scan {

// Whether `line` is the rule the kernel prints above and below a
// context-switch banner (verif_pid in trace_functions_graph.c: a space and
// 42 dashes), checked as whole words: with many tasks on many cpus, a third
// of the lines of a function_graph trace. The general walk skips it as a
// line of dashes and spaces, which this is.
inline bool is_banner_rule(std::string_view line) {
  constexpr std::size_t kRuleBytes = 43;
  constexpr std::uint64_t kDashes = swar::repeat('-');
  if (line.size() != kRuleBytes)
    return false;
  const char* const p = line.data();
  return swar::load8(p) == ((kDashes << 8) | ' ') && swar::load8(p + 8) == kDashes &&
         swar::load8(p + 16) == kDashes && swar::load8(p + 24) == kDashes &&
         swar::load8(p + 32) == kDashes && swar::load8(p + kRuleBytes - 8) == kDashes;
}

// 1..max_digits digits at p, value to `value`; returns the byte after them
// (no digit, or the max_digits + 1st digit, which the caller's check of the
// byte after a number then refuses, as read_number() refuses the number).
// The caller makes sure max_digits + 1 bytes are in the line.
[[gnu::always_inline]] inline const char* short_number(const char* p, int max_digits,
                                                       std::uint64_t& value) {
  unsigned digit = static_cast<unsigned char>(*p) - unsigned{'0'};
  if (digit > 9)
    return nullptr;
  const char* const limit = p + max_digits;
  std::uint64_t v = 0;
  do {
    v = v * 10 + digit;
    ++p;
  } while (p < limit && (digit = static_cast<unsigned char>(*p) - unsigned{'0'}) <= 9);
  value = v;
  return p;
}

// short_number(p, 7, value) for the seconds column: read_number()'s word at
// a time when they have more than two digits (an uptime of 12 days has 7,
// and the loop takes a step each), the loop for fewer, where it costs less.
// Both refuse an eighth digit, read_number() at once, short_number() by
// leaving it for the caller's check. The caller makes sure 8 bytes are in
// the line.
[[gnu::always_inline]] inline const char* seconds_number(const char* p, std::uint64_t& value) {
  if (!is_digit(p[1]) || !is_digit(p[2]))
    return short_number(p, 7, value);
  return read_number(p, p + 8, 7, value);
}

// ".%06lu" (the kernel's microseconds) at dot, then `stop`: the ns of the
// fraction, or -1. read_number() reads the same six digits, since the stop
// is no digit. The caller makes sure 8 bytes from dot + 1 are in the line.
[[gnu::always_inline]] inline Nanos micro_fraction(const char* dot, char stop) {
  const std::uint64_t word = swar::load8(dot + 1);
  if (*dot != '.' || !swar::all_digits(word, 0x0000ffffffffffffULL) || dot[7] != stop ||
      is_digit(stop))
    return -1;
  return static_cast<Nanos>(swar::leading_digits_value(word, 6) * kMicro);
}

// Events, from the byte after ']': " ", the irq-info flags (1..7 characters,
// the first no digit), then " %5lu.%06lu:". Returns the ':', as event_time()
// does: skip_spaces() stops at the flags, which start with no digit, so the
// general walk takes them up to the same space (the first of the word after
// p) and reads the same timestamp after the same spaces (up to the first
// other byte of the word from that space).
inline const char* event_time_fixed(const char* p, const char* end, Nanos& ts) {
  // The most read: ' ', 7 flags, 8 spaces and other, 7 digits, '.', 6 digits, ':'.
  if (end - p < 32 || p[0] != ' ' || p[1] == ' ' || is_digit(p[1]))
    return nullptr;
  const std::uint64_t flags_end = swar::first_zero_byte(swar::load8(p + 1) ^ swar::repeat(' '));
  if (flags_end == 0)
    return nullptr;
  const char* q = p + 1 + swar::first_nonzero(flags_end);
  const std::uint64_t seconds_begin = swar::load8(q) ^ swar::repeat(' ');
  if (seconds_begin == 0)
    return nullptr;
  std::uint64_t seconds = 0;
  q = seconds_number(q + swar::first_nonzero(seconds_begin), seconds);
  if (q == nullptr)
    return nullptr;
  const Nanos fraction = micro_fraction(q, ':');
  if (fraction < 0)
    return nullptr;
  ts = static_cast<Nanos>(seconds * kSecond) + fraction;
  return q + 7;
}

// function_graph: "%5lu.%06lu |  " (abstime) then " %*d) " (cpu), or the
// cpu column alone. Sets what graph_time_and_cpu() sets, equally: a line
// whose first digits end at ')' has no timestamp for the general walk
// either, and read_number() reads the cpu's 1..5 digits after the spaces.
inline bool graph_time_and_cpu_fixed(const char* first, const char* end, Record& r, const char*& p,
                                     std::size_t& fixed_spaces) {
  // The most read: 7 digits, '.', 6 digits, " |", 7 spaces and other, 5 digits, ')'.
  if (end - first < 32)
    return false;
  std::uint64_t number = 0;
  const char* q = seconds_number(first, number);
  if (q == nullptr)
    return false;
  Nanos ts = -1;
  if (*q == '.') {
    const Nanos fraction = micro_fraction(q, ' ');
    if (fraction < 0 || q[8] != '|')
      return false;
    ts = static_cast<Nanos>(number * kSecond) + fraction;
    const std::uint64_t cpu_begin = swar::load8(q + 9) ^ swar::repeat(' ');
    if (cpu_begin == 0 ||
        (q = short_number(q + 9 + swar::first_nonzero(cpu_begin), 5, number)) == nullptr)
      return false;
  } else if (q - first > 5) {
    return false;
  }
  if (*q != ')')
    return false;
  r.ts = ts;
  r.cpu = static_cast<std::int32_t>(number);
  p = q + 1;
  fixed_spaces = 1;
  return true;
}

} // namespace allocwatch::line_scan

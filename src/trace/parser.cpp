#include "trace/parser.h"

#include "trace/swar.h"

#include <array>
#include <bit>
#include <cstdint>
#include <cstring>

// The parser walks [p, end) with raw pointers: every helper takes the end and
// never returns a position past it, so no input can make it read outside the
// line; the fixed-layout helpers (short_number, seconds_number,
// micro_fraction) take no end, and their callers check the line's length
// once before they read. Helpers return nullptr when the text does not
// match.
namespace allocwatch {
namespace {

using std::size_t;
using std::string_view;

constexpr bool is_digit(char c) {
  return c >= '0' && c <= '9';
}

// Comparisons with a literal whose length is known at compile time, so that
// they compile to a few instructions rather than a call to memcmp.
template <size_t N> bool starts(const char* p, const char* end, const char (&literal)[N]) {
  return static_cast<size_t>(end - p) >= N - 1 && std::memcmp(p, literal, N - 1) == 0;
}
template <size_t N> bool starts(string_view s, const char (&literal)[N]) {
  return starts(s.data(), s.data() + s.size(), literal);
}
template <size_t N> bool ends(string_view s, const char (&literal)[N]) {
  return s.size() >= N - 1 && std::memcmp(s.data() + s.size() - (N - 1), literal, N - 1) == 0;
}

// Trace lines are mostly padding: skip spaces eight at a time.
const char* skip_spaces(const char* p, const char* end) {
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
const char* trim_spaces_back(const char* p, const char* end) {
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
bool only_dashes_and_spaces(const char* p, const char* end) {
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

// Whether `line` is the rule the kernel prints above and below a
// context-switch banner (verif_pid in trace_functions_graph.c: a space and
// 42 dashes), checked as whole words: with many tasks on many cpus, a third
// of the lines of a function_graph trace. The general walk skips it as a
// line of dashes and spaces, which this is.
bool is_banner_rule(string_view line) {
  constexpr std::size_t kRuleBytes = 43;
  constexpr std::uint64_t kDashes = swar::repeat('-');
  if (line.size() != kRuleBytes)
    return false;
  const char* const p = line.data();
  return swar::load8(p) == ((kDashes << 8) | ' ') && swar::load8(p + 8) == kDashes &&
         swar::load8(p + 16) == kDashes && swar::load8(p + 24) == kDashes &&
         swar::load8(p + 32) == kDashes && swar::load8(p + kRuleBytes - 8) == kDashes;
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
const char* read_long_number(const char* p, const char* end, size_t max_digits,
                             std::uint64_t& value) {
  const char* first = p;
  const char* last = static_cast<size_t>(end - p) > max_digits ? p + max_digits : end;
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
[[gnu::always_inline]] inline const char* read_number(const char* p, const char* end,
                                                      size_t max_digits, std::uint64_t& value) {
  if (end - p >= 8) {
    // Numbers of up to 7 digits (every cpu, pid and seconds of uptime below
    // 115 days) end within one word: find the end and convert at once.
    const std::uint64_t word = swar::load8(p);
    const std::uint64_t stops = swar::nondigit_bytes(word);
    if (stops != 0) {
      const size_t n = swar::first_nonzero(stops);
      if (n == 0 || n > max_digits)
        return nullptr;
      value = swar::leading_digits_value(word, n);
      return p + n;
    }
  }
  return read_long_number(p, end, max_digits, value);
}

constexpr std::uint64_t kPow10[] = {1,      10,      100,      1000,      10000,
                                    100000, 1000000, 10000000, 100000000, 1000000000};

// "224.593574" (any 1..9 fraction digits) to ns. Seconds are bounded so the
// result fits in Nanos. A microsecond clock's 6 digits take read_number's
// one-word path.
const char* read_timestamp(const char* p, const char* end, Nanos& ns) {
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
const char* read_duration(const char* p, const char* end, Nanos& ns) {
  std::uint64_t micros = 0;
  std::uint64_t fraction = 0;
  size_t fraction_digits = 0;
  p = read_number(p, end, 12, micros);
  if (p == nullptr)
    return nullptr;
  if (p < end && *p == '.') {
    const char* fraction_begin = ++p;
    p = read_number(p, end, 3, fraction);
    if (p == nullptr)
      return nullptr;
    fraction_digits = static_cast<size_t>(p - fraction_begin);
  }
  if (!starts(p, end, " us"))
    return nullptr;
  ns = static_cast<Nanos>(micros * kMicro + fraction * kPow10[3 - fraction_digits]);
  return p + 3;
}

bool parse_pid(const char* p, const char* end, std::int32_t& pid) {
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
      const size_t n = 7 - swar::last_nonzero(stops);
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
  return static_cast<const char*>(std::memchr(p, c, static_cast<size_t>(end - p)));
}

// Fixed-layout shortcuts. The kernel pads its columns to fixed widths
// (trace_print_context in kernel/trace/trace_output.c; print_graph_abs_time,
// print_graph_cpu and print_graph_duration in trace_functions_graph.c), so
// nearly every line has its timestamp, cpu and blank duration column where
// the layout puts them, and a shortcut that expects them there skips the
// general walk's searches. Each checks every byte it relies on and gives up
// at the first that differs from the layout; the general walk then decides
// as before. Where one answers, it answers exactly what the general walk
// would (the comments say why): the same values, the same position to go on
// from. Each checks the line's length before it reads. parse_line_general()
// runs without them, so that tests and the fuzzer can compare the two.
// Numbers are read a digit at a time: a column's number has a few digits,
// and a loop over them costs fewer instructions than setting up a
// word-at-a-time conversion; but seconds of three digits or more, which
// seconds_number() converts as a word.

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
const char* event_time_fixed(const char* p, const char* end, Nanos& ts) {
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
bool graph_time_and_cpu_fixed(const char* first, const char* end, Record& r, const char*& p,
                              size_t& fixed_spaces) {
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

// "<XXX>" is what the kernel prints for a pid it cannot look up because the
// record is corrupt; such a line carries nothing to trust.
bool corrupt_comm(string_view comm) {
  return starts(comm, "<XXX>");
}

// The proc column "  comm-pid  " in [p, bar) (centred). Takes the digits
// after the last '-' as pid and the rest, trimmed, as comm.
bool parse_proc(const char* p, const char* bar, Record& r) {
  const char* end = trim_spaces_back(p, bar);
  if (end == bar) // the kernel always prints " | " after it
    return false;
  const auto [digits, pid] = read_pid_back(p, end);
  if (digits == nullptr || digits[-1] != '-')
    return false;
  const char* dash = digits - 1;
  const char* begin = skip_spaces(p, dash);
  if (begin == dash)
    return false;
  r.pid = pid;
  r.comm = string_view(begin, static_cast<size_t>(dash - begin));
  return true;
}

// Characters of a kernel symbol as %ps prints it ("shrink_slab",
// "__alloc_pages_slowpath.constprop.0", "0xffffffffc0a01234").
constexpr std::array<bool, 256> kSymbolChar = [] {
  std::array<bool, 256> table{};
  for (int c = 0; c < 256; ++c)
    table[static_cast<size_t>(c)] = (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') ||
                                    (c >= 'A' && c <= 'Z') || c == '_' || c == '.' || c == '$';
  return table;
}();

size_t symbol_length(string_view text) {
  size_t end = 0;
  while (end < text.size() && kSymbolChar[static_cast<unsigned char>(text[end])])
    ++end;
  return end;
}

// "f", "f [module]" (what %ps prints for module symbols), "f = 0x0",
// "f ret=-22": the symbol before the first space.
bool parse_symbol(string_view text, string_view& name) {
  size_t end = symbol_length(text);
  if (end == 0 || (end < text.size() && text[end] != ' '))
    return false;
  name = text.substr(0, end);
  return true;
}

// An optional trailing comment " /* ... */" (retval, return address).
bool is_comment_or_empty(string_view tail) {
  return tail.empty() || (tail.size() >= 7 && starts(tail, " /* ") && ends(tail, " */"));
}

// The body of a function_graph line, after its indentation.
LineKind parse_graph_body(string_view body, Record& r) {
  if (body == "}")
    return LineKind::GraphReturn;
  if (starts(body, "} /* ")) {
    // "} /* f */", "} /* f = -22 */" (6.5+), "} /* f ret=0x0 */" (6.13+)
    if (body.size() < 8 || !ends(body, " */") ||
        !parse_symbol(body.substr(5, body.size() - 8), r.name))
      return LineKind::Malformed;
    return LineKind::GraphReturn;
  }
  if (starts(body, "/* ")) {
    if (body.size() < 6 || !ends(body, " */"))
      return LineKind::Malformed;
    string_view text = body.substr(3, body.size() - 6);
    // "name: fields": the name is what stands before the first ':', if no
    // space does. Eight bytes at a time: every event line passes here.
    const size_t i = static_cast<size_t>(
        find_either(text.data(), text.data() + text.size(), ':', ' ') - text.data());
    if (i != 0 && i < text.size() && text[i] == ':') {
      r.name = text.substr(0, i);
      r.fields = text.substr(i + 1);
      if (starts(r.fields, " "))
        r.fields.remove_prefix(1);
    } else {
      r.fields = text; // a trace_marker or trace_printk message
    }
    return LineKind::Event;
  }
  // "f() {", "f(a=1, b=2) {", "f();", "f(); /* ret=0x0 */", "f() { /* <-g+0x5/0x9 */",
  // "f [module]();"
  size_t open = symbol_length(body);
  if (open == 0)
    return LineKind::Malformed;
  r.name = body.substr(0, open);
  if (open < body.size() && body[open] == ' ')
    open = body.find('(', open);
  if (open >= body.size() || body[open] != '(')
    return LineKind::Malformed;
  for (size_t from = open + 1;;) {
    size_t close = from < body.size() && body[from] == ')' ? from : body.find(')', from);
    if (close == string_view::npos)
      return LineKind::Malformed;
    string_view after = body.substr(close + 1);
    if (starts(after, ";"))
      return is_comment_or_empty(after.substr(1)) ? LineKind::GraphLeaf : LineKind::Malformed;
    if (starts(after, " {"))
      return is_comment_or_empty(after.substr(2)) ? LineKind::GraphEntry : LineKind::Malformed;
    from = close + 1;
  }
}

// Whether [p, end) holds " => " (a context-switch banner). find_byte for the
// rare '=', not string_view::find, which stops at every space of the
// banner's padding.
bool has_arrow(const char* p, const char* end) {
  if (end - p < 4)
    return false;
  // The '=' stands after one byte and before two.
  for (const char* from = p + 1; end - from >= 3;) {
    const char* equals = find_byte(from, end - 2, '=');
    if (equals == nullptr)
      return false;
    if (equals[-1] == ' ' && equals[1] == '>' && equals[2] == ' ')
      return true;
    from = equals + 1;
  }
  return false;
}

bool is_irq_marker(const char* p, const char* end) {
  return starts(p, end, "==========>") || starts(p, end, "<==========");
}

bool is_overhead_mark(char c) {
  return c == '$' || c == '@' || c == '*' || c == '#' || c == '!' || c == '+';
}

Record skip(string_view line) {
  Record r;
  r.kind = LineKind::Skip;
  r.line = line;
  return r;
}

Record malformed(string_view line) {
  Record r;
  r.line = line;
  return r;
}

// function_graph's leading columns "[abstime |] [cpu)]" from `first`, the
// line's first byte that is no space: sets r.ts and r.cpu, the position
// after them and the spaces the last one puts before the body at depth 0
// ("|  " after abstime, ") " after cpu). False if neither column is there.
bool graph_time_and_cpu(const char* first, const char* end, Record& r, const char*& p,
                        size_t& fixed_spaces) {
  bool columns = false;
  p = first;
  Nanos ts = 0;
  const char* q = read_timestamp(p, end, ts);
  if (q != nullptr && (q = skip_spaces(q, end)) < end && *q == '|') {
    r.ts = ts;
    p = q + 1;
    fixed_spaces = 2;
    columns = true;
  }
  std::uint64_t cpu = 0;
  q = read_number(skip_spaces(p, end), end, 5, cpu);
  if (q != nullptr && q < end && *q == ')') {
    r.cpu = static_cast<std::int32_t>(cpu);
    p = q + 1;
    fixed_spaces = 1;
    columns = true;
  }
  return columns;
}

template <bool kFixed> Record parse_event_line(string_view line);

// function_graph: [abstime |] [cpu)] [comm-pid |] [duration |] body. A line
// that is no graph line is handed to parse_event_line (a comm may start
// with a digit); the call is the return value, so no Record is copied.
template <bool kFixed> Record parse_graph(string_view line, const char* first) {
  Record r;
  r.line = line;
  const char* const end = line.data() + line.size();
  const char* p = first;
  // Spaces the last column separator puts before the body at depth 0:
  // "|  " after abstime and duration, " | " after proc, ") " after cpu.
  size_t fixed_spaces = 0;
  if (!(kFixed && graph_time_and_cpu_fixed(first, end, r, p, fixed_spaces)) &&
      !graph_time_and_cpu(first, end, r, p, fixed_spaces))
    return parse_event_line<kFixed>(line);

  const char* q = nullptr;
  const char* bar = find_byte(p, end, '|');
  if (bar != nullptr && parse_proc(p, bar, r)) {
    if (corrupt_comm(r.comm))
      return parse_event_line<kFixed>(line);
    p = bar + 1;
    fixed_spaces = 1;
  } else if (bar == nullptr && r.ts < 0 && has_arrow(p, end)) {
    return skip(line); // context-switch banner " 0)  a-1  =>  b-2 "
  }

  // The blank duration column of entries and events, "%14s|" (one space
  // of " | " before it): skip_spaces() would stop at its '|'.
  constexpr std::uint64_t kBlankDurationEnd = (swar::repeat(' ') >> 8) | (std::uint64_t{'|'} << 56);
  if (kFixed && end - p >= 16 && swar::load8(p) == swar::repeat(' ') &&
      swar::load8(p + 8) == kBlankDurationEnd) {
    p += 16;
    fixed_spaces = 2;
  } else if (q = skip_spaces(p, end);
             q < end && (*q == '=' || *q == '<') && is_irq_marker(q, end)) {
    return skip(line);
  } else if (q < end && *q == '|') {
    p = q + 1; // blank duration column: an entry or an event
    fixed_spaces = 2;
  } else if (q < end) {
    if (is_overhead_mark(*q) && ++q < end && *q == ' ')
      ++q;
    Nanos duration = 0;
    q = read_duration(q, end, duration);
    if (q != nullptr && (q = skip_spaces(q, end)) < end && *q == '|') {
      r.duration = duration;
      p = q + 1;
      fixed_spaces = 2;
    }
  }

  const char* body = skip_spaces(p, end);
  size_t indent = static_cast<size_t>(body - p);
  if (indent < fixed_spaces)
    return parse_event_line<kFixed>(line);
  size_t depth = (indent - fixed_spaces) / 2;
  r.depth = static_cast<std::uint16_t>(depth > UINT16_MAX ? UINT16_MAX : depth);
  r.kind = parse_graph_body(string_view(body, static_cast<size_t>(end - body)), r);
  if (r.kind == LineKind::Malformed)
    return parse_event_line<kFixed>(line);
  r.format = TraceFormat::Graph;
  return r;
}

// "comm-pid [(tgid)] [cpu]" where `open` is the '[': returns the position
// after ']', or nullptr.
const char* parse_task_and_cpu(const char* begin, const char* open, const char* end, Record& r) {
  std::uint64_t cpu = 0;
  const char* after = read_number(open + 1, end, 5, cpu);
  if (after == nullptr || after == end || *after != ']')
    return nullptr;
  const char* k = open;
  if (k == begin || k[-1] != ' ')
    return nullptr;
  k = trim_spaces_back(begin, k);
  if (k > begin && k[-1] == ')') { // "(   2143)" or "(-------)"
    const char* inside = k - 1;
    while (inside > begin && (is_digit(inside[-1]) || inside[-1] == ' ' || inside[-1] == '-'))
      --inside;
    if (inside == begin || inside[-1] != '(')
      return nullptr;
    k = inside - 1;
    if (k == begin || k[-1] != ' ')
      return nullptr;
    while (k > begin && k[-1] == ' ')
      --k;
  }
  const auto [digits, pid] = read_pid_back(begin, k);
  if (digits == nullptr || digits[-1] != '-')
    return nullptr;
  r.pid = pid;
  k = digits;
  const char* dash = k - 1;
  const char* comm = skip_spaces(begin, dash);
  if (comm == dash)
    return nullptr;
  r.comm = string_view(comm, static_cast<size_t>(dash - comm));
  r.cpu = static_cast<std::int32_t>(cpu);
  return after + 1;
}

// "comm-pid [(tgid)] [cpu]": sets r.pid, r.comm and r.cpu and returns the
// byte after ']', or nullptr. The comm may contain '[', so each is tried
// until one ends a task-and-cpu.
const char* event_task_and_cpu(const char* begin, const char* end, Record& r) {
  for (const char* from = begin;; ++from) {
    from = static_cast<const char*>(std::memchr(from, '[', static_cast<size_t>(end - from)));
    if (from == nullptr)
      return nullptr;
    if (const char* after = parse_task_and_cpu(begin, from, end, r))
      return after;
  }
}

// "[flags] secs.frac:" from the byte after ']': sets ts and returns the ':',
// or nullptr.
const char* event_time(const char* p, const char* end, Nanos& ts) {
  p = skip_spaces(p, end);
  // The flags column ("d..1.") stands before the timestamp since 2.6.x
  // kernels: no timestamp is tried where no digit is.
  const char* q = p < end && is_digit(*p) ? read_timestamp(p, end, ts) : nullptr;
  if (q == nullptr || q == end || *q != ':') {
    // irq-info flags: "d..1." (4 characters before 5.x kernels)
    const char* flags = p;
    p = find_either(p, end, ' ', ' ');
    if (p == flags || p - flags > 8)
      return nullptr;
    q = read_timestamp(skip_spaces(p, end), end, ts);
    if (q == nullptr || q == end || *q != ':')
      return nullptr;
  }
  return q;
}

// nop tracer: comm-pid [(tgid)] [cpu] [flags] secs.frac: event: fields
template <bool kFixed> Record parse_event_line(string_view line) {
  Record r;
  r.line = line;
  const char* const begin = line.data();
  const char* const end = begin + line.size();
  const char* p = event_task_and_cpu(begin, end, r);
  if (p == nullptr)
    return malformed(line);
  if (corrupt_comm(r.comm))
    return malformed(line);
  Nanos ts = 0;
  const char* q = kFixed ? event_time_fixed(p, end, ts) : nullptr;
  if (q == nullptr && (q = event_time(p, end, ts)) == nullptr)
    return malformed(line);
  p = q + 1;
  if (p == end || *p != ' ')
    return malformed(line);
  const char* name = ++p;
  p = find_either(p, end, ':', ' ');
  if (p == name || p == end || *p != ':')
    return malformed(line); // "Unknown type 0", function tracer lines, cut lines
  r.name = string_view(name, static_cast<size_t>(p - name));
  ++p;
  if (p < end && *p == ' ')
    ++p;
  r.fields = string_view(p, static_cast<size_t>(end - p));
  r.ts = ts;
  r.kind = LineKind::Event;
  r.format = TraceFormat::Events;
  return r;
}

// "CPU:0 [LOST 600 EVENTS]", or "CPU:0 [LOST EVENTS]" when the kernel could
// not count them (the reader was overrun): lost = 0 then.
bool parse_lost(const char* p, const char* end, Record& r) {
  std::uint64_t cpu = 0;
  std::uint64_t lost = 0;
  if (!starts(p, end, "CPU:") || (p = read_number(p + 4, end, 5, cpu)) == nullptr ||
      !starts(p, end, " [LOST "))
    return false;
  p += 7;
  if (!starts(p, end, "EVENTS]")) {
    if ((p = read_number(p, end, 19, lost)) == nullptr || !starts(p, end, " EVENTS]"))
      return false;
    ++p;
  }
  if (skip_spaces(p + 7, end) != end)
    return false;
  r.kind = LineKind::Lost;
  r.cpu = static_cast<std::int32_t>(cpu);
  r.lost = lost;
  return true;
}

// parse_line, with the fixed-layout shortcuts (kFixed) or without them.
template <bool kFixed> Record parse_line_with(string_view line) noexcept {
  if (line.size() > kMaxLineBytes)
    return malformed(line);
  if (kFixed && is_banner_rule(line))
    return skip(line);
  const char* const end = line.data() + line.size();
  const char* first = skip_spaces(line.data(), end);
  if (first == end)
    return skip(line);
  switch (*first) {
  case '#':
    return skip(line);
  case '(':
    if (starts(first, end, "(Overruns: "))
      return skip(line);
    break;
  case '=':
  case '<':
    if (is_irq_marker(first, end))
      return skip(line);
    break;
  case '-':
    if (only_dashes_and_spaces(first, end))
      return skip(line);
    break;
  case 'C': {
    Record r;
    r.line = line;
    if (parse_lost(first, end, r))
      return r;
    break;
  }
  }
  if (is_digit(*first))
    return parse_graph<kFixed>(line, first);
  return parse_event_line<kFixed>(line);
}

} // namespace

// Flattened: every helper inlined into the one function that runs per line
// costs 10-20 % fewer instructions than the calls between them.
[[gnu::flatten]] Record parse_line(string_view line) noexcept {
  return parse_line_with<true>(line);
}

Record parse_line_general(string_view line) noexcept {
  return parse_line_with<false>(line);
}

} // namespace allocwatch

#include "trace/parser.h"

#include "trace/fixed_layout.h"
#include "trace/line_scan.h"
#include "trace/swar.h"

#include <array>
#include <cstdint>
#include <cstring>

// The general walk: the line's leading columns, then its body, each by the
// helpers of trace/line_scan.h, which never read outside the line; the
// shortcuts of trace/fixed_layout.h go first where kFixed.
namespace allocwatch {
namespace {

using namespace line_scan;
using std::size_t;
using std::string_view;

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

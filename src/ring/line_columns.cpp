#include "ring/line_columns.h"

#include "kernel/vocabulary.h"
#include "util/digits.h"

#include <cstring>

namespace allocwatch {

void put_uint_width(std::string& s, std::uint64_t v, std::size_t width, char pad) {
  char digits[kMaxDigits];
  char* const end = digits + sizeof digits;
  const char* begin = decimal_digits(v, end);
  const auto n = static_cast<std::size_t>(end - begin);
  if (n < width)
    s.append(width - n, pad);
  s.append(begin, n);
}

void put_uint(std::string& s, std::uint64_t v) {
  put_uint_width(s, v, 0, ' ');
}

namespace {

void put_int(std::string& s, std::int32_t v) {
  if (v < 0)
    s.push_back('-');
  put_uint(s, v < 0 ? static_cast<std::uint64_t>(-static_cast<std::int64_t>(v))
                    : static_cast<std::uint64_t>(v));
}

} // namespace

void put_abstime(std::string& s, std::uint64_t ts, Micros micros) {
  const std::uint64_t us = (micros == Micros::Rounded ? ts + 500 : ts) / 1000;
  // In one append: the seconds have at most kMaxDigits digits.
  char text[kMaxDigits + 8];
  char* const end = text + sizeof text;
  char* p = decimal_digits(us % 1'000'000, end);
  while (end - p < 6)
    *--p = '0';
  *--p = '.';
  p = decimal_digits(us / 1'000'000, p);
  while (end - p < 5 + 1 + 6)
    *--p = ' ';
  s.append(p, static_cast<std::size_t>(end - p));
}

// kernel/trace/trace_functions_graph.c, print_graph_duration(): the overhead
// mark, then the duration in µs with at most 7 digits before the unit.
char duration_mark(std::uint64_t d) {
  if (d > 1'000'000'000)
    return '$';
  if (d > 100'000'000)
    return '@';
  if (d > 10'000'000)
    return '*';
  if (d > 1'000'000)
    return '#';
  if (d > 100'000)
    return '!';
  if (d > 10'000)
    return '+';
  return ' ';
}

void put_graph_duration(std::string& s, std::uint64_t d) {
  s.push_back(duration_mark(d));
  s.push_back(' ');
  const std::size_t begin = s.size();
  put_uint(s, d / 1000);
  const std::size_t len = s.size() - begin;
  if (len < 7) {
    std::string nsecs;
    put_uint_width(nsecs, d % 1000, 3, '0');
    s.push_back('.');
    s.append(nsecs, 0, std::min<std::size_t>(3, 7 - len));
  }
  const std::size_t width = s.size() - begin;
  s.append(" us ");
  if (width < 8)
    s.append(8 - width, ' ');
}

// print_graph_proc(): "comm-pid" centred in 14 columns, comm cut to 7 bytes.
void put_graph_proc(std::string& s, std::string_view comm, std::int32_t pid) {
  comm = comm.substr(0, kGraphCommBytes);
  std::string pid_text;
  put_int(pid_text, pid);
  const std::size_t len = comm.size() + pid_text.size() + 1;
  const std::size_t spaces = len < 14 ? 14 - len : 0;
  s.append(spaces / 2, ' ');
  s.append(comm);
  s.push_back('-');
  s.append(pid_text);
  s.append(spaces - spaces / 2, ' ');
}

void put_graph_prefix(std::string& s, std::uint64_t ts, std::int32_t cpu, std::string_view comm,
                      std::int32_t pid) {
  put_abstime(s, ts, Micros::Cut);
  s.append(" |   ");
  put_uint(s, static_cast<std::uint64_t>(cpu));
  s.append(") ");
  put_graph_proc(s, comm, pid);
  s.append(" | ");
}

void put_event_task(std::string& s, std::string_view comm, std::int32_t pid, std::int32_t cpu,
                    std::string_view latency) {
  // Room for a comm and a latency column of any kernel's; longer ones (a
  // forged trace.dat's) are cut here and never printed past their end.
  constexpr std::size_t kLongest = 64;
  char line[2 * kLongest + 64];
  char* p = line;
  auto put = [&p](std::string_view text) {
    std::memcpy(p, text.data(), text.size());
    p += text.size();
  };
  auto pad = [&p](std::size_t width, std::size_t used, char with) {
    if (used < width) {
      std::memset(p, with, width - used);
      p += width - used;
    }
  };
  const std::string_view shown_comm = comm.substr(0, kLongest);
  pad(16, shown_comm.size(), ' ');
  put(shown_comm);
  *p++ = '-';
  char digits[kMaxDigits + 1];
  char* const end = digits + sizeof digits;
  char* begin = decimal_digits(pid < 0 ? static_cast<std::uint64_t>(-static_cast<std::int64_t>(pid))
                                       : static_cast<std::uint64_t>(pid),
                               end);
  if (pid < 0)
    *--begin = '-';
  const std::string_view pid_text(begin, static_cast<std::size_t>(end - begin));
  put(pid_text);
  pad(7, pid_text.size(), ' ');
  put(" [");
  begin = decimal_digits(static_cast<std::uint64_t>(cpu < 0 ? 0 : cpu), end);
  pad(3, static_cast<std::size_t>(end - begin), '0');
  put({begin, static_cast<std::size_t>(end - begin)});
  put("] ");
  put(latency.substr(0, kLongest));
  *p++ = ' ';
  s.append(line, static_cast<std::size_t>(p - line));
}

void EventTaskColumns::append(std::string& out, std::string_view comm, std::int32_t pid,
                              std::int32_t cpu, std::string_view latency) {
  if (comm.size() > kLongest || latency.size() > kLongest) {
    put_event_task(out, comm, pid, cpu, latency);
    return;
  }
  Slot& slot =
      slots_[(static_cast<std::uint32_t>(pid) * 31 + static_cast<std::uint32_t>(cpu)) % kSlots];
  if (slot.pid != pid || slot.cpu != cpu || slot.comm != comm || slot.latency != latency) {
    slot.pid = pid;
    slot.cpu = cpu;
    slot.comm.assign(comm);
    slot.latency.assign(latency);
    slot.text.clear();
    put_event_task(slot.text, comm, pid, cpu, latency);
  }
  out.append(slot.text);
}

} // namespace allocwatch

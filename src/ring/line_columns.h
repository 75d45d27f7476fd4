// The columns of the kernel's trace lines, as kernel/trace/trace_output.c
// and trace_functions_graph.c print them, for the lines EventDecoder makes
// of ring-buffer records. Each appends to `s`.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace allocwatch {

void put_uint(std::string& s, std::uint64_t v);
// `v` right-aligned in `width` columns, `pad` before it.
void put_uint_width(std::string& s, std::uint64_t v, std::size_t width, char pad);

// "%5lu.%06lu": seconds and microseconds of a time in ns. trace_output.c
// prints an event's time with ns2usecs(), which rounds to the nearest µs;
// trace_functions_graph.c's print_graph_abs_time() cuts the ns off.
enum class Micros : unsigned char { Rounded, Cut };
void put_abstime(std::string& s, std::uint64_t ts, Micros micros);

// print_graph_duration(): the overhead mark ('$' over 1 s, '@', '*', '#',
// '!', '+' over 10 µs, else ' '), then the duration in µs with at most 7
// digits, its column padded.
char duration_mark(std::uint64_t ns);
void put_graph_duration(std::string& s, std::uint64_t ns);

// print_graph_proc(): "comm-pid" centred in 14 columns, comm cut to 7 bytes.
void put_graph_proc(std::string& s, std::string_view comm, std::int32_t pid);
// function_graph's "abstime |   cpu) comm-pid | " (funcgraph-abstime,
// -cpu and -proc on), the abstime cut to the µs.
void put_graph_prefix(std::string& s, std::uint64_t ts, std::int32_t cpu, std::string_view comm,
                      std::int32_t pid);
// The nop tracer's columns before an event's time: "%16s-%-7d [%03d] "
// (comm right-aligned, pid left-aligned), the latency column and a space;
// in one append. The time follows as put_abstime(Micros::Rounded), then
// ": ".
void put_event_task(std::string& s, std::string_view comm, std::int32_t pid, std::int32_t cpu,
                    std::string_view latency);

// put_event_task()'s text, remembered by task and CPU in kSlots slots: a
// task's lines repeat it. A comm or latency column longer than kLongest
// (a forged trace.dat's) is written again each time.
class EventTaskColumns {
public:
  static constexpr std::size_t kSlots = 64;
  static constexpr std::size_t kLongest = 64;
  // Appends what put_event_task(out, comm, pid, cpu, latency) appends.
  void append(std::string& out, std::string_view comm, std::int32_t pid, std::int32_t cpu,
              std::string_view latency);

private:
  struct Slot {
    std::int32_t pid = -1;
    std::int32_t cpu = -1;
    std::string comm;
    std::string latency;
    std::string text;
  };
  std::array<Slot, kSlots> slots_;
};

} // namespace allocwatch

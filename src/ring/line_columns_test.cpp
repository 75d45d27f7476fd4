#include "ring/line_columns.h"

#include <doctest/doctest.h>

using namespace allocwatch;

namespace {

template <class F> std::string put(F f) {
  std::string s;
  f(s);
  return s;
}

} // namespace

TEST_CASE("an event's time is rounded to the µs, function_graph's abstime cut") {
  CHECK(put([](std::string& s) { put_abstime(s, 224'593'574'500ULL, Micros::Rounded); }) ==
        "  224.593575");
  CHECK(put([](std::string& s) { put_abstime(s, 224'593'574'999ULL, Micros::Cut); }) ==
        "  224.593574");
  CHECK(put([](std::string& s) { put_abstime(s, 999'999'999'600ULL, Micros::Rounded); }) ==
        " 1000.000000");
}

TEST_CASE("durations keep their column by dropping decimals, with the kernel's marks") {
  auto duration = [](std::uint64_t ns) {
    return put([ns](std::string& s) { put_graph_duration(s, ns); });
  };
  CHECK(duration(6'427) == "  6.427 us    ");
  CHECK(duration(12'650) == "+ 12.650 us   ");
  CHECK(duration(431'377) == "! 431.377 us  ");
  CHECK(duration(8'178'608) == "# 8178.608 us ");
  CHECK(duration(57'988'554) == "* 57988.55 us ");
  CHECK(duration(117'550'300) == "@ 117550.3 us ");
  CHECK(duration(1'234'567'890) == "$ 1234567 us  ");
  // The threshold itself prints without a mark: the mark test is '>'.
  CHECK(duration_mark(10'000) == ' ');
  CHECK(duration_mark(10'001) == '+');
}

TEST_CASE("comm-pid centred in 14 columns, the comm cut to 7 bytes") {
  CHECK(put([](std::string& s) { put_graph_proc(s, "kswapd0", 44); }) == "  kswapd0-44  ");
  CHECK(put([](std::string& s) { put_graph_proc(s, "memhog", 172); }) == "  memhog-172  ");
  CHECK(put([](std::string& s) { put_graph_proc(s, "kcompactd0", 33); }) == "  kcompac-33  ");
  CHECK(put([](std::string& s) { put_graph_proc(s, "init", 1); }) == "    init-1    ");
  CHECK(put([](std::string& s) { put_graph_prefix(s, 13'218'727'000ULL, 0, "<...>", 156); }) ==
        "   13.218727 |   0)   <...>-156    | ");
}

// The columns before an event's name, as the decoder writes them.
void put_event_head(std::string& s, std::string_view comm, std::int32_t pid, std::int32_t cpu,
                    std::string_view latency, std::uint64_t ts) {
  put_event_task(s, comm, pid, cpu, latency);
  put_abstime(s, ts, Micros::Rounded);
  s.append(": ");
}

TEST_CASE("the nop tracer's columns before the event: comm-pid, cpu, latency, time") {
  CHECK(put([](std::string& s) { put_event_head(s, "bash", 2143, 0, "d..1.", 224'593'574'500); }) ==
        "            bash-2143    [000] d..1.   224.593575: ");
  CHECK(put([](std::string& s) {
          put_event_head(s, "stress-ng-memcg", 2143, 12, ".....", 9'999'999'999'999'499);
        }) == " stress-ng-memcg-2143    [012] ..... 9999999.999999: ");
  CHECK(put([](std::string& s) { put_event_head(s, "<...>", -1, -3, "", 0); }) ==
        "           <...>--1      [000]      0.000000: ");
  // A forged file's comm of any length: cut, never past the line's room.
  const std::string huge(5000, 'x');
  const std::string line = put([&](std::string& s) { put_event_head(s, huge, 7, 1, huge, 1); });
  CHECK(line ==
        std::string(64, 'x') + "-7       [001] " + std::string(64, 'x') + "     0.000000: ");
  CHECK(put([](std::string& s) {
          put_abstime(s, 10'000'000'000'000'000'000ULL, Micros::Rounded);
        }) == "10000000000.000000");
  // The kernel's ns2usecs() adds its 500 ns in 64 bits: the last 500 wrap.
  CHECK(put([](std::string& s) { put_abstime(s, ~0ULL, Micros::Rounded); }) == "    0.000000");
  CHECK(put([](std::string& s) { put_abstime(s, 1'000'000'499'999ULL, Micros::Rounded); }) ==
        " 1000.000500");
  CHECK(put([](std::string& s) { put_uint_width(s, 7, 3, '0'); }) == "007");
}

TEST_CASE("EventTaskColumns: what put_event_task writes, whatever changed since") {
  EventTaskColumns columns;
  const std::string huge(100, 'x');
  struct Call {
    std::string_view comm;
    std::int32_t pid;
    std::int32_t cpu;
    std::string_view latency;
  };
  // The same task again; its comm renamed; another CPU; another latency;
  // a pid sharing its slot; a comm too long to keep; then the first again.
  const Call calls[] = {{"bash", 2143, 0, "d..1."}, {"bash", 2143, 0, "d..1."},
                        {"sh", 2143, 0, "d..1."},   {"sh", 2143, 1, "d..1."},
                        {"sh", 2143, 1, "....."},   {"kswapd0", 2143 + 64, 1, "....."},
                        {huge, 2143, 1, "....."},   {"bash", 2143, 0, "d..1."}};
  for (const Call& call : calls) {
    std::string want = "<";
    put_event_task(want, call.comm, call.pid, call.cpu, call.latency);
    std::string got = "<";
    columns.append(got, call.comm, call.pid, call.cpu, call.latency);
    CAPTURE(want);
    CHECK(got == want);
  }
}

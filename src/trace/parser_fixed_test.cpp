// parse_line's fixed-layout shortcuts against the general walk alone
// (parse_line_general): every Record field, views compared by position, over
// every line of the real traces, the kernel's layouts in every width, the
// edge cases the shortcuts give up on, and each of those cut at every byte.
// Each line is copied to a buffer of exactly its size, so that under
// `make test SAN=1` a read past its end is a heap overflow.
#include "trace/line_reader.h"
#include "trace/parser.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <doctest/doctest.h>
#include <fcntl.h>
#include <memory>
#include <random>
#include <string>
#include <unistd.h>
#include <vector>

using namespace allocwatch;

namespace {

// Same position and length: a shortcut must point where the general walk does.
bool same_view(std::string_view a, std::string_view b) {
  return a.size() == b.size() && (a.empty() || a.data() == b.data());
}

bool same_record(const Record& a, const Record& b) {
  return a.kind == b.kind && a.format == b.format && same_view(a.line, b.line) && a.ts == b.ts &&
         a.pid == b.pid && a.cpu == b.cpu && same_view(a.comm, b.comm) &&
         a.duration == b.duration && a.depth == b.depth && same_view(a.name, b.name) &&
         same_view(a.fields, b.fields) && a.lost == b.lost;
}

std::string describe(const Record& r) {
  return "kind " + std::to_string(static_cast<int>(r.kind)) + " format " +
         std::to_string(static_cast<int>(r.format)) + " ts " + std::to_string(r.ts) + " pid " +
         std::to_string(r.pid) + " cpu " + std::to_string(r.cpu) + " comm '" + std::string(r.comm) +
         "' duration " + std::to_string(r.duration) + " depth " + std::to_string(r.depth) +
         " name '" + std::string(r.name) + "' fields '" + std::string(r.fields) + "'";
}

// Compares the two parsers on `text`, copied to an exact buffer. Returns
// the kind, so that callers can check that a case reaches what it means to.
struct Differ {
  std::size_t lines = 0;
  std::size_t differences = 0;

  LineKind operator()(std::string_view text) {
    std::unique_ptr<char[]> exact(new char[text.size() > 0 ? text.size() : 1]);
    std::memcpy(exact.get(), text.data(), text.size());
    const std::string_view line(exact.get(), text.size());
    const Record fast = parse_line(line);
    const Record general = parse_line_general(line);
    ++lines;
    if (!same_record(fast, general)) {
      ++differences;
      if (differences <= 10)
        FAIL_CHECK("parse_line and parse_line_general differ on '" << std::string(text) << "':\n  "
                                                                   << describe(fast) << "\n  "
                                                                   << describe(general));
    }
    return general.kind;
  }

  // The line whole and cut at every byte.
  LineKind with_cuts(std::string_view text) {
    for (std::size_t cut = 0; cut < text.size(); ++cut)
      (*this)(text.substr(0, cut));
    return (*this)(text);
  }
};

std::string traces_dir() {
  const char* dir = std::getenv("ALLOCWATCH_TRACES");
  return dir != nullptr ? dir : "tests/golden/traces";
}

std::vector<std::string> read_lines(const std::string& name) {
  std::vector<std::string> lines;
  const std::string path = traces_dir() + "/" + name;
  const int fd = open(path.c_str(), O_RDONLY);
  REQUIRE_MESSAGE(fd >= 0,
                  "cannot open " << path << " (set ALLOCWATCH_TRACES to the traces directory)");
  FdSource source(fd, path);
  LineReader reader(source);
  std::string_view line;
  while (reader.next(line))
    lines.emplace_back(line);
  close(fd);
  return lines;
}

// An event line as trace_print_context() prints it, with the given flags
// ("" for none: irq-info off) and tgid (0: the column is off, -1: "(-------)").
std::string event_line(const std::string& comm, long pid, int cpu, const std::string& flags,
                       unsigned long secs, unsigned long usecs, const std::string& rest,
                       long tgid = 0) {
  char buf[256];
  std::string s;
  std::snprintf(buf, sizeof buf, "%16s-%-7ld ", comm.c_str(), pid);
  s += buf;
  if (tgid > 0) {
    std::snprintf(buf, sizeof buf, "(%7ld) ", tgid);
    s += buf;
  } else if (tgid < 0) {
    s += "(-------) ";
  }
  std::snprintf(buf, sizeof buf, "[%03d] ", cpu);
  s += buf;
  if (!flags.empty())
    s += flags + " ";
  std::snprintf(buf, sizeof buf, "%5lu.%06lu: ", secs, usecs);
  return s + buf + rest;
}

// A function_graph line: abstime (secs < 0: off), cpu column of the given
// width, the proc column centred in 14, duration column text (16 bytes
// with its '|', or "" for none), then the body.
std::string graph_line(long secs, unsigned long usecs, int cpu, int cpu_width,
                       const std::string& proc, const std::string& duration,
                       const std::string& body) {
  char buf[128];
  std::string s;
  if (secs >= 0) {
    std::snprintf(buf, sizeof buf, "%5lu.%06lu |  ", static_cast<unsigned long>(secs), usecs);
    s += buf;
  }
  std::snprintf(buf, sizeof buf, " %*d) ", cpu_width, cpu);
  s += buf;
  if (!proc.empty()) {
    const int spaces = proc.size() < 14 ? 14 - static_cast<int>(proc.size()) : 0;
    s += std::string(static_cast<std::size_t>(spaces / 2), ' ') + proc +
         std::string(static_cast<std::size_t>(spaces - spaces / 2), ' ') + " | ";
  }
  return s + duration + body;
}

} // namespace

TEST_CASE("parse_line shortcuts: every line of the real traces, whole and cut") {
  Differ differ;
  for (const char* name :
       {"graph-6.1-thresh0.txt", "graph-6.1-thresh100.txt", "events-6.18-dropcaches-compact.txt"}) {
    const std::vector<std::string> lines = read_lines(name);
    CHECK(lines.size() > 1000);
    for (std::size_t i = 0; i < lines.size(); ++i) {
      // Every line whole; one in 50 (and every one of a kind seen first) cut
      // at every byte as well, to keep the test to a second or so.
      if (i % 50 == 0)
        differ.with_cuts(lines[i]);
      else
        differ(lines[i]);
    }
  }
  CHECK(differ.lines > 100'000);
  CHECK(differ.differences == 0);
}

TEST_CASE("parse_line shortcuts: event lines of every width the kernel prints") {
  Differ differ;
  const std::string rest = "mm_shrink_slab_start: super_cache_scan+0x0/0x210 nid: 0";
  for (const char* comm : {"bash", "Web Content", "kcompactd0", "<idle>", "<...>", "a",
                           "fifteen-chars-x", "my app-2", "x[1]", "[kworker]", "a [001] b", "   ",
                           "9digit", "<XXX>", "tab\there", "a-1", "c-1234567"})
    for (long pid : {0L, 1L, 42L, 2143L, 99999L, 1234567L, 4194304L, 12345678L})
      for (int cpu : {0, 9, 63, 255, 999, 1000, 12345})
        for (const char* flags : {".....", "d..1.", "dNs2.", "d..1", "X", "", "1....", "dnhs.1"})
          for (unsigned long secs : {0UL, 7UL, 224UL, 99999UL, 100000UL, 3141592UL, 12345678UL})
            for (long tgid : {0L, 2143L, -1L}) {
              if ((pid + cpu + static_cast<long>(secs) + tgid) % 3 != 0 && tgid != 0)
                continue; // the tgid column on a third of the rest
              const std::string line = event_line(comm, pid, cpu, flags, secs, 593574, rest, tgid);
              differ(line);
            }
  // The common layout is an event, and one of each kind cut at every byte.
  CHECK(differ(event_line("bash", 2143, 0, ".....", 224, 593574, rest)) == LineKind::Event);
  CHECK(differ(event_line("bash", 2143, 0, "d..1", 224, 593574, rest, 2143)) == LineKind::Event);
  differ.with_cuts(event_line("Web Content", 28222, 9, "..s1.", 7, 810752, rest));
  differ.with_cuts(event_line("my app-2", 1234567, 63, "d..1", 3141592, 1, rest, -1));
  differ.with_cuts(event_line("<XXX>", 86198074, 1, "d..1.", 13, 218727, "Unknown type 0"));
  // Hand-made layouts next to the kernel's: fractions of other lengths,
  // spaces where the shortcut expects none, an event with no fields.
  for (const char* line :
       {"            bash-2143    [000] .....   224.5935: mm_shrink_slab_start: x",
        "            bash-2143    [000] .....   224.5935741: mm_shrink_slab_start: x",
        "            bash-2143    [000] .....   224.593574 : mm_shrink_slab_start: x",
        "            bash-2143    [000] .....   224.593574:mm_shrink_slab_start: x",
        "            bash-2143    [000] .....  224.593574: mm_compaction_begin: ",
        "            bash-2143    [000] .....          224.593574: mm_compaction_begin: ",
        "            bash-2143    [000]   .....   224.593574: mm_compaction_begin: x",
        "            bash-2143    [000] 224.593574: mm_compaction_begin: x",
        "            bash-2143    [000]   224.593574: mm_compaction_begin: x",
        "            bash-2143    [ 00] .....   224.593574: mm_compaction_begin: x",
        "            bash-2143    [000]......   224.593574: mm_compaction_begin: x",
        "            bash-2143    [000] ........  224.593574: mm_compaction_begin: x",
        "            bash-2143    [000] .........  224.593574: mm_compaction_begin: x",
        "            bash-21 3    [000] .....   224.593574: mm_compaction_begin: x",
        "            bash 2143    [000] .....   224.593574: mm_compaction_begin: x",
        "            bash-2143   [000] .....   224.593574: mm_compaction_begin: x",
        "             bash-2143   [000] .....   224.593574: mm_compaction_begin: x",
        "            bash-2143    (  21-3) [000] .....   224.593574: mm_compaction_begin: x",
        "            bash-2143    (  21)3) [000] .....   224.593574: mm_compaction_begin: x",
        "            bash-2143    ( 2143 ) [000] .....   224.593574: mm_compaction_begin: x",
        "                -2143    [000] .....   224.593574: mm_compaction_begin: x",
        "            bash-2143    [000] .....   224.593574: Unknown type 0",
        "            bash-2143    [000] .....   224.593574: : x",
        "            bash-2143    [000] .....      .593574: mm_compaction_begin: x",
        "            bash-2143    [000] .....   224 593574: mm_compaction_begin: x",
        "            bash-2143    [000] .....   2 4.593574: mm_compaction_begin: x"})
    differ.with_cuts(line);
  CHECK(differ.lines > 90'000);
  CHECK(differ.differences == 0);
}

TEST_CASE("parse_line shortcuts: graph lines of every width the kernel prints") {
  Differ differ;
  const std::vector<std::string> durations = {"              |  ", "  10.000 us    |  ",
                                              "+ 11.219 us   |  ", "! 431.377 us  |  ",
                                              "# 8178.608 us |  ", "* 57988.55 us |  ",
                                              "@ 117550.3 us |  ", "$ 3594274 us  |  ",
                                              "$ 12345678 us |  ", "",
                                              "             |  ",  "               |  ",
                                              "              | "};
  const std::vector<std::string> bodies = {
      "  /* mm_vmscan_lru_shrink_inactive: nid=0 flags=RECLAIM_WB_FILE|RECLAIM_WB_ASYNC */",
      "      } /* shrink_lruvec */",
      "  __alloc_pages() {",
      "    shrink_node();",
      "  }",
      "  } /* compact_zone = -22 */",
      "  /* a marker | with bars */",
      "  ==========>",
      "  <==========",
      "x",
      ""};
  for (long secs : {-1L, 0L, 13L, 99999L, 100000L, 3141592L, 12345678L})
    for (int cpu_width : {1, 2, 3, 5, 6})
      for (int cpu : {0, 7, 30, 255, 99999})
        for (const char* proc : {"kswapd1-61", "<...>-156", "java.ex-57293", "gnome-s-1117758",
                                 "<XXX>-5", "dd-1", "a b-3", "x|y-4", "1-1", "", "nopid"})
          for (const std::string& duration : durations)
            for (const std::string& body : bodies) {
              if ((cpu + cpu_width + secs + static_cast<long>(body.size())) % 4 != 0)
                continue; // a quarter of the combinations: enough, and fast
              differ(graph_line(secs, 409274, cpu, cpu_width, proc, duration, body));
            }
  CHECK(differ(graph_line(13, 409274, 1, 1, "kswapd1-61", durations[0], bodies[0])) ==
        LineKind::Event);
  CHECK(differ(graph_line(3141592, 181160, 30, 2, "java.ex-57293", durations[0], bodies[0])) ==
        LineKind::Event);
  CHECK(differ(graph_line(13, 409289, 1, 1, "kswapd1-61", durations[2], bodies[1])) ==
        LineKind::GraphReturn);
  for (const std::string& duration : durations)
    differ.with_cuts(graph_line(13, 409274, 1, 1, "kswapd1-61", duration, bodies[0]));
  differ.with_cuts(graph_line(-1, 0, 1, 1, "kswapd1-61", durations[3], bodies[1]));
  differ.with_cuts(graph_line(3141592, 181160, 30, 2, "java.ex-57293", durations[0], bodies[2]));
  // Hand-made ones: other fraction lengths, no '|' after abstime, spaces
  // where none go, a banner, rules of dashes.
  for (const char* line :
       {"   13.4092 |   1)   kswapd1-61   |               |  /* mm_compaction_begin: x */",
        "   13.4092741 |   1)   kswapd1-61   |               |  /* mm_compaction_begin: x */",
        "   13.409274  |   1)   kswapd1-61   |               |  /* mm_compaction_begin: x */",
        "   13.409274 |1)   kswapd1-61   |               |  /* mm_compaction_begin: x */",
        "   13.409274 |           1)   kswapd1-61   |               |  /* x: y */",
        "   13.409274 |   1 )   kswapd1-61   |               |  /* mm_compaction_begin: x */",
        "   13.409274 |   123456)   kswapd1-61   |               |  /* x: y */",
        "   13.409274 |   1)   kswapd1-61   |               |/* mm_compaction_begin: x */",
        "   13.409274 |   1)   kswapd1-61   |               | /* mm_compaction_begin: x */",
        "   13.409274 |   1)   kswapd1-61   |              ||  /* mm_compaction_begin: x */",
        "   13.409274 1)   kswapd1-61   |               |  /* mm_compaction_begin: x */",
        "   13.409274 |   1)   kswapd1-61      /* mm_compaction_begin: x */", "123456) x",
        "12345) x-1 | y", " 0)    awk-156     =>    init-159   ",
        " 12)    awk-156     =>    init-159   ", " ------------------------------------------",
        " ---------------------------------------- -x",
        "  ------------------------------------------   "})
    differ.with_cuts(line);
  CHECK(differ.lines > 10'000);
  CHECK(differ.differences == 0);
}

TEST_CASE("parse_line shortcuts: real lines with random bytes changed") {
  Differ differ;
  const std::vector<std::string> samples = {
      "     Web Content-28222   [009] ..s1.     7.810752: mm_vmscan_memcg_reclaim_begin: order=0",
      "            bash-2143    (   2143) [000] d..1.   224.593574: mm_vmscan_direct_reclaim_end: "
      "nr_reclaimed=12",
      "   13.409274 |   1)   kswapd1-61   |               |        /* mm_shrink_slab_end: x */",
      "3141592.181160 |   30) java.ex-57293  |               |          /* mm_x: nid=1 */",
      "   13.409289 |   1)   kswapd1-61   | + 51.280 us   |    } /* shrink_lruvec */",
      " 5) node-v1-76597  =>    x-12715    ",
      " ------------------------------------------",
  };
  std::mt19937 rng(20261123);
  const char structural[] = " |-:()[]{}/*.0123456789;=<>";
  for (const std::string& sample : samples)
    for (int round = 0; round < 3000; ++round) {
      std::string variant = sample;
      const int changes = 1 + static_cast<int>(rng() % 3);
      for (int c = 0; c < changes; ++c) {
        const std::size_t at = rng() % variant.size();
        variant[at] = (rng() % 2) ? static_cast<char>(rng() % 256)
                                  : structural[rng() % (sizeof structural - 1)];
      }
      differ(variant);
      differ(std::string_view(variant).substr(0, rng() % (variant.size() + 1)));
    }
  CHECK(differ.lines == samples.size() * 6000);
  CHECK(differ.differences == 0);
}

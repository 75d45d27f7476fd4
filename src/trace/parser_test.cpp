#include "trace/line_reader.h"
#include "trace/parser.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <doctest/doctest.h>
#include <fcntl.h>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <unistd.h>
#include <vector>

using namespace allocwatch;

namespace {

// The columns of a function_graph line, printed the way
// kernel/trace/trace_functions_graph.c prints them (print_graph_abs_time,
// print_graph_cpu, print_graph_proc, print_graph_duration,
// trace_print_graph_duration), so each option combination is tested on the
// exact bytes a kernel would write.
struct Columns {
  Nanos abstime = -1; // -1: funcgraph-abstime off
  int cpu = -1;       // -1: funcgraph-cpu off
  int cpu_width = 1;  // digits of the highest cpu number
  std::string proc;   // "comm-pid" (comm already cut to 7); empty: funcgraph-proc off
  bool duration_column = true;
  Nanos duration = -1; // -1: blank column (entries, events)
  char mark = ' ';
};

std::string graph_line(const Columns& c, int depth, const std::string& body) {
  char buf[64];
  std::string s;
  if (c.abstime >= 0) {
    std::snprintf(buf, sizeof buf, "%5lu.%06lu |  ",
                  static_cast<unsigned long>(c.abstime / kSecond),
                  static_cast<unsigned long>(c.abstime % kSecond / 1000));
    s += buf;
  }
  if (c.cpu >= 0) {
    std::snprintf(buf, sizeof buf, " %*d) ", c.cpu_width, c.cpu);
    s += buf;
  }
  if (!c.proc.empty()) {
    int spaces = c.proc.size() < 14 ? 14 - static_cast<int>(c.proc.size()) : 0;
    s += std::string(static_cast<std::size_t>(spaces / 2), ' ') + c.proc +
         std::string(static_cast<std::size_t>(spaces - spaces / 2), ' ') + " | ";
  }
  if (c.duration_column) {
    if (c.duration < 0) {
      s += "              |  ";
    } else {
      s += c.mark;
      s += ' ';
      unsigned long usecs = static_cast<unsigned long>(c.duration / 1000);
      unsigned long nsecs = static_cast<unsigned long>(c.duration % 1000);
      std::snprintf(buf, sizeof buf, "%lu", usecs);
      std::size_t len = std::strlen(buf);
      s += buf;
      if (len < 7) {
        char nsecs_str[5];
        std::snprintf(nsecs_str, std::min<std::size_t>(sizeof nsecs_str, 8 - len), "%03lu", nsecs);
        s += std::string(".") + nsecs_str;
        len += std::strlen(nsecs_str) + 1;
      }
      s += " us ";
      for (; len < 8; ++len)
        s += ' ';
      s += "|  ";
    }
  }
  return s + std::string(static_cast<std::size_t>(depth) * 2, ' ') + body;
}

bool inside(std::string_view part, std::string_view line) {
  return part.empty() ||
         (part.data() >= line.data() && part.data() + part.size() <= line.data() + line.size());
}

bool views_inside(const Record& r, std::string_view line) {
  return r.line.data() == line.data() && r.line.size() == line.size() && inside(r.comm, line) &&
         inside(r.name, line) && inside(r.fields, line);
}

} // namespace

TEST_CASE("graph: a named return with abstime, cpu, proc and duration") {
  std::string_view line =
      "   13.218727 |   0)   <...>-156    | ! 431.377 us  |  } /* __alloc_pages */";
  Record r = parse_line(line);
  CHECK(r.kind == LineKind::GraphReturn);
  CHECK(r.format == TraceFormat::Graph);
  CHECK(r.line == line);
  CHECK(r.ts == 13'218'727'000);
  CHECK(r.cpu == 0);
  CHECK(r.comm == "<...>");
  CHECK(r.pid == 156);
  CHECK(r.duration == 431'377);
  CHECK(r.depth == 0);
  CHECK(r.name == "__alloc_pages");
  CHECK(r.fields.empty());
}

TEST_CASE("graph: an event inside a graph trace keeps the '|' of its fields") {
  Record r = parse_line("   16.455299 |   0)    cat-152     |               |  /* "
                        "mm_vmscan_direct_reclaim_begin: order=0 gfp_flags=GFP_KERNEL */");
  CHECK(r.kind == LineKind::Event);
  CHECK(r.format == TraceFormat::Graph);
  CHECK(r.ts == 16'455'299'000);
  CHECK(r.comm == "cat");
  CHECK(r.pid == 152);
  CHECK(r.duration == -1);
  CHECK(r.name == "mm_vmscan_direct_reclaim_begin");
  CHECK(r.fields == "order=0 gfp_flags=GFP_KERNEL");

  r = parse_line("   20.129439 |   1)   memhog-173   |               |      /* "
                 "mm_compaction_try_to_compact_pages: order=9 "
                 "gfp_mask=GFP_TRANSHUGE|__GFP_NORETRY|__GFP_THISNODE priority=2 */");
  CHECK(r.kind == LineKind::Event);
  CHECK(r.name == "mm_compaction_try_to_compact_pages");
  CHECK(r.fields == "order=9 gfp_mask=GFP_TRANSHUGE|__GFP_NORETRY|__GFP_THISNODE priority=2");
  CHECK(r.depth == 2); // printed inside a depth-1 call
}

TEST_CASE("graph: entry, leaf and bare return") {
  Record r = parse_line("   20.102939 |   1)     init-1     |               |  __alloc_pages() {");
  CHECK(r.kind == LineKind::GraphEntry);
  CHECK(r.cpu == 1);
  CHECK(r.comm == "init");
  CHECK(r.pid == 1);
  CHECK(r.duration == -1);
  CHECK(r.name == "__alloc_pages");
  CHECK(r.depth == 0);

  r = parse_line("   20.102940 |   0)   memhog-172   | ! 587.476 us  |  __alloc_pages();");
  CHECK(r.kind == LineKind::GraphLeaf);
  CHECK(r.comm == "memhog");
  CHECK(r.pid == 172);
  CHECK(r.duration == 587'476);
  CHECK(r.name == "__alloc_pages");

  r = parse_line("   20.129059 |   1)   memhog-173   | + 72.695 us   |    }");
  CHECK(r.kind == LineKind::GraphReturn);
  CHECK(r.name.empty());
  CHECK(r.duration == 72'695);
  CHECK(r.depth == 1);
}

TEST_CASE("graph: durations of every width and mark, to integer ns") {
  struct Case {
    const char* column;
    Nanos ns;
  };
  for (Case c : {Case{"  10.000 us    ", 10'000}, Case{"+ 11.219 us   ", 11'219},
                 Case{"! 431.377 us  ", 431'377}, Case{"# 8178.608 us ", 8'178'608},
                 Case{"* 57988.55 us ", 57'988'550}, Case{"@ 117550.3 us ", 117'550'300},
                 Case{"$ 3594274 us  ", 3'594'274'000}, Case{"  0.123 us     ", 123}}) {
    std::string line = std::string("   13.290193 |   0)     dd-160     | ") + c.column +
                       "|  } /* __alloc_pages */";
    CAPTURE(line);
    Record r = parse_line(line);
    CHECK(r.kind == LineKind::GraphReturn);
    CHECK(r.duration == c.ns);
    CHECK(r.name == "__alloc_pages");
  }
}

TEST_CASE("graph: the kernel's own duration printing round-trips") {
  for (Nanos ns :
       {Nanos{0}, Nanos{999}, Nanos{10'000}, Nanos{99'999}, Nanos{431'377}, Nanos{8'178'608},
        Nanos{57'988'559}, Nanos{117'550'399}, Nanos{3'594'274'999}, Nanos{12'345'678'901}}) {
    Columns c{.abstime = 1'000'000, .cpu = 0, .proc = "dd-160", .duration = ns, .mark = '!'};
    std::string line = graph_line(c, 0, "} /* f */");
    CAPTURE(line);
    // The kernel keeps at most 7 digits, dropping decimals to do so (all of
    // them from 10 s on): the parser must give back exactly what was printed.
    Nanos micros = ns / 1000;
    std::size_t digits = std::to_string(micros).size();
    Nanos dropped = digits >= 7 ? 1000 : digits == 6 ? 100 : digits == 5 ? 10 : 1;
    Nanos printed = micros * 1000 + ns % 1000 / dropped * dropped;
    CHECK(parse_line(line).duration == printed);
  }
}

TEST_CASE("graph: every combination of optional columns") {
  for (bool abstime : {true, false})
    for (bool cpu : {true, false})
      for (bool proc : {true, false})
        for (bool duration : {true, false}) {
          if (!abstime && !cpu)
            continue; // a graph line starts with abstime or cpu
          Columns c;
          c.abstime = abstime ? 20'103'532'000 : -1;
          c.cpu = cpu ? 1 : -1;
          c.proc = proc ? "memhog-172" : "";
          c.duration_column = duration;
          c.duration = duration ? 11'219 : -1;
          c.mark = '+';
          for (int depth : {0, 1, 4}) {
            std::string line = graph_line(c, depth, "__alloc_pages();");
            CAPTURE(line);
            Record r = parse_line(line);
            CHECK(r.kind == LineKind::GraphLeaf);
            CHECK(r.format == TraceFormat::Graph);
            CHECK(r.ts == c.abstime);
            CHECK(r.cpu == c.cpu);
            CHECK(r.pid == (proc ? 172 : -1));
            CHECK(r.comm == (proc ? "memhog" : ""));
            CHECK(r.duration == (duration ? 11'219 : -1));
            CHECK(r.depth == depth);
            CHECK(r.name == "__alloc_pages");
          }
        }
}

TEST_CASE("graph: the cpu column's width follows the number of cpus") {
  for (int width : {1, 2, 3}) {
    Columns c{.abstime = 5'000'000, .cpu = 7, .cpu_width = width, .proc = "kswapd0-35"};
    Record r = parse_line(graph_line(c, 2, "shrink_node() {"));
    CHECK(r.kind == LineKind::GraphEntry);
    CHECK(r.cpu == 7);
    CHECK(r.depth == 2);
  }
  Columns c{.abstime = 5'000'000, .cpu = 127, .cpu_width = 3, .proc = "a-1"};
  CHECK(parse_line(graph_line(c, 0, "f() {")).cpu == 127);
}

TEST_CASE("graph: depth is the indentation, an entry and its return share it") {
  Columns entry{.abstime = 1'000'000'000, .cpu = 0, .proc = "dd-160"};
  Columns ret = entry;
  ret.duration = 50'000;
  ret.mark = '+';
  for (int depth = 0; depth < 12; ++depth) {
    Record e = parse_line(graph_line(entry, depth, "shrink_lruvec() {"));
    Record leaf = parse_line(graph_line(ret, depth, "shrink_slab();"));
    Record bare = parse_line(graph_line(ret, depth, "}"));
    Record named = parse_line(graph_line(ret, depth, "} /* shrink_lruvec */"));
    CHECK(e.depth == depth);
    CHECK(leaf.depth == depth);
    CHECK(bare.depth == depth);
    CHECK(named.depth == depth);
  }
}

TEST_CASE("graph: 6.5+ return values") {
  Record r = parse_line("    1.000000 |   0)     dd-160     | ! 200.000 us  |  } /* "
                        "try_to_free_pages = 0x0 */");
  CHECK(r.kind == LineKind::GraphReturn);
  CHECK(r.name == "try_to_free_pages");
  r = parse_line(
      "    1.000000 |   0)     dd-160     | ! 200.000 us  |  } /* compact_zone = -22 */");
  CHECK(r.kind == LineKind::GraphReturn);
  CHECK(r.name == "compact_zone");
  r = parse_line(
      "    1.000000 |   0)     dd-160     |   1.500 us    |    shrink_slab(); /* = 0x1f */");
  CHECK(r.kind == LineKind::GraphLeaf);
  CHECK(r.name == "shrink_slab");
  CHECK(r.depth == 1);
  r = parse_line("    1.000000 |   0)     dd-160     |   1.500 us    |  f(); /* = -12 */");
  CHECK(r.kind == LineKind::GraphLeaf);
  CHECK(r.name == "f");
}

TEST_CASE("graph: 6.13+ ret= and return addresses") {
  Record r = parse_line(
      "    1.000000 |   0)     dd-160     | ! 200.000 us  |  } /* __alloc_pages_noprof ret=0x0 */");
  CHECK(r.kind == LineKind::GraphReturn);
  CHECK(r.name == "__alloc_pages_noprof");
  r = parse_line("    1.000000 |   0)     dd-160     | ! 200.000 us  |  } /* f ret=-22 */");
  CHECK(r.kind == LineKind::GraphReturn);
  CHECK(r.name == "f");
  r = parse_line("    1.000000 |   0)     dd-160     |   2.000 us    |  f(); /* ret=0xffff */");
  CHECK(r.kind == LineKind::GraphLeaf);
  CHECK(r.name == "f");
  r = parse_line("    1.000000 |   0)     dd-160     |   2.000 us    |  "
                 "shrink_slab(); /* <-shrink_node+0x2f1/0x7e0 ret=0x0 */");
  CHECK(r.kind == LineKind::GraphLeaf);
  CHECK(r.name == "shrink_slab");
  r = parse_line("    1.000000 |   0)     dd-160     |   2.000 us    |  "
                 "shrink_slab(); /* <-shrink_node+0x2f1/0x7e0 */");
  CHECK(r.kind == LineKind::GraphLeaf);
  r = parse_line("    1.000000 |   0)     dd-160     |               |  "
                 "try_to_free_pages() { /* <-__alloc_pages_slowpath.constprop.0+0x3c5/0xd80 */");
  CHECK(r.kind == LineKind::GraphEntry);
  CHECK(r.name == "try_to_free_pages");
}

TEST_CASE("graph: 6.15+ function arguments") {
  Record r = parse_line("    1.000000 |   0)     dd-160     |               |  "
                        "__alloc_frozen_pages_noprof(gfp=0x140cca, order=0x0, "
                        "preferred_nid=0, nodemask=0x0) {");
  CHECK(r.kind == LineKind::GraphEntry);
  CHECK(r.name == "__alloc_frozen_pages_noprof");
  r = parse_line("    1.000000 |   0)     dd-160     |   3.000 us    |    "
                 "shrink_slab(gfp_mask=0xcc0, nid=0, memcg=0xffff8880045e2000, priority=12);");
  CHECK(r.kind == LineKind::GraphLeaf);
  CHECK(r.name == "shrink_slab");
  CHECK(r.depth == 1);
  r = parse_line("    1.000000 |   0)     dd-160     |   3.000 us    |  "
                 "f(a=1, b=2, c=3, d=4, e=5, f=6, ...); /* ret=0x0 */");
  CHECK(r.kind == LineKind::GraphLeaf);
  CHECK(r.name == "f");
}

// Lines as Debian's 7.2.13 kernel printed them under make e2e (function_graph
// with funcgraph-args on, tracing_thresh 0 and 100), byte for byte.
TEST_CASE("graph: real 7.2 lines with funcgraph-args") {
  Record r = parse_line("   79.525763 |   0)  memcgrd-1149  |               |  "
                        "try_to_free_mem_cgroup_pages(memcg=0xff120f488129e540, nr_pages=0x40, "
                        "gfp_mask=0x112cca, reclaim_options=0x2, swappiness=0x0) {");
  CHECK(r.kind == LineKind::GraphEntry);
  CHECK(r.name == "try_to_free_mem_cgroup_pages");
  CHECK(r.comm == "memcgrd");
  CHECK(r.pid == 1149);
  CHECK(r.depth == 0);
  r = parse_line("   79.525825 |   0)  memcgrd-1149  |               |    "
                 "shrink_node(pgdat=0xff120f4897a6af80, sc=0xff67a51d80e8b630) {");
  CHECK(r.kind == LineKind::GraphEntry);
  CHECK(r.name == "shrink_node");
  CHECK(r.depth == 1);
  r = parse_line("   79.526105 |   0)  memcgrd-1149  | + 19.426 us   |      "
                 "shrink_slab(gfp_mask=0x112c4a, nid=0, memcg=0xff120f488129e540, priority=12);");
  CHECK(r.kind == LineKind::GraphLeaf);
  CHECK(r.name == "shrink_slab");
  CHECK(r.duration == 19'426);
  CHECK(r.depth == 2);
  r = parse_line("   78.130105 |   1)     init-1     | ! 223.798 us  |  "
                 "__alloc_frozen_pages_noprof(gfp=0x440dc0, order=0x0, preferred_nid=0, "
                 "nodemask=0x0);");
  CHECK(r.kind == LineKind::GraphLeaf);
  CHECK(r.name == "__alloc_frozen_pages_noprof");
  CHECK(r.ts == 78'130'105'000);
  r = parse_line("   78.194859 |   0)  memstre-1140  | * 16370.76 us |  }");
  CHECK(r.kind == LineKind::GraphReturn);
  CHECK(r.name.empty());
  CHECK(r.duration == 16'370'760);
  // With a threshold the returns name their function, arguments on or off.
  r = parse_line("   50.840334 |   1)  memcgrd-975   | ! 156.503 us  |    } /* shrink_node */");
  CHECK(r.kind == LineKind::GraphReturn);
  CHECK(r.name == "shrink_node");
  // 6.x's shrink_slab_start adds "pid:" and "memcg_id:" fields.
  r = parse_line("   51.979188 |   1)   kswapd0-50   |               |  /* mm_shrink_slab_start: "
                 "vmap_node_shrink_scan+0x0/0x80 00000000eaf497e6: nid: 0 pid: 50 memcg_id: 1 "
                 "objects to shrink 130 gfp_flags GFP_KERNEL cache items 7 delta 0 total_scan 0 "
                 "priority 12  */");
  CHECK(r.kind == LineKind::Event);
  CHECK(r.name == "mm_shrink_slab_start");
  CHECK(r.fields.starts_with("vmap_node_shrink_scan+0x0/0x80 00000000eaf497e6: nid: 0 pid: 50"));
}

TEST_CASE("graph: names are symbols, module suffix and compiler clones included") {
  Record r = parse_line("    1.000000 |   0)     dd-160     |   3.000 us    |  "
                        "ext4_es_scan [ext4]();");
  CHECK(r.kind == LineKind::GraphLeaf);
  CHECK(r.name == "ext4_es_scan");
  r = parse_line(
      "    1.000000 |   0)     dd-160     | ! 300.000 us  |  } /* ext4_es_scan [ext4] */");
  CHECK(r.name == "ext4_es_scan");
  r = parse_line("    1.000000 |   0)     dd-160     | ! 300.000 us  |  } /* "
                 "__alloc_pages_slowpath.constprop.0 */");
  CHECK(r.name == "__alloc_pages_slowpath.constprop.0");
}

TEST_CASE("graph: events with empty fields, and marker messages") {
  Record r = parse_line("    1.000000 |   0)     dd-160     |               |  /* my_event:  */");
  CHECK(r.kind == LineKind::Event);
  CHECK(r.name == "my_event");
  CHECK(r.fields.empty());
  r = parse_line(
      "    1.000000 |   0)     dd-160     |               |  /* hello from user space */");
  CHECK(r.kind == LineKind::Event);
  CHECK(r.name.empty());
  CHECK(r.fields == "hello from user space");
}

TEST_CASE("graph: the proc column") {
  struct Case {
    const char* proc;
    const char* comm;
    int pid;
  };
  for (Case c : {Case{"<...>-156", "<...>", 156}, Case{"kworker-123", "kworker", 123},
                 Case{"a-b-c-99", "a-b-c", 99}, Case{"Web Con-4567", "Web Con", 4567},
                 Case{"k/u8:2-77", "k/u8:2", 77}, Case{"sh.x-1", "sh.x", 1},
                 Case{"<idle>-0", "<idle>", 0}, Case{"kcompac-4194304", "kcompac", 4194304}}) {
    Columns cols{.abstime = 2'000'000, .cpu = 1, .proc = c.proc};
    std::string line = graph_line(cols, 0, "__alloc_pages() {");
    CAPTURE(line);
    Record r = parse_line(line);
    CHECK(r.kind == LineKind::GraphEntry);
    CHECK(r.comm == c.comm);
    CHECK(r.pid == c.pid);
  }
}

TEST_CASE("graph: pids and seconds of every length, in short and long columns") {
  // The parser reads numbers of up to 7 digits a word at a time and longer
  // ones byte by byte: both must agree, at every width of the column.
  for (std::string pid : {"1", "12", "123", "1234", "12345", "123456", "1234567", "12345678",
                          "123456789", "2147483647"}) {
    for (std::string comm : {"a", "kworker", "x y"}) {
      Columns cols{.abstime = 2'000'000, .cpu = 1, .proc = comm + "-" + pid};
      std::string line = graph_line(cols, 0, "__alloc_pages() {");
      CAPTURE(line);
      Record r = parse_line(line);
      CHECK(r.kind == LineKind::GraphEntry);
      CHECK(r.comm == comm);
      CHECK(r.pid == std::stol(pid));
    }
  }
  // Beyond an int32 or 10 digits: not a proc column, so not a graph line.
  for (std::string pid : {"2147483648", "12345678901"}) {
    Columns cols{.abstime = 2'000'000, .cpu = 1, .proc = "kworker-" + pid};
    CAPTURE(pid);
    CHECK(parse_line(graph_line(cols, 0, "f() {")).kind == LineKind::Malformed);
  }
  for (Nanos seconds : {Nanos{0}, Nanos{9}, Nanos{1234567}, Nanos{12345678}, Nanos{9223372035}}) {
    Columns cols{.abstime = seconds * kSecond + 5000, .cpu = 3, .proc = "sh-1"};
    std::string line = graph_line(cols, 0, "f() {");
    CAPTURE(line);
    Record r = parse_line(line);
    CHECK(r.kind == LineKind::GraphEntry);
    CHECK(r.ts == seconds * kSecond + 5000);
    CHECK(r.cpu == 3);
  }
  CHECK(parse_line("99999999999.000005 |   3)  sh-1  |               |  f() {").kind ==
        LineKind::Malformed);
  // A proc column narrower than a word.
  Record narrow = parse_line("2.000000 |  1) a-12 |               |  f() {");
  CHECK(narrow.kind == LineKind::GraphEntry);
  CHECK(narrow.comm == "a");
  CHECK(narrow.pid == 12);
}

TEST_CASE("graph: rules of dashes around a banner, of every length") {
  for (std::size_t n = 1; n < 40; ++n) {
    std::string rule = " " + std::string(n, '-');
    CAPTURE(rule);
    CHECK(parse_line(rule).kind == LineKind::Skip);
    CHECK(parse_line(rule + "   ").kind == LineKind::Skip);
    CHECK(parse_line(rule + " -- -").kind == LineKind::Skip);
    // Anything else on the line, wherever it stands, makes it not a rule.
    for (std::size_t at = 1; at < rule.size(); ++at) {
      std::string other = rule;
      other[at] = at % 2 == 0 ? '=' : '\t';
      CHECK(parse_line(other).kind == LineKind::Malformed);
    }
  }
}

TEST_CASE("graph: timestamps of any fraction length, never floating point") {
  struct Case {
    const char* ts;
    Nanos ns;
  };
  for (Case c : {Case{"0.000001", 1'000}, Case{"13.218727", 13'218'727'000},
                 Case{"99999.999999", 99'999'999'999'000}, Case{"5.1", 5'100'000'000},
                 Case{"5.123456789", 5'123'456'789},
                 Case{"1700000000.000000001", 1'700'000'000'000'000'001}}) {
    std::string line = std::string(c.ts) + " |   0)     dd-160     |               |  f() {";
    CAPTURE(line);
    CHECK(parse_line(line).ts == c.ns);
  }
  CHECK(parse_line("5.1234567890 |   0)     dd-160     |               |  f() {").kind ==
        LineKind::Malformed);
  CHECK(parse_line("99999999999.0 |   0)     dd-160     |               |  f() {").kind ==
        LineKind::Malformed);
  // Six fraction digits take a path of their own: every character of them is
  // checked, and a seventh digit sends the line to the general one.
  CHECK(parse_line("5.1234567 |   0)     dd-160     |               |  f() {").ts == 5'123'456'700);
  for (const char* bad : {"5.12a456", "5.12345/", "5.:23456", "5.12345\x7f"}) {
    std::string line = std::string(bad) + " |   0)     dd-160     |               |  f() {";
    CAPTURE(line);
    CHECK(parse_line(line).kind == LineKind::Malformed);
  }
}

TEST_CASE("events: pids, flags and names of every length") {
  // The parser finds the pid, the end of the flags and the end of the name
  // a word at a time where it can: every length must read the same.
  for (std::string pid : {"1", "12", "1234567", "12345678", "2147483647"}) {
    for (std::string comm : {"x", "       x", "a b-c.d/e", "kworker/u8:2"}) {
      for (std::string tgid : {"", " (   2143)", " (-------)"}) {
        for (std::string flags : {"", " d", " .....", " d..1.", " dNs1.."}) {
          for (std::string name : {"a", "mm_vmscan_kswapd_wake", "mm_vmscan_lru_shrink_inactive"}) {
            std::string line = comm + "-" + pid + tgid + " [003]" + flags + "  7.810757: " + name +
                               ": nid=0 order=9";
            CAPTURE(line);
            Record r = parse_line(line);
            REQUIRE(r.kind == LineKind::Event);
            CHECK(r.comm == std::string_view(comm).substr(comm.find_first_not_of(' ')));
            CHECK(r.pid == std::stol(pid));
            CHECK(r.cpu == 3);
            CHECK(r.ts == 7'810'757'000);
            CHECK(r.name == name);
            CHECK(r.fields == "nid=0 order=9");
          }
        }
      }
    }
  }
  // Flags longer than 8 characters, a pid past int32, a name cut by a space.
  CHECK(parse_line("x-1 [003] .........  7.810757: a: b").kind == LineKind::Malformed);
  CHECK(parse_line("x-2147483648 [003] .....  7.810757: a: b").kind == LineKind::Malformed);
  CHECK(parse_line("x-1 [003] .....  7.810757: mm_vmscan_lru shrink: b").kind ==
        LineKind::Malformed);
}

TEST_CASE("events: nop tracer lines") {
  std::string_view line =
      "            bash-2143    [000] .....   224.593574: mm_shrink_slab_start: "
      "kfree_rcu_shrink_scan+0x0/0x120 00000000ecb61676: nid: 0 objects to shrink 0 gfp_flags "
      "GFP_KERNEL cache items 7 delta 14 total_scan 14 priority 0";
  Record r = parse_line(line);
  CHECK(r.kind == LineKind::Event);
  CHECK(r.format == TraceFormat::Events);
  CHECK(r.comm == "bash");
  CHECK(r.pid == 2143);
  CHECK(r.cpu == 0);
  CHECK(r.ts == 224'593'574'000);
  CHECK(r.name == "mm_shrink_slab_start");
  CHECK(r.fields == "kfree_rcu_shrink_scan+0x0/0x120 00000000ecb61676: nid: 0 objects to shrink 0 "
                    "gfp_flags GFP_KERNEL cache items 7 delta 14 total_scan 14 priority 0");
  CHECK(r.duration == -1);
  CHECK(r.depth == 0);
}

TEST_CASE("events: flags column in every form, or none") {
  for (const char* flags : {".....", "d..1.", ".N...", "dNs2.", "d..1", "....", ""}) {
    std::string line = std::string("      kcompactd0-35      [001] ") + flags +
                       "   224.549218: mm_compaction_kcompactd_sleep: nid=0";
    CAPTURE(line);
    Record r = parse_line(line);
    CHECK(r.kind == LineKind::Event);
    CHECK(r.comm == "kcompactd0");
    CHECK(r.pid == 35);
    CHECK(r.cpu == 1);
    CHECK(r.ts == 224'549'218'000);
    CHECK(r.name == "mm_compaction_kcompactd_sleep");
    CHECK(r.fields == "nid=0");
  }
}

TEST_CASE("events: the tgid column") {
  Record r = parse_line("            bash-2143    (   2143) [000] .....   224.593574: "
                        "mm_vmscan_direct_reclaim_end: nr_reclaimed=12");
  CHECK(r.kind == LineKind::Event);
  CHECK(r.comm == "bash");
  CHECK(r.pid == 2143);
  CHECK(r.cpu == 0);
  CHECK(r.name == "mm_vmscan_direct_reclaim_end");
  r = parse_line("          <idle>-0       (-------) [003] d.h2.   224.593574: "
                 "mm_compaction_wakeup_kcompactd: nid=0 order=2 classzone_idx=2");
  CHECK(r.kind == LineKind::Event);
  CHECK(r.comm == "<idle>");
  CHECK(r.pid == 0);
  CHECK(r.cpu == 3);
  r = parse_line("            bash-2143  (  2143) [000] d..1 224.593574: x: y"); // 4.x widths
  CHECK(r.kind == LineKind::Event);
  CHECK(r.pid == 2143);
}

TEST_CASE("events: comms with spaces, dashes, slashes and brackets") {
  struct Case {
    const char* prefix;
    const char* comm;
    int pid;
  };
  for (Case c : {Case{"    kworker/u8:2-123     ", "kworker/u8:2", 123},
                 Case{"     Web Content-4567    ", "Web Content", 4567},
                 Case{"           a-b-c-99      ", "a-b-c", 99},
                 Case{"           -bash-812     ", "-bash", 812},
                 Case{"        x [1] y-5       ", "x [1] y", 5},
                 Case{"    0anacron-3000000 ", "0anacron", 3000000},
                 Case{"           <...>-156     ", "<...>", 156}}) {
    std::string line =
        std::string(c.prefix) + "[002] .....   100.000001: mm_vmscan_kswapd_wake: nid=0 order=0";
    CAPTURE(line);
    Record r = parse_line(line);
    CHECK(r.kind == LineKind::Event);
    CHECK(r.comm == c.comm);
    CHECK(r.pid == c.pid);
    CHECK(r.cpu == 2);
    CHECK(r.name == "mm_vmscan_kswapd_wake");
  }
}

TEST_CASE("events: an event printing no fields") {
  Record r = parse_line("            bash-1  [000] .....     1.000000: my_event: ");
  CHECK(r.kind == LineKind::Event);
  CHECK(r.name == "my_event");
  CHECK(r.fields.empty());
  r = parse_line("            bash-1  [000] .....     1.000000: my_event:");
  CHECK(r.kind == LineKind::Event);
  CHECK(r.name == "my_event");
}

TEST_CASE("lost events") {
  Record r = parse_line("CPU:0 [LOST 600 EVENTS]");
  CHECK(r.kind == LineKind::Lost);
  CHECK(r.format == TraceFormat::Unknown);
  CHECK(r.cpu == 0);
  CHECK(r.lost == 600);
  r = parse_line("CPU:13 [LOST 4294967296 EVENTS]");
  CHECK(r.kind == LineKind::Lost);
  CHECK(r.cpu == 13);
  CHECK(r.lost == 4'294'967'296);
  CHECK(parse_line("CPU:0 [LOST many EVENTS]").kind == LineKind::Malformed);
  // The kernel prints no count when the reader was overrun.
  r = parse_line("CPU:4 [LOST EVENTS]");
  CHECK(r.kind == LineKind::Lost);
  CHECK(r.cpu == 4);
  CHECK(r.lost == 0);
  CHECK(parse_line("CPU:4 [LOST EVENTS] x").kind == LineKind::Malformed);
  CHECK(parse_line("CPU:4 [LOST  EVENTS]").kind == LineKind::Malformed);
  CHECK(parse_line("CPU:0 [LOST 600 EVENTS").kind == LineKind::Malformed);
}

TEST_CASE("skipped lines") {
  for (std::string_view line :
       {"", "   ", "# tracer: function_graph", "#",
        "#     TIME        CPU  TASK/PID         DURATION                  FUNCTION CALLS",
        "#      |          |    |    |           |   |                     |   |   |   |",
        " ------------------------------------------", " 0)    awk-156     =>    init-159   ",
        " 1)     sh-161     =>     dd-160    ", " 12)  <idle>-0    =>  kswapd0-35   ",
        // '=' and '>' in comms before the arrow, and the shortest banner
        " 3)  a=b-7  =>  c=>d-8 ", " 4)  x =>y-1 => z-2 ", " 0)  => ", " (Overruns: 3)"}) {
    CAPTURE(line);
    Record r = parse_line(line);
    CHECK(r.kind == LineKind::Skip);
    CHECK(r.format == TraceFormat::Unknown);
  }
}

TEST_CASE("a cpu column without \" => \" is no banner") {
  // Each lacks the arrow by one byte: not skipped as a banner.
  for (std::string_view line : {" 0)  a=>b-1 ", " 0)  a =>b-1 ", " 0)  a=> b-1 ", " 0)  a = > b-1",
                                " 0)  a ==b-1 ", " 0) =>", " 0)  a -> b-1 "}) {
    CAPTURE(line);
    CHECK(parse_line(line).kind != LineKind::Skip);
  }
}

TEST_CASE("irq markers are skipped, with and without the duration column") {
  // print_graph_irq: the prologue columns, "  ", the arrow, " |".
  for (bool duration : {true, false})
    for (const char* arrow : {"==========>", "<=========="}) {
      std::string line = "   20.102939 |   1)     init-1     | ";
      line += duration ? std::string("  ") + arrow + " |" : arrow;
      CAPTURE(line);
      CHECK(parse_line(line).kind == LineKind::Skip);
    }
}

TEST_CASE("malformed lines, never a crash") {
  for (std::string_view line :
       {// a corrupt record under heavy overruns
        "           <XXX>--86198074 [001] d..1.    13.218727: Unknown type 0",
        "   13.218727 |   1)   <XXX>--86198074 |               |  /* Unknown type 0 */",
        "           <...>-156     [000] .....    13.218727: Unknown type 0",
        // cut lines
        "   13.218727 |   0)   <...>-156    | ! 431.377 us  |  } /* __alloc_pa",
        "   13.218727 |   0)   <...>-156    | ! 431.3",
        "   13.218727 |   0)   <...>-156    | ! 431.377 us  |",
        "   13.218727 |   0)   <...>-156    | ! 431.377 us  |  ", "   13.218727 |",
        "   16.455299 |   0)    cat-152     |               |  /* mm_vmscan_direct_recl",
        "            bash-2143    [000] .....   224.59",
        "            bash-2143    [000] .....   224.593574: mm_shrink_sl",
        "            bash-2143    [0",
        // a number where text was expected, and other garbage
        "   13.218727 |   0)     dd-160     | ! 431.377 us  |  12345",
        "   13.218727 |   0)     dd-160     | ! 431.377 us  |  } 12",
        "   13.218727 |   0)     dd-160     | ! 431.377 us  |  } /*  */",
        "   13.218727 |   0)     dd-160     |               |  f() { trailing",
        "   13.218727 |   0)     dd-160     |               |  f(",
        "   13.218727 |   0)     dd-160     |               | f() {", // indentation short
        "            bash-2143    [000] .....   224.593574: do_sys_open <-__x64_sys_openat",
        "            bash-2143    [000] ..... 224593574: mm_event: counter clock", "12345",
        "random words here", "[000]", "-x", "-bash", "CPU:", "|||||", "0)", "1.5 |",
        "\xff\xfe\x01 binary"}) {
    CAPTURE(line);
    Record r = parse_line(line);
    CHECK(r.kind == LineKind::Malformed);
    CHECK(r.format == TraceFormat::Unknown);
    CHECK(r.line == line);
  }
}

TEST_CASE("robustness: cut and corrupted real lines stay inside the line") {
  std::vector<std::string> samples = {
      "   13.218727 |   0)   <...>-156    | ! 431.377 us  |  } /* __alloc_pages */",
      "   16.455299 |   0)    cat-152     |               |  /* mm_vmscan_direct_reclaim_begin: "
      "order=0 gfp_flags=GFP_KERNEL */",
      "   20.102939 |   1)     init-1     |               |  __alloc_pages() {",
      "   20.102940 |   0)   memhog-172   | ! 587.476 us  |  __alloc_pages();",
      "   20.129059 |   1)   memhog-173   | + 72.695 us   |    }",
      "   20.129439 |   1)   memhog-173   |               |      /* "
      "mm_compaction_try_to_compact_pages: order=9 gfp_mask=GFP_TRANSHUGE|__GFP_NORETRY "
      "priority=2 */",
      "    1.000000 |   0)     dd-160     |   2.000 us    |  "
      "shrink_slab(gfp_mask=0xcc0, nid=0); /* <-shrink_node+0x2f1/0x7e0 ret=0x0 */",
      "    1.000000 |   0)     dd-160     | ! 200.000 us  |  } /* compact_zone = -22 */",
      " 0)    awk-156     =>    init-159   ",
      " ------------------------------------------",
      "CPU:0 [LOST 600 EVENTS]",
      "            bash-2143    [000] .....   224.593574: mm_shrink_slab_start: "
      "super_cache_scan+0x0/0x210 00000000ce7941b5: nid: 0 objects to shrink 0",
      "            bash-2143    (   2143) [000] d..1.   224.593574: mm_vmscan_direct_reclaim_end: "
      "nr_reclaimed=12",
      "           <XXX>--86198074 [001] d..1.    13.218727: Unknown type 0",
  };
  std::mt19937 rng(20161128);
  const char structural[] = " |-:()[]{}/*.0123456789;=<>";
  std::size_t parsed = 0;
  // Each variant is copied into a buffer of exactly its size, so a read past
  // the end is a heap overflow that `make test SAN=1` reports.
  auto check = [&](const std::string& text) {
    std::unique_ptr<char[]> exact(new char[text.size() + 1]);
    std::memcpy(exact.get(), text.data(), text.size());
    std::string_view line(exact.get(), text.size());
    Record r = parse_line(line);
    ++parsed;
    if (!views_inside(r, line))
      FAIL_CHECK("a view leaves the line: " << text);
  };
  for (const std::string& sample : samples) {
    for (std::size_t cut = 0; cut <= sample.size(); ++cut)
      check(sample.substr(0, cut));
    for (int round = 0; round < 400; ++round) {
      std::string variant = sample;
      int flips = 1 + static_cast<int>(rng() % 4);
      for (int f = 0; f < flips; ++f) {
        std::size_t at = rng() % variant.size();
        variant[at] = (rng() % 2) ? static_cast<char>(rng() % 256)
                                  : structural[rng() % (sizeof structural - 1)];
      }
      check(variant);
      check(variant.substr(0, rng() % (variant.size() + 1)));
    }
  }
  CHECK(parsed > 10'000);
}

namespace {

// The real traces the golden tests replay; the unit tests run from the
// repository root (tests/unit/run.sh).
std::string traces_dir() {
  const char* dir = std::getenv("ALLOCWATCH_TRACES");
  return dir != nullptr ? dir : "tests/golden/traces";
}

// Parses a whole trace file through the real reader, calls `each` on every
// record and returns how many records of each kind there were.
template <class F> std::map<LineKind, int> count_kinds(const std::string& name, F&& each) {
  std::map<LineKind, int> counts;
  std::string path = traces_dir() + "/" + name;
  int fd = open(path.c_str(), O_RDONLY);
  REQUIRE_MESSAGE(fd >= 0,
                  "cannot open " << path << " (set ALLOCWATCH_TRACES to the traces directory)");
  FdSource source(fd, path);
  LineReader reader(source);
  std::string_view line;
  while (reader.next(line)) {
    Record r = parse_line(line);
    ++counts[r.kind];
    each(r);
  }
  close(fd);
  return counts;
}

} // namespace

// The expected counts were made independently of this parser, with awk over
// the raw files (one pattern per kind, every line matched by exactly one):
//   blank /^$/, dashes /^ -+$/, banner /^ [0-9]+\) .*=>/      -> Skip
//   /\|  +\/\* [a-z_0-9]+: .* \*\/$/                          -> Event
//   /\|  +[a-z_0-9.]+\(\) \{$/                                -> GraphEntry
//   /\|  +[a-z_0-9.]+\(\);$/                                  -> GraphLeaf
//   /\|  +\}$/ and /\|  +\} \/\* [a-z_0-9.]+ \*\/$/            -> GraphReturn
// and for the events trace
//   /^ *[^ ].*-[0-9]+ +\[[0-9]+\] [.a-zA-Z0-9]+ +[0-9]+\.[0-9]+: [a-z_0-9]+: /
// which matched all 4089 lines. No line was left over in any file.
TEST_CASE("real traces: every line parses, counted by kind") {
  std::map<LineKind, int> thresh0 = count_kinds("graph-6.1-thresh0.txt", [](const Record& r) {
    if (r.kind == LineKind::Skip)
      return;
    CHECK(r.format == TraceFormat::Graph);
    CHECK(r.ts > 0);
    CHECK(r.cpu >= 0);
    CHECK(r.pid >= 0);
  });
  CHECK(thresh0[LineKind::Skip] == 765 + 1530 + 765);
  CHECK(thresh0[LineKind::Event] == 1120);
  CHECK(thresh0[LineKind::GraphEntry] == 839);
  CHECK(thresh0[LineKind::GraphLeaf] == 62624);
  CHECK(thresh0[LineKind::GraphReturn] == 517 + 213);
  CHECK(thresh0[LineKind::Malformed] == 0);
  CHECK(thresh0[LineKind::Lost] == 0);

  std::map<LineKind, int> thresh100 = count_kinds("graph-6.1-thresh100.txt", [](const Record& r) {
    if (r.kind == LineKind::GraphReturn) {
      CHECK(r.duration >= 100'000); // tracing_thresh=100: only returns >= 100 us
      CHECK_FALSE(r.name.empty());
    }
  });
  CHECK(thresh100[LineKind::Skip] == 1107 + 2214 + 1107);
  CHECK(thresh100[LineKind::Event] == 15065);
  CHECK(thresh100[LineKind::GraphReturn] == 6470);
  CHECK(thresh100[LineKind::GraphEntry] == 0);
  CHECK(thresh100[LineKind::GraphLeaf] == 0);
  CHECK(thresh100[LineKind::Malformed] == 0);

  std::map<LineKind, int> events =
      count_kinds("events-6.18-dropcaches-compact.txt", [](const Record& r) {
        CHECK(r.format == TraceFormat::Events);
        CHECK(!r.name.empty());
      });
  CHECK(events[LineKind::Event] == 4089);
  CHECK(events.size() == 1);
}

// In a thresh-0 trace every call line sits exactly one level below the
// innermost call still open on its task, once calls whose return never came
// are dropped; and every bare "}" closes an open entry of its own depth.
TEST_CASE("real traces: depths nest by one level and a bare return meets its entry") {
  std::map<std::int32_t, std::vector<int>> open_calls; // per pid
  int nested = 0;
  int closed = 0;
  count_kinds("graph-6.1-thresh0.txt", [&](const Record& r) {
    if (r.kind != LineKind::GraphEntry && r.kind != LineKind::GraphLeaf &&
        r.kind != LineKind::GraphReturn)
      return;
    std::vector<int>& open = open_calls[r.pid];
    if (r.kind == LineKind::GraphReturn && r.name.empty()) {
      while (!open.empty() && open.back() > r.depth)
        open.pop_back();
      if (open.empty() || open.back() != r.depth) {
        FAIL_CHECK("a bare return meets no entry of its depth: " << r.line);
        return;
      }
      open.pop_back();
      ++closed;
      return;
    }
    while (!open.empty() && open.back() >= r.depth)
      open.pop_back(); // entries whose return never came
    if (!open.empty()) {
      CHECK(r.depth == open.back() + 1);
      ++nested;
    }
    if (r.kind == LineKind::GraphEntry)
      open.push_back(r.depth);
  });
  // The same walk in a few lines of Python over the raw file (depth taken as
  // (spaces after the third '|' - 2) / 2) gives 517 and 433.
  CHECK(closed == 517);
  CHECK(nested == 433);
}

TEST_CASE("parse_line: a line longer than kMaxLineBytes is not understood, whatever it holds") {
  const std::string event = "  bash-2143    [001] .....   224.615001: mm_compaction_begin: ";
  const std::string fits = event + std::string(kMaxLineBytes - event.size(), 'f');
  CHECK(parse_line(fits).kind == LineKind::Event);
  const Record cut = parse_line(fits + "f");
  CHECK(cut.kind == LineKind::Malformed);
  CHECK(cut.line.size() == kMaxLineBytes + 1);
}

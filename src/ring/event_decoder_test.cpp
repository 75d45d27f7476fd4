#include "event_format.h"
#include "ring/event_decoder.h"
#include "ring/event_formats.h"
#include "ring/function_text.h"
#include "ring/print_plan.h"
#include "trace/parser.h"
#include "trace/record_text.h"
#include "util/digits.h"

#include <cstring>
#include <doctest/doctest.h>
#include <memory>
#include <string>
#include <traceevent/event-parse.h>
#include <vector>

using namespace allocwatch;

namespace {

// Formats as the kernels print them in events/*/format.
std::string format(const char* name, int id, const std::string& fields, const char* print) {
  return testing::event_format(name, id, fields, print);
}

// 6.1 to 6.18: func, depth, overrun, calltime, rettime.
const std::string kExit61 =
    format("funcgraph_exit", 10,
           "\tfield:unsigned long func;\toffset:8;\tsize:8;\tsigned:0;\n"
           "\tfield:unsigned int depth;\toffset:16;\tsize:4;\tsigned:0;\n"
           "\tfield:unsigned int overrun;\toffset:20;\tsize:4;\tsigned:0;\n"
           "\tfield:unsigned long long calltime;\toffset:24;\tsize:8;\tsigned:0;\n"
           "\tfield:unsigned long long rettime;\toffset:32;\tsize:8;\tsigned:0;\n",
           "\"<-- %ps (%u) (start: %llx  end: %llx) over: %u\", (void *)REC->func, REC->depth, "
           "REC->calltime, REC->rettime, REC->depth");
// 5.10: an 8-byte overrun before calltime, depth last.
const std::string kExit510 =
    format("funcgraph_exit", 10,
           "\tfield:unsigned long func;\toffset:8;\tsize:8;\tsigned:0;\n"
           "\tfield:unsigned long overrun;\toffset:16;\tsize:8;\tsigned:0;\n"
           "\tfield:unsigned long long calltime;\toffset:24;\tsize:8;\tsigned:0;\n"
           "\tfield:unsigned long long rettime;\toffset:32;\tsize:8;\tsigned:0;\n"
           "\tfield:int depth;\toffset:40;\tsize:4;\tsigned:1;\n",
           "\"<-- %ps (%d) (start: %llx  end: %llx) over: %d\", (void *)REC->func, REC->depth, "
           "REC->calltime, REC->rettime, REC->depth");
const std::string kEntry = format("funcgraph_entry", 11,
                                  "\tfield:unsigned long func;\toffset:8;\tsize:8;\tsigned:0;\n"
                                  "\tfield:unsigned int depth;\toffset:16;\tsize:4;\tsigned:0;\n",
                                  "\"--> %ps (%u)\", (void *)REC->func, REC->depth");
const std::string kDirectBegin =
    format("mm_vmscan_direct_reclaim_begin", 637,
           "\tfield:int order;\toffset:8;\tsize:4;\tsigned:1;\n"
           "\tfield:unsigned long gfp_flags;\toffset:16;\tsize:8;\tsigned:0;\n",
           "\"order=%d gfp_flags=%s\", REC->order, (REC->gfp_flags) ? "
           "__print_flags(REC->gfp_flags, \"|\", {0xcc0, \"GFP_KERNEL\"}, {0x40000, "
           "\"__GFP_COMP\"}) : \"none\"");

const std::string kShrinkStart =
    format("mm_shrink_slab_start", 631,
           "\tfield:struct shrinker * shr;\toffset:8;\tsize:8;\tsigned:0;\n"
           "\tfield:void * shrink;\toffset:16;\tsize:8;\tsigned:0;\n"
           "\tfield:int nid;\toffset:24;\tsize:4;\tsigned:1;\n",
           "\"%pS %p: nid: %d\", REC->shrink, REC->shr, REC->nid");

constexpr unsigned long long kShrinkNode = 0xffffffff81234560ULL;
constexpr unsigned long long kSuperCacheScan = 0xffffffff81400000ULL;

struct Tep {
  tep_handle* tep = tep_alloc();
  explicit Tep(const std::string& exit_format) {
    tep_set_long_size(tep, 8);
    tep_set_page_size(tep, 4096);
    for (const std::string* f : {&exit_format, &kEntry})
      REQUIRE(tep_parse_event(tep, f->data(), f->size(), "ftrace") == 0);
    for (const std::string* f : {&kDirectBegin, &kShrinkStart})
      REQUIRE(tep_parse_event(tep, f->data(), f->size(), "vmscan") == 0);
    char name[] = "shrink_node";
    REQUIRE(tep_register_function(tep, name, kShrinkNode, nullptr) == 0);
    char scan[] = "super_cache_scan";
    REQUIRE(tep_register_function(tep, scan, kSuperCacheScan, nullptr) == 0);
    REQUIRE(tep_register_comm(tep, "kswapd0", 44) == 0);
    REQUIRE(tep_register_comm(tep, "stress-ng-memcg", 2143) == 0);
  }
  ~Tep() { tep_free(tep); }
};

// A payload: the common fields, then the values at their offsets.
struct Payload {
  std::vector<unsigned char> bytes;
  Payload(std::uint16_t type, std::int32_t pid, std::size_t size) : bytes(size, 0) {
    put(0, type);
    put(4, pid);
  }
  template <class T> Payload& put(std::size_t at, T value) {
    std::memcpy(bytes.data() + at, &value, sizeof value);
    return *this;
  }
  RawEvent event(int cpu, std::uint64_t ts) const {
    return {cpu, ts, bytes.data(), static_cast<std::uint32_t>(bytes.size())};
  }
};

std::string printed(const Record& record) {
  std::string scratch;
  return std::string(text_of(record, scratch).line);
}

} // namespace

TEST_CASE("a funcgraph_exit is a return timed by calltime and rettime, exact in ns") {
  Tep t(kExit61);
  EventDecoder decoder(t.tep, LineStyle::Graph);
  Payload exit(10, 44, 40);
  exit.put<std::uint64_t>(8, kShrinkNode)
      .put<std::uint32_t>(16, 1)
      .put<std::uint64_t>(24, 16'180'496'123ULL)
      .put<std::uint64_t>(32, 16'180'927'500ULL);
  const Record& r = decoder.decode(exit.event(1, 16'180'927'777ULL));
  CHECK(r.kind == LineKind::GraphReturn);
  CHECK(r.format == TraceFormat::Graph);
  CHECK(r.name == "shrink_node");
  CHECK(r.pid == 44);
  CHECK(r.cpu == 1);
  CHECK(r.comm == "kswapd0");
  CHECK(r.ts == 16'180'927'500); // rettime, not the record's stamp
  CHECK(r.duration == 431'377);
  CHECK(r.depth == 1);
  CHECK(r.line.empty()); // made only when asked
  // The kernel's columns: abstime cut to µs, cpu, comm-pid centred, the
  // duration with its mark, the body indented by depth.
  const std::string line = printed(r);
  CHECK(line == "   16.180927 |   1)   kswapd0-44   | ! 431.377 us  |    } /* shrink_node */");
  const Record parsed = parse_line(line);
  CHECK(parsed.kind == LineKind::GraphReturn);
  CHECK(parsed.name == "shrink_node");
  CHECK(parsed.duration == 431'377);
  CHECK(parsed.pid == 44);
}

TEST_CASE("5.10's layout is read by field name: an 8-byte overrun before calltime") {
  Tep t(kExit510);
  EventDecoder decoder(t.tep, LineStyle::Graph);
  Payload exit(10, 44, 48);
  exit.put<std::uint64_t>(8, kShrinkNode)
      .put<std::uint64_t>(16, 7)
      .put<std::uint64_t>(24, 2'000'000'000ULL)
      .put<std::uint64_t>(32, 2'012'345'678ULL)
      .put<std::int32_t>(40, 0);
  const Record& r = decoder.decode(exit.event(0, 2'012'346'000ULL));
  CHECK(r.kind == LineKind::GraphReturn);
  CHECK(r.duration == 12'345'678);
  CHECK(r.depth == 0);
  CHECK(printed(r) == "    2.012345 |   0)   kswapd0-44   | * 12345.67 us |  } /* shrink_node */");
}

TEST_CASE("an event prints as the nop tracer's line, its fields by libtraceevent") {
  Tep t(kExit61);
  EventDecoder decoder(t.tep);
  Payload begin(637, 2143, 24);
  begin.put<std::int32_t>(8, 3).put<std::uint64_t>(16, 0xcc0 | 0x40000);
  // 224.5935745 s: the kernel rounds an event's time to the nearest µs.
  const Record& r = decoder.decode(begin.event(0, 224'593'574'500ULL));
  CHECK(r.kind == LineKind::Event);
  CHECK(r.format == TraceFormat::Events);
  CHECK(r.name == "mm_vmscan_direct_reclaim_begin");
  CHECK(r.ts == 224'593'574'500);
  CHECK(r.comm == "stress-ng-memcg");
  std::string scratch;
  const RecordText text = text_of(r, scratch);
  CHECK(text.line == " stress-ng-memcg-2143    [000] .....   224.593575: "
                     "mm_vmscan_direct_reclaim_begin: order=3 gfp_flags=GFP_KERNEL|__GFP_COMP");
  CHECK(text.fields == "order=3 gfp_flags=GFP_KERNEL|__GFP_COMP");
  const Record parsed = parse_line(text.line);
  CHECK(parsed.kind == LineKind::Event);
  CHECK(parsed.pid == 2143);
  CHECK(parsed.fields == text.fields);
}

TEST_CASE("a pending format is parsed when its event's first record is decoded, once") {
  tep_handle* tep = tep_alloc();
  tep_set_long_size(tep, 8);
  PendingFormats pending;
  REQUIRE(pending.add("vmscan", kDirectBegin));
  REQUIRE(pending.add("vmscan", kShrinkStart));
  EventDecoder decoder(tep, LineStyle::Events, ReturnTime::Rettime, &pending);
  Payload begin(637, 2143, 24);
  begin.put<std::int32_t>(8, 3).put<std::uint64_t>(16, 0xcc0);
  const Record& r = decoder.decode(begin.event(0, 1'000));
  CHECK(r.kind == LineKind::Event);
  CHECK(r.name == "mm_vmscan_direct_reclaim_begin");
  std::string scratch;
  CHECK(text_of(r, scratch).fields == "order=3 gfp_flags=GFP_KERNEL");
  CHECK(tep_find_event_by_name(tep, "vmscan", "mm_vmscan_direct_reclaim_begin") != nullptr);
  // The other event's format waits for a record of its own.
  CHECK(tep_find_event_by_name(tep, "vmscan", "mm_shrink_slab_start") == nullptr);
  CHECK(pending.size() == 1);
  CHECK(decoder.decode(begin.event(0, 2'000)).kind == LineKind::Event);
  // An id with no format, pending or parsed, is Malformed.
  CHECK(decoder.decode(Payload(700, 2143, 24).event(0, 3'000)).kind == LineKind::Malformed);
  tep_free(tep);
}

TEST_CASE("in a graph trace an event prints as function_graph's comment") {
  Tep t(kExit61);
  EventDecoder decoder(t.tep, LineStyle::Graph);
  Payload begin(637, 44, 24);
  begin.put<std::int32_t>(8, 0).put<std::uint64_t>(16, 0xcc0);
  const Record& r = decoder.decode(begin.event(1, 16'180'496'000ULL));
  CHECK(r.format == TraceFormat::Graph);
  const std::string line = printed(r);
  CHECK(line == "   16.180496 |   1)   kswapd0-44   |               |  /* "
                "mm_vmscan_direct_reclaim_begin: order=0 gfp_flags=GFP_KERNEL */");
  const Record parsed = parse_line(line);
  CHECK(parsed.kind == LineKind::Event);
  CHECK(parsed.name == "mm_vmscan_direct_reclaim_begin");
  CHECK(parsed.fields == "order=0 gfp_flags=GFP_KERNEL");
}

TEST_CASE("an unknown pid's comm is <...>; an unknown address prints as hex") {
  Tep t(kExit61);
  EventDecoder decoder(t.tep, LineStyle::Graph);
  Payload entry(11, 999, 24);
  entry.put<std::uint64_t>(8, 0xffffffff8100abcdULL).put<std::uint32_t>(16, 2);
  const Record& r = decoder.decode(entry.event(0, 5'000'000'000ULL));
  CHECK(r.kind == LineKind::GraphEntry);
  CHECK(r.comm == "<...>");
  CHECK(r.name == "0xffffffff8100abcd");
  CHECK(printed(r) ==
        "    5.000000 |   0)   <...>-999    |               |      0xffffffff8100abcd() {");
}

TEST_CASE("hostile records are Malformed, never read past their size") {
  Tep t(kExit61);
  EventDecoder decoder(t.tep, LineStyle::Graph);
  Payload exit(10, 44, 40);
  exit.put<std::uint64_t>(24, 10).put<std::uint64_t>(32, 20);
  for (std::uint32_t size : {0u, 1u, 8u, 39u}) {
    RawEvent event = exit.event(0, 1);
    event.size = size;
    CHECK(decoder.decode(event).kind == LineKind::Malformed);
  }
  Payload unknown(4242, 1, 64);
  CHECK(decoder.decode(unknown.event(0, 1)).kind == LineKind::Malformed);
  // A return before its call is not a span.
  exit.put<std::uint64_t>(24, 30);
  CHECK(decoder.decode(exit.event(0, 1)).kind == LineKind::Malformed);
  // Garbage handed to the formatter prints a line that says so.
  std::string out;
  std::size_t at = 7, size = 7;
  decoder.format("xy", out, at, size);
  CHECK(out.find("allocwatch") != std::string::npos);
  CHECK(at == 0);
  CHECK(size == 0);
}

TEST_CASE("lost events print as the kernel's LOST line") {
  Tep t(kExit61);
  EventDecoder decoder(t.tep);
  const Record& some = decoder.lost(3, 600);
  CHECK(some.kind == LineKind::Lost);
  CHECK(some.line == "CPU:3 [LOST 600 EVENTS]");
  CHECK(some.lost == 600);
  CHECK(parse_line(some.line).lost == 600);
  CHECK(decoder.lost(1, -1).line == "CPU:1 [LOST EVENTS]");
}

TEST_CASE("a shrinker's name is made without printing, exactly as the line prints it") {
  Tep t(kExit61);
  EventDecoder decoder(t.tep);
  struct Case {
    std::uint64_t function, instance;
  };
  for (const Case c : {Case{kSuperCacheScan, 0xffff888102b24780ULL},
                       Case{kSuperCacheScan + 0x10, 0xffff888102b24780ULL},
                       Case{kSuperCacheScan, 0}, Case{0x1234, 0xffff888100000000ULL}}) {
    Payload start(631, 2143, 28);
    start.put<std::uint64_t>(8, c.instance).put<std::uint64_t>(16, c.function);
    const Record& r = decoder.decode(start.event(0, 1'000'000'000ULL));
    REQUIRE(r.kind == LineKind::Event);
    std::string scratch;
    const std::string_view fields = text_of(r, scratch).fields;
    CAPTURE(fields);
    REQUIRE(fields.find(':') != std::string_view::npos);
    CHECK(r.shrinker == fields.substr(0, fields.find(':') + 1));
    CHECK(shrinker_fields(r) == r.shrinker);
  }
  Payload start(631, 2143, 28);
  start.put<std::uint64_t>(8, 0xffff888102b24780ULL).put<std::uint64_t>(16, kSuperCacheScan);
  CHECK(decoder.decode(start.event(0, 1)).shrinker == "super_cache_scan+0x0 0xffff888102b24780:");
  Payload other(637, 2143, 24);
  CHECK(decoder.decode(other.event(0, 1)).shrinker.empty());
}

TEST_CASE("names of any length, of any number of addresses: right, and the record's own") {
  Tep t(kExit61);
  // A forged file's symbol, longer than any kernel's: printed whole, each time.
  const std::string long_name(FunctionNames::kMaxKeptText + 10, 's');
  REQUIRE(tep_register_function(t.tep, const_cast<char*>(long_name.c_str()), 0xffffffff81500000ULL,
                                nullptr) == 0);
  char etext[] = "_etext";
  REQUIRE(tep_register_function(t.tep, etext, 0xffffffff81600000ULL, nullptr) == 0);
  EventDecoder decoder(t.tep);
  Payload start(631, 2143, 28);
  start.put<std::uint64_t>(8, 0xffff888102b24780ULL).put<std::uint64_t>(16, 0xffffffff81500010ULL);
  for (int i = 0; i < 2; ++i)
    CHECK(decoder.decode(start.event(0, 1)).shrinker == long_name + "+0x10 0xffff888102b24780:");

  // Graph entries of more addresses than are remembered at once: each
  // record keeps its own name while other lines are printed.
  const auto entry = [](std::uint64_t address) {
    Payload p(11, 44, 20);
    p.put<std::uint64_t>(8, address).put<std::uint32_t>(16, 1);
    return p;
  };
  const auto hex = [](std::uint64_t address) {
    char text[kMaxHexText];
    return std::string(hex_text(address, text));
  };
  // A held record's blob, printed again with another address each time:
  // the function's bytes lie 8 bytes into the payload, its last 20.
  std::string held(decoder.decode(entry(0x2000).event(0, 5)).blob);
  const std::size_t func_at = held.size() - 20 + 8;
  for (std::uint64_t i = 0; i < 5000; ++i) {
    const std::uint64_t address = 0x10000 + i * 16;
    const Payload p = entry(address);
    const Record& r = decoder.decode(p.event(0, 10 + i));
    REQUIRE(r.kind == LineKind::GraphEntry);
    const std::uint64_t printed_address = 0x40000000 + i * 16;
    std::memcpy(held.data() + func_at, &printed_address, sizeof printed_address);
    std::string line;
    std::size_t at = 0, size = 0;
    decoder.format(held, line, at, size); // a new name: may forget every one
    REQUIRE(line.find(hex(printed_address) + "() {") != std::string::npos);
    REQUIRE(r.name == hex(address));
  }
}

TEST_CASE("printed fields are remembered by the record's bytes, never another record's") {
  Tep t(kExit61);
  // An element of an array: a format that has no PrintPlan, so that
  // libtraceevent prints it.
  const std::string indexed =
      format("mm_test_indexed", 640, "\tfield:int orders[2];\toffset:8;\tsize:8;\tsigned:1;\n",
             "\"second=%d\", REC->orders[1]");
  REQUIRE(tep_parse_event(t.tep, indexed.data(), indexed.size(), "vmscan") == 0);
  REQUIRE(PrintPlan::make(*tep_find_event(t.tep, 640)) == nullptr);
  EventDecoder decoder(t.tep);
  // More distinct records than the memory has slots, each printed twice.
  for (int round = 0; round < 2; ++round)
    for (std::int32_t order = 0; order < 3000; ++order) {
      Payload record(640, 2143, 16);
      record.put<std::int32_t>(8, -order).put<std::int32_t>(12, order);
      std::string scratch;
      const std::string_view fields = text_of(decoder.decode(record.event(0, 1)), scratch).fields;
      CHECK(fields == "second=" + std::to_string(order));
    }
}

TEST_CASE("a plan's fields are remembered by the bytes it reads: a common field when it does") {
  Tep t(kExit61);
  const std::string own_pid =
      format("mm_test_own_pid", 641, "\tfield:int order;\toffset:8;\tsize:4;\tsigned:1;\n",
             "\"pid=%d order=%d\", REC->common_pid, REC->order");
  REQUIRE(tep_parse_event(t.tep, own_pid.data(), own_pid.size(), "vmscan") == 0);
  REQUIRE(PrintPlan::make(*tep_find_event(t.tep, 641)) != nullptr);
  EventDecoder decoder(t.tep);
  // More distinct records than the memory has slots, each printed twice:
  // the same order for every pid, and the same fields after the pid for
  // direct reclaim's begin, whose print reads no common field.
  for (int round = 0; round < 2; ++round)
    for (std::int32_t pid = 1; pid < 3000; ++pid) {
      Payload own(641, pid, 12);
      own.put<std::int32_t>(8, 3);
      std::string scratch;
      CHECK(text_of(decoder.decode(own.event(0, 1)), scratch).fields ==
            "pid=" + std::to_string(pid) + " order=3");
      Payload begin(637, pid, 24);
      begin.put<std::int32_t>(8, pid % 7).put<std::uint64_t>(16, 0xcc0);
      CHECK(text_of(decoder.decode(begin.event(1, 2)), scratch).fields ==
            "order=" + std::to_string(pid % 7) + " gfp_flags=GFP_KERNEL");
    }
  // A record longer than the memory keeps: printed each time, right.
  for (std::int32_t order = 0; order < 4; ++order) {
    Payload longer(637, 44, 600);
    longer.put<std::int32_t>(8, order).put<std::uint64_t>(16, 0x40000);
    std::string scratch;
    CHECK(text_of(decoder.decode(longer.event(0, 3)), scratch).fields ==
          "order=" + std::to_string(order) + " gfp_flags=__GFP_COMP");
  }
}

TEST_CASE("another trace clock than local: a return ends when its record was written") {
  Tep t(kExit61);
  EventDecoder decoder(t.tep, LineStyle::Graph, ReturnTime::Written);
  Payload exit(10, 44, 40);
  exit.put<std::uint64_t>(8, kShrinkNode)
      .put<std::uint64_t>(24, 1'000'000'000ULL)
      .put<std::uint64_t>(32, 1'000'431'377ULL);
  const Record& r = decoder.decode(exit.event(0, 7'000'500'000ULL));
  CHECK(r.ts == 7'000'500'000);
  CHECK(r.duration == 431'377);
}

TEST_CASE("a task named by the run is named so; the names kept are bounded") {
  Tep t(kExit61);
  EventDecoder decoder(t.tep);
  Payload begin(637, 2143, 24);
  CHECK(decoder.decode(begin.event(0, 1)).comm == "stress-ng-memcg");
  decoder.name_task(2143, "renamed");
  CHECK(decoder.decode(begin.event(0, 2)).comm == "renamed");
  Payload other(637, 44, 24);
  CHECK(decoder.decode(other.event(0, 3)).comm == "kswapd0");
  CHECK(decoder.decode(begin.event(0, 4)).comm == "renamed");
  CHECK(decoder.comm_of(0) == "<idle>");
  CHECK(decoder.comm_of(77) == "<...>");
  decoder.name_task(77, "late"); // once asked, named since
  CHECK(decoder.comm_of(77) == "late");
  CHECK(decoder.comm_of(77 + 64) == "<...>"); // another pid of its slot
  CHECK(decoder.comm_of(77) == "late");
  // Past the bound every name given is forgotten: the tep's come back.
  CHECK(decoder.names_forgotten() == 0);
  for (std::int32_t pid = 100'000;
       pid < 100'000 + static_cast<std::int32_t>(EventDecoder::kNamedTasks); ++pid)
    decoder.name_task(pid, "churn");
  CHECK(decoder.names_forgotten() == 1);
  CHECK(decoder.comm_of(2143) == "stress-ng-memcg");
  CHECK(decoder.comm_of(100'000) == "<...>");
  CHECK(decoder.comm_of(77) == "<...>");
}

// 7.2's mm_vmscan_memcg_reclaim_end (include/trace/events/vmscan.h), which
// libtraceevent 1.7 cannot read as the kernel wrote it.
const std::string kMemcgEnd72 =
    format("mm_vmscan_memcg_reclaim_end", 599,
           "\tfield:unsigned long nr_reclaimed;\toffset:8;\tsize:8;\tsigned:0;\n"
           "\tfield:u64 memcg_id;\toffset:16;\tsize:8;\tsigned:0;\n",
           "\"nr_reclaimed=%lu pid=%d memcg_id=%llu %s\", REC->nr_reclaimed, REC->ent.pid, "
           "REC->memcg_id, (REC->common_flags & 0x18) ? \"(in-irq)\" : \"\"");

TEST_CASE("7.2's memcg reclaim end: read as the kernel prints it once parsable") {
  Tep t(kExit61);
  const std::string readable = parsable_format(kMemcgEnd72);
  REQUIRE(tep_parse_event(t.tep, readable.data(), readable.size(), "vmscan") == 0);
  EventDecoder decoder(t.tep);
  Payload end(599, 2143, 24);
  end.put<std::uint64_t>(8, 37).put<std::uint64_t>(16, 12);
  std::string scratch;
  CHECK(text_of(decoder.decode(end.event(0, 1)), scratch).fields ==
        "nr_reclaimed=37 pid=2143 memcg_id=12 ");
}

TEST_CASE("a format libtraceevent could not read: its fields by name, not FAILED TO PARSE") {
  Tep t(kExit61);
  tep_parse_event(t.tep, kMemcgEnd72.data(), kMemcgEnd72.size(), "vmscan"); // fails to parse
  EventDecoder decoder(t.tep);
  Payload end(599, 2143, 24);
  end.put<std::uint64_t>(8, 37).put<std::uint64_t>(16, 12);
  std::string scratch;
  const std::string_view fields = text_of(decoder.decode(end.event(0, 1)), scratch).fields;
  CHECK(fields == "nr_reclaimed=37 memcg_id=12");
  CHECK(fields.find("FAILED") == std::string_view::npos);
}

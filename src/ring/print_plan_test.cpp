#include "event_format.h"
#include "library_print.h"
#include "ring/dat_input.h"
#include "ring/print_plan.h"

#include <cstdlib>
#include <cstring>
#include <dirent.h>
#include <doctest/doctest.h>
#include <fcntl.h>
#include <fstream>
#include <iterator>
#include <random>
#include <string>
#include <traceevent/event-parse.h>
#include <traceevent/trace-seq.h>
#include <unistd.h>
#include <vector>

using namespace allocwatch;

namespace {

// Eight fields after the common ones: a, b (int), c, d (unsigned long),
// e (short), f (unsigned char), g (unsigned int), h (long), 48 bytes.
constexpr const char* kFields = "\tfield:int a;\toffset:8;\tsize:4;\tsigned:1;\n"
                                "\tfield:int b;\toffset:12;\tsize:4;\tsigned:1;\n"
                                "\tfield:unsigned long c;\toffset:16;\tsize:8;\tsigned:0;\n"
                                "\tfield:unsigned long d;\toffset:24;\tsize:8;\tsigned:0;\n"
                                "\tfield:short e;\toffset:32;\tsize:2;\tsigned:1;\n"
                                "\tfield:unsigned char f;\toffset:34;\tsize:1;\tsigned:0;\n"
                                "\tfield:unsigned int g;\toffset:36;\tsize:4;\tsigned:0;\n"
                                "\tfield:long h;\toffset:40;\tsize:8;\tsigned:1;\n";

constexpr unsigned long long kSuperCacheScan = 0xffffffff81400000ULL;

struct Tep {
  tep_handle* tep = tep_alloc();
  Tep() {
    tep_set_long_size(tep, 8);
    tep_set_page_size(tep, 4096);
    char scan[] = "super_cache_scan";
    REQUIRE(tep_register_function(tep, scan, kSuperCacheScan, nullptr) == 0);
    char count[] = "super_cache_count";
    REQUIRE(tep_register_function(tep, count, kSuperCacheScan + 0x200, nullptr) == 0);
  }
  ~Tep() { tep_free(tep); }
  // Parses an event "t<id>" of kFields printing `print`; null if
  // libtraceevent refuses it.
  tep_event* event(int id, const std::string& print) {
    const std::string text = testing::event_format("t" + std::to_string(id), id, kFields, print);
    if (tep_parse_event(tep, text.data(), text.size(), "test") != 0)
      return nullptr;
    return tep_find_event(tep, id);
  }
  // The plan of event(id, print), which must parse and have one.
  std::unique_ptr<PrintPlan> plan(int id, const std::string& print) {
    tep_event* parsed = event(id, print);
    REQUIRE(parsed != nullptr);
    std::unique_ptr<PrintPlan> made = PrintPlan::make(*parsed);
    REQUIRE(made != nullptr);
    return made;
  }
};

using testing::library_fields;

std::string by_plan(const PrintPlan& plan, const std::vector<unsigned char>& bytes) {
  std::string text;
  plan.append(bytes.data(), bytes.size(), text);
  return text;
}

// The end of the event's last fixed-size field.
std::size_t fixed_size(const tep_event& event) {
  std::size_t end = 8;
  for (tep_format_field* f = event.format.fields; f != nullptr; f = f->next)
    if ((f->flags & TEP_FIELD_IS_DYNAMIC) == 0)
      end = std::max(end, static_cast<std::size_t>(f->offset + f->size));
  return end;
}

// A record of `event` whose fields hold what a print format tests for:
// zero, one, small numbers, a few bits, all bits, anything.
std::vector<unsigned char> payload(const tep_event& event, std::mt19937_64& random) {
  std::vector<unsigned char> bytes(fixed_size(event));
  for (auto& b : bytes)
    b = static_cast<unsigned char>(random());
  const auto id = static_cast<std::uint16_t>(event.id);
  std::memcpy(bytes.data(), &id, sizeof id);
  for (tep_format_field* f = event.format.fields; f != nullptr; f = f->next) {
    if ((f->flags & TEP_FIELD_IS_DYNAMIC) != 0 || f->size > 8)
      continue;
    std::uint64_t value = 0;
    switch (random() % 7) {
    case 6:
      value = kSuperCacheScan + random() % 0x400; // in a function, or past the last
      break;
    case 0:
      value = 0;
      break;
    case 1:
      value = 1;
      break;
    case 2:
      value = random() % 40;
      break;
    case 3:
      value = std::uint64_t{1} << (random() % 64) | std::uint64_t{1} << (random() % 8);
      break;
    case 4:
      value = ~std::uint64_t{0};
      break;
    default:
      value = random();
      break;
    }
    std::memcpy(bytes.data() + f->offset, &value, static_cast<std::size_t>(f->size));
  }
  return bytes;
}

// Every event of `tep` that has a plan prints as libtraceevent prints it,
// over `rounds` records of each; returns how many have a plan.
int check_every_event(tep_handle* tep, int rounds) {
  std::mt19937_64 random(20261126);
  int planned = 0;
  tep_event** events = tep_list_events(tep, TEP_EVENT_SORT_ID);
  REQUIRE(events != nullptr);
  for (tep_event** each = events; *each != nullptr; ++each) {
    const tep_event& event = **each;
    const std::unique_ptr<PrintPlan> plan = PrintPlan::make(event);
    if (plan == nullptr)
      continue;
    ++planned;
    for (int round = 0; round < rounds; ++round) {
      const std::vector<unsigned char> bytes = payload(event, random);
      const std::string expected = library_fields(tep, bytes);
      const std::string got = by_plan(*plan, bytes);
      if (got != expected) {
        FAIL_CHECK(event.system << ":" << event.name << " (" << event.print_fmt.format
                                << ")\n  plan:    " << got << "\n  library: " << expected);
        break;
      }
    }
  }
  return planned;
}

std::string traces_dir() {
  const char* dir = std::getenv("ALLOCWATCH_TRACES");
  return dir != nullptr ? dir : "tests/golden/traces";
}

} // namespace

TEST_CASE("a plan prints integers, flags, symbols and choices as libtraceevent does") {
  Tep t;
  const std::vector<std::string> formats = {
      // The shapes of vmscan's and compaction's formats.
      "\"nid=%d nr_scanned=%ld nr_reclaimed=%ld priority=%d flags=%s\", REC->a, REC->c, REC->d, "
      "REC->b, (REC->g) ? __print_flags(REC->g, \"|\", {0x0001u, \"ANON\"}, {0x0002u, "
      "\"FILE\"}, {0x0010u, \"MIXED\"}) : \"NONE\"",
      "\"order=%d gfp_flags=%s\", REC->a, (REC->c) ? __print_flags(REC->c, \"|\", {0xcc0, "
      "\"GFP_KERNEL\"}, {0x40, \"__GFP_IO\"}, {0x80, \"__GFP_FS\"}) : \"none\"",
      "\"isolate_mode=%d classzone=%d order=%d nr_requested=%lu lru=%s\", REC->a, REC->b, "
      "REC->e, REC->c, __print_symbolic(REC->f, {0, \"inactive_anon\"}, {1, \"active_anon\"}, "
      "{2, \"inactive_file\"})",
      "\"zone_start=0x%lx migrate_pfn=0x%lx free_pfn=0x%lx zone_end=0x%lx, mode=%s\", REC->c, "
      "REC->d, REC->h, REC->c, (REC->f) ? \"sync\" : \"async\"",
      "\"status=%s\", __print_symbolic(REC->a, {0, \"deferred\"}, {1, \"skipped\"})",
      // Flags with no delimiter, a remainder, a flag of all bits.
      "\"%s\", __print_flags(REC->d, \"\", {1, \"A\"}, {2, \"B\"})",
      "\"%s\", __print_flags(REC->d, \", \", {0xffffffffffffffff, \"ALL\"}, {4, \"C\"})",
      // Widths, flags, lengths and bases, through printf.
      "\"%5d|%-6u|%03x|%#lx|%X|%o|%hhd|%hu|%lld|%llu|%zu|%i|%10lu|%-3s|%%\", REC->a, REC->b, "
      "REC->g, REC->c, REC->a, REC->g, REC->a, REC->e, REC->h, REC->d, REC->c, REC->b, REC->c, "
      "(REC->f) ? \"y\" : \"n\"",
      // Casts, operators and choices of numbers.
      "\"%d %u %lu %d %lu\", (u8)REC->a, (unsigned int)REC->h, (unsigned long)REC->e, "
      "(s16)REC->b, (REC->c >> 12) & 0xff",
      "\"%lu %lu %lu %lu %lu %lu\", REC->c + REC->d, REC->c - REC->d, REC->c * 3, REC->c / 7, "
      "REC->c % 10, REC->d << 3",
      "\"%d %d %d %d %d %d %d %d\", REC->a == REC->b, REC->a != 0, REC->a < REC->b, REC->a <= "
      "REC->b, REC->a > 5, REC->a >= 5, REC->a && REC->b, REC->a || REC->b",
      "\"%d\", REC->f ? REC->a : REC->b",
      // Literal escapes.
      "\"a\\tb\\\\c %d\\n\", REC->a",
      // Functions and pointers, as a shrinker's events print them.
      "\"%pS %p: nid: %d %ps %pF %pf %px\", REC->c, REC->d, REC->a, REC->c, REC->d, REC->c, "
      "REC->h",
  };
  int planned = 0;
  for (std::size_t i = 0; i < formats.size(); ++i) {
    INFO(formats[i]);
    tep_event* event = t.event(100 + static_cast<int>(i), formats[i]);
    REQUIRE(event != nullptr);
    CHECK(PrintPlan::make(*event) != nullptr);
  }
  planned = check_every_event(t.tep, 400);
  CHECK(planned == static_cast<int>(formats.size()));
}

TEST_CASE("a format a plan does not print is left to libtraceevent") {
  Tep t;
  const std::vector<std::string> formats = {
      "\"%pM\", REC->c",                                      // a MAC address
      "\"%*d\", REC->a, REC->b",                              // a width from an argument
      "\"%c\", REC->f",                                       // a conversion libtraceevent lacks
      "\"%9999d\", REC->a",                                   // a forged width
      "\"%.1234s\", \"x\"",                                   // and precision
      "\"%d\", !REC->a",                                      // a unary operator
      "\"%s\", __print_flags(REC->c, \"|\", {GFP_X, \"X\"})", // a flag by name
      "\"%s\", REC->c",                                       // a pointer as a string
      "\"%d\", NR_THING",                                     // a name among the symbols
  };
  for (std::size_t i = 0; i < formats.size(); ++i) {
    INFO(formats[i]);
    tep_event* event = t.event(200 + static_cast<int>(i), formats[i]);
    if (event != nullptr)
      CHECK(PrintPlan::make(*event) == nullptr);
  }
}

TEST_CASE("a plan names a function as libtraceevent does: +offset for %pS, none for %ps") {
  Tep t;
  const std::unique_ptr<PrintPlan> plan = t.plan(500, "\"%pS %p: %ps\", REC->c, REC->d, REC->c");
  std::vector<unsigned char> bytes(48, 0);
  const std::uint16_t id = 500;
  std::memcpy(bytes.data(), &id, sizeof id);
  const unsigned long long address = kSuperCacheScan + 0x24;
  std::memcpy(bytes.data() + 16, &address, sizeof address);
  CHECK(by_plan(*plan, bytes) == "super_cache_scan+0x24 (nil): super_cache_scan");
  CHECK(library_fields(t.tep, bytes) == by_plan(*plan, bytes));
  const unsigned long long unknown = 0x1234;
  std::memcpy(bytes.data() + 16, &unknown, sizeof unknown);
  std::memcpy(bytes.data() + 24, &unknown, sizeof unknown);
  CHECK(by_plan(*plan, bytes) == "0x1234 0x1234: 0x1234");
  CHECK(library_fields(t.tep, bytes) == by_plan(*plan, bytes));
}

TEST_CASE("a plan prints a line break as the format has it; the decoder's line makes it a space") {
  Tep t;
  const std::unique_ptr<PrintPlan> plan = t.plan(300, "\"a=%d\\nb=%d\", REC->a, REC->b");
  CHECK(plan->may_break_line());
  std::vector<unsigned char> bytes(48, 0);
  bytes[8] = 7;
  CHECK(by_plan(*plan, bytes) == "a=7\nb=0");
  CHECK_FALSE(t.plan(301, "\"a=%d\", REC->a")->may_break_line());
}

TEST_CASE("a record shorter than a field: the field reads as 0, as libtraceevent reads it") {
  Tep t;
  const std::unique_ptr<PrintPlan> plan = t.plan(400, "\"a=%d h=%ld\", REC->a, REC->h");
  std::vector<unsigned char> bytes(16, 0xff);
  CHECK(by_plan(*plan, bytes) == "a=-1 h=0");
}

TEST_CASE("6.18's reclaim and compaction events: plans print every event and record as "
          "libtraceevent does") {
  const std::string path = traces_dir() + "/events-6.18-memcg.dat";
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  REQUIRE(fd >= 0);
  auto file = DatInput::open(fd, path, std::nullopt);
  ::close(fd);
  REQUIRE_MESSAGE(file.ok(), file.error().message);
  tep_handle* tep = (*file)->tep();
  // The events of a reclaim stall print without libtraceevent.
  for (const char* name :
       {"mm_vmscan_lru_shrink_inactive", "mm_vmscan_lru_shrink_active", "mm_vmscan_lru_isolate",
        "mm_vmscan_memcg_reclaim_begin", "mm_vmscan_memcg_reclaim_end",
        "mm_vmscan_direct_reclaim_begin", "mm_vmscan_direct_reclaim_end", "mm_compaction_begin",
        "mm_compaction_end", "mm_compaction_migratepages"}) {
    INFO(std::string(name));
    const tep_event* event = tep_find_event_by_name(tep, nullptr, name);
    REQUIRE(event != nullptr);
    CHECK(PrintPlan::make(*event) != nullptr);
  }
  CHECK(check_every_event(tep, 300) > 20);
  // And every record of the file.
  int compared = 0;
  while (const DatEvent* e = (*file)->next()) {
    std::uint16_t id = 0;
    std::memcpy(&id, e->event.data, sizeof id);
    tep_event* event = tep_find_event(tep, id);
    REQUIRE(event != nullptr);
    const std::unique_ptr<PrintPlan> plan = PrintPlan::make(*event);
    if (plan == nullptr)
      continue;
    const auto* data = static_cast<const unsigned char*>(e->event.data);
    const std::vector<unsigned char> bytes(data, data + e->event.size);
    REQUIRE(by_plan(*plan, bytes) == library_fields(tep, bytes));
    ++compared;
  }
  CHECK(compared > 5000);
}

TEST_CASE("the running kernel's every event format: a plan prints as libtraceevent does") {
  const std::string events = "/sys/kernel/tracing/events";
  DIR* systems = ::opendir(events.c_str());
  if (systems == nullptr) {
    MESSAGE("no " << events << ": the running kernel's formats are not checked");
    return;
  }
  Tep t;
  int parsed = 0;
  while (const dirent* system = ::readdir(systems)) {
    const std::string system_dir = events + "/" + system->d_name;
    if (system->d_name[0] == '.')
      continue;
    DIR* names = ::opendir(system_dir.c_str());
    if (names == nullptr)
      continue;
    while (const dirent* name = ::readdir(names)) {
      std::ifstream in(system_dir + "/" + name->d_name + "/format");
      if (name->d_name[0] == '.' || !in)
        continue;
      const std::string text{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
      parsed += tep_parse_event(t.tep, text.data(), text.size(), system->d_name) == 0;
    }
    ::closedir(names);
  }
  ::closedir(systems);
  if (parsed == 0) {
    MESSAGE("no readable formats in " << events);
    return;
  }
  const int planned = check_every_event(t.tep, 60);
  MESSAGE(planned << " of " << parsed << " formats have a plan");
  CHECK(planned > 100);
}

#include "event_format.h"
#include "fake_tracefs.h"
#include "library_print.h"
#include "tracefs/local_events.h"

#include <doctest/doctest.h>
#include <filesystem>
#include <string>
#include <vector>

extern "C" {
#include <event-parse.h>
}

namespace allocwatch {
namespace {

using testing::FakeTracefs;

// events/header_page as 6.18 prints it.
const char* kHeaderPage = "\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;\n"
                          "\tfield: local_t commit;\toffset:8;\tsize:8;\tsigned:1;\n"
                          "\tfield: int overwrite;\toffset:8;\tsize:1;\tsigned:1;\n"
                          "\tfield: char data;\toffset:16;\tsize:4080;\tsigned:0;\n";

const char* kBeginFormat =
    "name: mm_vmscan_direct_reclaim_begin\nID: 637\nformat:\n"
    "\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
    "\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
    "\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
    "\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"
    "\tfield:int order;\toffset:8;\tsize:4;\tsigned:1;\n\n"
    "print fmt: \"order=%d\", REC->order\n";

struct LocalFixture {
  FakeTracefs fake;
  LocalFixture() {
    fake.write("events/header_page", kHeaderPage);
    fake.write("events/vmscan/mm_vmscan_direct_reclaim_begin/format", kBeginFormat);
    fake.write("events/vmscan/mm_shrink_slab_start/format", "not a format\n");
    fake.write("saved_cmdlines", "2143 stress-ng\n");
    fake.write("kallsyms", "ffffffff81234560 t shrink_node\nffffffff81300000 T super_cache_scan\n");
  }
};

TEST_CASE("load_local_events: formats, comms and functions through the compact table") {
  LocalFixture f;
  Result<LocalEvents> events = load_local_events(f.fake.dir(), {"vmscan"}, f.fake.path("kallsyms"));
  REQUIRE(events.ok());
  tep_handle* tep = events->tep.get();
  // The format waits to be parsed until a record of its event is decoded;
  // one that names no ID is not kept.
  REQUIRE(events->formats != nullptr);
  CHECK(events->formats->size() == 1);
  CHECK(tep_find_event_by_name(tep, "vmscan", "mm_vmscan_direct_reclaim_begin") == nullptr);
  CHECK(events->formats->parse(tep, 637));
  CHECK(tep_find_event_by_name(tep, "vmscan", "mm_vmscan_direct_reclaim_begin") != nullptr);
  CHECK(tep_get_sub_buffer_size(tep) == 4096);
  CHECK(std::string(tep_data_comm_from_pid(tep, 2143)) == "stress-ng");
  REQUIRE(events->symbols != nullptr);
  CHECK_FALSE(events->symbols->read()); // not until a name is asked for
  const char* name = tep_find_function(tep, 0xffffffff81300010ULL);
  REQUIRE(name != nullptr);
  CHECK(std::string(name) == "super_cache_scan");
  CHECK(events->symbols->read());
  REQUIRE(events->symbols->table() != nullptr);
  CHECK(events->symbols->table()->size() == 2);
}

TEST_CASE("load_local_events: kallsyms is read when a name is first asked for, and once") {
  LocalFixture f;
  const std::string later = f.fake.path("kallsyms.later");
  Result<LocalEvents> events = load_local_events(f.fake.dir(), {"vmscan"}, later);
  REQUIRE(events.ok());
  // Written after the load: the table is made from what the file holds then.
  f.fake.write("kallsyms.later", "ffffffff81300000 T super_cache_scan\n");
  const char* name = tep_find_function(events->tep.get(), 0xffffffff81300010ULL);
  REQUIRE(name != nullptr);
  CHECK(std::string(name) == "super_cache_scan");
  // Read once: what the file says afterwards is not read.
  f.fake.write("kallsyms.later", "ffffffff81300000 T another_name\n");
  CHECK(std::string(tep_find_function(events->tep.get(), 0xffffffff81300010ULL)) ==
        "super_cache_scan");
}

TEST_CASE("load_local_events: a symbol a format names is found when the format is parsed") {
  LocalFixture f;
  f.fake.write("events/vmscan/mm_vmscan_write_folio/format",
               "name: mm_vmscan_write_folio\nID: 525\nformat:\n" ALLOCWATCH_COMMON_FIELDS
               "\tfield:unsigned long pfn;\toffset:8;\tsize:8;\tsigned:0;\n\n"
               "print fmt: \"page=%p pfn=0x%lx\", (((struct page *)vmemmap_base) + (REC->pfn)), "
               "REC->pfn\n");
  f.fake.write("kallsyms", "ffffffff81300000 T super_cache_scan\n"
                           "ffffffff8e215730 D vmemmap_base\n");
  Result<LocalEvents> events = load_local_events(f.fake.dir(), {"vmscan"}, f.fake.path("kallsyms"));
  REQUIRE(events.ok());
  tep_handle* tep = events->tep.get();
  REQUIRE(events->formats->parse(tep, 525));
  std::vector<unsigned char> payload(16, 0);
  payload[0] = 525 & 0xff;
  payload[1] = 525 >> 8;
  payload[8] = 0xb8;
  payload[9] = 0x0b;
  CHECK(testing::library_fields(tep, payload) == "page=0xffffffff8e2162e8 pfn=0xbb8");
  // Found by a search of its own: the functions' table is still unread.
  CHECK_FALSE(events->symbols->read());
  // Functions are still named through the table, not the registered name.
  const char* name = tep_find_function(tep, 0xffffffff8e215740ULL);
  REQUIRE(name != nullptr);
  CHECK(std::string(name) == "super_cache_scan");
}

TEST_CASE("load_local_events: no kallsyms leaves addresses unnamed, not an error") {
  LocalFixture f;
  Result<LocalEvents> events = load_local_events(f.fake.dir(), {"vmscan"}, f.fake.path("none"));
  REQUIRE(events.ok());
  CHECK(tep_find_function(events->tep.get(), 0xffffffff81300010ULL) == nullptr);
  CHECK(events->symbols->read());
  CHECK(events->symbols->table() == nullptr);
}

TEST_CASE("load_local_events: no header page, or no format at all, is an error that says so") {
  LocalFixture f;
  Result<LocalEvents> none = load_local_events(f.fake.dir(), {"compaction"});
  REQUIRE_FALSE(none.ok());
  CHECK(none.error().message == "no event format could be read from " + f.fake.dir() + "/events");
  std::filesystem::remove(f.fake.path("events/header_page"));
  Result<LocalEvents> headless = load_local_events(f.fake.dir(), {"vmscan"});
  REQUIRE_FALSE(headless.ok());
  CHECK(headless.error().message ==
        "cannot read " + f.fake.dir() + "/events/header_page: No such file or directory");
}

} // namespace
} // namespace allocwatch

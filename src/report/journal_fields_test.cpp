#include "report/journal_fields.h"

#include <doctest/doctest.h>
#include <string>
#include <vector>

using namespace allocwatch;

namespace {
std::vector<std::string> flat(std::string_view json) {
  auto fields = journal_fields(json);
  REQUIRE(fields.ok());
  std::vector<std::string> out;
  for (const JournalField& f : *fields)
    out.push_back(f.name + "=" + f.value);
  return out;
}
} // namespace

TEST_CASE("journal fields: every key of a span record, arrays as repeated fields") {
  CHECK(flat("{\"type\":\"span\",\"name\":\"memcg_reclaim\",\"pid\":170,\"comm\":\"cat\","
             "\"start_ns\":-1,\"lines\":[\"a b\",\"c\"],\"none\":[]}") ==
        std::vector<std::string>{"TYPE=span", "NAME=memcg_reclaim", "PID=170", "COMM=cat",
                                 "START_NS=-1", "LINES=a b", "LINES=c"});
}

TEST_CASE("journal fields: strings come back as the trace's bytes") {
  CHECK(flat("{\"line\":\"a \\\"q\\\" \\\\ b\\u0009\\u0001\\n\\u00e9\"}") ==
        std::vector<std::string>{"LINE=a \"q\" \\ b\t\x01\n\xc3\xa9"});
  // Bytes that are not UTF-8 (a comm may be anything) are kept, not refused.
  CHECK(flat("{\"comm\":\"x\xff\"}") == std::vector<std::string>{"COMM=x\xff"});
}

TEST_CASE("journal fields: nested objects join their keys, arrays of objects repeat") {
  CHECK(flat("{\"events\":[{\"event\":\"mm_vmscan_direct_reclaim_begin\",\"fields\":"
             "{\"order\":0,\"gfp_flags\":\"GFP_KERNEL\"}},{\"event\":\"e2\",\"fields\":{}}],"
             "\"ok\":true,\"x\":null}") ==
        std::vector<std::string>{"EVENTS_EVENT=mm_vmscan_direct_reclaim_begin",
                                 "EVENTS_FIELDS_ORDER=0", "EVENTS_FIELDS_GFP_FLAGS=GFP_KERNEL",
                                 "EVENTS_EVENT=e2", "OK=true", "X=null"});
}

TEST_CASE("journal fields: names journald allows, its own ones kept apart") {
  CHECK(journal_field_name("duration_ns") == "DURATION_NS");
  CHECK(journal_field_name("a-b.c") == "A_B_C");
  CHECK(journal_field_name("_pid") == "F_PID");
  CHECK(journal_field_name("9x") == "F9X");
  CHECK(journal_field_name("") == "F");
  CHECK(journal_field_name("message") == "ALLOCWATCH_MESSAGE");
  CHECK(journal_field_name("priority") == "ALLOCWATCH_PRIORITY");
  CHECK(journal_field_name(std::string(100, 'a')).size() == 64);
}

TEST_CASE("journal fields: what is not one JSON object is an error") {
  for (const char* bad : {"", "[]", "{", "{\"a\"}", "{\"a\":}", "{\"a\":1,}", "{\"a\":\"x}",
                          "{\"a\":1} x", "{\"a\":\"\\u12\"}", "{\"a\":[1,}"}) {
    CAPTURE(bad);
    CHECK(!journal_fields(bad).ok());
  }
}

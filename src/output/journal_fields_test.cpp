#include "output/journal_fields.h"

#include <doctest/doctest.h>
#include <string>
#include <vector>

using namespace allocwatch;

namespace {
std::vector<std::string> flat(const RecordValue& record) {
  std::vector<JournalField> fields;
  std::vector<EventField> scratch;
  journal_fields(record, fields, scratch);
  std::vector<std::string> out;
  for (const JournalField& f : fields)
    out.push_back(f.name + "=" + f.value);
  return out;
}
} // namespace

TEST_CASE("journal fields: every value of a span record, lists as repeated fields") {
  RecordValue record;
  record.string("type", "span")
      .string("name", "memcg_reclaim")
      .integer("pid", 170)
      .string("comm", "cat")
      .integer("start_ns", -1)
      .list("lines")
      .string({}, "a b")
      .string({}, "c")
      .end()
      .list("none")
      .end();
  CHECK(flat(record) == std::vector<std::string>{"TYPE=span", "NAME=memcg_reclaim", "PID=170",
                                                 "COMM=cat", "START_NS=-1", "LINES=a b",
                                                 "LINES=c"});
}

TEST_CASE("journal fields: strings are the trace's bytes") {
  RecordValue record;
  // Bytes that are not UTF-8 (a comm may be anything) are kept too.
  record.string("line", "a \"q\" \\ b\t\x01\n\xc3\xa9").string("comm", "x\xff");
  CHECK(flat(record) ==
        std::vector<std::string>{"LINE=a \"q\" \\ b\t\x01\n\xc3\xa9", "COMM=x\xff"});
}

TEST_CASE("journal fields: nested objects join their names, lists of objects repeat, a "
          "tracepoint's fields are its parsed fields") {
  RecordValue record;
  record.list("tracepoints")
      .object({})
      .string("event", "mm_vmscan_direct_reclaim_begin")
      .fields("fields", "mm_vmscan_direct_reclaim_begin", "order=0 gfp_flags=GFP_KERNEL")
      .end()
      .object({})
      .string("event", "e2")
      .fields("fields", "e2", "")
      .end()
      .end()
      .object("totals")
      .count("calls", 18446744073709551615u)
      .end();
  CHECK(flat(record) == std::vector<std::string>{
                            "TRACEPOINTS_EVENT=mm_vmscan_direct_reclaim_begin",
                            "TRACEPOINTS_FIELDS_ORDER=0", "TRACEPOINTS_FIELDS_GFP_FLAGS=GFP_KERNEL",
                            "TRACEPOINTS_EVENT=e2", "TOTALS_CALLS=18446744073709551615"});
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
  RecordValue record;
  record.string("message", "m").object("a-b").string("_c", "d").end();
  CHECK(flat(record) == std::vector<std::string>{"ALLOCWATCH_MESSAGE=m", "A_B__C=d"});
}

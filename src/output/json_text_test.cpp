#include "output/json_text.h"

#include <doctest/doctest.h>
#include <sstream>
#include <string>
#include <vector>

using namespace allocwatch;

TEST_CASE("json text: a record is one object; lists, objects and fields nest") {
  RecordValue record;
  record.string("type", "x")
      .integer("start_ns", -1)
      .count("calls", 18446744073709551615u)
      .list("lines")
      .string({}, "a")
      .string({}, "b")
      .end()
      .list("none")
      .end()
      .list("objects")
      .object({})
      .fields("fields", "mm_vmscan_memcg_reclaim_end", "nr_reclaimed=978 flags=0x1")
      .end()
      .object({})
      .end()
      .end()
      .object("empty")
      .end();
  std::string text = "before ";
  std::vector<EventField> scratch;
  append_json(text, record, scratch);
  CHECK(text == "before {\"type\":\"x\",\"start_ns\":-1,\"calls\":18446744073709551615,"
                "\"lines\":[\"a\",\"b\"],\"none\":[],\"objects\":[{\"fields\":"
                "{\"nr_reclaimed\":978,\"flags\":\"0x1\"}},{}],\"empty\":{}}");
}

TEST_CASE("json text: strings and names escaped, other bytes kept") {
  RecordValue record;
  record.string("a\"b", "q\"\\\t\x01\x7f\xc3\xa9\xff");
  std::string text;
  std::vector<EventField> scratch;
  append_json(text, record, scratch);
  const std::string expected = "{\"a\\\"b\":\"q\\\"\\\\\\u0009\\u0001\\u007f\xc3\xa9\xff\"}";
  CHECK(text == expected);
  std::ostringstream out;
  JsonWriter writer;
  writer.write_line(out, record);
  writer.write_line(out, record);
  CHECK(out.str() == expected + "\n" + expected + "\n");
  std::ostringstream string;
  write_json_string(string, "q\"\\\t\x01\x7f\xc3\xa9\xff");
  CHECK(string.str() == "\"q\\\"\\\\\\u0009\\u0001\\u007f\xc3\xa9\xff\"");
}

TEST_CASE("json text: tracepoints as a list, those without a name left out") {
  const Tracepoint tracepoints[] = {
      {"mm_vmscan_memcg_reclaim_begin", "order=0 gfp_flags=GFP_KERNEL", 10},
      {},
      {"mm_vmscan_memcg_reclaim_end", "nr_reclaimed=32", -1}};
  std::ostringstream out;
  std::vector<EventField> scratch;
  write_json_tracepoints(out, tracepoints, scratch);
  write_json_tracepoints(out, {}, scratch);
  CHECK(out.str() == "[{\"event\":\"mm_vmscan_memcg_reclaim_begin\",\"ts_ns\":10,\"fields\":"
                     "{\"order\":0,\"gfp_flags\":\"GFP_KERNEL\"}},"
                     "{\"event\":\"mm_vmscan_memcg_reclaim_end\",\"ts_ns\":-1,\"fields\":"
                     "{\"nr_reclaimed\":32}}][]");
}

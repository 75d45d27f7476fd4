#include "ring/event_formats.h"

#include <doctest/doctest.h>

extern "C" {
#include <event-parse.h>
}

using namespace allocwatch;

TEST_CASE("7.x's REC->ent.pid reads as the common_pid it is; nothing else changes") {
  // include/trace/events/vmscan.h of 7.2, as its format file prints it.
  const std::string kernel = "print fmt: \"nr_reclaimed=%lu pid=%d memcg_id=%llu %s\", "
                             "REC->nr_reclaimed, REC->ent.pid, REC->memcg_id, "
                             "(REC->common_flags & 0x18) ? \"(in-irq)\" : \"\"\n";
  CHECK(parsable_format(kernel) == "print fmt: \"nr_reclaimed=%lu pid=%d memcg_id=%llu %s\", "
                                   "REC->nr_reclaimed, REC->common_pid, REC->memcg_id, "
                                   "(REC->common_flags & 0x18) ? \"(in-irq)\" : \"\"\n");
  CHECK(parsable_format("REC->ent.pidREC->ent.pid") == "REC->common_pidREC->common_pid");
  CHECK(parsable_format("order=%d\", REC->order") == "order=%d\", REC->order");
  CHECK(parsable_format("") == "");
}

TEST_CASE("a format's ID is its \"ID: N\" line, or none") {
  CHECK(format_id("name: mm_vmscan_kswapd_sleep\nID: 641\nformat:\n") == 641);
  CHECK(format_id("name: x\nID: 7") == 7);
  CHECK(format_id("name: x\nformat:\n") == -1);
  CHECK(format_id("name: x\nID: \nformat:\n") == -1);
  CHECK(format_id("name: x\nID: 12x\n") == -1);
  CHECK(format_id("name: x\nID: -3\n") == -1);
  CHECK(format_id("name: x\nID: 99999999999\n") == -1);
  CHECK(format_id("") == -1);
}

TEST_CASE("a pending format parses into the tep once, when asked for by its ID") {
  const std::string sleep = "name: mm_vmscan_kswapd_sleep\nID: 641\nformat:\n"
                            "\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
                            "\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"
                            "\tfield:int nid;\toffset:8;\tsize:4;\tsigned:1;\n\n"
                            "print fmt: \"nid=%d\", REC->nid\n";
  tep_handle* tep = tep_alloc();
  PendingFormats pending;
  CHECK_FALSE(pending.add("vmscan", "name: no_id\nformat:\n"));
  CHECK(pending.size() == 0);
  CHECK(pending.add("vmscan", sleep));
  CHECK(pending.add("vmscan", "not a name\nID: 642\n"));
  CHECK(pending.size() == 2);
  CHECK_FALSE(pending.parse(tep, 640)); // none pending
  CHECK(tep_find_event(tep, 641) == nullptr);
  CHECK(pending.parse(tep, 641));
  tep_event* event = tep_find_event(tep, 641);
  REQUIRE(event != nullptr);
  CHECK(std::string(event->system) == "vmscan");
  CHECK(std::string(event->name) == "mm_vmscan_kswapd_sleep");
  CHECK_FALSE(pending.parse(tep, 641)); // parsed once, then forgotten
  CHECK_FALSE(pending.parse(tep, 642)); // does not parse
  CHECK(tep_find_event(tep, 642) == nullptr);
  CHECK(pending.size() == 0);
  tep_free(tep);
}

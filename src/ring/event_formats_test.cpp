#include "ring/event_formats.h"

#include <doctest/doctest.h>

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

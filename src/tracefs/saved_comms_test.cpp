#include "tracefs/saved_comms.h"

#include <doctest/doctest.h>
#include <string>

extern "C" {
#include <event-parse.h>
}

namespace allocwatch {
namespace {

struct Tep {
  tep_handle* tep = tep_alloc();
  ~Tep() { tep_free(tep); }
  std::string comm(int pid) const { return tep_data_comm_from_pid(tep, pid); }
};

TEST_CASE("update_comms: new pids, changed names, and known ones left alone") {
  Tep t;
  REQUIRE(tep_register_comm(t.tep, "soak.sh", 9568) == 0);
  REQUIRE(tep_register_comm(t.tep, "kswapd0", 44) == 0);
  // pid 9568 was reused by a cat after the load; 4242 started since.
  CHECK(update_comms(t.tep, "44 kswapd0\n9568 cat\n4242 stress ng\n") == 2);
  CHECK(t.comm(9568) == "cat");
  CHECK(t.comm(4242) == "stress ng"); // a comm may hold spaces
  CHECK(t.comm(44) == "kswapd0");
  CHECK(update_comms(t.tep, "44 kswapd0\n9568 cat\n4242 stress ng") == 0);
}

TEST_CASE("update_comms: lines that are not \"PID COMM\" are skipped") {
  Tep t;
  CHECK(update_comms(t.tep, "\n0 swapper\n-5 x\n12\n13 \nabc def\n99999999999 big\n7x y\n") == 0);
  CHECK(t.comm(13) == "<...>");
  CHECK(update_comms(t.tep, "14 ok\n") == 1);
  CHECK(t.comm(14) == "ok");
}

} // namespace
} // namespace allocwatch

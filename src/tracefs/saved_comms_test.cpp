#include "tracefs/saved_comms.h"

#include <doctest/doctest.h>
#include <functional>
#include <map>
#include <string>

namespace allocwatch {
namespace {

// What update_comms hands on, as a table that names each pid once.
struct Names {
  std::map<std::int32_t, std::string> names;
  std::function<bool(std::int32_t, std::string_view)> name() {
    return [this](std::int32_t pid, std::string_view comm) {
      std::string& had = names[pid];
      if (had == comm)
        return false;
      had = comm;
      return true;
    };
  }
};

TEST_CASE("update_comms: new pids, changed names, and known ones left alone") {
  Names t;
  t.names = {{9568, "soak.sh"}, {44, "kswapd0"}};
  // pid 9568 was reused by a cat after the load; 4242 started since.
  CHECK(update_comms("44 kswapd0\n9568 cat\n4242 stress ng\n", t.name()) == 2);
  CHECK(t.names[9568] == "cat");
  CHECK(t.names[4242] == "stress ng"); // a comm may hold spaces
  CHECK(t.names[44] == "kswapd0");
  CHECK(update_comms("44 kswapd0\n9568 cat\n4242 stress ng", t.name()) == 0);
}

TEST_CASE("update_comms: only the lines that changed since the text read before are handed on") {
  Names t;
  const std::string before = "44 kswapd0\n9568 cat\n4242 stress ng\n";
  update_comms(before, t.name());
  // A name set since (as /proc said) stays where its line did not change.
  t.names[44] = "kswapd0-proc";
  t.names[9568] = "cat-proc";
  CHECK(update_comms("44 kswapd0\n9570 dd\n4242 stress ng\n77 new\n", t.name(), before) == 2);
  CHECK(t.names[44] == "kswapd0-proc");
  CHECK(t.names[9570] == "dd");
  CHECK(t.names[77] == "new");
  // Without the earlier text, every line is handed on.
  CHECK(update_comms("44 kswapd0\n", t.name()) == 1);
  CHECK(t.names[44] == "kswapd0");
}

TEST_CASE("update_comms: lines that are not \"PID COMM\" are skipped") {
  Names t;
  CHECK(update_comms("\n0 swapper\n-5 x\n12\n13 \nabc def\n99999999999 big\n7x y\n", t.name()) ==
        0);
  CHECK(t.names.empty());
  CHECK(update_comms("14 ok\n", t.name()) == 1);
  CHECK(t.names[14] == "ok");
}

TEST_CASE("a task's comm from /proc: a worker's work and a thread's full name left out") {
  CHECK(task_comm_of("cat\n") == "cat");
  CHECK(task_comm_of("stress-ng-memcg\n") == "stress-ng-memcg");
  CHECK(task_comm_of("kworker/u4:0-ext4-rsv-conversion\n") == "kworker/u4:0");
  CHECK(task_comm_of("kworker/u4:2+flush-254:0\n") == "kworker/u4:2");
  CHECK(task_comm_of("kworker/0:1H-kblockd\n") == "kworker/0:1H");
  CHECK(task_comm_of("kworker/1:1\n") == "kworker/1:1");
  CHECK(task_comm_of("a-kernel-thread-with-a-long-name\n").empty());
  CHECK(task_comm_of("").empty());
}

TEST_CASE("with_run_names: the run's names first, the kernel's for the other pids") {
  // 446 was saved as "init" before it exec'd usleep, which the run named it.
  const std::string kernel = "1 systemd\n446 init\n1084 cat\n77 <idle>x\nnot a line\n9 tail";
  CHECK(with_run_names(kernel, {{446, "usleep"}, {500, "dd"}}) ==
        "446 usleep\n500 dd\n1 systemd\n1084 cat\n77 <idle>x\nnot a line\n9 tail\n");
  CHECK(with_run_names(kernel, {}) == kernel + "\n");
  CHECK(with_run_names("", {{7, "a b"}}) == "7 a b\n");
  CHECK(with_run_names("446 init\n", {{446, "evil\n1 x"}}) == "446 init\n");
  // What update_comms reads back of it: the run's name for each pid.
  Names read;
  update_comms(with_run_names(kernel, {{446, "usleep"}}), read.name());
  CHECK(read.names.at(446) == "usleep");
  CHECK(read.names.at(1084) == "cat");
  CHECK(read.names.size() == 5);
}

} // namespace
} // namespace allocwatch

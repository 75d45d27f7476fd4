#include "util/periodic.h"

#include <doctest/doctest.h>
#include <vector>

using namespace allocwatch;

TEST_CASE("periodic: every task runs, in order, with the time given") {
  Periodic periodic;
  std::vector<int> ran;
  Periodic::Clock::time_point seen{};
  periodic.run(Periodic::Clock::now()); // none yet: nothing
  periodic.add([&](Periodic::Clock::time_point now) {
    ran.push_back(1);
    seen = now;
  });
  periodic.add([&](Periodic::Clock::time_point) { ran.push_back(2); });
  const Periodic::Clock::time_point now{std::chrono::seconds(5)};
  periodic.run(now);
  periodic.run(now);
  CHECK(ran == std::vector<int>{1, 2, 1, 2});
  CHECK(seen == now);
}

TEST_CASE("periodic: every() runs its task once an interval, the first an interval in") {
  using namespace std::chrono_literals;
  Periodic periodic;
  int runs = 0;
  periodic.every(10s, [&] { ++runs; });
  const Periodic::Clock::time_point start{100s};
  periodic.run(start);
  periodic.run(start + 9s);
  CHECK(runs == 0);
  periodic.run(start + 10s);
  CHECK(runs == 1);
  periodic.run(start + 15s);
  CHECK(runs == 1);
  periodic.run(start + 21s); // late: the next is an interval after it
  CHECK(runs == 2);
  periodic.run(start + 30s);
  CHECK(runs == 2);
  periodic.run(start + 31s);
  CHECK(runs == 3);
}

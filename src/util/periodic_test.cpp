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

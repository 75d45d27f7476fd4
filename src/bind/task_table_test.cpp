#include "bind/task_table.h"

#include <doctest/doctest.h>
#include <map>

using namespace allocwatch;

namespace {

// Keys as the binder makes them: pids, and (kind << 32 | cpu) for idle tasks
// and lines without a pid.
std::vector<std::uint64_t> some_keys() {
  std::vector<std::uint64_t> keys;
  for (std::uint64_t pid = 1; pid <= 3000; ++pid)
    keys.push_back(pid * 7);
  for (std::uint64_t cpu = 0; cpu < 64; ++cpu) {
    keys.push_back(1ULL << 32 | cpu);
    keys.push_back(2ULL << 32 | cpu);
  }
  return keys;
}

} // namespace

TEST_CASE("TaskTable: an empty table finds nothing") {
  TaskTable table;
  CHECK(table.find(1) == nullptr);
  CHECK(table.size() == 0);
  table.forget_if([](std::unique_ptr<TaskState>&) { return true; });
  CHECK(table.find(1) == nullptr);
}

TEST_CASE("TaskTable: finds each state it holds and no other, through growth") {
  TaskTable table;
  std::map<std::uint64_t, TaskState*> states;
  for (std::uint64_t key : some_keys()) {
    auto task = std::make_unique<TaskState>();
    states[key] = task.get();
    CHECK(&table.insert(key, std::move(task)) == states[key]);
  }
  CHECK(table.size() == states.size());
  CHECK(table.slots() >= 2 * table.size());
  for (const auto& [key, state] : states) {
    CAPTURE(key);
    CHECK(table.find(key) == state);
  }
  const std::uint64_t absent_keys[] = {0, 8, 21001, 3ULL << 32, 1ULL << 32 | 64};
  for (std::uint64_t absent : absent_keys)
    CHECK(table.find(absent) == nullptr);
}

TEST_CASE("TaskTable: forget_if removes what it is told to, keeps the rest, and shrinks") {
  TaskTable table;
  std::map<std::uint64_t, TaskState*> states;
  for (std::uint64_t key : some_keys()) {
    auto task = std::make_unique<TaskState>();
    task->outermost = static_cast<Nanos>(key);
    states[key] = task.get();
    table.insert(key, std::move(task));
  }
  const std::size_t grown = table.slots();
  // Every state is shown once; forget one in ten, and move one of those out
  // as the binder does with a state it keeps for reuse.
  std::size_t shown = 0;
  std::unique_ptr<TaskState> moved_out;
  table.forget_if([&](std::unique_ptr<TaskState>& task) {
    ++shown;
    const bool forget = task->outermost % 10 != 0;
    if (forget && moved_out == nullptr)
      moved_out = std::move(task);
    return forget;
  });
  CHECK(shown == states.size());
  REQUIRE(moved_out != nullptr);
  CHECK(moved_out->outermost % 10 != 0);
  std::size_t kept = 0;
  for (const auto& [key, state] : states) {
    CAPTURE(key);
    if (key % 10 == 0) {
      CHECK(table.find(key) == state);
      ++kept;
    } else {
      CHECK(table.find(key) == nullptr);
    }
  }
  CHECK(table.size() == kept);
  CHECK(table.slots() < grown);
  CHECK(table.slots() >= 2 * kept);

  // Forgetting everything leaves the smallest array, still usable.
  table.forget_if([](std::unique_ptr<TaskState>&) { return true; });
  CHECK(table.size() == 0);
  CHECK(table.slots() <= 16);
  CHECK(table.find(10) == nullptr);
  table.insert(10, std::make_unique<TaskState>());
  CHECK(table.find(10) != nullptr);
}

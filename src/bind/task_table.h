// TaskTable: the binder's task states by task key, searched on most trace
// lines (util/flat_map.h says why a flat array).
#pragma once

#include "bind/task_state.h"
#include "util/flat_map.h"

#include <cstddef>
#include <cstdint>
#include <memory>

namespace allocwatch {

// Keys are pids and cpus, small and often consecutive: a multiplicative
// (Fibonacci) hash spreads them, its high bits the best mixed.
struct TaskKeyHash {
  std::size_t operator()(std::uint64_t key) const {
    return static_cast<std::size_t>((key * 0x9E3779B97F4A7C15ULL) >> 32);
  }
};

using TaskTable = FlatMap<std::uint64_t, std::unique_ptr<TaskState>, TaskKeyHash>;

} // namespace allocwatch

// TaskTable: the binder's task states by task key, searched on most trace
// lines (util/flat_map.h says why a flat array).
#pragma once

#include "bind/task_state.h"
#include "util/flat_map.h"

#include <cstddef>
#include <cstdint>
#include <memory>

namespace allocwatch {

// Keys are pids and cpus.
using TaskTable = FlatMap<std::uint64_t, std::unique_ptr<TaskState>, IntegerHash>;

} // namespace allocwatch

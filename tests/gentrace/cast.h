// Who is in a trace: the shrinkers the kernel has registered, and the tasks
// that reclaim, compact or allocate, each with its comm, pid and cpu.
#pragma once

#include "common.h"
#include "model.h"
#include "planner.h"
#include "rng.h"

#include <cstddef>
#include <string>
#include <vector>

namespace gentrace {

struct Task {
  int pid;
  int cpu;
  Role role;
  std::string comm;  // as the nop tracer prints it (up to 15 characters)
  std::string gcomm; // as function_graph prints it: cut to 7, or "<...>"
  std::vector<Step> steps;
  std::size_t next = 0;
  Nanos cut = -1; // lines before this time precede the trace (it began mid-call)
};

// One of `cpus` cpus, at random.
inline int random_cpu(Rng& rng, int cpus) {
  return static_cast<int>(rng.below(static_cast<std::uint64_t>(cpus)));
}

// The shrinkers of `world`'s era: each symbol with its instances.
void add_shrinkers(World& world, Rng& rng);

// kswapd and kcompactd per node, a shell, `users` user tasks (0: 6-18) and
// the idle task of some cpus; with `no_span` one user task alone. Returns the
// uptime at which the trace begins.
Nanos add_tasks(Rng& rng, int cpus, int users, bool no_span, std::vector<Task>& tasks);

} // namespace gentrace

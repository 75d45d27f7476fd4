// The plan: one episode of one task (an allocation, a memcg charge, kswapd,
// kcompactd, the shell's drop_caches or compact_memory, --no-span's bare
// tracepoints), as the lines the kernel would trace, in time order, each with
// its true time.
#pragma once

#include "common.h"
#include "model.h"
#include "rng.h"

#include <cstdint>
#include <vector>

namespace gentrace {

enum class StepKind : std::uint8_t { Event, Return };

struct Step {
  Nanos ts;  // true time; the line shows it truncated to µs
  Nanos dur; // Return: true duration
  StepKind kind;
  std::uint8_t id; // Ev or Fn
  std::uint8_t depth;
  std::int16_t shrinker; // slab events: index into World::shrinkers
  bool lost;             // overwritten in the ring buffer: a LOST line stands in for it
};

// What a task's episodes are.
enum class Role : std::uint8_t { User, Kswapd, Kcompactd, Idle, Shell, NoSpan };

// Appends the next episode of a task of `role` that starts at `now` to
// `steps`; returns when it ends.
Nanos plan_episode(const World& world, Rng& rng, Role role, std::vector<Step>& steps, Nanos now);

} // namespace gentrace

// Sink: where the binder's results go. Text now, JSON later, each over a
// std::ostream& (bpftrace style).
#pragma once

#include "util/duration.h"

#include <span>
#include <string_view>

namespace allocwatch {

class ShrinkerStats;

// One over-threshold span and the lines it prints, in output order: its
// claimed tracepoints and its own line(s). The views live for the call only.
struct Incident {
  std::string_view span; // function or pair name; empty for a bare "}" with no entry
  // The profile's stall kind of the span ("direct reclaim"); empty: the span
  // is not a stall (an inner call such as shrink_node, or no kind given).
  std::string_view kind;
  bool background; // the task is one of the profile's background tasks (kswapd)
  std::int32_t pid;
  std::string_view comm;
  Nanos start;
  Nanos end;
  std::span<const std::string_view> lines;
};

class Sink {
public:
  virtual ~Sink() = default;
  virtual void incident(const Incident& incident) = 0;
  // A line printed as it was read: "CPU:N [LOST M EVENTS]".
  virtual void passthrough(std::string_view line) = 0;
  // End of the stream: the per-shrinker totals.
  virtual void finish(const ShrinkerStats& shrinkers) = 0;
};

} // namespace allocwatch

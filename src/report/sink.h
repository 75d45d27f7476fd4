// Sink: where the binder's results go: the trace output (text or JSON, each
// over a std::ostream&, bpftrace style) and the run's other observers (the
// stall report, the timeline, the status line), through a FanoutSink.
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
  // A line printed as it was read: "CPU:N [LOST M EVENTS]". `at` is the
  // newest timestamp read before it (0 before any): the kernel's LOST lines
  // carry none, and a timeline places them there.
  virtual void passthrough(std::string_view line, Nanos at) = 0;
  // End of the stream: the per-shrinker totals.
  virtual void finish(const ShrinkerStats& shrinkers) = 0;
};

} // namespace allocwatch

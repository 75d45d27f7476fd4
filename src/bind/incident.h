// The binder's output: each over-threshold span as an Incident with the
// tracepoints it claimed, handed to a Sink. The consumers (output/: the
// trace output, the stall report, the timeline, the status line; metrics/)
// implement Sink; the binder knows none of them.
#pragma once

#include "trace/record.h"
#include "util/duration.h"

#include <span>
#include <string_view>
#include <vector>

namespace allocwatch {

class ShrinkerStats;
struct TaskCgroup; // cgroup/task_cgroups.h

// The tracepoint a line prints, as the parser read it: what a sink needs of
// a line besides its text, known to the binder, which parsed every line it
// hands on, so that no sink parses one again.
struct Tracepoint {
  std::string_view name;   // "mm_shrink_slab_start"; empty: the line prints none
  std::string_view fields; // without a trailing " */"
  Nanos ts = -1;           // -1 when the line has none (or prints no tracepoint)
  bool operator==(const Tracepoint&) const = default;
};

// A parsed line's tracepoint: its event, if it has a name (a trace_marker
// text has none); nothing for graph entries, returns and the like.
inline Tracepoint tracepoint_of(const Record& record) {
  if (record.kind != LineKind::Event || record.name.empty())
    return {};
  return {record.name, record.fields, record.ts};
}

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
  // Parallel to `lines`: the tracepoint each prints (an empty name for a
  // line that prints none), as the binder parsed it, so that no sink parses
  // a line again.
  std::span<const Tracepoint> tracepoints = {};
  // The task's memory cgroup, where the run learnt it (live runs,
  // cli/attribution.h): null when unknown or not looked up.
  const TaskCgroup* cgroup = nullptr;
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

// Profile: one investigation, as plain data. Loaded from configs/*.yaml by
// profile/loader; read by the session (what to configure) and the binder
// (what to print). See man/allocwatch-profile.5 for the file format.
#pragma once

#include "util/duration.h"

#include <cstdint>
#include <string>
#include <vector>

namespace allocwatch {

enum class Mode : std::uint8_t { Graph, Events };

// "graph" or "events": the mode as messages, --check and the metrics name it.
inline const char* mode_name(Mode mode) {
  return mode == Mode::Graph ? "graph" : "events";
}

// Where a value came from in the profile file, for messages.
struct SourcePos {
  int line = 0; // 1-based; 0 when unknown (built in)
  int column = 0;
};

// A traced function: the same call under each kernel's name, newest first
// (e.g. __alloc_frozen_pages_noprof, __alloc_pages_noprof, __alloc_pages,
// __alloc_pages_nodemask). The first one available_filter_functions lists is
// put in set_ftrace_filter.
struct FunctionSpec {
  std::vector<std::string> alternatives;
  SourcePos pos;
};

// "vmscan/mm_vmscan_direct_reclaim_begin": enabled in both modes. An entry
// of `events` given as a list ([vmscan/mm_vmscan_write_folio,
// vmscan/mm_vmscan_writepage]) is one event under each kernel's name, newest
// first: a live run enables the first the kernel has, or, when it has none,
// says so and goes without (mm_vmscan_throttled, new in 5.16, is a list of
// one). Its events are one EventSpec each, with the entry's `entry`; the
// bindings and pairs that claim one of them claim them all.
struct EventSpec {
  std::string system; // "vmscan"
  std::string name;   // "mm_vmscan_direct_reclaim_begin"
  SourcePos pos;
  std::size_t entry = 0; // its entry's place in `events`
  bool optional = false; // given in a list: the kernel may have none of it
};

// Graph mode: when a call of `function` (any of its kernel names) returns over
// threshold, it claims the tracepoints `events` of its task that lie inside it.
struct Binding {
  std::vector<std::string> functions; // the names this binding applies to
  std::vector<std::string> events;    // event names, without subsystem
  SourcePos pos;
};

// A span made of a begin and an end tracepoint of the same pid.
struct PairSpec {
  std::string name;                // "direct_reclaim", "shrink_slab"
  std::string begin;               // event name
  std::string end;                 // event name
  std::vector<std::string> claims; // events it claims, as a Binding's
  // Shrinker pairs match start and end by the shrinker instance (the second
  // field of mm_shrink_slab_start/end) and feed the per-shrinker totals.
  bool shrinker = false;
  std::vector<Mode> modes; // the modes this pair is used in
  SourcePos pos;
};

// A kind of stall, for the report: an over-threshold span of one of these
// functions (under any of its kernel names) or pairs is a stall of this kind.
// Kinds nest as the calls do (an allocation that reclaims is both an
// allocation and a direct reclaim stall); a span has at most one kind.
struct StallKind {
  std::string kind;                   // "direct reclaim"
  std::vector<std::string> functions; // with every alternative name
  std::vector<std::string> pairs;     // pair names
  SourcePos pos;
};

struct Profile {
  std::string name;        // file name without .yaml
  std::string path;        // where it was loaded from
  std::string description; // one paragraph: what this investigation is for
  Nanos threshold = 100 * kMicro;
  Nanos window = 10 * kSecond;               // held lines older than this are dropped
  std::uint32_t max_pending_per_task = 4096; // held lines per task (the key's name)
  // All tasks' held lines together, with their bookkeeping: the oldest go
  // first when they fill it. The default keeps allocwatch's peak RSS under
  // 16 MB with everything else it needs.
  std::uint64_t max_held_bytes = std::uint64_t{8} << 20;
  std::uint32_t buffer_size_kb = 16384; // per cpu
  std::vector<FunctionSpec> functions;
  std::vector<EventSpec> events;
  std::vector<Binding> bindings;
  std::vector<PairSpec> pairs;
  std::vector<StallKind> stalls;
  // Tasks whose stalls are background work, reported apart: comm prefixes.
  std::vector<std::string> background = {"kswapd", "kcompactd"};
  // What the loader accepted but doubts by allocwatch's own table alone,
  // "FILE:LINE:COL: warning: ...": an event kernel/vocabulary.h does not
  // list (a newer kernel may have it). Said where no kernel is asked (a
  // replay, --check without tracefs); a live run asks the running kernel's
  // available_events instead, which refuses what it lacks.
  std::vector<std::string> warnings;
};

} // namespace allocwatch

// RunStats: what happened to the input, printed on stderr at the end so that
// nothing is lost silently.
#pragma once

#include "util/duration.h"

#include <cstdint>
#include <iosfwd>
#include <map>
#include <string>
#include <vector>

namespace allocwatch {

struct RunStats {
  std::uint64_t lines_read = 0;
  std::uint64_t lines_malformed = 0; // not understood: counted and skipped
  std::uint64_t lost_lines = 0;      // "CPU:N [LOST M EVENTS]" lines
  std::uint64_t lost_events = 0;     // the sum of their M
  std::uint64_t lost_uncounted = 0;  // "CPU:N [LOST EVENTS]" lines: the kernel gave no count
  // Held tracepoints (and open pair begins) no span claimed before they fell
  // out of the window: normal for the events of calls under the threshold.
  std::uint64_t held_expired = 0;
  // Held tracepoints dropped because a task held more than the per-task cap:
  // lines a slow call might have claimed, lost.
  std::uint64_t held_over_cap = 0;
  // Held tracepoints dropped, oldest first, because all tasks' held lines
  // filled the profile's max_held_bytes.
  std::uint64_t held_dropped = 0;
  // Held tracepoints released as soon as no span could claim them any more
  // (not printed: nothing was lost).
  std::uint64_t held_released = 0;
  std::uint64_t max_held_bytes = 0; // the bound, for the message
  Nanos threshold = 0;              // the run's, for the message
  // A graph trace with entries or leaves was taken without tracing_thresh;
  // one of returns alone was taken with it, and its shortest return (-1:
  // none) is at least that tracing_thresh.
  bool graph_entries = false;
  Nanos shortest_return = -1;
  // The tracing_thresh a live run recorded in the --save file being
  // replayed (trace/capture_record.h); -1: none recorded.
  Nanos saved_tracing_thresh = -1;
  std::uint64_t unmatched_ends = 0;  // pair ends with no open begin (or another shrinker instance)
  std::uint64_t replaced_begins = 0; // pair begins that replaced an open one
  std::uint64_t orphan_returns = 0;  // bare "}" with no entry at its depth
  // Spans over threshold, by name. Functions and pairs are counted apart:
  // a profile may name a pair after a function (shrink_slab is both).
  std::map<std::string, std::uint64_t, std::less<>> functions_over_threshold;
  std::map<std::string, std::uint64_t, std::less<>> pairs_over_threshold;
  // The binder's tables as its last sweep found them, before it forgot the
  // idle tasks: the tasks it knew (those of the last two windows at most),
  // and the shrinkers it had keys for. Gauges for the metrics.
  std::uint64_t tasks_known = 0;
  std::uint64_t shrinker_keys = 0;
  // Graph mode: the profile's events-mode pairs that are kernel begin/end
  // pairs, of a stall kind that has functions too (direct_reclaim beside
  // try_to_free_pages), counted and not printed: a pair's tracepoints are
  // in the trace whatever tracing_thresh was, so pairs over threshold that
  // outnumber the returns of the kind's functions show stalls the returns
  // miss.
  struct PairCheck {
    std::string pair;
    std::vector<std::string> functions;
    std::uint64_t pairs = 0;   // over threshold
    std::uint64_t returns = 0; // of the functions, over threshold, at the end
  };
  std::vector<PairCheck> graph_pairs;

  void print(std::ostream& out) const;
};

} // namespace allocwatch

#include "bind/run_stats.h"

#include "util/size.h"

#include <ostream>
#include <string>

namespace allocwatch {

void RunStats::print(std::ostream& out) const {
  out << "allocwatch: " << lines_read << " lines read, " << lines_malformed << " not understood, "
      << (lost_uncounted ? "at least " : "") << lost_events << " events lost by the kernel ("
      << lost_lines << " LOST lines";
  if (lost_uncounted)
    out << ", " << lost_uncounted << " without a count";
  out << ")\n";
  out << "allocwatch: held events: " << held_expired
      << " expired unclaimed (older than the window), " << held_over_cap
      << " dropped over the per-task cap\n";
  if (held_dropped)
    out << "allocwatch: " << held_dropped
        << " held events dropped, oldest first, when all held lines filled max_held_bytes ("
        << format_size(max_held_bytes)
        << "): slow calls may miss lines. Raise max_held_bytes in the profile, or hold fewer "
           "lines: a higher threshold (-t), a shorter window, a narrower profile\n";
  if (unmatched_ends || replaced_begins || orphan_returns)
    out << "allocwatch: " << unmatched_ends << " pair ends without their begin, " << replaced_begins
        << " begins without their end, " << orphan_returns << " returns without their entry\n";
  // tracing_thresh is set in whole microseconds: below the shortest return's
  // whole microseconds, a threshold asks for calls the trace cannot hold.
  if (saved_tracing_thresh > threshold)
    out << "allocwatch: the live run that saved this trace set tracing_thresh to "
        << format_duration(saved_tracing_thresh)
        << ": the trace holds no shorter function call (tracepoints it holds all), so -t "
        << format_duration(threshold) << " finds no more function calls than -t "
        << format_duration(saved_tracing_thresh) << " would\n";
  else if (!graph_entries && shortest_return >= 0 && threshold < shortest_return / kMicro * kMicro)
    out << "allocwatch: the shortest return in this trace took " << format_duration(shortest_return)
        << ": a trace of returns alone was captured with tracing_thresh (at most that), and holds "
           "no shorter function call (tracepoints it holds all), so -t "
        << format_duration(threshold) << " finds no more function calls than -t "
        << format_duration(shortest_return / kMicro * kMicro) << " would\n";
  if (functions_over_threshold.empty() && pairs_over_threshold.empty()) {
    out << "allocwatch: no span over threshold\n";
    return;
  }
  auto print_counts = [&out](const char* what, const auto& counts) {
    if (counts.empty())
      return;
    out << "allocwatch: " << what << " over threshold:";
    for (const auto& [name, count] : counts)
      out << ' ' << (name.empty() ? "?" : name) << '=' << count;
    out << '\n';
  };
  print_counts("functions", functions_over_threshold);
  // A bare "}" with no entry line at its depth: counted under "?".
  if (const auto unnamed = functions_over_threshold.find("");
      unnamed != functions_over_threshold.end())
    out << "allocwatch: " << unnamed->second << (unnamed->second == 1 ? " return" : " returns")
        << " over threshold could not be named (? above): a bare \"}\" whose entry line is not in "
           "the trace (tracing began inside the call, or the kernel lost the entry), so its "
           "function and its tracepoints are unknown\n";
  print_counts("pairs", pairs_over_threshold);
  for (const PairCheck& check : graph_pairs) {
    if (check.pairs <= check.returns)
      continue;
    std::string functions;
    for (const std::string& function : check.functions)
      functions += (functions.empty() ? "" : "/") + function;
    out << "allocwatch: " << check.pairs << ' ' << check.pair << " begin/end pairs took "
        << format_duration(threshold) << " or more, but only " << check.returns << ' ' << functions
        << (check.returns == 1 ? " return" : " returns")
        << " did: the returns miss slow calls (tracing_thresh above -t, or returns the kernel "
           "lost), and the report counts the returns\n";
  }
}

} // namespace allocwatch

// TimelineSink: the run's over-threshold spans as a Chrome trace-event file
// (the JSON Array Format), which Perfetto's UI (ui.perfetto.dev: "Open trace
// file") and chrome://tracing ("Load") open: who stalled when, and inside what.
//
//   [
//   {"name":"thread_name","ph":"M","pid":170,"tid":170,"args":{"name":"memhog-170"}},
//   {"name":"try_to_free_pages","cat":"direct reclaim","ph":"X","ts":16466558.000,
//    "dur":49926.000,"pid":170,"tid":170,"args":{"kind":"direct reclaim",
//    "duration_ns":49926000,"tracepoints":[{"event":"mm_vmscan_direct_reclaim_begin",
//    "ts_ns":16466577000,"fields":{"order":0,...}}, ...]}},
//   {"name":"CPU:0 [LOST 600 EVENTS]","cat":"lost","ph":"i","s":"g","ts":...,"pid":0,"tid":0,...},
//   ...
//   ]
//
// - One complete event ("X") per span at or above the threshold (a stall or
//   not), on a track per task: pid and tid are the task's pid, and a
//   thread_name and process_name record names it comm-pid (again when the
//   comm changes). ts and dur are microseconds with nanosecond decimals.
// - Calls nest as they did: the kernel truncates timestamps to whole
//   microseconds, so a span is widened (by less than 1 us) to cover the
//   spans nested in it; args.duration_ns keeps its own duration. The viewers
//   need the events of a track to nest; a span that overlaps one already
//   written without nesting, or seems to lie inside one that closed before
//   it (the kernel's times do that when a return is stamped late, or under
//   an unsteady clock), goes to an overlap track of its task,
//   tid = pid + k * 2^22, named "comm-pid (overlap k)".
// - args: the kind of stall (empty: not a stall), duration_ns, and its
//   tracepoint lines with their fields, as in the JSON output.
// - A shrinker call (mm_shrink_slab_start/end pair) is named by its
//   shrinker, "shrink_slab: super_cache_scan"; the pairs a span claimed are
//   events nested in it too (category "shrinker call").
// - Each LOST line is a global instant event at the newest timestamp read
//   before it.
// Spans without timestamps (a trace without funcgraph-abstime) are left out.
// The file is written as the run goes, one event per line, and closed with
// "]" at the end; a file cut short by a kill still loads in both viewers.
#pragma once

#include "bind/incident.h"
#include "trace/event_fields.h"

#include <cstdint>
#include <iosfwd>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

namespace allocwatch {

class TimelineSink : public Sink {
public:
  // `out` must outlive the sink. `window`: how long a span waits for the
  // span around it (the profile's window).
  explicit TimelineSink(std::ostream& out, Nanos window = 10 * kSecond);

  void incident(const Incident& incident) override;
  void passthrough(std::string_view line, Nanos at) override;
  void finish(const ShrinkerStats& shrinkers) override;

private:
  struct Placed {
    Nanos start;       // its own
    Nanos shown_start; // widened over the spans nested in it
    Nanos end;
  };
  struct ShrinkCall {
    std::size_t start_line; // the incident's line; kNoLine: another span printed it
    std::size_t end_line;
    Nanos start;
    Nanos end; // -1 until its end line is read
    std::string_view symbol;
    std::string_view instance;
  };
  static constexpr std::size_t kNoLine = SIZE_MAX;

  // Where a span goes: its track, and its start as shown.
  struct Placement {
    std::int32_t tid;
    Nanos start;
  };

  void begin_event();
  void name_track(std::int32_t pid, std::int32_t tid, std::size_t lane, std::string_view comm);
  Placement place(const Incident& incident, Nanos start);
  void read_shrink_calls(std::span<const Tracepoint> tracepoints, const Incident& incident);
  void write_event(std::string_view name, std::string_view category, std::int32_t pid,
                   std::int32_t tid, Nanos start, Nanos end, std::string_view kind, Nanos duration,
                   std::span<const Tracepoint> tracepoints);

  std::ostream& out_;
  Nanos window_;
  bool first_ = true;
  bool finished_ = false;
  Nanos newest_end_ = 0;
  std::uint64_t incidents_ = 0;
  // Each track's name as last written, to name it again when the comm
  // changes; cleared when it grows past a bound, which only repeats names.
  std::unordered_map<std::int32_t, std::string> track_names_;
  // Per task, per track (lane 0: its own, then overlap tracks): the spans
  // not yet inside an enclosing one, to widen that one and to see overlaps.
  std::unordered_map<std::int32_t, std::vector<std::vector<Placed>>> placed_;
  std::vector<EventField> fields_;
  std::vector<ShrinkCall> shrink_calls_;
  std::string name_;
};

} // namespace allocwatch

#include "output/timeline_sink.h"

#include "kernel/vocabulary.h"
#include "output/json_text.h"

#include <algorithm>
#include <cstdio>
#include <ostream>

namespace allocwatch {

namespace {

// Bounds for runs of weeks: track names remembered, spans held per task for
// the span around them, and how often old ones are swept.
constexpr std::size_t kTrackNames = 1 << 16;
constexpr std::size_t kPlacedPerTrack = 64;
constexpr std::uint64_t kSweepEvery = 4096;
// Overlap tracks per task, and their tids: above every pid (pid_max <= 2^22).
constexpr std::size_t kLanes = 8;
constexpr std::int32_t kLaneTidStep = 1 << 22;

// Trace-event times are microseconds: nanoseconds as "16466558.123".
void write_us(std::ostream& out, Nanos ns) {
  char text[32];
  std::snprintf(text, sizeof text, "%lld.%03lld", static_cast<long long>(ns / kMicro),
                static_cast<long long>(ns % kMicro));
  out << text;
}

} // namespace

TimelineSink::TimelineSink(std::ostream& out, Nanos window) : out_(out), window_(window) {
  out_ << "[";
}

void TimelineSink::begin_event() {
  out_ << (first_ ? "\n" : ",\n");
  first_ = false;
}

void TimelineSink::name_track(std::int32_t pid, std::int32_t tid, std::size_t lane,
                              std::string_view comm) {
  auto found = track_names_.find(tid);
  if (found != track_names_.end() && found->second == comm)
    return;
  if (found == track_names_.end()) {
    if (track_names_.size() >= kTrackNames)
      track_names_.clear();
    found = track_names_.emplace(tid, std::string()).first;
  }
  found->second = std::string(comm);
  name_ = found->second + '-' + std::to_string(pid);
  for (const char* record : {"process_name", "thread_name"}) {
    if (lane > 0 && record == std::string_view("process_name"))
      continue;
    begin_event();
    out_ << "{\"name\":\"" << record << "\",\"ph\":\"M\",\"pid\":" << pid << ",\"tid\":" << tid
         << ",\"args\":{\"name\":";
    write_json_string(out_, lane > 0 ? name_ + " (overlap " + std::to_string(lane) + ')' : name_);
    out_ << "}}";
  }
}

// The first track of the task where the span nests: it is widened to cover
// the spans of that track that closed before it inside its time (its nested
// calls), and no other span there overlaps it without nesting.
TimelineSink::Placement TimelineSink::place(const Incident& incident, Nanos start) {
  std::vector<std::vector<Placed>>& lanes = placed_[incident.pid];
  // Timestamps are truncated to whole microseconds: a call nested in this one
  // may seem to start up to 1 us before it.
  const Nanos from = incident.start - kMicro;
  const Nanos end = incident.end;
  const Nanos aged = newest_end_ - window_;
  auto nested = [&](const Placed& p) { return p.start >= from && p.end <= end; };
  for (std::size_t lane = 0; lane < kLanes; ++lane) {
    if (lane == lanes.size())
      lanes.emplace_back();
    std::vector<Placed>& placed = lanes[lane];
    std::erase_if(placed, [aged](const Placed& p) { return p.end < aged; });
    Nanos shown = start;
    for (const Placed& p : placed)
      if (nested(p))
        shown = std::min(shown, p.shown_start);
    // A span placed before this one closed before it: it can only be nested
    // in this one or apart. One that seems to be around this one is not
    // (a return stamped late, or pid 0 on another cpu), and the spans nested
    // in it, no longer listed, may overlap this one: it overlaps.
    const bool overlaps = std::any_of(placed.begin(), placed.end(), [&](const Placed& p) {
      const bool apart = p.end <= shown || p.shown_start >= end;
      return !nested(p) && !apart;
    });
    if (overlaps && lane + 1 < kLanes)
      continue;
    std::erase_if(placed, nested);
    if (placed.size() >= kPlacedPerTrack)
      placed.erase(placed.begin());
    placed.push_back({incident.start, shown, end});
    const auto tid =
        static_cast<std::int32_t>(incident.pid + static_cast<std::int32_t>(lane) * kLaneTidStep);
    name_track(incident.pid, tid, lane, incident.comm);
    return {tid, shown};
  }
  return {incident.pid, start}; // not reached: the last lane takes every span
}

// The shrinker calls among the span's lines: start and end lines of one
// shrinker instance. A last end line whose start another span printed is
// the span itself (a shrink_slab pair), as is a pair of first and last line.
void TimelineSink::read_shrink_calls(std::span<const Tracepoint> tracepoints,
                                     const Incident& incident) {
  shrink_calls_.clear();
  for (std::size_t i = 0; i < tracepoints.size(); ++i) {
    const Tracepoint& tracepoint = tracepoints[i];
    if (tracepoint.name.empty() || tracepoint.ts < 0)
      continue;
    const EventRole role = event_role(tracepoint.name);
    if (role == EventRole::ShrinkSlabStart) {
      const ShrinkerId id = parse_shrinker_id(tracepoint.fields);
      shrink_calls_.push_back({i, kNoLine, tracepoint.ts, -1, id.symbol, id.instance});
    } else if (role == EventRole::ShrinkSlabEnd) {
      const ShrinkerId id = parse_shrinker_id(tracepoint.fields);
      const auto start =
          std::find_if(shrink_calls_.rbegin(), shrink_calls_.rend(),
                       [&](const ShrinkCall& c) { return c.end < 0 && c.instance == id.instance; });
      if (start != shrink_calls_.rend()) {
        start->end_line = i;
        start->end = tracepoint.ts;
      } else if (i + 1 == tracepoints.size()) {
        shrink_calls_.push_back(
            {kNoLine, i, incident.start, tracepoint.ts, id.symbol, id.instance});
      }
    }
  }
  std::erase_if(shrink_calls_, [](const ShrinkCall& c) { return c.end < 0; });
}

void TimelineSink::write_event(std::string_view name, std::string_view category, std::int32_t pid,
                               std::int32_t tid, Nanos start, Nanos end, std::string_view kind,
                               Nanos duration, std::span<const Tracepoint> tracepoints) {
  begin_event();
  out_ << "{\"name\":";
  write_json_string(out_, name);
  out_ << ",\"cat\":";
  write_json_string(out_, category);
  out_ << ",\"ph\":\"X\",\"ts\":";
  write_us(out_, start);
  out_ << ",\"dur\":";
  write_us(out_, end - start);
  out_ << ",\"pid\":" << pid << ",\"tid\":" << tid << ",\"args\":{\"kind\":";
  write_json_string(out_, kind);
  out_ << ",\"duration_ns\":" << duration << ",\"tracepoints\":";
  write_json_tracepoints(out_, tracepoints, fields_);
  out_ << "}}";
}

void TimelineSink::incident(const Incident& incident) {
  if (incident.start < 0 || incident.end < incident.start)
    return; // no place in time
  newest_end_ = std::max(newest_end_, incident.end);
  if (++incidents_ % kSweepEvery == 0) {
    const Nanos aged = newest_end_ - window_;
    for (auto task = placed_.begin(); task != placed_.end();) {
      bool empty = true;
      for (std::vector<Placed>& placed : task->second) {
        std::erase_if(placed, [aged](const Placed& p) { return p.end < aged; });
        empty = empty && placed.empty();
      }
      task = empty ? placed_.erase(task) : std::next(task);
    }
  }
  const std::span<const Tracepoint> tracepoints = incident.tracepoints;
  read_shrink_calls(tracepoints, incident);
  const ShrinkCall* own = nullptr; // the span is this shrinker call
  Nanos start = incident.start;
  for (const ShrinkCall& call : shrink_calls_) {
    if (call.end_line + 1 == tracepoints.size() &&
        (call.start_line == kNoLine || call.start_line == 0))
      own = &call;
    else
      start = std::min(start, call.start);
  }
  const Placement placement = place(incident, start);
  start = placement.start;

  name_ = incident.span.empty() ? "(unknown)" : std::string(incident.span);
  if (own != nullptr && !own->symbol.empty())
    name_ += ": " + std::string(own->symbol);
  write_event(name_, incident.kind.empty() ? "inner call" : incident.kind, incident.pid,
              placement.tid, start, incident.end, incident.kind, incident.end - incident.start,
              tracepoints);
  for (const ShrinkCall& call : shrink_calls_) {
    if (&call == own)
      continue;
    // Its start line, if this span printed it, and its end line.
    const Tracepoint lines[] = {call.start_line == kNoLine ? Tracepoint{}
                                                           : tracepoints[call.start_line],
                                tracepoints[call.end_line]};
    name_ = "shrink_slab: " + std::string(call.symbol);
    write_event(name_, "shrinker call", incident.pid, placement.tid, std::max(call.start, start),
                call.end, {}, call.end - call.start, lines);
  }
}

void TimelineSink::passthrough(std::string_view line, Nanos at) {
  begin_event();
  out_ << "{\"name\":";
  write_json_string(out_, line);
  out_ << ",\"cat\":\"lost\",\"ph\":\"i\",\"s\":\"g\",\"ts\":";
  write_us(out_, std::max<Nanos>(at, 0));
  out_ << ",\"pid\":0,\"tid\":0,\"args\":{\"line\":";
  write_json_string(out_, line);
  out_ << "}}";
}

void TimelineSink::finish(const ShrinkerStats&) {
  if (finished_)
    return;
  finished_ = true;
  out_ << "\n]\n";
  out_.flush();
}

} // namespace allocwatch

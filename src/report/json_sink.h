// JsonSink: the same results as TextSink, as JSON Lines (one object per
// line) for programs: each over-threshold span with its lines, each LOST
// line, then each shrinker function with its instances.
//
//   {"type":"span","name":"try_to_free_pages","pid":170,"comm":"memhog-",
//    "start_ns":16466558000,"end_ns":16516484000,"duration_ns":49926000,
//    "lines":["...", "..."],
//    "tracepoints":[{"event":"mm_vmscan_direct_reclaim_begin","ts_ns":16466577000,
//                    "fields":{"order":0,"gfp_flags":"GFP_HIGHUSER_MOVABLE"}}, ...]}
//   {"type":"lost","line":"CPU:0 [LOST 600 EVENTS]"}
//   {"type":"shrinker","symbol":"super_cache_scan","total_ns":8455000,
//    "max_ns":466000,"calls":40,"instances":[{"instance":"00000000ce7941b5",
//    "total_ns":1200000,"max_ns":400000,"calls":12}, ...]}
//
// "tracepoints" are the span's tracepoint lines (the ones it claimed, and a
// pair's own begin and end) with their fields parsed (trace/event_fields.h).
// Times are integer nanoseconds; -1 where the trace had none. Strings are the
// trace's bytes with '"', '\' and control characters escaped.
#pragma once

#include "bind/incident.h"
#include "trace/event_fields.h"

#include <iosfwd>
#include <vector>

namespace allocwatch {

class JsonSink : public Sink {
public:
  // `out` must outlive the sink.
  explicit JsonSink(std::ostream& out) : out_(out) {}

  void incident(const Incident& incident) override;
  void passthrough(std::string_view line, Nanos at) override;
  void finish(const ShrinkerStats& shrinkers) override;

private:
  std::ostream& out_;
  std::vector<EventField> fields_; // reused from span to span
  std::vector<Tracepoint> parsed_; // an incident's tracepoints if it gave none
};

} // namespace allocwatch

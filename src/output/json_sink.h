// JsonSink: the same results as TextSink, as JSON Lines (one object per
// line) for programs: each over-threshold span with its lines, each LOST
// line, then each shrinker function with its instances.
//
// The records are trace_records.h's, written by json_text.h: strings are
// the trace's bytes with '"', '\' and control characters escaped.
#pragma once

#include "bind/incident.h"
#include "output/json_text.h"
#include "output/record_value.h"

#include <iosfwd>

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
  RecordValue record_; // reused from record to record
  JsonWriter json_;
};

} // namespace allocwatch

#include "output/json_sink.h"

#include "bind/shrinker_stats.h"
#include "output/trace_records.h"

#include <ostream>

namespace allocwatch {

void JsonSink::incident(const Incident& incident) {
  span_record(incident, record_);
  json_.write_line(out_, record_);
}

void JsonSink::passthrough(std::string_view line, Nanos) {
  lost_record(line, record_);
  json_.write_line(out_, record_);
}

void JsonSink::finish(const ShrinkerStats& shrinkers) {
  for (const ShrinkerSummary& shrinker : shrinkers.summary()) {
    shrinker_record(shrinker, record_);
    json_.write_line(out_, record_);
  }
  out_.flush();
}

} // namespace allocwatch

#include "report/json_sink.h"

#include "bind/shrinker_stats.h"
#include "report/json_text.h"

#include <ostream>

namespace allocwatch {

namespace {

void write_totals(std::ostream& out, const ShrinkerTotals& totals) {
  out << "\"total_ns\":" << totals.total << ",\"max_ns\":" << totals.max
      << ",\"calls\":" << totals.calls;
}

} // namespace

void JsonSink::incident(const Incident& incident) {
  out_ << "{\"type\":\"span\",\"name\":";
  write_json_string(out_, incident.span);
  out_ << ",\"pid\":" << incident.pid << ",\"comm\":";
  write_json_string(out_, incident.comm);
  out_ << ",\"start_ns\":" << incident.start << ",\"end_ns\":" << incident.end
       << ",\"duration_ns\":"
       << (incident.start >= 0 && incident.end >= 0 ? incident.end - incident.start : -1)
       << ",\"lines\":[";
  const char* separator = "";
  for (std::string_view line : incident.lines) {
    out_ << separator;
    write_json_string(out_, line);
    separator = ",";
  }
  out_ << "],\"tracepoints\":";
  write_json_tracepoints(out_, tracepoints_of(incident, parsed_), fields_);
  out_ << "}\n";
}

void JsonSink::passthrough(std::string_view line, Nanos) {
  out_ << "{\"type\":\"lost\",\"line\":";
  write_json_string(out_, line);
  out_ << "}\n";
}

void JsonSink::finish(const ShrinkerStats& shrinkers) {
  for (const ShrinkerSummary& shrinker : shrinkers.summary()) {
    out_ << "{\"type\":\"shrinker\",\"symbol\":";
    write_json_string(out_, shrinker.symbol);
    out_ << ',';
    write_totals(out_, shrinker.totals);
    out_ << ",\"instances\":[";
    const char* separator = "";
    for (const ShrinkerSummary::Instance& instance : shrinker.instances) {
      out_ << separator << "{\"instance\":";
      write_json_string(out_, instance.name);
      out_ << ',';
      write_totals(out_, instance.totals);
      out_ << '}';
      separator = ",";
    }
    out_ << "]}\n";
  }
  out_.flush();
}

} // namespace allocwatch

// FanoutSink: hands every result to several sinks in turn, so that the
// trace's own output and the observers of the same run (the report, metrics,
// a timeline) see one stream of incidents.
#pragma once

#include "bind/incident.h"

#include <vector>

namespace allocwatch {

class FanoutSink : public Sink {
public:
  // `sink` must outlive the FanoutSink. Sinks are called in the order added.
  void add(Sink& sink) { sinks_.push_back(&sink); }

  void incident(const Incident& incident) override {
    for (Sink* sink : sinks_)
      sink->incident(incident);
  }
  void passthrough(std::string_view line, Nanos at) override {
    for (Sink* sink : sinks_)
      sink->passthrough(line, at);
  }
  void finish(const ShrinkerStats& shrinkers) override {
    for (Sink* sink : sinks_)
      sink->finish(shrinkers);
  }

private:
  std::vector<Sink*> sinks_;
};

} // namespace allocwatch

// TextSink: the trace's own lines, as the kernel printed them, so that any
// tool that reads ftrace output reads allocwatch's; then the shrinker totals.
#pragma once

#include "bind/incident.h"

#include <iosfwd>

namespace allocwatch {

class TextSink : public Sink {
public:
  // `out` must outlive the sink.
  explicit TextSink(std::ostream& out) : out_(out) {}

  void incident(const Incident& incident) override;
  void passthrough(std::string_view line, Nanos at) override;
  void finish(const ShrinkerStats& shrinkers) override;

private:
  std::ostream& out_;
};

} // namespace allocwatch

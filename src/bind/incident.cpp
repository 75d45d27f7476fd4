#include "bind/incident.h"

#include "trace/parser.h"

namespace allocwatch {

std::span<const Tracepoint> tracepoints_of(const Incident& incident,
                                           std::vector<Tracepoint>& scratch) {
  if (incident.tracepoints.size() == incident.lines.size())
    return incident.tracepoints;
  scratch.clear();
  for (std::string_view line : incident.lines)
    scratch.push_back(tracepoint_of(parse_line(line)));
  return scratch;
}

} // namespace allocwatch

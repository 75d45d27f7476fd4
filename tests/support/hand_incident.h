// Test support (unit tests only): incidents made by hand carry their lines'
// tracepoints, as the binder gives them: each line parsed as the binder
// parsed it when it was read.
#pragma once

#include "bind/incident.h"
#include "trace/parser.h"

#include <vector>

namespace allocwatch {

// `incident` with the tracepoint of each of its lines, kept in `storage`
// (which must outlive the incident's use).
inline Incident with_tracepoints(Incident incident, std::vector<Tracepoint>& storage) {
  storage.clear();
  for (std::string_view line : incident.lines)
    storage.push_back(tracepoint_of(parse_line(line)));
  incident.tracepoints = storage;
  return incident;
}

} // namespace allocwatch

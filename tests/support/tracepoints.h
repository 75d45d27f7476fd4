// Test support (unit tests only): incidents made by hand carry their lines'
// tracepoints, as the binder gives them: each line parsed as the binder
// parsed it when it was read.
#pragma once

#include "bind/incident.h"
#include "trace/parser.h"

#include <span>
#include <string_view>
#include <vector>

namespace allocwatch {

inline std::vector<Tracepoint> tracepoints_of_lines(std::span<const std::string_view> lines) {
  std::vector<Tracepoint> tracepoints;
  for (std::string_view line : lines)
    tracepoints.push_back(tracepoint_of(parse_line(line)));
  return tracepoints;
}

// `incident` with the tracepoint of each of its lines, kept in `storage`
// (which must outlive the incident's use).
inline Incident with_tracepoints(Incident incident, std::vector<Tracepoint>& storage) {
  storage = tracepoints_of_lines(incident.lines);
  incident.tracepoints = storage;
  return incident;
}

} // namespace allocwatch

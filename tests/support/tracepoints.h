// Test support: the tracepoints of hand-written lines, parallel to them, as
// the binder gives an Incident those of the lines it hands on.
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

} // namespace allocwatch

// JSON text for the outputs that write JSON (the JSON Lines sink, the
// report's records, the timeline): escaped strings, and the tracepoint lines
// of a span as objects with their parsed fields.
#pragma once

#include "bind/incident.h"
#include "trace/event_fields.h"

#include <iosfwd>
#include <span>
#include <string_view>
#include <vector>

namespace allocwatch {

// `text` as a JSON string: the trace's bytes with '"', '\' and control
// characters (and DEL) escaped. Other bytes are copied, so valid UTF-8 stays
// valid.
void write_json_string(std::ostream& out, std::string_view text);

// The tracepoints of a span's lines (lines that print none, such as graph
// returns, are left out), as a JSON array of
//   {"event":"mm_vmscan_direct_reclaim_begin","ts_ns":16466577000,
//    "fields":{"order":0,"gfp_flags":"GFP_HIGHUSER_MOVABLE|__GFP_COMP"}}
// numbers as JSON numbers, the rest as strings; ts_ns is -1 for a line
// without a timestamp. `scratch` is reused between calls.
void write_json_tracepoints(std::ostream& out, std::span<const Tracepoint> tracepoints,
                            std::vector<EventField>& scratch);

} // namespace allocwatch

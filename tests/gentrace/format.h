// The kernel's lines, as kernel/trace/trace_functions_graph.c and
// trace_output.c print them: function_graph's columns (funcgraph-proc,
// -abstime, -cpu), the nop tracer's prefix, and each tracepoint's fields.
#pragma once

#include "common.h"
#include "model.h"
#include "rng.h"

#include <string>
#include <string_view>

namespace gentrace {

// What `%lu.%03lu us` shows after dropping decimals to keep 7 digits.
Nanos shown_duration(Nanos d);

// The mark before a duration: '+' over 10 µs, '!' over 100 µs, '#' over
// 1 ms, '*' over 10 ms, '@' over 100 ms, '$' over 1 s, else ' '.
char duration_mark(Nanos d);

// trace_print_graph_duration: "431.377 us  ", always 12 columns.
void put_graph_duration(std::string& s, Nanos d);

// print_graph_proc: "comm-pid" centred in 14 columns.
void put_graph_proc(std::string& s, std::string_view comm, int pid);

// The columns before a function_graph line's function or comment.
void put_graph_prefix(std::string& s, Nanos ts, int cpu, std::string_view comm, int pid);

// "%16s-%-7d [%03d] flags %5lu.%06lu: "
void put_event_prefix(std::string& s, Nanos ts, int cpu, std::string_view comm, int pid,
                      std::string_view flags);

// The fields each TP_printk prints, numbers varied.
void put_fields(std::string& s, Ev ev, int shrinker, const World& w, Rng& rng);

} // namespace gentrace

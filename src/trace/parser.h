// parse_line: one line of trace_pipe (or of a saved trace) to a Record.
//
// Pure: no allocation, no exceptions, no locale; one left-to-right pass that
// never reads outside `line`. Every string_view in the Record points into
// `line` and lives exactly as long as the bytes of `line` do (for a line from
// LineReader: until its next call to next()).
//
// Forms accepted (format Graph), leading columns each optional and split on
// '|', never on width, so the body may itself contain '|':
//   [abstime |] [cpu)] [comm-pid |] [mark duration us |] body
//   e.g. "   13.218727 |   0)   <...>-156    | ! 431.377 us  |  } /* __alloc_pages */"
//   A line must start with abstime or cpu to be taken as graph.
//   body (after 2 spaces per depth):
//     f() {   f(args) {   f() { /* <-caller+0x1/0x2 */                -> GraphEntry
//     f();    f(args);    f(); /* = 0x0 */   f(); /* <-c+0x1/0x2 ret=0x0 */ -> GraphLeaf
//     }       } /* f */   } /* f = -22 */    } /* f ret=0x0 */         -> GraphReturn
//     /* event: fields */                                              -> Event
//     /* text */ (trace_marker, trace_printk)           -> Event, empty name
//   name is the symbol before '(' or the first space, without " [module]".
//   depth: leading spaces of the body beyond the column separator's fixed
//   ones, halved. An event prints one level deeper than its enclosing call
//   (except at depth 0), so its depth is the enclosing call's depth + 1.
//   duration: "431.377 us" -> 431377 ns; a blank column or none -> -1.
// Forms accepted (format Events), the nop tracer:
//   comm-pid [(tgid)] [cpu] [flags] secs.frac: event: fields
//   e.g. "  bash-2143    [000] .....   224.593574: mm_shrink_slab_start: ..."
//   comm may hold spaces, '-', '/'; pid is the digits after the last '-'.
// Timestamps are secs.frac with 1 to 9 fraction digits, to integer ns.
// Skip: blank lines, '#' headers, "------" and "N) a-1 => b-2" context-switch
//   banners, "==========>" / "<==========" irq markers, "(Overruns: N)".
// Lost: "CPU:N [LOST M EVENTS]" (cpu = N, lost = M).
// Malformed: anything longer than kMaxLineBytes, and anything else,
//   including "<XXX>" (the kernel's invalid-pid comm of a corrupt record),
//   "Unknown type N", truncated lines, and, in graph traces, a comm that
//   contains '|'.
// Skip, Lost and Malformed have format Unknown.
#pragma once

#include "trace/record.h"

#include <string_view>

namespace allocwatch {

Record parse_line(std::string_view line) noexcept;

// parse_line without its fixed-layout shortcuts (the kernel's usual column
// widths, checked a word at a time): the general walk alone. The two return
// identical Records for every line; tests and the fuzzer compare them.
Record parse_line_general(std::string_view line) noexcept;

} // namespace allocwatch

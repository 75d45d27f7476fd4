// Untrusted bytes in messages: trace lines, profile text, paths and names
// read from journals or directories. Printed as they are, an ESC sequence
// would drive the terminal and a newline would forge a line of its own, so
// every message that quotes such bytes passes them through one of these.
//
// Kept as they are: printable ASCII and well-formed UTF-8 (names, paths and
// descriptions in any language). Escaped: backslash as \\; tab, newline and
// carriage return as \t, \n, \r; every other control byte, DEL and each byte
// of malformed UTF-8 as \xNN; the C1 controls (U+0080-U+009F), the
// bidirectional overrides and isolates (U+202A-U+202E, U+2066-U+2069, which
// reorder what a terminal shows) and the line and paragraph separators
// (U+2028, U+2029) as \u{NNNN}.
#pragma once

#include <string>
#include <string_view>

namespace allocwatch {

// The bytes, escaped as above.
std::string escaped(std::string_view bytes);

// The bytes escaped and in single quotes, a quote in them escaped as \':
// "unknown key 'evnets'".
std::string quote(std::string_view bytes);

} // namespace allocwatch

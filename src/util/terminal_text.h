// Untrusted bytes (comms, trace fields) made safe for a terminal: nothing a
// task names itself can move the cursor, recolour, retitle or clear it.
//
// A small helper of the report's own: the hostile-input work adds a shared
// one, and this one should give way to it when both are on main.
#pragma once

#include <iosfwd>
#include <string>
#include <string_view>

namespace allocwatch {

// `text` with every control byte (< 0x20, 0x7f) and every byte >= 0x80 (C1
// controls, and what a terminal might read as one) written as \xNN, and '\'
// as \\, so that the escaped text is plain printable ASCII and reads back
// unambiguously.
std::string terminal_text(std::string_view text);
void write_terminal_text(std::ostream& out, std::string_view text);

} // namespace allocwatch

// function_text: a kernel address as libtraceevent's print_function() writes
// it: the name of the function it lies in (%ps, %pf), with "+0x<offset>"
// after it (%pS, %pF); "0x<address>" when the tep knows no function there.
//
//   std::string text;
//   append_function_text(tep, address, FunctionOffset::With, text);
#pragma once

#include <cstdint>
#include <string>

struct tep_handle;

namespace allocwatch {

enum class FunctionOffset : std::uint8_t { Without, With };

// Appends the text of `address` to `out`; `tep` names it (its function
// table or resolver).
void append_function_text(tep_handle* tep, std::uint64_t address, FunctionOffset offset,
                          std::string& out);

} // namespace allocwatch

// function_text: a kernel address as libtraceevent prints it: as
// print_function() writes a function (%ps, %pf: the name of the function it
// lies in; %pS, %pF: with "+0x<offset>" after it; "0x<address>" when the tep
// knows no function there), and as print_arg_pointer() writes a pointer
// (%p: printf's "%p" of the value).
//
//   std::string text;
//   append_function_text(tep, address, FunctionOffset::With, text);
//   char buffer[kMaxPointerText];
//   text += pointer_text(address, buffer);
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

struct tep_handle;

namespace allocwatch {

enum class FunctionOffset : std::uint8_t { Without, With };

// Appends the text of `address` to `out`; `tep` names it (its function
// table or resolver).
void append_function_text(tep_handle* tep, std::uint64_t address, FunctionOffset offset,
                          std::string& out);

// What "%p" of `address` prints ("0x<hex>", glibc's "(nil)" for 0), in
// `buffer`; the view lives as long as the buffer.
constexpr std::size_t kMaxPointerText = 24;
std::string_view pointer_text(std::uint64_t address, char (&buffer)[kMaxPointerText]);

} // namespace allocwatch

#include "ring/function_text.h"

#include "util/digits.h"

extern "C" {
#include <event-parse.h>
}

namespace allocwatch {

void append_function_text(tep_handle* tep, std::uint64_t address, FunctionOffset offset,
                          std::string& out) {
  char hex[kMaxHexText];
  const char* const name = tep_find_function(tep, address);
  if (name == nullptr) {
    out.append(hex_text(address, hex));
    return;
  }
  out.append(name);
  if (offset == FunctionOffset::With)
    out.append("+").append(hex_text(address - tep_find_function_address(tep, address), hex));
}

} // namespace allocwatch

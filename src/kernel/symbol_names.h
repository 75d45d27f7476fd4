// What a kernel symbol's name may be made of: the profile's function names
// and the names that event print formats use (ring/print_names.h).
#pragma once

#include <string_view>

namespace allocwatch {

// Kernel symbols as available_filter_functions prints them: C identifiers,
// plus the '.' of compiler clones such as "shrink_folio_list.constprop.0".
bool is_symbol(std::string_view text);
// A C identifier: letters, digits and '_', not starting with a digit.
bool is_identifier(std::string_view text);

} // namespace allocwatch

#include "kernel/symbol_names.h"

#include <algorithm>
#include <cctype>

namespace allocwatch {

bool is_symbol(std::string_view text) {
  if (text.empty() || !(std::isalpha(static_cast<unsigned char>(text[0])) || text[0] == '_'))
    return false;
  return std::all_of(text.begin(), text.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.';
  });
}

bool is_identifier(std::string_view text) {
  return is_symbol(text) && text.find('.') == std::string_view::npos;
}

} // namespace allocwatch

#include "ring/header_page.h"

#include <limits>
#include <string>
#include <tuple>

namespace allocwatch {

Result<HeaderPageField> header_page_field(std::string_view header_page, std::string_view name) {
  // "\tfield: local_t commit;\toffset:8;\tsize:8;\tsigned:1;"
  std::size_t line_start = 0;
  while (line_start < header_page.size()) {
    std::size_t line_end = header_page.find('\n', line_start);
    if (line_end == std::string_view::npos)
      line_end = header_page.size();
    const std::string_view line = header_page.substr(line_start, line_end - line_start);
    line_start = line_end + 1;
    const std::size_t semicolon = line.find(';');
    if (line.find("field:") == std::string_view::npos || semicolon == std::string_view::npos)
      continue;
    std::string_view declaration = line.substr(0, semicolon);
    const std::size_t space = declaration.find_last_of(" \t");
    if (space == std::string_view::npos || declaration.substr(space + 1) != name)
      continue;
    HeaderPageField field;
    bool have_offset = false;
    bool have_size = false;
    for (const auto& [key, out, seen] :
         {std::tuple{std::string_view("offset:"), &field.offset, &have_offset},
          std::tuple{std::string_view("size:"), &field.size, &have_size}}) {
      const std::size_t at = line.find(key, semicolon);
      if (at == std::string_view::npos)
        continue;
      std::size_t value = 0;
      std::size_t digits = 0;
      for (std::size_t i = at + key.size(); i < line.size() && line[i] >= '0' && line[i] <= '9';
           ++i, ++digits) {
        if (value > (std::numeric_limits<std::size_t>::max() - 9) / 10)
          return Error{"events/header_page: field " + std::string(name) + " is out of range"};
        value = value * 10 + static_cast<std::size_t>(line[i] - '0');
      }
      *out = value;
      *seen = digits > 0;
    }
    if (!have_offset || !have_size)
      return Error{"events/header_page: field " + std::string(name) + " has no offset or size"};
    return field;
  }
  return Error{"events/header_page has no field " + std::string(name)};
}

} // namespace allocwatch

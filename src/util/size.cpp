#include "util/size.h"

#include <cctype>
#include <string>

namespace allocwatch {

Result<std::uint64_t> parse_size(std::string_view text) {
  const std::string shown(text);
  auto fail = [&](const char* why) -> Error {
    return Error{"invalid size '" + shown + "': " + why + " (examples: 8MiB, 512KiB, 65536)"};
  };
  std::size_t i = 0;
  std::uint64_t value = 0;
  while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]))) {
    if (value > (std::uint64_t{1} << 50))
      return fail("too large");
    value = value * 10 + static_cast<std::uint64_t>(text[i] - '0');
    ++i;
  }
  if (i == 0)
    return fail("a whole number comes first");
  if (i < text.size() && text[i] == ' ')
    ++i;
  const std::string_view unit = text.substr(i);
  struct Unit {
    std::string_view name;
    int shift;
  };
  static constexpr Unit kUnits[] = {{"", 0},   {"B", 0},   {"K", 10},  {"KB", 10}, {"KiB", 10},
                                    {"k", 10}, {"kB", 10}, {"M", 20},  {"MB", 20}, {"MiB", 20},
                                    {"G", 30}, {"GB", 30}, {"GiB", 30}};
  for (const Unit& known : kUnits) {
    if (unit == known.name) {
      if (value > (std::uint64_t{1} << (60 - known.shift)))
        return fail("too large");
      return value << known.shift;
    }
  }
  return fail("unknown unit");
}

std::string format_size(std::uint64_t bytes) {
  static constexpr const char* kUnits[] = {"B", "KiB", "MiB", "GiB"};
  std::size_t unit = 0;
  while (unit + 1 < std::size(kUnits) && bytes != 0 && bytes % 1024 == 0) {
    bytes /= 1024;
    ++unit;
  }
  return std::to_string(bytes) + kUnits[unit];
}

} // namespace allocwatch

// Hash for string-keyed unordered containers that are searched with a
// string_view: find() then needs no temporary std::string (no allocation).
#pragma once

#include <functional>
#include <string_view>

namespace allocwatch {

struct StringHash {
  using is_transparent = void;
  std::size_t operator()(std::string_view text) const {
    return std::hash<std::string_view>{}(text);
  }
};

} // namespace allocwatch

#include "util/terminal_text.h"

#include <ostream>

namespace allocwatch {

namespace {
template <class Put> void escape(std::string_view text, Put put) {
  static constexpr char kHex[] = "0123456789abcdef";
  for (char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    if (byte < 0x20 || byte >= 0x7f) {
      const char escaped[] = {'\\', 'x', kHex[byte >> 4], kHex[byte & 0xf]};
      put(std::string_view(escaped, sizeof escaped));
    } else if (c == '\\') {
      put(std::string_view("\\\\"));
    } else {
      put(std::string_view(&c, 1));
    }
  }
}
} // namespace

std::string terminal_text(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  escape(text, [&out](std::string_view part) { out += part; });
  return out;
}

void write_terminal_text(std::ostream& out, std::string_view text) {
  escape(text, [&out](std::string_view part) {
    out.write(part.data(), static_cast<std::streamsize>(part.size()));
  });
}

} // namespace allocwatch

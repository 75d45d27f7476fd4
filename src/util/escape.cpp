#include "util/escape.h"

#include <cstdint>

namespace allocwatch {

namespace {

constexpr char kHex[] = "0123456789abcdef";

void append_byte(std::string& out, unsigned char byte) {
  out += "\\x";
  out += kHex[byte >> 4];
  out += kHex[byte & 0xf];
}

// The length of the well-formed UTF-8 sequence at the start of `bytes` and
// its code point; 0 when it is not one (overlong, surrogate, out of range,
// cut short).
std::size_t utf8_sequence(std::string_view bytes, std::uint32_t& code_point) {
  const auto lead = static_cast<unsigned char>(bytes[0]);
  std::size_t length = 0;
  std::uint32_t min = 0;
  if (lead >= 0xc2 && lead <= 0xdf) {
    length = 2, min = 0x80, code_point = lead & 0x1f;
  } else if (lead >= 0xe0 && lead <= 0xef) {
    length = 3, min = 0x800, code_point = lead & 0x0f;
  } else if (lead >= 0xf0 && lead <= 0xf4) {
    length = 4, min = 0x10000, code_point = lead & 0x07;
  } else {
    return 0;
  }
  if (bytes.size() < length)
    return 0;
  for (std::size_t i = 1; i < length; ++i) {
    const auto next = static_cast<unsigned char>(bytes[i]);
    if ((next & 0xc0) != 0x80)
      return 0;
    code_point = code_point << 6 | (next & 0x3f);
  }
  if (code_point < min || code_point > 0x10ffff || (code_point >= 0xd800 && code_point <= 0xdfff))
    return 0;
  return length;
}

bool shown_escaped(std::uint32_t code_point) {
  return (code_point >= 0x80 && code_point <= 0x9f) ||
         (code_point >= 0x2028 && code_point <= 0x202e) ||
         (code_point >= 0x2066 && code_point <= 0x2069);
}

// Inside quotes, a quote is escaped too.
enum class Context { Bare, InQuotes };

void append_escaped(std::string& out, std::string_view bytes, Context context) {
  std::size_t i = 0;
  while (i < bytes.size()) {
    const auto byte = static_cast<unsigned char>(bytes[i]);
    if (byte >= 0x20 && byte < 0x7f) {
      if (byte == '\\' || (context == Context::InQuotes && byte == '\''))
        out += '\\';
      out += static_cast<char>(byte);
      ++i;
    } else if (byte == '\n') {
      out += "\\n", ++i;
    } else if (byte == '\t') {
      out += "\\t", ++i;
    } else if (byte == '\r') {
      out += "\\r", ++i;
    } else if (byte < 0x80) { // other controls and DEL
      append_byte(out, byte), ++i;
    } else {
      std::uint32_t code_point = 0;
      const std::size_t length = utf8_sequence(bytes.substr(i), code_point);
      if (length == 0) {
        append_byte(out, byte), ++i;
      } else if (shown_escaped(code_point)) {
        out += "\\u{";
        for (int shift = 12; shift >= 0; shift -= 4)
          out += kHex[(code_point >> shift) & 0xf];
        out += '}';
        i += length;
      } else {
        out.append(bytes.substr(i, length));
        i += length;
      }
    }
  }
}

} // namespace

std::string escaped(std::string_view bytes) {
  std::string out;
  out.reserve(bytes.size());
  append_escaped(out, bytes, Context::Bare);
  return out;
}

std::string quote(std::string_view bytes) {
  std::string out;
  out.reserve(bytes.size() + 2);
  out += '\'';
  append_escaped(out, bytes, Context::InQuotes);
  out += '\'';
  return out;
}

} // namespace allocwatch

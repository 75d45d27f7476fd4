#include "ring/print_plan.h"

#include "ring/field_number.h"
#include "ring/function_text.h"
#include "util/digits.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string_view>
#include <traceevent/event-parse.h>

namespace allocwatch {

std::uint64_t PrintPlan::evaluate(int index, const unsigned char* data, std::size_t size) const {
  const Number& n = numbers_[static_cast<std::size_t>(index)];
  switch (n.kind) {
  case Number::Kind::Constant:
    return n.value;
  case Number::Kind::Field:
    return field_number(data, size, n.offset, n.size);
  case Number::Kind::Mask:
    return evaluate(n.left, data, size) & n.value;
  case Number::Kind::Choice:
    return evaluate(n.left, data, size) != 0 ? evaluate(n.right, data, size)
                                             : evaluate(n.other, data, size);
  case Number::Kind::Binary:
    break;
  }
  const std::uint64_t left = evaluate(n.left, data, size);
  const std::uint64_t right = evaluate(n.right, data, size);
  switch (n.op) {
  case Number::Op::Add:
    return left + right;
  case Number::Op::Sub:
    return left - right;
  case Number::Op::Mul:
    return left * right;
  case Number::Op::Div:
    return right != 0 ? left / right : 0; // libtraceevent would trap
  case Number::Op::Mod:
    return right != 0 ? left % right : 0;
  case Number::Op::Shl:
    return left << (right & 63); // as x86-64 shifts
  case Number::Op::Shr:
    return left >> (right & 63);
  case Number::Op::And:
    return left & right;
  case Number::Op::Or:
    return left | right;
  case Number::Op::LogicalAnd:
    return left != 0 && right != 0;
  case Number::Op::LogicalOr:
    return left != 0 || right != 0;
  case Number::Op::Equal:
    return left == right;
  case Number::Op::NotEqual:
    return left != right;
  case Number::Op::Less:
    return left < right;
  case Number::Op::LessEqual:
    return left <= right;
  case Number::Op::Greater:
    return left > right;
  case Number::Op::GreaterEqual:
    return left >= right;
  }
  return 0;
}

// Where append() writes: straight into the string, grown ahead of the
// writes (by whole blocks, so that a short piece is copied without a
// length check) and cut to what was written at the end.
class PrintPlan::Cursor {
public:
  Cursor(std::string& out, std::size_t expected) : out_(out), used_(out.size()) {
    out_.resize(used_ + expected + kSlack);
  }
  ~Cursor() { out_.resize(used_); }
  Cursor(const Cursor&) = delete;
  Cursor& operator=(const Cursor&) = delete;

  // Where `size` more bytes go, with kSlack writable bytes after them.
  char* room(std::size_t size) {
    if (used_ + size + kSlack > out_.size())
      out_.resize(std::max(out_.size() * 2, used_ + size + kSlack));
    return out_.data() + used_;
  }
  void advance(std::size_t size) { used_ += size; }
  void put(const char* text, std::size_t size) {
    std::memcpy(room(size), text, size);
    used_ += size;
  }
  void put(std::string_view text) { put(text.data(), text.size()); }
  // `size` bytes of `blocks`, which holds them in whole 16-byte blocks.
  void put_blocks(const char* blocks, std::size_t size) {
    char* at = room(size + kBlock);
    for (std::size_t done = 0; done < size; done += kBlock)
      std::memcpy(at + done, blocks + done, kBlock);
    used_ += size;
  }

private:
  static constexpr std::size_t kBlock = 16;
  static constexpr std::size_t kSlack = 32;
  std::string& out_;
  std::size_t used_;
};

namespace {

// printf of one string through a conversion ("%s" as it stands).
template <class Out> void put_string(Out& out, const std::string& conversion, const char* text) {
  if (conversion.size() == 2) {
    out.put(text, std::strlen(text));
    return;
  }
  char buffer[256];
  const int n = std::snprintf(buffer, sizeof buffer, conversion.c_str(), text);
  if (n < 0)
    return;
  if (static_cast<std::size_t>(n) < sizeof buffer) {
    out.put(buffer, static_cast<std::size_t>(n));
    return;
  }
  std::string large(static_cast<std::size_t>(n) + 1, '\0'); // a wide width
  std::snprintf(large.data(), large.size(), conversion.c_str(), text);
  out.put(large.data(), static_cast<std::size_t>(n));
}

} // namespace

void PrintPlan::append_text(const Piece& piece, int index, const unsigned char* data,
                            std::size_t size, Cursor& out) const {
  const Text& t = texts_[static_cast<std::size_t>(index)];
  char hex[kMaxHexText];
  switch (t.kind) {
  case Text::Kind::Literal:
    put_string(out, piece.text, t.literal.c_str());
    return;
  case Text::Kind::Choice:
    append_text(piece, evaluate(t.number, data, size) != 0 ? t.then_text : t.else_text, data, size,
                out);
    return;
  case Text::Kind::Symbol: {
    const auto value = static_cast<long long>(evaluate(t.number, data, size));
    for (const Text::Entry& entry : t.entries) {
      if (entry.value == value) {
        put_string(out, piece.text, entry.name.c_str());
        return;
      }
    }
    out.put(hex_text(static_cast<std::uint64_t>(value), hex));
    return;
  }
  case Text::Kind::Flags: {
    auto value = static_cast<long long>(evaluate(t.number, data, size));
    bool printed = false;
    for (const Text::Entry& entry : t.entries) {
      if (value == 0 && entry.value < 0) {
        put_string(out, piece.text, entry.name.c_str());
        break;
      }
      if (entry.value > 0 && (value & entry.value) == entry.value) {
        if (printed && t.has_delimiter)
          out.put(t.delimiter);
        put_string(out, piece.text, entry.name.c_str());
        printed = true;
        value &= ~entry.value;
      }
    }
    if (value != 0) {
      if (printed && t.has_delimiter)
        out.put(t.delimiter);
      out.put(hex_text(static_cast<std::uint64_t>(value), hex));
    }
    return;
  }
  }
}

void PrintPlan::append_integer(const Piece& piece, std::uint64_t value, Cursor& out) const {
  if (piece.form == Piece::Form::Printf) {
    append_printf(piece, value, out);
    return;
  }
  // The value as print_arg_number() passes it: cast to the length's type.
  const bool wide = piece.length > 0;
  char* at = out.room(kMaxDigits + 1);
  switch (piece.form) {
  case Piece::Form::Signed: {
    const long long v =
        wide ? static_cast<long long>(value) : static_cast<long long>(static_cast<int>(value));
    const std::uint64_t magnitude =
        v < 0 ? std::uint64_t{0} - static_cast<std::uint64_t>(v) : static_cast<std::uint64_t>(v);
    const std::size_t sign = v < 0 ? 1 : 0;
    *at = '-';
    const std::size_t width = decimal_width(magnitude);
    decimal_digits(magnitude, at + sign + width);
    out.advance(sign + width);
    return;
  }
  case Piece::Form::Unsigned: {
    const std::uint64_t v = wide ? value : static_cast<unsigned>(value);
    const std::size_t width = decimal_width(v);
    decimal_digits(v, at + width);
    out.advance(width);
    return;
  }
  case Piece::Form::Hex: {
    const std::uint64_t v = wide ? value : static_cast<unsigned>(value);
    const std::size_t width = hex_width(v);
    hex_digits(v, at + width);
    out.advance(width);
    return;
  }
  case Piece::Form::Printf:
    return;
  }
}

// print_arg_number(): printf of the value cast to the length's type,
// promoted as printf's arguments are.
void PrintPlan::append_printf(const Piece& piece, std::uint64_t value, Cursor& out) const {
  char buffer[64];
  auto print = [&](auto v) {
    const int n = std::snprintf(buffer, sizeof buffer, piece.text.c_str(), v);
    if (n <= 0)
      return;
    if (static_cast<std::size_t>(n) < sizeof buffer) {
      out.put(buffer, static_cast<std::size_t>(n));
      return;
    }
    std::string large(static_cast<std::size_t>(n) + 1, '\0'); // a wide width
    std::snprintf(large.data(), large.size(), piece.text.c_str(), v);
    out.put(large.data(), static_cast<std::size_t>(n));
  };
  switch (piece.length) {
  case -2:
    print(static_cast<int>(static_cast<char>(value)));
    break;
  case -1:
    print(static_cast<int>(static_cast<short>(value)));
    break;
  case 0:
    print(static_cast<int>(value));
    break;
  case 1:
    print(static_cast<long>(value));
    break;
  default:
    print(static_cast<long long>(value));
    break;
  }
}

// print_function(), remembered by address.
void PrintPlan::append_function(const Piece& piece, std::uint64_t address, Cursor& out) const {
  out.put(functions_->text(address, piece.offset));
}

void PrintPlan::append(const void* payload, std::size_t size, std::string& text) const {
  const auto* data = static_cast<const unsigned char*>(payload);
  Cursor out(text, expected_size_);
  for (const Piece& piece : pieces_) {
    out.put_blocks(piece.prefix.data(), piece.prefix_size);
    switch (piece.kind) {
    case Piece::Kind::Literal:
      break;
    case Piece::Kind::Integer: {
      const Number& n = numbers_[static_cast<std::size_t>(piece.arg)];
      append_integer(piece,
                     n.kind == Number::Kind::Field ? field_number(data, size, n.offset, n.size)
                                                   : evaluate(piece.arg, data, size),
                     out);
      break;
    }
    case Piece::Kind::String:
      append_text(piece, piece.arg, data, size, out);
      break;
    case Piece::Kind::Function:
      append_function(piece, evaluate(piece.arg, data, size), out);
      break;
    case Piece::Kind::Pointer: {
      // print_arg_pointer(): "%p" whatever the conversion's flags.
      char buffer[kMaxPointerText];
      out.put(pointer_text(evaluate(piece.arg, data, size), buffer));
      break;
    }
    }
  }
}

} // namespace allocwatch

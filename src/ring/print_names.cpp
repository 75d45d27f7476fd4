#include "ring/print_names.h"

#include "kernel/symbol_names.h"

#include <algorithm>
#include <string_view>

extern "C" {
#include <event-parse.h>
}

namespace allocwatch {

namespace {

// Print arguments nest as deep as a format's parentheses; a forged format
// is cut here.
constexpr int kMaxDepth = 64;

// Where an argument stands: evaluated as a number (an operand, a cast's
// item, a helper's value), or perhaps printed as it is (an argument of the
// format itself, a branch of "?:" that is one: a string literal is an atom
// too).
enum class Place { Number, Printed };

void collect(const tep_print_arg* arg, Place place, int depth, std::vector<std::string>& names);

void collect_one(const tep_print_arg& arg, Place place, int depth,
                 std::vector<std::string>& names) {
  const auto number = [&](const tep_print_arg* child) {
    collect(child, Place::Number, depth + 1, names);
  };
  switch (arg.type) {
  case TEP_PRINT_ATOM:
    if (place == Place::Number && arg.atom.atom != nullptr && is_identifier(arg.atom.atom) &&
        std::find(names.begin(), names.end(), arg.atom.atom) == names.end())
      names.emplace_back(arg.atom.atom);
    break;
  case TEP_PRINT_TYPE:
    number(arg.typecast.item);
    break;
  case TEP_PRINT_OP: {
    const std::string_view op = arg.op.op != nullptr ? arg.op.op : "";
    if (op == "?") { // its right is the ":" whose operands are the branches
      number(arg.op.left);
      collect(arg.op.right, place, depth + 1, names);
    } else if (op == ":") {
      collect(arg.op.left, place, depth + 1, names);
      collect(arg.op.right, place, depth + 1, names);
    } else {
      number(arg.op.left);
      number(arg.op.right);
    }
    break;
  }
  case TEP_PRINT_FLAGS:
    number(arg.flags.field);
    break;
  case TEP_PRINT_SYMBOL:
    number(arg.symbol.field);
    break;
  case TEP_PRINT_HEX:
  case TEP_PRINT_HEX_STR:
    number(arg.hex.field);
    number(arg.hex.size);
    break;
  case TEP_PRINT_INT_ARRAY:
    number(arg.int_array.field);
    number(arg.int_array.count);
    number(arg.int_array.el_size);
    break;
  default:
    break; // fields, strings, arrays, bitmasks, helpers' own arguments
  }
}

// `arg` and the arguments after it (`next`).
void collect(const tep_print_arg* arg, Place place, int depth, std::vector<std::string>& names) {
  for (; arg != nullptr && depth < kMaxDepth; arg = arg->next)
    collect_one(*arg, place, depth, names);
}

} // namespace

std::vector<std::string> print_names(const tep_event& event) {
  std::vector<std::string> names;
  collect(event.print_fmt.args, Place::Printed, 0, names);
  return names;
}

std::size_t register_print_names(tep_handle* tep, const tep_event& event,
                                 SymbolAddresses& symbols) {
  const std::vector<std::string> names = print_names(event);
  if (names.empty())
    return 0;
  std::size_t registered = 0;
  for (auto& [name, address] : symbols.addresses(names))
    registered += tep_register_function(tep, name.data(), address, nullptr) == 0;
  return registered;
}

} // namespace allocwatch

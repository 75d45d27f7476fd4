// PrintPlan::make(): a plan from libtraceevent's parse of an event's print format
// (ring/print_plan.h); print_plan.cpp prints with it.
#include "ring/print_plan.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <string_view>
#include <traceevent/event-parse.h>

namespace allocwatch {

namespace {

// eval_type_str() for a value (not a pointer): the bits a cast to `type`
// keeps. libtraceevent never sign-extends here ("s32" and "int" alike keep
// the low 32 bits), and leaves pointers, structs, longs and unknown types
// whole.
std::uint64_t cast_mask(std::string_view type) {
  constexpr std::uint64_t kWhole = ~std::uint64_t{0};
  if (type.size() < 2 || type.back() == '*' || type.substr(0, 6) == "struct")
    return kWhole;
  if (type == "u8" || type == "s8")
    return 0xff;
  if (type == "u16" || type == "s16")
    return 0xffff;
  if (type == "u32" || type == "s32")
    return 0xffffffff;
  if (type.substr(0, 9) == "unsigned ")
    type.remove_prefix(9);
  if (type == "char")
    return 0xff;
  if (type == "short")
    return 0xffff;
  if (type == "int")
    return 0xffffffff;
  return kWhole;
}

} // namespace

class PrintPlan::Builder {
public:
  Builder(tep_event& event, PrintPlan& plan) : event_(event), plan_(plan) {}

  bool build() {
    const int flags = event_.flags;
    if ((flags & (TEP_EVENT_FL_FAILED | TEP_EVENT_FL_ISBPRINT | TEP_EVENT_FL_PRINTRAW)) != 0)
      return false;
    if (event_.handler != nullptr && (flags & TEP_EVENT_FL_NOHANDLE) == 0)
      return false;
    if (event_.tep == nullptr ||
        tep_is_file_bigendian(event_.tep) != tep_is_local_bigendian(event_.tep))
      return false;
    if (event_.print_fmt.format == nullptr)
      return false;
    const char* format = event_.print_fmt.format;
    tep_print_arg* arg = event_.print_fmt.args;
    while (*format != '\0') {
      if (*format == '%' && format[1] != '%') {
        if (!conversion(format, arg))
          return false;
      } else if (!literal(format)) {
        return false;
      }
    }
    for (const Piece& piece : plan_.pieces_)
      if (piece.prefix.find('\n') != std::string::npos)
        plan_.may_break_line_ = true;
    join_literals();
    for (const Text& text : plan_.texts_) {
      if (text.literal.find('\n') != std::string::npos ||
          text.delimiter.find('\n') != std::string::npos)
        plan_.may_break_line_ = true;
      for (const Text::Entry& entry : text.entries)
        if (entry.name.find('\n') != std::string::npos)
          plan_.may_break_line_ = true;
    }
    return true;
  }

private:
  // A literal before a conversion becomes its prefix; prefixes are padded
  // to whole blocks.
  void join_literals() {
    std::vector<Piece> joined;
    for (Piece& piece : plan_.pieces_) {
      if (piece.kind != Piece::Kind::Literal && !joined.empty() &&
          joined.back().kind == Piece::Kind::Literal) {
        piece.prefix = std::move(joined.back().prefix);
        joined.pop_back();
      }
      joined.push_back(std::move(piece));
    }
    plan_.expected_size_ = 0;
    for (Piece& piece : joined) {
      piece.prefix_size = static_cast<std::uint32_t>(piece.prefix.size());
      piece.prefix.resize((piece.prefix.size() + 15) / 16 * 16, '\0');
      plan_.expected_size_ += piece.prefix_size + (piece.kind == Piece::Kind::Literal ? 0 : 24);
    }
    plan_.pieces_ = std::move(joined);
  }

  // parse_arg_string(): text up to the next conversion, with "\n", "\t",
  // "\r", "\\" (any other "\c" is c) and "%%" as the characters they stand
  // for.
  bool literal(const char*& format) {
    std::string text;
    for (; *format != '\0'; ++format) {
      if (*format == '\\') {
        ++format;
        switch (*format) {
        case '\0':
          return false; // libtraceevent reads past the end
        case 'n':
          text.push_back('\n');
          break;
        case 't':
          text.push_back('\t');
          break;
        case 'r':
          text.push_back('\r');
          break;
        default:
          text.push_back(*format);
          break;
        }
      } else if (*format == '%') {
        if (format[1] != '%')
          break;
        text.push_back('%');
        ++format;
      } else {
        text.push_back(*format);
      }
    }
    Piece piece;
    piece.kind = Piece::Kind::Literal;
    piece.prefix = std::move(text);
    plan_.pieces_.push_back(std::move(piece));
    return true;
  }

  // parse_arg_format(), for the conversions a plan prints.
  bool conversion(const char*& format, tep_print_arg*& arg) {
    const char* start = format;
    int length = 0;
    bool plain = true; // no flags, width or precision
    for (++format; *format != '\0'; ++format) {
      switch (*format) {
      case 'h':
        --length;
        continue;
      case 'l':
        ++length;
        continue;
      case 'L':
        length = 2;
        continue;
      case 'z':
      case 'Z':
        length = 1;
        continue;
      case '#':
      case '.':
      case '-':
      case '0':
      case '1':
      case '2':
      case '3':
      case '4':
      case '5':
      case '6':
      case '7':
      case '8':
      case '9':
        plain = false;
        continue;
      case 'd':
      case 'i':
      case 'u':
      case 'x':
      case 'X':
      case 'o':
      case 's':
        break;
      case 'p':
        return pointer(start, format, arg);
      default:
        return false; // "*", and what libtraceevent prints as ">c<"
      }
      break;
    }
    if (*format == '\0' || arg == nullptr || length < -2 || length > 2 || too_wide(start, format))
      return false;
    const char kind = *format;
    ++format;
    Piece piece;
    piece.text.assign(start, format);
    piece.length = length;
    if (kind == 's') {
      piece.kind = Piece::Kind::String;
      piece.arg = text(arg);
    } else {
      piece.kind = Piece::Kind::Integer;
      piece.arg = number(arg);
      // "%d", "%lu", "%llx", "%zu" ...: no flags, width or precision, a
      // length of int, long or long long.
      const std::string_view lengths(piece.text.data() + 1, piece.text.size() - 2);
      const bool common =
          plain && (lengths.empty() || lengths == "l" || lengths == "ll" || lengths == "z");
      if (common && (kind == 'd' || kind == 'i'))
        piece.form = Piece::Form::Signed;
      else if (common && kind == 'u')
        piece.form = Piece::Form::Unsigned;
      else if (common && kind == 'x')
        piece.form = Piece::Form::Hex;
    }
    if (piece.arg < 0)
      return false;
    plan_.pieces_.push_back(std::move(piece));
    arg = arg->next;
    return true;
  }

  // Whether the conversion from `begin` to `end` has a width or precision
  // of more than three digits: a forged format's "%999999999d" is left to
  // libtraceevent, not printed a line of it at a time here.
  static bool too_wide(const char* begin, const char* end) {
    int digits = 0;
    for (const char* at = begin; at != end; ++at) {
      digits = *at >= '0' && *at <= '9' ? digits + 1 : 0;
      if (digits > 3)
        return true;
    }
    return false;
  }

  // parse_arg_format_pointer() and print_arg_pointer(), for "%pS", "%ps",
  // "%pF", "%pf" (a function's name, "+0x<offset>" for S and F) and "%p";
  // libtraceevent's MAC, IP, UUID and hex forms are left to it.
  bool pointer(const char* start, const char*& format, tep_print_arg*& arg) {
    if (arg == nullptr)
      return false;
    ++format; // past the 'p'
    Piece piece;
    switch (*format) {
    case 'F':
    case 'S':
      piece.kind = Piece::Kind::Function;
      piece.offset = FunctionOffset::With;
      ++format;
      break;
    case 'f':
    case 's':
      piece.kind = Piece::Kind::Function;
      ++format;
      break;
    case 'M':
    case 'm':
    case 'I':
    case 'i':
    case 'U':
    case 'h':
      return false;
    default:
      piece.kind = Piece::Kind::Pointer;
      break;
    }
    piece.text.assign(start, format);
    piece.arg = number(arg);
    if (piece.arg < 0)
      return false;
    plan_.pieces_.push_back(std::move(piece));
    arg = arg->next;
    return true;
  }

  int add(const Number& n) {
    plan_.numbers_.push_back(n);
    return static_cast<int>(plan_.numbers_.size()) - 1;
  }
  int add(Text t) {
    plan_.texts_.push_back(std::move(t));
    return static_cast<int>(plan_.texts_.size()) - 1;
  }

  // What `make` makes of `arg`, nested no deeper than kMaxDepth; -1 for
  // nothing.
  int nested(tep_print_arg* arg, int (Builder::*make)(tep_print_arg&)) {
    if (arg == nullptr || depth_ >= kMaxDepth)
      return -1;
    ++depth_;
    const int made = (this->*make)(*arg);
    --depth_;
    return made;
  }

  // eval_num_arg()'s cases that a plan evaluates; -1 for any other.
  int number(tep_print_arg* arg) { return nested(arg, &Builder::number_of); }

  int number_of(tep_print_arg& arg) {
    Number n;
    switch (arg.type) {
    case TEP_PRINT_ATOM: {
      const char* atom = arg.atom.atom;
      // A name would be looked up among the kernel's symbols.
      if (atom == nullptr || *atom < '0' || *atom > '9')
        return -1;
      n.kind = Number::Kind::Constant;
      n.value = std::strtoull(atom, nullptr, 0);
      return add(n);
    }
    case TEP_PRINT_FIELD: {
      tep_format_field* field = arg.field.field;
      if (field == nullptr && arg.field.name != nullptr)
        field = tep_find_any_field(&event_, arg.field.name);
      if (field == nullptr || field->offset < 0 || field->size < 0)
        return -1;
      n.kind = Number::Kind::Field;
      n.offset = static_cast<std::uint32_t>(field->offset);
      n.size = static_cast<std::uint32_t>(field->size);
      return add(n);
    }
    case TEP_PRINT_TYPE: {
      if (arg.typecast.type == nullptr)
        return -1;
      const int operand = number(arg.typecast.item);
      if (operand < 0)
        return -1;
      n.kind = Number::Kind::Mask;
      n.value = cast_mask(arg.typecast.type);
      n.left = operand;
      return add(n);
    }
    case TEP_PRINT_OP:
      return operation(arg);
    default:
      return -1; // helpers, arrays, strings: left to libtraceevent
    }
  }

  // The ":" of "condition ? a : b" as libtraceevent parses it (the "?"
  // operator, its right the ":" one), or null if `arg` is not that.
  static const tep_print_arg* choice_branches(const tep_print_arg& arg) {
    if (arg.type != TEP_PRINT_OP || arg.op.op == nullptr || std::string_view(arg.op.op) != "?" ||
        arg.op.left == nullptr || arg.op.right == nullptr)
      return nullptr;
    const tep_print_arg& branches = *arg.op.right;
    if (branches.type != TEP_PRINT_OP || branches.op.op == nullptr ||
        std::string_view(branches.op.op) != ":")
      return nullptr;
    return &branches;
  }

  int operation(tep_print_arg& arg) {
    const std::string_view op = arg.op.op != nullptr ? arg.op.op : "";
    if (arg.op.left == nullptr || arg.op.right == nullptr)
      return -1; // a unary operator
    Number n;
    if (op == "?") {
      const tep_print_arg* branches = choice_branches(arg);
      if (branches == nullptr)
        return -1;
      n.kind = Number::Kind::Choice;
      n.left = number(arg.op.left);
      n.right = number(branches->op.left);
      n.other = number(branches->op.right);
      if (n.left < 0 || n.right < 0 || n.other < 0)
        return -1;
      return add(n);
    }
    static constexpr struct {
      std::string_view text;
      Number::Op op;
    } kOps[] = {
        {"+", Number::Op::Add},
        {"-", Number::Op::Sub},
        {"*", Number::Op::Mul},
        {"/", Number::Op::Div},
        {"%", Number::Op::Mod},
        {"<<", Number::Op::Shl},
        {">>", Number::Op::Shr},
        {"&", Number::Op::And},
        {"|", Number::Op::Or},
        {"&&", Number::Op::LogicalAnd},
        {"||", Number::Op::LogicalOr},
        {"==", Number::Op::Equal},
        {"!=", Number::Op::NotEqual},
        {"<", Number::Op::Less},
        {"<=", Number::Op::LessEqual},
        {">", Number::Op::Greater},
        {">=", Number::Op::GreaterEqual},
    };
    for (const auto& known : kOps) {
      if (known.text != op)
        continue;
      n.kind = Number::Kind::Binary;
      n.op = known.op;
      n.left = number(arg.op.left);
      n.right = number(arg.op.right);
      if (n.left < 0 || n.right < 0)
        return -1;
      return add(n);
    }
    return -1; // "[", "^", and what libtraceevent does not evaluate
  }

  // print_str_arg()'s cases that a plan prints; -1 for any other.
  int text(tep_print_arg* arg) { return nested(arg, &Builder::text_of); }

  int text_of(tep_print_arg& arg) {
    Text t;
    switch (arg.type) {
    case TEP_PRINT_ATOM:
      if (arg.atom.atom == nullptr)
        return -1;
      t.kind = Text::Kind::Literal;
      t.literal = arg.atom.atom;
      return add(std::move(t));
    case TEP_PRINT_FLAGS:
      t.kind = Text::Kind::Flags;
      t.number = number(arg.flags.field);
      t.has_delimiter = arg.flags.delim != nullptr;
      if (t.has_delimiter)
        t.delimiter = arg.flags.delim;
      if (t.number < 0 || !entries(arg.flags.flags, t.entries))
        return -1;
      return add(std::move(t));
    case TEP_PRINT_SYMBOL:
      t.kind = Text::Kind::Symbol;
      t.number = number(arg.symbol.field);
      if (t.number < 0 || !entries(arg.symbol.symbols, t.entries))
        return -1;
      return add(std::move(t));
    case TEP_PRINT_OP: {
      const tep_print_arg* branches = choice_branches(arg);
      if (branches == nullptr)
        return -1;
      t.kind = Text::Kind::Choice;
      t.number = number(arg.op.left);
      t.then_text = text(branches->op.left);
      t.else_text = text(branches->op.right);
      if (t.number < 0 || t.then_text < 0 || t.else_text < 0)
        return -1;
      return add(std::move(t));
    }
    default:
      return -1;
    }
  }

  // eval_flag() of each value: a number as strtoull reads it; the names it
  // knows otherwise are left to libtraceevent.
  static bool entries(const tep_print_flag_sym* list, std::vector<Text::Entry>& out) {
    for (const tep_print_flag_sym* each = list; each != nullptr; each = each->next) {
      if (each->value == nullptr || each->str == nullptr || each->value[0] < '0' ||
          each->value[0] > '9')
        return false;
      out.push_back({static_cast<long long>(std::strtoull(each->value, nullptr, 0)), each->str});
    }
    return true;
  }

  static constexpr int kMaxDepth = 64;
  tep_event& event_;
  PrintPlan& plan_;
  int depth_ = 0;
};

std::unique_ptr<PrintPlan> PrintPlan::make(const tep_event& event) {
  std::unique_ptr<PrintPlan> plan(new PrintPlan());
  // libtraceevent's lookups take the event as mutable; the plan changes
  // nothing in it.
  Builder builder(const_cast<tep_event&>(event), *plan);
  if (!builder.build())
    return nullptr;
  for (const Piece& piece : plan->pieces_)
    if (piece.kind == Piece::Kind::Function && plan->functions_ == nullptr)
      plan->functions_ = std::make_unique<FunctionNames>(event.tep, kFunctionNames);
  for (const Number& n : plan->numbers_)
    if (n.kind == Number::Kind::Field)
      plan->reads_from_ = std::min<std::size_t>(plan->reads_from_, n.offset);
  return plan;
}

} // namespace allocwatch

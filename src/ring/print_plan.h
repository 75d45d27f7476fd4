// PrintPlan: an event's print format, as libtraceevent parsed it, made once
// into literal text and conversions that are evaluated straight from a
// record's bytes.
//
//   std::unique_ptr<PrintPlan> plan = PrintPlan::make(event);  // null: no plan
//   plan->append(payload, size, out);   // payload: `size` bytes, fixed fields all there
//
// The text is what tep_print_event() prints as the event's info: the format
// split as libtraceevent's parse_args() splits it, each argument evaluated
// as its eval_num_arg() and print_str_arg() do, each conversion printed
// with printf's own format (src/event-parse.c, libtraceevent 1.7/1.8). A
// plan is made only for the formats whose conversions are all integers
// (%d %i %u %x %X %o, with flags, width and length), strings (%s) of
// __print_flags, __print_symbolic, literals and `?:` choices, functions
// (%pS %ps %pF %pf, named by the tep's function resolver) and pointers
// (%p), over integer expressions of fixed-size fields: the tracepoints of
// reclaim and compaction print so. Any other format (dynamic strings and
// arrays, helper functions, a kernel symbol's name where a number goes,
// "*" widths or widths of more than three digits, %pM and its kind, an
// event libtraceevent failed to parse or has a handler for, a file of the
// other byte order) has no plan, and is left to tep_print_event().
// print_plan_test.cpp checks the two against each other on every event of
// the formats it has; the print_plan fuzz harness on any record's bytes.
// append() remembers the functions it named: one thread at a time.
#pragma once

#include "ring/function_text.h"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

struct tep_event;
struct tep_handle;
struct tep_print_arg;

namespace allocwatch {

class PrintPlan {
public:
  // The plan of `event`'s print format, or null when it has none.
  static std::unique_ptr<PrintPlan> make(const tep_event& event);

  // Appends the event's info for a record of `size` bytes at `payload`.
  // The record's fixed fields lie within them (a field past `size` is read
  // as 0, as libtraceevent reads it).
  void append(const void* payload, std::size_t size, std::string& out) const;

  // Whether a line break can be among what append() writes (a literal "\n"
  // or one in a flag's name).
  bool may_break_line() const { return may_break_line_; }

  // The first byte of a payload that append() reads (SIZE_MAX: none): its
  // text is the same for every payload whose bytes from there on are, and
  // whose size is (a field past it reads as 0).
  std::size_t reads_from() const { return reads_from_; }

private:
  // An integer expression: a field, a constant, a cast's mask, an
  // operator.
  struct Number {
    enum class Kind : std::uint8_t { Constant, Field, Mask, Binary, Choice };
    enum class Op : std::uint8_t {
      Add,
      Sub,
      Mul,
      Div,
      Mod,
      Shl,
      Shr,
      And,
      Or,
      LogicalAnd,
      LogicalOr,
      Equal,
      NotEqual,
      Less,
      LessEqual,
      Greater,
      GreaterEqual,
    };
    Kind kind = Kind::Constant;
    Op op = Op::Add;
    std::uint64_t value = 0;  // Constant: it; Mask: the mask
    std::uint32_t offset = 0; // Field
    std::uint32_t size = 0;   // Field: 1, 2, 4 or 8, else read as 0
    int left = -1;            // Mask: its operand; Binary; Choice: the condition
    int right = -1;           // Binary; Choice: if true
    int other = -1;           // Choice: if false
  };
  // A string's argument.
  struct Text {
    enum class Kind : std::uint8_t { Literal, Flags, Symbol, Choice };
    struct Entry {
      long long value = 0;
      std::string name;
    };
    Kind kind = Kind::Literal;
    std::string literal;        // Literal
    int number = -1;            // Flags, Symbol: the value; Choice: the condition
    std::vector<Entry> entries; // Flags, Symbol
    bool has_delimiter = false; // Flags
    std::string delimiter;      // Flags
    int then_text = -1;         // Choice
    int else_text = -1;         // Choice
  };
  struct Piece {
    // Function: "%pS" and the like; Pointer: "%p".
    enum class Kind : std::uint8_t { Literal, Integer, String, Function, Pointer };
    // How an Integer prints: a common conversion without flags or width
    // (formatted here), else through printf with `text` as its format.
    enum class Form : std::uint8_t { Printf, Signed, Unsigned, Hex };
    Kind kind = Kind::Literal;
    Form form = Form::Printf;
    int length = 0; // Integer: printf's length, -2 (hh) to 2 (ll)
    // Function: With for %pS and %pF ("+0x<offset>" after the name).
    FunctionOffset offset = FunctionOffset::Without;
    int arg = -1;     // Integer: a Number; String: a Text
    std::string text; // the conversion (none for a Literal)
    // The format's text before the conversion (all a Literal is), kept in
    // whole zero-padded 16-byte blocks: it is copied a block at a time.
    std::string prefix;
    std::uint32_t prefix_size = 0;
  };

  class Builder;
  class Cursor;
  std::uint64_t evaluate(int number, const unsigned char* data, std::size_t size) const;
  void append_text(const Piece& piece, int text, const unsigned char* data, std::size_t size,
                   Cursor& out) const;
  void append_integer(const Piece& piece, std::uint64_t value, Cursor& out) const;
  void append_printf(const Piece& piece, std::uint64_t value, Cursor& out) const;
  void append_function(const Piece& piece, std::uint64_t address, Cursor& out) const;

  std::vector<Number> numbers_;
  std::vector<Text> texts_;
  std::vector<Piece> pieces_;
  std::size_t expected_size_ = 0; // what a line takes, mostly
  bool may_break_line_ = false;
  std::size_t reads_from_ = SIZE_MAX;
  // Functions named so far, where the format prints one (a shrinker's
  // few hundred repeat on every call).
  static constexpr std::size_t kFunctionNames = 1024;
  mutable std::unique_ptr<FunctionNames> functions_;
};

} // namespace allocwatch

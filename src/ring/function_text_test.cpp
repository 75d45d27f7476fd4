#include "ring/function_text.h"
#include "util/digits.h"

#include <doctest/doctest.h>

extern "C" {
#include <event-parse.h>
}

namespace allocwatch {
namespace {

std::string text_of(tep_handle* tep, std::uint64_t address, FunctionOffset offset) {
  std::string out = "<";
  append_function_text(tep, address, offset, out);
  return out;
}

TEST_CASE("append_function_text: as print_function() writes %ps and %pS") {
  tep_handle* tep = tep_alloc();
  REQUIRE(tep != nullptr);
  REQUIRE(tep_register_function(tep, const_cast<char*>("super_cache_scan"), 0xffffffff81234900ULL,
                                nullptr) == 0);
  REQUIRE(tep_register_function(tep, const_cast<char*>("shrink_node"), 0xffffffff81234560ULL,
                                nullptr) == 0);
  // The tep's table ends a function where the next begins.
  REQUIRE(tep_register_function(tep, const_cast<char*>("_etext"), 0xffffffff81300000ULL, nullptr) ==
          0);
  const FunctionOffset with = FunctionOffset::With;
  const FunctionOffset without = FunctionOffset::Without;
  CHECK(text_of(tep, 0xffffffff81234560ULL, without) == "<shrink_node");
  CHECK(text_of(tep, 0xffffffff81234560ULL, with) == "<shrink_node+0x0");
  CHECK(text_of(tep, 0xffffffff812345a4ULL, with) == "<shrink_node+0x44");
  CHECK(text_of(tep, 0xffffffff81234a00ULL, with) == "<super_cache_scan+0x100");
  CHECK(text_of(tep, 0xffffffff81234a00ULL, without) == "<super_cache_scan");
  // Before every function: the address itself.
  CHECK(text_of(tep, 0xffffffff81000000ULL, with) == "<0xffffffff81000000");
  CHECK(text_of(tep, 0, without) == "<0x0");
  tep_free(tep);
}

TEST_CASE("FunctionNames: the texts of append_function_text, kept within their bounds") {
  tep_handle* tep = tep_alloc();
  REQUIRE(tep != nullptr);
  REQUIRE(tep_register_function(tep, const_cast<char*>("shrink_node"), 0xffffffff81234560ULL,
                                nullptr) == 0);
  const std::string long_name(FunctionNames::kMaxKeptText + 1, 'f');
  REQUIRE(tep_register_function(tep, const_cast<char*>(long_name.c_str()), 0xffffffff81240000ULL,
                                nullptr) == 0);
  REQUIRE(tep_register_function(tep, const_cast<char*>("_etext"), 0xffffffff81300000ULL, nullptr) ==
          0);
  FunctionNames names(tep, 8);
  CHECK(names.text(0xffffffff81234560ULL, FunctionOffset::Without) == "shrink_node");
  CHECK(names.text(0xffffffff81234570ULL, FunctionOffset::With) == "shrink_node+0x10");
  CHECK(names.text(0xffffffff81234560ULL, FunctionOffset::With) == "shrink_node+0x0");
  CHECK(names.text(0xffffffff81234560ULL, FunctionOffset::Without) == "shrink_node");
  CHECK(names.kept() == 3);
  // A text longer than a kernel symbol is made each time, never kept.
  CHECK(names.text(0xffffffff81240008ULL, FunctionOffset::Without) == long_name);
  CHECK(names.kept() == 3);
  // A trace that names a new address in every record: never more than 8
  // kept, each text still right.
  for (std::uint64_t i = 0; i < 1000; ++i) {
    const std::uint64_t address = 0x1000 + i * 8;
    char hex[kMaxHexText];
    REQUIRE(names.text(address, FunctionOffset::Without) == hex_text(address, hex));
    REQUIRE(names.kept() <= 8);
  }
  CHECK(names.forgotten() >= 1000 / 8 - 1);
  CHECK(names.text(0xffffffff81234570ULL, FunctionOffset::With) == "shrink_node+0x10");
  tep_free(tep);
}

TEST_CASE("ShrinkerNames: a call's \"%pS %p:\", right for any number of calls") {
  tep_handle* tep = tep_alloc();
  REQUIRE(tep != nullptr);
  REQUIRE(tep_register_function(tep, const_cast<char*>("super_cache_scan"), 0xffffffff81234900ULL,
                                nullptr) == 0);
  REQUIRE(tep_register_function(tep, const_cast<char*>("_etext"), 0xffffffff81300000ULL, nullptr) ==
          0);
  ShrinkerNames names(tep);
  CHECK(names.text(0xffffffff81234900ULL, 0xffff888102b24780ULL) ==
        "super_cache_scan+0x0 0xffff888102b24780:");
  CHECK(names.text(0xffffffff81234908ULL, 0) == "super_cache_scan+0x8 (nil):");
  // More instances than slots, twice over: every text its own call's.
  for (int pass = 0; pass < 2; ++pass)
    for (std::uint64_t i = 0; i < 4 * ShrinkerNames::kSlots; ++i) {
      char hex[kMaxHexText];
      const std::uint64_t instance = 0xffff888100000000ULL + i * 64;
      REQUIRE(names.text(0xffffffff81234900ULL, instance) ==
              "super_cache_scan+0x0 " + std::string(hex_text(instance, hex)) + ":");
    }
  tep_free(tep);
}

TEST_CASE("pointer_text: as print_arg_pointer() writes %p") {
  char buffer[kMaxPointerText];
  CHECK(pointer_text(0xffff888012345678ULL, buffer) == "0xffff888012345678");
  CHECK(pointer_text(0x1000, buffer) == "0x1000");
  CHECK(pointer_text(~0ULL, buffer) == "0xffffffffffffffff");
  CHECK(pointer_text(0, buffer) == "(nil)");
}

} // namespace
} // namespace allocwatch

#include "ring/kernel_symbols.h"

#include <doctest/doctest.h>
#include <string>

extern "C" {
#include <event-parse.h>
}

namespace allocwatch {
namespace {

// Lines as 6.18's /proc/kallsyms prints them (not sorted across modules).
const std::string kKallsyms = "ffffffff81000000 T _stext\n"
                              "ffffffff81234550 t __pfx_shrink_node\n"
                              "ffffffff81234560 t shrink_node\n"
                              "ffffffff81234900 T super_cache_scan\n"
                              "ffffffff81300000 D some_data\n"
                              "ffffffff81400000 W weak_function\n"
                              "ffffffffc0210000 t ext4_es_scan\t[ext4]\n"
                              "ffffffffc0210100 t ext4_es_count\t[ext4]\n"
                              "ffffffffc0201000 t ftrace_trampoline\t[__builtin__ftrace]\n"
                              "not a line\n"
                              "ffffffff81500000 T\n";

TEST_CASE("KernelSymbols: the function an address lies in, text symbols only") {
  KernelSymbols symbols;
  // Cut anywhere, as chunked reads cut it.
  for (std::size_t at = 0; at < kKallsyms.size(); at += 7)
    symbols.add(std::string_view(kKallsyms).substr(at, 7));
  symbols.finish();
  CHECK(symbols.size() == 7);
  KernelSymbols::Found found;
  REQUIRE(symbols.lookup(0xffffffff81234560ULL + 0x10, found));
  CHECK(std::string(found.name) == "shrink_node");
  CHECK(found.start == 0xffffffff81234560ULL);
  CHECK(found.module == nullptr);
  REQUIRE(symbols.lookup(0xffffffff81234558ULL, found)); // padding: the function before
  CHECK(std::string(found.name) == "_stext");
  REQUIRE(symbols.lookup(0xffffffff81234900ULL, found));
  CHECK(std::string(found.name) == "super_cache_scan");
  REQUIRE(symbols.lookup(0xffffffff81300010ULL, found)); // data is not a function
  CHECK(std::string(found.name) == "super_cache_scan");
  REQUIRE(symbols.lookup(0xffffffffc0210104ULL, found));
  CHECK(std::string(found.name) == "ext4_es_count");
  CHECK(std::string(found.module) == "ext4");
  REQUIRE(symbols.lookup(0xffffffffc0201000ULL, found));
  CHECK(std::string(found.module) == "__builtin__ftrace");
  CHECK_FALSE(symbols.lookup(0xffffffff80000000ULL, found));
}

TEST_CASE("KernelSymbols: a 32-bit kernel's addresses, 8 digits wide") {
  KernelSymbols symbols;
  symbols.add("c1000000 T startup_32\nc1234560 t shrink_node\nc1300000 D some_data\n");
  symbols.finish();
  CHECK(symbols.size() == 2);
  KernelSymbols::Found found;
  REQUIRE(symbols.lookup(0xc1234570ULL, found));
  CHECK(std::string(found.name) == "shrink_node");
  CHECK(found.start == 0xc1234560ULL);
}

TEST_CASE("KernelSymbols: a tep's resolver answers through it") {
  KernelSymbols symbols;
  symbols.add(kKallsyms);
  symbols.finish();
  tep_handle* tep = tep_alloc();
  tep_set_function_resolver(
      tep,
      [](void* table, unsigned long long* address, char** module) {
        return static_cast<const KernelSymbols*>(table)->resolve(address, module);
      },
      &symbols);
  const char* name = tep_find_function(tep, 0xffffffff81234908ULL);
  REQUIRE(name != nullptr);
  CHECK(std::string(name) == "super_cache_scan");
  CHECK(tep_find_function_address(tep, 0xffffffff81234908ULL) == 0xffffffff81234900ULL);
  CHECK(tep_find_function(tep, 0x1000) == nullptr);
  tep_free(tep);
}

} // namespace
} // namespace allocwatch

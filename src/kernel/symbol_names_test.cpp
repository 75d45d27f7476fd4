#include "kernel/symbol_names.h"

#include <doctest/doctest.h>

using namespace allocwatch;

TEST_CASE("is_symbol and is_identifier: C identifiers, and clones' dots for symbols") {
  for (const char* name : {"vmemmap_base", "_stext", "shrink_node", "__x64_sys_read2"}) {
    CAPTURE(name);
    CHECK(is_symbol(name));
    CHECK(is_identifier(name));
  }
  CHECK(is_symbol("shrink_folio_list.constprop.0"));
  CHECK_FALSE(is_identifier("shrink_folio_list.constprop.0"));
  for (const char* not_one :
       {"", "0x10", "9lives", "RECLAIM WB", "a-b", "$x", "\xc3\xa9t\xc3\xa9"}) {
    CAPTURE(not_one);
    CHECK_FALSE(is_symbol(not_one));
    CHECK_FALSE(is_identifier(not_one));
  }
}

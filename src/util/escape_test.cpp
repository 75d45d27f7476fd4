#include "util/escape.h"

#include <doctest/doctest.h>
#include <string>

using namespace allocwatch;

TEST_CASE("escape: printable text and UTF-8 stay as they are") {
  CHECK(escaped("shrink_slab") == "shrink_slab");
  CHECK(escaped("/tmp/a dir/profile.yaml") == "/tmp/a dir/profile.yaml");
  CHECK(escaped("réclamation 内存") == "réclamation 内存");
  CHECK(escaped("") == "");
  CHECK(quote("evnets") == "'evnets'");
}

TEST_CASE("escape: a terminal's control bytes never pass through") {
  CHECK(escaped("\x1b[31mred\x1b[0m") == "\\x1b[31mred\\x1b[0m");
  CHECK(escaped("a\nallocwatch: forged") == "a\\nallocwatch: forged");
  CHECK(escaped("tab\there\r") == "tab\\there\\r");
  CHECK(escaped(std::string("nul\0byte", 8)) == "nul\\x00byte");
  CHECK(escaped("\x7f") == "\\x7f");
  CHECK(escaped("back\\slash") == "back\\\\slash");
  CHECK(quote("it's") == "'it\\'s'");
  CHECK(escaped("it's") == "it's");
}

TEST_CASE("escape: malformed UTF-8 byte by byte, C1 controls and bidi overrides by code point") {
  CHECK(escaped("\xff\xfe") == "\\xff\\xfe");
  CHECK(escaped("\xc3") == "\\xc3");                   // cut short
  CHECK(escaped("\xc0\xaf") == "\\xc0\\xaf");          // overlong '/'
  CHECK(escaped("\xed\xa0\x80") == "\\xed\\xa0\\x80"); // a surrogate
  CHECK(escaped("\xc2\x9b"
                "31m") == "\\u{009b}31m"); // CSI as one C1 code point
  CHECK(escaped("abc\xe2\x80\xae"
                "fed") == "abc\\u{202e}fed"); // RIGHT-TO-LEFT OVERRIDE
  CHECK(escaped("\xe2\x80\xa8") == "\\u{2028}");
  CHECK(escaped("\xf0\x9f\x90\xa7") == "\xf0\x9f\x90\xa7"); // outside the BMP, printable
}

TEST_CASE("escape: every byte value gives printable ASCII or kept UTF-8") {
  for (int byte = 0; byte < 256; ++byte) {
    const std::string out = escaped(std::string(1, static_cast<char>(byte)));
    for (char c : out)
      CHECK((c >= 0x20 && c < 0x7f));
  }
}

#include "util/terminal_text.h"

#include <doctest/doctest.h>
#include <sstream>

using namespace allocwatch;

TEST_CASE("terminal text: printable ASCII passes, everything else is \\xNN") {
  CHECK(terminal_text("memhog-170") == "memhog-170");
  CHECK(terminal_text("kworker/u4:2 x") == "kworker/u4:2 x");
  CHECK(terminal_text("") == "");
  // ESC sequences (colour, title, clear screen) lose their ESC.
  CHECK(terminal_text("\x1b[2J\x1b]0;owned\x07") == "\\x1b[2J\\x1b]0;owned\\x07");
  CHECK(terminal_text("a\rb\nc\td") == "a\\x0db\\x0ac\\x09d");
  CHECK(terminal_text(std::string_view("nul\0x", 5)) == "nul\\x00x");
  // C1 controls (CSI is 0x9b), DEL, and UTF-8 all become plain ASCII.
  CHECK(terminal_text("\x9b"
                      "31m\x7f") == "\\x9b31m\\x7f");
  CHECK(terminal_text("\xc2\x9b") == "\\xc2\\x9b");
  // A backslash is doubled, so that "\x1b" typed by a task is not an escape.
  CHECK(terminal_text("\\x1b") == "\\\\x1b");
  std::ostringstream out;
  write_terminal_text(out, "a\x1b");
  CHECK(out.str() == "a\\x1b");
}

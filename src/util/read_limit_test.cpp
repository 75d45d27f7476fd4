#include "util/read_limit.h"

#include <cerrno>
#include <doctest/doctest.h>
#include <fcntl.h>
#include <string>
#include <unistd.h>

using namespace allocwatch;

TEST_CASE("read_at_most: all of a short input, EFBIG past the limit, errno on a read error") {
  int fds[2];
  REQUIRE(::pipe(fds) == 0);
  REQUIRE(::write(fds[1], "twelve bytes", 12) == 12);
  ::close(fds[1]);
  std::string text;
  CHECK(read_at_most(fds[0], 12, text) == 0);
  CHECK(text == "twelve bytes");
  ::close(fds[0]);

  const int zero = ::open("/dev/zero", O_RDONLY | O_CLOEXEC); // never ends
  REQUIRE(zero >= 0);
  std::string endless;
  CHECK(read_at_most(zero, 100000, endless) == EFBIG);
  CHECK(endless.size() <= 100000 + 65536);
  ::close(zero);

  std::string none;
  CHECK(read_at_most(-1, 10, none) == EBADF);
}

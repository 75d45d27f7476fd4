#include "util/read_limit.h"

#include <cerrno>
#include <unistd.h>

namespace allocwatch {

int read_at_most(int fd, std::size_t limit, std::string& out) {
  char buffer[65536];
  const std::size_t start = out.size();
  for (;;) {
    const ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0)
      return errno;
    if (n == 0)
      return 0;
    out.append(buffer, static_cast<std::size_t>(n));
    if (out.size() - start > limit)
      return EFBIG;
  }
}

} // namespace allocwatch

#include "cgroup/file_reader.h"

#include "util/read_limit.h"

#include <fcntl.h>
#include <unistd.h>

namespace allocwatch {

std::optional<std::string> SystemFiles::read(const std::string& path) const {
  constexpr std::size_t kLimit = 64 * 1024;
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
  if (fd < 0)
    return std::nullopt;
  std::string bytes;
  const int error = read_at_most(fd, kLimit, bytes);
  ::close(fd);
  if (error != 0)
    return std::nullopt;
  return bytes;
}

} // namespace allocwatch

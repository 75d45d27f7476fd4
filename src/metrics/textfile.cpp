#include "metrics/textfile.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace allocwatch {

namespace {

Status failed(const std::string& what, const std::string& path) {
  return Error{"cannot " + what + " " + path + ": " + std::strerror(errno)};
}

Status write_all(int fd, std::string_view content, const std::string& path) {
  while (!content.empty()) {
    const ssize_t n = ::write(fd, content.data(), content.size());
    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0)
      return failed("write", path);
    content.remove_prefix(static_cast<std::size_t>(n));
  }
  return Ok{};
}

} // namespace

std::string temporary_path(const std::string& path) {
  const std::size_t slash = path.rfind('/');
  const std::string dir = slash == std::string::npos ? "" : path.substr(0, slash + 1);
  const std::string name = slash == std::string::npos ? path : path.substr(slash + 1);
  return dir + "." + name + "." + std::to_string(::getpid()) + ".tmp";
}

Status write_file_atomically(const std::string& path, std::string_view content) {
  const std::string temporary = temporary_path(path);
  // A temporary left by a crash, or planted: removed, then created anew
  // (O_EXCL), so that nothing but a fresh file of ours is written.
  if (::unlink(temporary.c_str()) != 0 && errno != ENOENT)
    return failed("remove the stale", temporary);
  const int fd =
      ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
  if (fd < 0)
    return failed("create", temporary);
  Status status = write_all(fd, content, temporary);
  if (status && ::fchmod(fd, 0644) != 0)
    status = failed("set the mode of", temporary);
  if (::close(fd) != 0 && status)
    status = failed("write", temporary);
  if (status && ::rename(temporary.c_str(), path.c_str()) != 0)
    status = failed("rename " + temporary + " to", path);
  if (!status)
    ::unlink(temporary.c_str());
  return status;
}

} // namespace allocwatch

#include "tracefs/files.h"

#include "ring/libtracefs.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <unistd.h>

namespace allocwatch {

std::string_view trimmed(std::string_view text) {
  const auto space = [](char c) { return c == ' ' || c == '\n' || c == '\t'; };
  while (!text.empty() && space(text.front()))
    text.remove_prefix(1);
  while (!text.empty() && space(text.back()))
    text.remove_suffix(1);
  return text;
}

void InstanceFree::operator()(tracefs_instance* instance) const {
  tracefs_instance_free(instance);
}

Result<InstancePtr> open_top_level(const std::string& tracing_dir) {
  InstancePtr top(tracefs_instance_alloc(tracing_dir.c_str(), nullptr));
  if (!top)
    return Error{"cannot use " + tracing_dir +
                 " as the tracing directory: " + std::strerror(errno != 0 ? errno : ENOTDIR)};
  return top;
}

Status use_tracing_dir(const std::string& dir) {
  std::string copy = dir; // tracefs_set_tracing_dir() takes a char*
  if (tracefs_set_tracing_dir(copy.data()) != 0)
    return Error{"cannot use " + dir + " as the tracing directory: out of memory"};
  return Ok{};
}

std::string tracefs_path(tracefs_instance* instance, const std::string& path) {
  char* full = tracefs_instance_get_file(instance, path.c_str());
  if (full == nullptr)
    return path;
  std::string result(full);
  tracefs_put_tracing_file(full);
  return result;
}

Error tracefs_error(const char* verb, tracefs_instance* instance, const std::string& path,
                    int err) {
  return Error{std::string("cannot ") + verb + " " + tracefs_path(instance, path) + ": " +
               std::strerror(err)};
}

Result<std::string> read_tracefs_file(tracefs_instance* instance, const std::string& path) {
  const int fd = tracefs_instance_file_open(instance, path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return tracefs_error("read", instance, path, errno);
  std::string content;
  char buf[8192];
  for (;;) {
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0) {
      if (errno == EINTR)
        continue;
      const int err = errno;
      ::close(fd);
      return tracefs_error("read", instance, path, err);
    }
    if (n == 0)
      break;
    content.append(buf, static_cast<std::size_t>(n));
  }
  ::close(fd);
  return content;
}

Status write_tracefs_file(tracefs_instance* instance, const std::string& path,
                          const std::string& text) {
  errno = 0;
  const int written = tracefs_instance_file_write(instance, path.c_str(), text.c_str());
  if (written < 0 || static_cast<std::size_t>(written) != text.size())
    return tracefs_error("write", instance, path, errno != 0 ? errno : EIO);
  return Ok{};
}

} // namespace allocwatch

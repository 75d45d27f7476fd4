#include "tracefs/dat_sources.h"

#include "tracefs/files.h"
#include "ring/libtracefs.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <unistd.h>

namespace allocwatch {
namespace {

constexpr const char* kKallsyms = "/proc/kallsyms";

// Hands everything `fd` reads to `out`, 64 KiB at a time; closes `fd`.
Status stream_fd(int fd, const std::string& name, const DatSources::Chunk& out) {
  char chunk[64 * 1024];
  Status status = Ok{};
  while (status) {
    const ssize_t n = ::read(fd, chunk, sizeof chunk);
    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0)
      status = Error{"cannot read " + name + ": " + std::strerror(errno)};
    else if (n == 0)
      break;
    else
      status = out(std::string_view(chunk, static_cast<std::size_t>(n)));
  }
  ::close(fd);
  return status;
}

} // namespace

TracefsDatSources::TracefsDatSources(tracefs_instance* buffer, tracefs_instance* top)
    : buffer_(buffer), top_(top) {}

Status TracefsDatSources::read(const std::string& path, const Chunk& out) {
  if (path == kKallsyms) {
    const int fd = ::open(kKallsyms, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
      return Error{std::string("cannot read ") + kKallsyms + ": " + std::strerror(errno)};
    return stream_fd(fd, kKallsyms, out);
  }
  tracefs_instance* where = path == "printk_formats" || path == "saved_cmdlines" ? top_ : buffer_;
  const int fd = tracefs_instance_file_open(where, path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return tracefs_error("read", where, path, errno);
  return stream_fd(fd, tracefs_path(where, path), out);
}

Result<std::vector<std::string>> TracefsDatSources::ftrace_events() {
  const char* dir = tracefs_instance_get_trace_dir(top_);
  char** events = tracefs_system_events(dir, "ftrace");
  if (events == nullptr)
    return Error{std::string("cannot list ") + (dir != nullptr ? dir : "tracefs") +
                 "/events/ftrace: " + std::strerror(errno != 0 ? errno : ENOENT)};
  std::vector<std::string> names;
  for (char** event = events; *event != nullptr; ++event)
    names.emplace_back(*event);
  tracefs_list_free(events);
  return names;
}

} // namespace allocwatch

#include "tracefs/pipe_source.h"

#include "tracefs/files.h"
#include "ring/libtracefs.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <poll.h>
#include <time.h>
#include <unistd.h>

namespace allocwatch {

namespace {
// trace_pipe hands out at most a page per read(2) (two on recent kernels);
// a caller's large buffer is filled with several.
constexpr std::size_t kKernelReadLimit = 4096;
} // namespace

Result<std::unique_ptr<PipeSource>> PipeSource::open(tracefs_instance* instance,
                                                     std::function<bool()> should_stop,
                                                     std::chrono::milliseconds batch_delay) {
  const int fd =
      tracefs_instance_file_open(instance, "trace_pipe", O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0)
    return tracefs_error("open", instance, "trace_pipe", errno);
  return std::unique_ptr<PipeSource>(
      new PipeSource(instance, fd, std::move(should_stop), batch_delay));
}

PipeSource::PipeSource(tracefs_instance* instance, int fd, std::function<bool()> should_stop,
                       std::chrono::milliseconds batch_delay)
    : instance_(instance), fd_(fd), should_stop_(std::move(should_stop)),
      batch_delay_(batch_delay) {}

PipeSource::~PipeSource() {
  close();
}

void PipeSource::close() {
  if (fd_ >= 0)
    ::close(fd_);
  fd_ = -1;
}

long PipeSource::read_available(char* buf, std::size_t n) {
  std::size_t filled = 0;
  while (filled < n) {
    const ssize_t got = ::read(fd_, buf + filled, n - filled);
    if (got > 0) {
      filled += static_cast<std::size_t>(got);
      if (n - filled < kKernelReadLimit)
        break;
      continue;
    }
    if (got == 0) // only a fake (a FIFO whose writer left) ends this way
      return filled > 0 ? static_cast<long>(filled) : -1;
    if (errno == EINTR)
      continue;
    if (errno == EAGAIN || errno == EWOULDBLOCK)
      break;
    if (filled > 0) // report the error on the next call, after these bytes
      break;
    throw FatalError(tracefs_error("read", instance_, "trace_pipe", errno).message);
  }
  return static_cast<long>(filled);
}

std::size_t PipeSource::read(char* buf, std::size_t n) {
  if (n == 0)
    return 0;
  for (;;) {
    if (fd_ < 0)
      return 0;
    if (!draining_ && should_stop_()) {
      if (tracefs_trace_off(instance_) != 0)
        throw FatalError(tracefs_error("write", instance_, "tracing_on", errno).message +
                         " (switching tracing off)");
      draining_ = true;
    }
    const long got = read_available(buf, n);
    if (got > 0)
      return static_cast<std::size_t>(got);
    if (got < 0 || draining_) {
      close();
      return 0;
    }
    pollfd pfd{fd_, POLLIN, 0};
    const int ready = ::poll(&pfd, 1, static_cast<int>(kPollInterval.count()));
    if (ready < 0 && errno != EINTR)
      throw FatalError(std::string("cannot wait on trace_pipe: ") + std::strerror(errno));
    if (ready > 0 && (pfd.revents & POLLIN) != 0) {
      const timespec delay{static_cast<time_t>(batch_delay_.count() / 1000),
                           static_cast<long>(batch_delay_.count() % 1000 * 1'000'000)};
      ::nanosleep(&delay, nullptr); // a signal (a stop) cuts it short
    }
  }
}

} // namespace allocwatch

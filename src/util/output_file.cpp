#include "util/output_file.h"

#include "util/escape.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <iostream>
#include <poll.h>
#include <unistd.h>
#include <vector>

namespace allocwatch {

// A buffer over a file descriptor. After the first failed write it keeps
// failing (the stream's badbit stays set) and remembers the errno.
class OutputFile::FdBuffer : public std::streambuf {
public:
  FdBuffer(int fd, Ownership ownership)
      : fd_(fd), owned_(ownership == Ownership::Owned), data_(kSize) {
    setp(data_.data(), data_.data() + data_.size());
  }
  ~FdBuffer() override {
    if (owned_ && fd_ >= 0)
      ::close(fd_);
  }

  int error() const { return error_; }

  bool write_all(const char* p, std::size_t left) {
    if (error_ != 0)
      return false;
    while (left > 0) {
      const ssize_t put = ::write(fd_, p, left);
      if (put > 0) {
        p += put;
        left -= static_cast<std::size_t>(put);
      } else if (put < 0 && errno == EINTR) {
        continue;
      } else if (put < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
        // A descriptor left non-blocking by whoever gave it to us.
        pollfd wait{fd_, POLLOUT, 0};
        if (::poll(&wait, 1, -1) < 0 && errno != EINTR)
          return fail(errno);
      } else {
        return fail(put < 0 ? errno : EIO);
      }
    }
    return true;
  }

  // Writes what the buffer holds; closes an owned descriptor.
  bool close() {
    const bool flushed = sync() == 0;
    if (owned_ && fd_ >= 0) {
      const int closed = ::close(fd_);
      fd_ = -1;
      if (closed != 0 && error_ == 0) // NFS and some FUSE file systems report here
        return fail(errno);
    }
    return flushed && error_ == 0;
  }

protected:
  int_type overflow(int_type c) override {
    if (!drain())
      return traits_type::eof();
    if (!traits_type::eq_int_type(c, traits_type::eof())) {
      *pptr() = traits_type::to_char_type(c);
      pbump(1);
    }
    return traits_type::not_eof(c);
  }

  std::streamsize xsputn(const char* s, std::streamsize n) override {
    if (n <= 0) // an empty view may have no data at all: nothing to copy
      return 0;
    const auto size = static_cast<std::size_t>(n);
    if (size <= static_cast<std::size_t>(epptr() - pptr())) {
      std::memcpy(pptr(), s, size);
      pbump(static_cast<int>(n));
      return n;
    }
    if (!drain())
      return 0;
    if (size < data_.size()) {
      std::memcpy(pptr(), s, size);
      pbump(static_cast<int>(n));
      return n;
    }
    return write_all(s, size) ? n : 0;
  }

  int sync() override { return drain() ? 0 : -1; }

private:
  static constexpr std::size_t kSize = 64 * 1024;

  bool fail(int err) {
    if (error_ == 0)
      error_ = err;
    return false;
  }

  bool drain() {
    const std::size_t held = static_cast<std::size_t>(pptr() - pbase());
    setp(data_.data(), data_.data() + data_.size());
    return write_all(data_.data(), held);
  }

  int fd_;
  bool owned_;
  int error_ = 0;
  std::vector<char> data_;
};

OutputFile::OutputFile(int fd, std::string name, Ownership ownership)
    : name_(std::move(name)), buffer_(std::make_unique<FdBuffer>(fd, ownership)),
      stream_(buffer_.get()) {}

OutputFile::OutputFile(int fd, std::string name)
    : OutputFile(fd, std::move(name), Ownership::Borrowed) {}

OutputFile::~OutputFile() = default;

Result<std::unique_ptr<OutputFile>> OutputFile::create(const std::string& path, mode_t mode) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);
  if (fd < 0)
    return Error{"cannot write " + escaped(path) + ": " + std::strerror(errno)};
  return std::unique_ptr<OutputFile>(new OutputFile(fd, path, Ownership::Owned));
}

std::streambuf* OutputFile::buffer() {
  return buffer_.get();
}

Status OutputFile::write(const char* data, std::size_t size) {
  if (buffer_->pubsync() != 0 || !buffer_->write_all(data, size)) {
    stream_.setstate(std::ios::badbit);
    return Error{"cannot write " + escaped(name_) + ": " + std::strerror(buffer_->error())};
  }
  return Ok{};
}

Status OutputFile::finish() {
  if (!buffer_->close())
    return Error{"cannot write " + escaped(name_) + ": " + std::strerror(buffer_->error())};
  return Ok{};
}

CheckedStdout::CheckedStdout()
    : out_(STDOUT_FILENO, "stdout"), previous_(std::cout.rdbuf(out_.buffer())) {}

CheckedStdout::~CheckedStdout() {
  std::cout.flush();
  std::cout.rdbuf(previous_);
}

} // namespace allocwatch

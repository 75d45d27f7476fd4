#include "util/output_file.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <unistd.h>

namespace allocwatch {

OutputFile::Buffer::Buffer(int fd) : fd_(fd) {
  setp(data_, data_ + sizeof data_);
}

int OutputFile::Buffer::drain() {
  const char* at = pbase();
  std::size_t left = static_cast<std::size_t>(pptr() - pbase());
  while (left > 0 && error_ == 0) {
    const ssize_t written = ::write(fd_, at, left);
    if (written < 0) {
      if (errno != EINTR)
        error_ = errno;
      continue;
    }
    at += written;
    left -= static_cast<std::size_t>(written);
  }
  setp(data_, data_ + sizeof data_); // after an error, what follows is dropped
  return error_ == 0 ? 0 : -1;
}

OutputFile::Buffer::int_type OutputFile::Buffer::overflow(int_type c) {
  if (drain() != 0)
    return traits_type::eof();
  if (!traits_type::eq_int_type(c, traits_type::eof())) {
    *pptr() = traits_type::to_char_type(c);
    pbump(1);
  }
  return traits_type::not_eof(c);
}

OutputFile::OutputFile(std::string path, int fd)
    : path_(std::move(path)), buffer_(fd), stream_(&buffer_) {}

Result<std::unique_ptr<OutputFile>> OutputFile::open(const std::string& path) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0)
    return Error{"cannot write " + path + ": " + std::strerror(errno)};
  return std::unique_ptr<OutputFile>(new OutputFile(path, fd));
}

Status OutputFile::close() {
  const int fd = buffer_.fd();
  if (fd < 0)
    return Ok{};
  buffer_.flush_all();
  int error = buffer_.error();
  if (::close(fd) != 0 && error == 0)
    error = errno;
  buffer_.release();
  if (error != 0)
    return Error{"cannot write " + path_ + ": " + std::strerror(error)};
  return Ok{};
}

OutputFile::~OutputFile() {
  if (buffer_.fd() >= 0)
    ::close(buffer_.fd());
}

} // namespace allocwatch

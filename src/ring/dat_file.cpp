#include "ring/dat_file.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <stdlib.h>
#include <unistd.h>

namespace allocwatch {
namespace {

constexpr std::size_t kBufferSize = 64 * 1024;

std::string directory_of(const std::string& path) {
  const std::string dir = std::filesystem::path(path).parent_path().string();
  return dir.empty() ? "." : dir;
}

// Whether open(O_TMPFILE) failed because the file system lacks it.
bool tmpfile_unsupported(int err) {
  return err == EOPNOTSUPP || err == EISDIR || err == EINVAL;
}

Error file_error(const char* verb, const std::string& name, int err) {
  return Error{std::string("cannot ") + verb + " " + name + ": " + std::strerror(err)};
}

constexpr unsigned kTempNames = 1000;

// The n-th temporary name beside `path`.
std::string temp_name(const std::string& path, unsigned n) {
  return path + ".allocwatch-" + std::to_string(getpid()) + "-" + std::to_string(n);
}

// A new file under the first free temporary name, and that name.
Result<std::pair<Fd, std::string>> create_named_temp(const std::string& path) {
  for (unsigned n = 0;; ++n) {
    std::string name = temp_name(path, n);
    const int fd = ::open(name.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd >= 0)
      return std::pair<Fd, std::string>{Fd(fd), std::move(name)};
    if (errno != EEXIST || n + 1 == kTempNames)
      return file_error("create", name, errno);
  }
}

} // namespace

Fd& Fd::operator=(Fd&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0)
      ::close(fd_);
    fd_ = other.release();
  }
  return *this;
}

Fd::~Fd() {
  if (fd_ >= 0)
    ::close(fd_);
}

int Fd::release() {
  const int fd = fd_;
  fd_ = -1;
  return fd;
}

Result<Fd> scratch_file_beside(const std::string& path) {
  const std::string dir = directory_of(path);
  const int fd = ::open(dir.c_str(), O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
  if (fd >= 0)
    return Fd(fd);
  if (!tmpfile_unsupported(errno))
    return file_error("create a temporary file in", dir, errno);
  auto named = create_named_temp(path);
  if (!named)
    return named.error();
  if (::unlink(named->second.c_str()) != 0)
    return file_error("remove", named->second, errno);
  return std::move(named->first);
}

Status write_all(int fd, const void* data, std::size_t size, const std::string& name) {
  const char* at = static_cast<const char*>(data);
  while (size > 0) {
    const ssize_t n = ::write(fd, at, size);
    if (n < 0) {
      if (errno == EINTR)
        continue;
      return file_error("write", name, errno);
    }
    at += n;
    size -= static_cast<std::size_t>(n);
  }
  return Ok{};
}

Result<DatFile> DatFile::create(const std::string& path) {
  const std::string dir = directory_of(path);
  const int fd = ::open(dir.c_str(), O_TMPFILE | O_RDWR | O_CLOEXEC, 0644);
  if (fd >= 0)
    return DatFile(path, Fd(fd), "");
  if (!tmpfile_unsupported(errno))
    return file_error("create", path, errno);
  auto named = create_named_temp(path);
  if (!named)
    return named.error();
  return DatFile(path, std::move(named->first), std::move(named->second));
}

DatFile::DatFile(std::string path, Fd fd, std::string temp_name)
    : path_(std::move(path)), fd_(std::move(fd)), temp_name_(std::move(temp_name)) {
  buffer_.reserve(kBufferSize);
}

DatFile::DatFile(DatFile&& other) noexcept
    : path_(std::move(other.path_)), fd_(std::move(other.fd_)),
      temp_name_(std::move(other.temp_name_)), buffer_(std::move(other.buffer_)),
      size_(other.size_), error_(std::move(other.error_)), committed_(other.committed_) {
  other.temp_name_.clear();
}

DatFile::~DatFile() {
  if (!committed_ && !temp_name_.empty())
    ::unlink(temp_name_.c_str());
}

void DatFile::fail(Error error) {
  if (!error_)
    error_ = std::move(error);
}

void DatFile::fail_with(const char* verb, int err) {
  fail(file_error(verb, path_, err));
}

void DatFile::flush() {
  if (!error_) {
    Status written = write_all(fd_.get(), buffer_.data(), buffer_.size(), path_);
    if (!written)
      fail(written.error());
  }
  buffer_.clear();
}

void DatFile::write(const void* data, std::size_t size) {
  if (error_)
    return;
  const char* at = static_cast<const char*>(data);
  size_ += size;
  while (size > 0) {
    const std::size_t room = kBufferSize - buffer_.size();
    const std::size_t take = size < room ? size : room;
    buffer_.insert(buffer_.end(), at, at + take);
    at += take;
    size -= take;
    if (buffer_.size() == kBufferSize)
      flush();
  }
}

void DatFile::pad_to(std::uint64_t alignment) {
  static const char zeros[4096] = {};
  std::uint64_t missing = (alignment - size_ % alignment) % alignment;
  while (missing > 0 && !error_) {
    const std::size_t take = missing < sizeof zeros ? missing : sizeof zeros;
    write(zeros, take);
    missing -= take;
  }
}

void DatFile::write_at(std::uint64_t offset, const void* data, std::size_t size) {
  if (offset + size > size_)
    fail(Error{"cannot write " + path_ + ": a patch past the end of what was written"});
  flush();
  const char* at = static_cast<const char*>(data);
  while (size > 0 && !error_) {
    const ssize_t n = ::pwrite(fd_.get(), at, size, static_cast<off_t>(offset));
    if (n < 0) {
      if (errno != EINTR)
        fail_with("write", errno);
      continue;
    }
    at += n;
    size -= static_cast<std::size_t>(n);
    offset += static_cast<std::uint64_t>(n);
  }
}

void DatFile::copy_from(int from, std::uint64_t size, const std::string& from_name) {
  std::vector<char> chunk(kBufferSize);
  std::uint64_t done = 0;
  while (done < size && !error_) {
    const std::size_t want = size - done < chunk.size() ? size - done : chunk.size();
    const ssize_t n = ::pread(from, chunk.data(), want, static_cast<off_t>(done));
    if (n < 0) {
      if (errno != EINTR)
        fail(file_error("read", from_name, errno));
      continue;
    }
    if (n == 0) {
      fail(Error{"cannot read " + from_name + ": " + std::to_string(done) + " of " +
                 std::to_string(size) + " bytes are there"});
      return;
    }
    write(chunk.data(), static_cast<std::size_t>(n));
    done += static_cast<std::uint64_t>(n);
  }
}

Status DatFile::commit() {
  if (committed_)
    return Error{"cannot write " + path_ + ": already written"};
  flush();
  if (!error_ && ::fsync(fd_.get()) != 0)
    fail_with("write", errno);
  if (error_)
    return *error_;
  if (temp_name_.empty()) {
    // The O_TMPFILE file gets a name of its own first: linkat() cannot
    // replace a file, rename() can.
    // linkat() needs CAP_DAC_READ_SEARCH for AT_EMPTY_PATH, not for /proc/self/fd.
    const std::string self = "/proc/self/fd/" + std::to_string(fd_.get());
    for (unsigned n = 0; temp_name_.empty(); ++n) {
      const std::string name = temp_name(path_, n);
      if (::linkat(AT_FDCWD, self.c_str(), AT_FDCWD, name.c_str(), AT_SYMLINK_FOLLOW) == 0)
        temp_name_ = name;
      else if (errno != EEXIST || n + 1 == kTempNames)
        return file_error("create", path_, errno);
    }
  }
  if (::rename(temp_name_.c_str(), path_.c_str()) != 0)
    return file_error("create", path_, errno);
  committed_ = true;
  if (::close(fd_.release()) != 0)
    return file_error("write", path_, errno);
  return Ok{};
}

} // namespace allocwatch

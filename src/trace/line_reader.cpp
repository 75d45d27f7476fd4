#include "trace/line_reader.h"

#include "util/escape.h"
#include "util/output_file.h"
#include "util/result.h"

#include <cerrno>
#include <cstring>
#include <unistd.h>
#include <utility>

namespace allocwatch {

FdSource::FdSource(int fd, std::string name, std::function<bool()> stop)
    : fd_(fd), name_(std::move(name)), stop_(std::move(stop)) {}

std::size_t FdSource::read(char* buf, std::size_t n) {
  for (;;) {
    ssize_t got = ::read(fd_, buf, n);
    if (got >= 0)
      return static_cast<std::size_t>(got);
    if (errno != EINTR)
      throw FatalError("cannot read " + escaped(name_) + ": " + std::strerror(errno));
    if (stop_ && stop_())
      return 0;
  }
}

LineReader::LineReader(ByteSource& source, std::size_t chunk)
    : source_(source), buf_(new char[chunk > 0 ? chunk : 1]), capacity_(chunk > 0 ? chunk : 1) {}

bool LineReader::next_after_buffer(std::string_view& line) {
  for (;;) {
    if (dropping_) {
      const void* nl = std::memchr(buf_.get() + begin_, '\n', end_ - begin_);
      if (nl == nullptr) {
        begin_ = scan_ = end_;
        if (!fill())
          return false;
        continue;
      }
      begin_ = scan_ = static_cast<std::size_t>(static_cast<const char*>(nl) - buf_.get()) + 1;
      dropping_ = false;
    }
    if (scan_ < end_) {
      const void* nl = std::memchr(buf_.get() + scan_, '\n', end_ - scan_);
      if (nl != nullptr) {
        std::size_t at = static_cast<const char*>(nl) - buf_.get();
        line = hand_out(std::string_view(buf_.get() + begin_, at - begin_));
        begin_ = scan_ = at + 1;
        return true;
      }
      scan_ = end_;
    }
    // Too long even without a '\r' at its end: hand out the part that says
    // so, drop the rest as it comes.
    if (end_ - begin_ > kMaxLineBytes + 1) {
      line = std::string_view(buf_.get() + begin_, kMaxLineBytes + 1);
      ++lines_cut_;
      begin_ = scan_ = begin_ + kMaxLineBytes + 1;
      dropping_ = true;
      return true;
    }
    if (!fill()) {
      if (begin_ == end_)
        return false;
      line = hand_out(std::string_view(buf_.get() + begin_, end_ - begin_));
      begin_ = scan_ = end_;
      return true;
    }
  }
}

bool LineReader::fill() {
  if (eof_)
    return false;
  // The line handed out last is no longer needed: keep only the partial one.
  if (begin_ > 0) {
    std::memmove(buf_.get(), buf_.get() + begin_, end_ - begin_);
    end_ -= begin_;
    scan_ -= begin_;
    begin_ = 0;
  }
  if (end_ == capacity_) {
    std::unique_ptr<char[]> bigger(new char[capacity_ * 2]);
    std::memcpy(bigger.get(), buf_.get(), end_);
    buf_ = std::move(bigger);
    capacity_ *= 2;
  }
  std::size_t got = source_.read(buf_.get() + end_, capacity_ - end_);
  if (got == 0) {
    eof_ = true;
    return false;
  }
  if (tee_ != nullptr)
    throw_on_error(tee_->write(buf_.get() + end_, got));
  end_ += got;
  bytes_read_ += got;
  return true;
}

} // namespace allocwatch

// LineReader: splits a byte stream (trace_pipe, a saved trace, stdin) into
// lines, reading in large chunks so that replay runs at memory speed.
#pragma once

#include "trace/record.h"

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

namespace allocwatch {

class OutputFile;

// Where the bytes come from. The live session supplies one that polls
// trace_pipe and watches its stop flag; tests supply fakes.
class ByteSource {
public:
  virtual ~ByteSource() = default;
  // Fills up to n bytes of buf; returns how many, 0 at end of input.
  // Throws FatalError on an I/O error.
  virtual std::size_t read(char* buf, std::size_t n) = 0;
};

// A blocking file descriptor (file, pipe, stdin). Does not own or close fd.
class FdSource : public ByteSource {
public:
  // `name` names the input in error messages ("trace.txt", "stdin").
  // `stop`, when given, is asked when a signal interrupts a read that waits
  // (a pipe, a FIFO): true ends the input there, false reads on.
  explicit FdSource(int fd, std::string name = "input", std::function<bool()> stop = {});
  std::size_t read(char* buf, std::size_t n) override;

private:
  int fd_;
  std::string name_;
  std::function<bool()> stop_;
};

// Memory stays flat whatever the input: a line longer than kMaxLineBytes
// (a corrupt file, /dev/zero) is handed out cut to kMaxLineBytes + 1 bytes,
// longer than any line parse_line() takes, so it counts as not understood;
// the rest of it is read and dropped.
class LineReader {
public:
  // `chunk` is the initial buffer size and the most asked of one read();
  // the buffer grows when a single line does not fit, up to what the longest
  // line needs. 128 KiB: a replay of 1 GB makes 8192 reads, and the buffer
  // is a small part of peak RSS (trace_pipe gives a page a read anyway).
  explicit LineReader(ByteSource& source, std::size_t chunk = 128 << 10);

  // Sets `line` to the next line without its '\n' (nor a '\r' before it:
  // a trace that went through a Windows editor reads the same) and returns
  // true, or returns false at end of input. A last line without '\n' is
  // still a line. `line` stays valid until the next call to next(); copy it
  // to keep it.
  bool next(std::string_view& line) {
    // The common case, inline (it runs once per line): a whole line is in
    // the buffer already.
    if (!dropping_ && scan_ < end_) {
      const void* nl = std::memchr(buf_.get() + scan_, '\n', end_ - scan_);
      if (nl != nullptr) {
        const std::size_t at = static_cast<std::size_t>(static_cast<const char*>(nl) - buf_.get());
        line = hand_out(std::string_view(buf_.get() + begin_, at - begin_));
        begin_ = scan_ = at + 1;
        return true;
      }
      scan_ = end_;
    }
    return next_after_buffer(line);
  }

  // Lines longer than kMaxLineBytes, handed out cut.
  std::uint64_t lines_cut() const { return lines_cut_; }
  // The buffer's size, for tests: memory in use.
  std::size_t capacity() const { return capacity_; }

  // Bytes taken from the source so far (including ones not yet handed out).
  std::uint64_t bytes_read() const { return bytes_read_; }

  // Copies every byte read from the source, as read, to `out` (for --save),
  // so a saved trace replays exactly as the live one ran; nullptr turns it
  // off. `out` must outlive the reader. A failed write throws FatalError.
  void set_tee(OutputFile* out) { tee_ = out; }

private:
  // next() when the buffer holds no whole line (or one being dropped).
  bool next_after_buffer(std::string_view& line);
  // Reads more input after the unconsumed bytes; false at end of input.
  bool fill();
  // `line` without a final '\r', cut (and counted) when too long.
  std::string_view hand_out(std::string_view line) {
    if (!line.empty() && line.back() == '\r')
      line.remove_suffix(1);
    if (line.size() > kMaxLineBytes) {
      line = line.substr(0, kMaxLineBytes + 1);
      ++lines_cut_;
    }
    return line;
  }

  ByteSource& source_;
  std::unique_ptr<char[]> buf_;
  std::size_t capacity_;
  std::size_t begin_ = 0; // first byte not yet handed out
  std::size_t end_ = 0;   // end of the bytes read
  std::size_t scan_ = 0;  // bytes before this (from begin_) hold no '\n'
  bool eof_ = false;
  bool dropping_ = false; // the rest of a line too long is being read and dropped
  std::uint64_t lines_cut_ = 0;
  std::uint64_t bytes_read_ = 0;
  OutputFile* tee_ = nullptr;
};

} // namespace allocwatch

// LineReader: splits a byte stream (trace_pipe, a saved trace, stdin) into
// lines, reading in large chunks so that replay runs at memory speed.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

namespace allocwatch {

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
  explicit FdSource(int fd, std::string name = "input");
  std::size_t read(char* buf, std::size_t n) override;

private:
  int fd_;
  std::string name_;
};

class LineReader {
public:
  // `chunk` is the initial buffer size and the most asked of one read();
  // the buffer grows when a single line does not fit.
  explicit LineReader(ByteSource& source, std::size_t chunk = 1 << 20);

  // Sets `line` to the next line without its '\n' and returns true, or
  // returns false at end of input. A last line without '\n' is still a line.
  // `line` stays valid until the next call to next(); copy it to keep it.
  bool next(std::string_view& line);

  // Bytes taken from the source so far (including ones not yet handed out).
  std::uint64_t bytes_read() const { return bytes_read_; }

  // Copies every byte read from the source, as read, to fd (for --save), so
  // a saved trace replays exactly as the live one ran. -1 turns it off.
  // The fd is not owned. A failed write throws FatalError.
  void set_tee(int fd, std::string name = "saved trace");

private:
  // Reads more input after the unconsumed bytes; false at end of input.
  bool fill();

  ByteSource& source_;
  std::unique_ptr<char[]> buf_;
  std::size_t capacity_;
  std::size_t begin_ = 0; // first byte not yet handed out
  std::size_t end_ = 0;   // end of the bytes read
  std::size_t scan_ = 0;  // bytes before this (from begin_) hold no '\n'
  bool eof_ = false;
  std::uint64_t bytes_read_ = 0;
  int tee_fd_ = -1;
  std::string tee_name_;
};

} // namespace allocwatch

// OutputFile: an std::ostream over a file descriptor that keeps the first
// write error, so that output that could not be written is an error with
// its reason ("cannot write out.json: No space left on device"), never a
// silent loss. Every output allocwatch writes goes through one: stdout (the
// trace), --save's file, report files.
//
//   std::unique_ptr<OutputFile> file = value_or_throw(OutputFile::create(path));
//   file->stream() << ...;                     // a failed write sets badbit
//   throw_on_error(file->finish());
//
// stream().good() turns false at the first failed write, so a long run can
// stop early; finish() flushes, closes a file it opened, and says why.
#pragma once

#include "util/result.h"

#include <memory>
#include <ostream>
#include <streambuf>
#include <string>
#include <sys/types.h>

namespace allocwatch {

class OutputFile {
public:
  // Creates or truncates `path`; `name` in messages is the path.
  static Result<std::unique_ptr<OutputFile>> create(const std::string& path, mode_t mode = 0644);
  // Writes to `fd`, which it does not close ("stdout").
  OutputFile(int fd, std::string name);
  ~OutputFile(); // closes a file it opened; errors then are lost: call finish()
  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;

  std::ostream& stream() { return stream_; }
  // The buffer behind stream(), to put under another stream (std::cout).
  std::streambuf* buffer();
  const std::string& name() const { return name_; }
  // Raw bytes, unbuffered (after what stream() holds): --save's copy of the
  // input. A failed write is kept like any other.
  Status write(const char* data, std::size_t size);

  // Flushes; closes a file it opened. Ok, or the first error:
  // "cannot write NAME: REASON". Call once, at the end.
  Status finish();

private:
  class FdBuffer;
  // Whether the OutputFile closes the descriptor.
  enum class Ownership { Borrowed, Owned };
  OutputFile(int fd, std::string name, Ownership ownership);

  std::string name_;
  std::unique_ptr<FdBuffer> buffer_;
  std::ostream stream_;
};

// Puts a checked OutputFile under std::cout for its lifetime, so that all
// that writes std::cout is checked; restores std::cout's own buffer after.
class CheckedStdout {
public:
  CheckedStdout();
  ~CheckedStdout();
  CheckedStdout(const CheckedStdout&) = delete;
  CheckedStdout& operator=(const CheckedStdout&) = delete;

  // As OutputFile::finish(): "cannot write stdout: No space left on device".
  Status finish() { return out_.finish(); }

private:
  OutputFile out_;
  std::streambuf* previous_;
};

} // namespace allocwatch

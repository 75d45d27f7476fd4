// OutputFile: a file a run writes besides stdout (--report, --timeline),
// opened when the run starts, so that a path that cannot be written fails
// before tracing does, and closed at the end with the first write error, if
// any: a full disk must not pass silently.
//
// A small helper of the report's own: the hostile-input work adds a shared
// checked-output helper, and this one should give way to it when both are on
// main.
#pragma once

#include "util/result.h"

#include <memory>
#include <ostream>
#include <streambuf>
#include <string>

namespace allocwatch {

class OutputFile {
public:
  // Creates or truncates `path` (mode 0644). Error: "cannot write PATH: reason".
  static Result<std::unique_ptr<OutputFile>> open(const std::string& path);
  ~OutputFile(); // closes it if close() was not called, ignoring errors
  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;

  const std::string& path() const { return path_; }
  // Buffered; once a write fails, later ones are dropped and close() says why.
  std::ostream& stream() { return stream_; }
  // Writes what is buffered and closes the file. Error: "cannot write PATH:
  // reason" for the first write or close that failed.
  Status close();

private:
  class Buffer : public std::streambuf {
  public:
    explicit Buffer(int fd);
    int fd() const { return fd_; }
    int error() const { return error_; } // the first errno, 0 if none
    bool flush_all() { return drain() == 0; }
    void release() { fd_ = -1; }

  protected:
    int_type overflow(int_type c) override;
    int sync() override { return drain(); }

  private:
    int drain();
    int fd_;
    int error_ = 0;
    char data_[1 << 16];
  };

  OutputFile(std::string path, int fd);

  std::string path_;
  Buffer buffer_;
  std::ostream stream_;
};

} // namespace allocwatch

// DatFile: a file written whole, then put under its name at once; and
// scratch files that no name ever shows. What a trace.dat writer needs from
// the file system: appends through a bounded buffer, sizes patched in place
// after the data they count, another file's bytes copied in, and no half
// file under the asked name.
//
//   DatFile file = value_or_throw(DatFile::create("run.dat"));
//   file.write(bytes, n); file.write_at(offset, size_field, 8);
//   throw_on_error(file.commit());   // now, and only now, run.dat is there
//
// The file keeps its first error (later writes do nothing); commit()
// returns it.
//
// Until commit() succeeds the data lives in an O_TMPFILE file in the
// directory of the path (or, where the file system has no O_TMPFILE, under
// "PATH.allocwatch-PID-N", removed on every way out but a kill), and a file
// already under the path stays as it was. Every error names the path and
// says why: "cannot write run.dat: No space left on device".
#pragma once

#include "util/result.h"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace allocwatch {

// An owned file descriptor; -1 when empty.
class Fd {
public:
  Fd() = default;
  explicit Fd(int fd) : fd_(fd) {}
  Fd(Fd&& other) noexcept : fd_(other.release()) {}
  Fd& operator=(Fd&& other) noexcept;
  ~Fd();
  int get() const { return fd_; }
  int release();

private:
  int fd_ = -1;
};

// A read-write file in the directory of `path` that no name shows: its
// blocks are freed when the descriptor is closed. For data too large to keep
// in memory (a CPU's pages before the file is written).
Result<Fd> scratch_file_beside(const std::string& path);

// Writes all of `data` at the end of `fd`; `name` is for the message.
Status write_all(int fd, const void* data, std::size_t size, const std::string& name);

class DatFile {
public:
  static Result<DatFile> create(const std::string& path);
  DatFile(DatFile&& other) noexcept;
  DatFile& operator=(DatFile&&) = delete;
  DatFile(const DatFile&) = delete;
  ~DatFile(); // without a commit(): nothing is left under the path

  const std::string& path() const { return path_; }
  // Bytes written so far: the offset the next write() lands at.
  std::uint64_t size() const { return size_; }

  // Appends (buffered: up to 64 KiB are held before a write(2)).
  void write(const void* data, std::size_t size);
  // Zero bytes up to the next multiple of `alignment`.
  void pad_to(std::uint64_t alignment);
  // Overwrites bytes already written (a size field once its data is known).
  void write_at(std::uint64_t offset, const void* data, std::size_t size);
  // Appends `size` bytes of `from` read from its offset 0; `from_name` is
  // for the message. Fewer bytes there than `size` is an error.
  void copy_from(int from, std::uint64_t size, const std::string& from_name);
  // Keeps `error` as the file's, unless it has one (an error of what feeds it).
  void fail(Error error);
  bool good() const { return !error_.has_value(); }

  // Writes what is held, syncs, and puts the file under the path (replacing
  // what was there). Ok, or the file's first error. Once only.
  Status commit();

private:
  DatFile(std::string path, Fd fd, std::string temp_name);
  void flush();
  void fail_with(const char* verb, int err);

  std::string path_;
  Fd fd_;
  // The fallback's temporary name; empty for an O_TMPFILE file.
  std::string temp_name_;
  std::vector<char> buffer_;
  std::uint64_t size_ = 0;
  std::optional<Error> error_;
  bool committed_ = false;
};

} // namespace allocwatch

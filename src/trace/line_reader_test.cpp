#include "trace/line_reader.h"
#include "util/output_file.h"
#include "util/result.h"

#include <algorithm>
#include <cstdio>
#include <doctest/doctest.h>
#include <string>
#include <unistd.h>
#include <vector>

using namespace allocwatch;

namespace {

// Hands out `data` in pieces of the given sizes, cycling, as a pipe would.
class FakeSource : public ByteSource {
public:
  FakeSource(std::string data, std::vector<std::size_t> pieces = {1 << 20})
      : data_(std::move(data)), pieces_(std::move(pieces)) {}
  std::size_t read(char* buf, std::size_t n) override {
    std::size_t want = std::min({n, pieces_[calls_++ % pieces_.size()], data_.size() - at_});
    std::copy_n(data_.data() + at_, want, buf);
    at_ += want;
    return want;
  }
  std::size_t calls() const { return calls_; }

private:
  std::string data_;
  std::vector<std::size_t> pieces_;
  std::size_t at_ = 0;
  std::size_t calls_ = 0;
};

std::vector<std::string> read_all(LineReader& reader) {
  std::vector<std::string> lines;
  std::string_view line;
  while (reader.next(line))
    lines.emplace_back(line);
  return lines;
}

std::vector<std::string> lines_of(std::string data, std::vector<std::size_t> pieces,
                                  std::size_t chunk) {
  FakeSource source(std::move(data), std::move(pieces));
  LineReader reader(source, chunk);
  return read_all(reader);
}

using Lines = std::vector<std::string>;

} // namespace

TEST_CASE("LineReader splits on newlines and drops them") {
  CHECK(lines_of("a\nbb\n\nccc\n", {1 << 20}, 1 << 20) == Lines{"a", "bb", "", "ccc"});
}

TEST_CASE("LineReader returns a last line without a newline") {
  CHECK(lines_of("a\nlast", {1 << 20}, 1 << 20) == Lines{"a", "last"});
  CHECK(lines_of("only", {1 << 20}, 1 << 20) == Lines{"only"});
}

TEST_CASE("LineReader: empty input has no lines, a lone newline one empty line") {
  CHECK(lines_of("", {1 << 20}, 1 << 20).empty());
  CHECK(lines_of("\n", {1 << 20}, 1 << 20) == Lines{""});
  CHECK(lines_of("\n\n", {1 << 20}, 1 << 20) == Lines{"", ""});
}

TEST_CASE("LineReader gives the same lines whatever the read sizes") {
  std::string data;
  Lines expected;
  for (int i = 0; i < 300; ++i) {
    expected.push_back(std::string(static_cast<std::size_t>(i % 37), 'x') + std::to_string(i));
    data += expected.back() + "\n";
  }
  for (std::vector<std::size_t> pieces :
       {std::vector<std::size_t>{1}, {7, 1, 3}, {4096}, {1 << 20}}) {
    CAPTURE(pieces.front());
    CHECK(lines_of(data, pieces, 64) == expected);
  }
}

TEST_CASE("LineReader grows its buffer for a line longer than the chunk") {
  std::string long_line(10'000, 'L');
  CHECK(lines_of("short\n" + long_line + "\nafter\n" + long_line, {3, 1000}, 16) ==
        Lines{"short", long_line, "after", long_line});
}

TEST_CASE("LineReader drops the '\\r' of CRLF line ends, and keeps any other '\\r'") {
  for (std::size_t chunk : {std::size_t{3}, std::size_t{1} << 20})
    CHECK(lines_of("one\r\n\r\ntwo\rthree\r\nlast\r", {1, 4}, chunk) ==
          Lines{"one", "", "two\rthree", "last"});
}

// `size` bytes of 'x', then `tail`, made as they are read: no copy of the
// whole input is held, so memory is the reader's alone.
class LongLineSource : public ByteSource {
public:
  LongLineSource(std::size_t size, std::string tail) : size_(size), tail_(std::move(tail)) {}
  std::size_t read(char* buf, std::size_t n) override {
    if (at_ < size_) {
      const std::size_t want = std::min(n, size_ - at_);
      std::fill_n(buf, want, 'x');
      at_ += want;
      return want;
    }
    const std::size_t want = std::min(n, tail_.size() - (at_ - size_));
    std::copy_n(tail_.data() + (at_ - size_), want, buf);
    at_ += want;
    return want;
  }

private:
  std::size_t size_;
  std::string tail_;
  std::size_t at_ = 0;
};

TEST_CASE("LineReader cuts a line longer than kMaxLineBytes, drops its rest, memory flat") {
  for (std::size_t chunk : {std::size_t{16}, std::size_t{4096}, std::size_t{1} << 20}) {
    CAPTURE(chunk);
    // 64 MiB in one line without a newline, as from a corrupt file or /dev/zero.
    LongLineSource source(std::size_t{64} << 20, "\nafter\nlast");
    LineReader reader(source, chunk);
    const Lines lines = read_all(reader);
    REQUIRE(lines.size() == 3);
    CHECK(lines[0] == std::string(kMaxLineBytes + 1, 'x'));
    CHECK(lines[1] == "after");
    CHECK(lines[2] == "last");
    CHECK(reader.lines_cut() == 1);
    CHECK(reader.capacity() <= std::max(chunk, 2 * (kMaxLineBytes + 2)));
  }
  // Exactly the longest line is a line; one byte more is cut; a long line
  // that arrives whole with its newline is cut too.
  const std::string longest(kMaxLineBytes, 'y');
  for (std::size_t chunk : {std::size_t{16}, std::size_t{1} << 20}) {
    CHECK(lines_of(longest + "\n" + longest + "z\nend", {7000}, chunk) ==
          Lines{longest, longest + "z", "end"});
    CHECK(lines_of(longest + "zz\nend\n", {1 << 20}, chunk) == Lines{longest + "z", "end"});
    CHECK(lines_of(longest + "\r\n", {1 << 20}, chunk) == Lines{longest});
  }
}

TEST_CASE("LineReader counts every byte read and stops asking after end of input") {
  FakeSource source("abc\ndef\n", {3});
  LineReader reader(source, 8);
  Lines lines = read_all(reader);
  CHECK(lines == Lines{"abc", "def"});
  CHECK(reader.bytes_read() == 8);
  std::string_view line;
  std::size_t calls = source.calls();
  CHECK_FALSE(reader.next(line));
  CHECK(source.calls() == calls);
}

TEST_CASE("LineReader's tee receives the bytes exactly as read") {
  std::string data = "one\n\ntwo\r\nno newline at the end";
  std::FILE* saved = std::tmpfile();
  REQUIRE(saved != nullptr);
  FakeSource source(data, {5, 2});
  LineReader reader(source, 4);
  OutputFile out(fileno(saved), "saved trace");
  reader.set_tee(&out);
  CHECK(read_all(reader) == Lines{"one", "", "two", "no newline at the end"});
  std::rewind(saved);
  std::string copy(data.size() + 10, '\0');
  copy.resize(std::fread(copy.data(), 1, copy.size(), saved));
  std::fclose(saved);
  CHECK(copy == data);
}

TEST_CASE("LineReader's tee reports a failed write") {
  // A descriptor opened for reading only refuses writes (EBADF).
  std::FILE* read_only = std::fopen("/dev/null", "r");
  REQUIRE(read_only != nullptr);
  FakeSource source("line\n");
  LineReader reader(source);
  OutputFile out(fileno(read_only), "out.trace");
  reader.set_tee(&out);
  std::string_view line;
  CHECK_THROWS_WITH_AS(reader.next(line), "cannot write out.trace: Bad file descriptor",
                       FatalError);
  std::fclose(read_only);
}

TEST_CASE("FdSource reads a pipe to its end") {
  int fds[2];
  REQUIRE(pipe(fds) == 0);
  std::string data = "first\nsecond\n";
  REQUIRE(write(fds[1], data.data(), data.size()) == static_cast<ssize_t>(data.size()));
  close(fds[1]);
  FdSource source(fds[0]);
  LineReader reader(source);
  CHECK(read_all(reader) == Lines{"first", "second"});
  close(fds[0]);
}

TEST_CASE("FdSource names its input when a read fails") {
  FdSource source(-1, "saved.trace");
  char buf[16];
  CHECK_THROWS_WITH_AS(source.read(buf, sizeof buf), doctest::Contains("cannot read saved.trace"),
                       FatalError);
}

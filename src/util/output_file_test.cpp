#include "util/output_file.h"

#include <csignal>
#include <doctest/doctest.h>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <unistd.h>

using namespace allocwatch;

namespace {

std::string read_all(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

struct TempFile {
  std::string path;
  TempFile() {
    char pattern[] = "/tmp/allocwatch-output-XXXXXX";
    const int fd = ::mkstemp(pattern);
    REQUIRE(fd >= 0);
    ::close(fd);
    path = pattern;
  }
  ~TempFile() { std::filesystem::remove(path); }
};

} // namespace

TEST_CASE("OutputFile: writes every byte, small and large, in order") {
  TempFile file;
  Result<std::unique_ptr<OutputFile>> out = OutputFile::create(file.path);
  REQUIRE(out.ok());
  const std::string big(300 * 1024, 'x');
  (*out)->stream() << "first\n";
  (*out)->stream().write(big.data(), static_cast<std::streamsize>(big.size()));
  REQUIRE((*out)->write("raw\n", 4).ok());
  (*out)->stream() << 42 << '\n';
  CHECK((*out)->stream().good());
  REQUIRE((*out)->finish().ok());
  CHECK(read_all(file.path) == "first\n" + big + "raw\n42\n");
}

TEST_CASE("OutputFile: a full device is an error naming the file and the reason") {
  const int fd = ::open("/dev/full", O_WRONLY | O_CLOEXEC);
  REQUIRE(fd >= 0);
  {
    OutputFile out(fd, "stdout");
    out.stream() << "a line\n"; // buffered: nothing failed yet
    CHECK(out.stream().good());
    const std::string chunk(100 * 1024, 'y');
    out.stream().write(chunk.data(), static_cast<std::streamsize>(chunk.size()));
    CHECK_FALSE(out.stream().good()); // a long run sees it and stops
    Status finished = out.finish();
    REQUIRE_FALSE(finished.ok());
    CHECK(finished.error().message == "cannot write stdout: No space left on device");
  }
  {
    OutputFile out(fd, "short.out");
    out.stream() << "only buffered\n";
    Status finished = out.finish(); // the flush at the end fails too
    REQUIRE_FALSE(finished.ok());
    CHECK(finished.error().message == "cannot write short.out: No space left on device");
  }
  {
    OutputFile out(fd, "raw.trace");
    Status written = out.write("abc", 3);
    REQUIRE_FALSE(written.ok());
    CHECK(written.error().message == "cannot write raw.trace: No space left on device");
    CHECK_FALSE(out.stream().good());
  }
  ::close(fd);
}

TEST_CASE("OutputFile: a file that cannot be created says why") {
  Result<std::unique_ptr<OutputFile>> out = OutputFile::create("/proc/allocwatch-no/such");
  REQUIRE_FALSE(out.ok());
  CHECK(out.error().message == "cannot write /proc/allocwatch-no/such: No such file or directory");
}

TEST_CASE("OutputFile: a closed descriptor is an error, not a silent loss") {
  int fds[2];
  REQUIRE(::pipe(fds) == 0);
  ::close(fds[0]);                                     // the reader went away
  const auto previous = std::signal(SIGPIPE, SIG_IGN); // as main() has it
  OutputFile out(fds[1], "stdout");
  out.stream() << "lost\n";
  Status finished = out.finish();
  std::signal(SIGPIPE, previous);
  REQUIRE_FALSE(finished.ok());
  CHECK(finished.error().message == "cannot write stdout: Broken pipe");
  ::close(fds[1]);
}

TEST_CASE("CheckedStdout: std::cout goes through a checked buffer while it lives") {
  int fds[2];
  REQUIRE(::pipe(fds) == 0);
  const int saved = ::dup(STDOUT_FILENO);
  REQUIRE(::dup2(fds[1], STDOUT_FILENO) >= 0);
  ::close(fds[1]);
  Status finished = Ok{};
  {
    CheckedStdout checked;
    std::cout << "through the check\n";
    finished = checked.finish();
  }
  ::dup2(saved, STDOUT_FILENO);
  ::close(saved);
  REQUIRE(finished.ok());
  char got[64] = {};
  const ssize_t n = ::read(fds[0], got, sizeof got - 1);
  ::close(fds[0]);
  CHECK(std::string(got, n > 0 ? static_cast<std::size_t>(n) : 0) == "through the check\n");
}

#include "util/output_file.h"

#include <cstdio>
#include <doctest/doctest.h>
#include <fstream>
#include <sstream>
#include <string>
#include <unistd.h>

using namespace allocwatch;

namespace {
std::string read_all(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}
} // namespace

TEST_CASE("output file: what is written is there after close, however long") {
  char dir[] = "/tmp/allocwatch-output-XXXXXX";
  REQUIRE(::mkdtemp(dir) != nullptr);
  const std::string path = std::string(dir) + "/report.txt";
  auto file = OutputFile::open(path);
  REQUIRE(file);
  std::string expected;
  for (int i = 0; i < 20000; ++i) { // several buffers' worth
    (*file)->stream() << "line " << i << '\n';
    expected += "line " + std::to_string(i) + '\n';
  }
  CHECK((*file)->close().ok());
  CHECK((*file)->close().ok()); // once closed, closing again is nothing
  CHECK(read_all(path) == expected);
  std::remove(path.c_str());
  ::rmdir(dir);
}

TEST_CASE("output file: a path that cannot be written fails at open, saying why") {
  auto file = OutputFile::open("/nonexistent-dir/report.txt");
  REQUIRE_FALSE(file);
  CHECK(file.error().message ==
        "cannot write /nonexistent-dir/report.txt: No such file or directory");
}

TEST_CASE("output file: a write error is kept and told at close") {
  // /dev/full takes the open and refuses every write with ENOSPC.
  auto file = OutputFile::open("/dev/full");
  REQUIRE(file);
  (*file)->stream() << std::string(200000, 'x') << std::flush;
  CHECK_FALSE((*file)->stream().good());
  const Status closed = (*file)->close();
  REQUIRE_FALSE(closed.ok());
  CHECK(closed.error().message == "cannot write /dev/full: No space left on device");
}

TEST_CASE("output file: a small write fails at close, when it is flushed") {
  auto file = OutputFile::open("/dev/full");
  REQUIRE(file);
  (*file)->stream() << "]\n";
  const Status closed = (*file)->close();
  REQUIRE_FALSE(closed.ok());
  CHECK(closed.error().message == "cannot write /dev/full: No space left on device");
}

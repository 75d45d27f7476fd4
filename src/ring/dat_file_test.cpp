#include "ring/dat_file.h"
#include "temp_dir.h"

#include <cstring>
#include <doctest/doctest.h>
#include <fstream>

namespace allocwatch {
namespace {

using testing::slurp;
using testing::TempDir;

TEST_CASE("DatFile: appends, patches, pads and copies, and shows the file only at commit()") {
  TempDir dir;
  const std::string path = dir.path + "/out.dat";
  auto file = DatFile::create(path);
  REQUIRE(file.ok());
  file->write("size:", 5);
  file->write("????", 4);
  const std::string big(100000, 'x'); // more than the 64 KiB buffer
  file->write(big.data(), big.size());
  const std::uint32_t size = 100000;
  file->write_at(5, &size, 4);
  file->pad_to(4096);
  CHECK(file->size() == 4096 * 25);

  auto scratch = scratch_file_beside(path);
  REQUIRE(scratch.ok());
  REQUIRE(write_all(scratch->get(), "copied bytes", 12, "scratch").ok());
  file->copy_from(scratch->get(), 12, "scratch");
  CHECK(file->good());
  CHECK(dir.entries().size() == 0); // neither the file nor the scratch has a name yet

  REQUIRE(file->commit().ok());
  CHECK(dir.entries().size() == 1);
  const std::string content = slurp(path);
  REQUIRE(content.size() == 4096 * 25 + 12);
  CHECK(content.substr(0, 5) == "size:");
  std::uint32_t patched;
  std::memcpy(&patched, content.data() + 5, 4);
  CHECK(patched == 100000);
  CHECK(content.substr(9, big.size()) == big);
  CHECK(content.substr(9 + big.size(), 4096 * 25 - 9 - big.size()) ==
        std::string(4096 * 25 - 9 - big.size(), '\0'));
  CHECK(content.substr(4096 * 25) == "copied bytes");
  CHECK_FALSE(file->commit().ok()); // once only
}

TEST_CASE("DatFile: without commit() nothing is left, and what was there stays") {
  TempDir dir;
  const std::string path = dir.path + "/out.dat";
  { std::ofstream(path) << "before"; }
  {
    auto file = DatFile::create(path);
    REQUIRE(file.ok());
    file->write("new", 3);
  }
  CHECK(slurp(path) == "before");
  CHECK(dir.entries().size() == 1);
}

TEST_CASE("DatFile: commit() replaces the file there") {
  TempDir dir;
  const std::string path = dir.path + "/out.dat";
  { std::ofstream(path) << "before"; }
  auto file = DatFile::create(path);
  REQUIRE(file.ok());
  file->write("after", 5);
  REQUIRE(file->commit().ok());
  CHECK(slurp(path) == "after");
  CHECK(dir.entries().size() == 1);
}

TEST_CASE("DatFile: errors are kept, the first one wins, and commit() returns it") {
  TempDir dir;
  const std::string path = dir.path + "/out.dat";
  auto file = DatFile::create(path);
  REQUIRE(file.ok());
  file->write("abc", 3);
  file->write_at(2, "xy", 2); // past the end
  CHECK_FALSE(file->good());
  file->fail(Error{"a later error"});
  auto scratch = scratch_file_beside(path);
  REQUIRE(scratch.ok());
  Status committed = file->commit();
  REQUIRE_FALSE(committed.ok());
  CHECK(committed.error().message ==
        "cannot write " + path + ": a patch past the end of what was written");
  CHECK(dir.entries().size() == 0);
}

TEST_CASE("DatFile: a copy from a file shorter than asked is an error") {
  TempDir dir;
  const std::string path = dir.path + "/out.dat";
  auto file = DatFile::create(path);
  REQUIRE(file.ok());
  auto scratch = scratch_file_beside(path);
  REQUIRE(scratch.ok());
  REQUIRE(write_all(scratch->get(), "short", 5, "scratch").ok());
  file->copy_from(scratch->get(), 4096, "the scratch");
  Status committed = file->commit();
  REQUIRE_FALSE(committed.ok());
  CHECK(committed.error().message == "cannot read the scratch: 5 of 4096 bytes are there");
}

} // namespace
} // namespace allocwatch

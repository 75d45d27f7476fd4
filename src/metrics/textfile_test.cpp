#include "metrics/textfile.h"

#include <csignal>
#include <doctest/doctest.h>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

using namespace allocwatch;
namespace fs = std::filesystem;

namespace {
std::string read(const fs::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

struct TempDir {
  fs::path path;
  TempDir() {
    char name[] = "/tmp/allocwatch-textfile-XXXXXX";
    path = ::mkdtemp(name);
  }
  ~TempDir() { fs::remove_all(path); }
};
} // namespace

TEST_CASE("textfile: the temporary is a hidden .tmp beside the file") {
  const std::string pid = std::to_string(::getpid());
  CHECK(temporary_path("/var/lib/x/allocwatch.prom") ==
        "/var/lib/x/.allocwatch.prom." + pid + ".tmp");
  CHECK(temporary_path("a.prom") == ".a.prom." + pid + ".tmp");
}

TEST_CASE("textfile: replaces the file whole, mode 0644, no temporary left") {
  TempDir dir;
  const std::string path = (dir.path / "allocwatch.prom").string();
  REQUIRE(write_file_atomically(path, "a 1\n").ok());
  CHECK(read(path) == "a 1\n");
  struct stat st {};
  REQUIRE(::stat(path.c_str(), &st) == 0);
  const ino_t first = st.st_ino;
  REQUIRE(write_file_atomically(path, "a 2\n").ok());
  CHECK(read(path) == "a 2\n");
  REQUIRE(::stat(path.c_str(), &st) == 0);
  CHECK((st.st_mode & 07777) == 0644);
  CHECK(st.st_ino != first); // a new file renamed in place, not the old one rewritten
  CHECK(std::distance(fs::directory_iterator(dir.path), fs::directory_iterator()) == 1);
}

TEST_CASE("textfile: a symlink planted at the temporary's name is not followed") {
  TempDir dir;
  const fs::path victim = dir.path / "victim";
  std::ofstream(victim) << "keep";
  const std::string path = (dir.path / "m.prom").string();
  fs::create_symlink(victim, temporary_path(path));
  REQUIRE(write_file_atomically(path, "a 1\n").ok());
  CHECK(read(victim) == "keep");
  CHECK(read(path) == "a 1\n");
  CHECK(!fs::exists(fs::symlink_status(temporary_path(path))));
}

TEST_CASE("textfile: an error names the file and leaves the old content") {
  TempDir dir;
  const std::string missing = (dir.path / "no-such-dir" / "m.prom").string();
  Status status = write_file_atomically(missing, "a 1\n");
  REQUIRE(!status);
  CHECK(status.error().message.find("no-such-dir") != std::string::npos);
  CHECK(status.error().message.find("No such file or directory") != std::string::npos);

  // The target is a directory: rename fails, the temporary goes.
  const fs::path target = dir.path / "m.prom";
  fs::create_directory(target);
  status = write_file_atomically(target.string(), "a 1\n");
  REQUIRE(!status);
  CHECK(status.error().message.find("cannot rename") != std::string::npos);
  CHECK(!fs::exists(temporary_path(target.string())));
}

TEST_CASE("textfile: a write that fails is an error, and the old file stays whole") {
  TempDir dir;
  const std::string path = (dir.path / "m.prom").string();
  REQUIRE(write_file_atomically(path, "old\n").ok());
  // A file size limit makes write(2) fail with EFBIG, as a full disk would
  // fail it with ENOSPC (SIGXFSZ ignored for the while).
  struct rlimit saved {};
  REQUIRE(::getrlimit(RLIMIT_FSIZE, &saved) == 0);
  struct rlimit small = saved;
  small.rlim_cur = 4;
  auto* saved_handler = std::signal(SIGXFSZ, SIG_IGN);
  REQUIRE(::setrlimit(RLIMIT_FSIZE, &small) == 0);
  Status status = write_file_atomically(path, "a much longer text\n");
  ::setrlimit(RLIMIT_FSIZE, &saved);
  std::signal(SIGXFSZ, saved_handler);
  REQUIRE(!status);
  CHECK(status.error().message.find("cannot write") != std::string::npos);
  CHECK(read(path) == "old\n");
  CHECK(!fs::exists(temporary_path(path)));
}

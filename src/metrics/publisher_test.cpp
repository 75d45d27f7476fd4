#include "metrics/publisher.h"
#include "metrics/textfile.h"

#include <doctest/doctest.h>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <unistd.h>

using namespace allocwatch;
namespace fs = std::filesystem;
using Clock = MetricsPublisher::Clock;

namespace {
struct TempDir {
  fs::path path;
  TempDir() {
    char name[] = "/tmp/allocwatch-publisher-XXXXXX";
    path = ::mkdtemp(name);
  }
  ~TempDir() {
    fs::permissions(path, fs::perms::owner_all);
    fs::remove_all(path);
  }
};
std::string read(const fs::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}
} // namespace

TEST_CASE("publisher: the file is written at start, every interval, and at the end") {
  TempDir dir;
  const std::string file = (dir.path / "m.prom").string();
  int renders = 0;
  std::ostringstream messages;
  auto publisher = MetricsPublisher::start(
      PublisherOptions{file, kSecond, std::nullopt},
      [&](std::uint64_t) { return "m " + std::to_string(++renders) + "\n"; }, messages, false);
  REQUIRE(publisher.ok());
  CHECK(read(file) == "m 1\n");
  CHECK(messages.str().find("metrics in " + file + ", rewritten every 1s") != std::string::npos);
  const auto now = Clock::now();
  (*publisher)->tick(now); // not yet due
  CHECK(read(file) == "m 1\n");
  (*publisher)->tick(now + std::chrono::seconds(2));
  CHECK(read(file) == "m 2\n");
  (*publisher)->finish();
  CHECK(read(file) == "m 3\n");
}

TEST_CASE("publisher: a file that cannot be written at start is an error") {
  TempDir dir;
  std::ostringstream messages;
  auto publisher = MetricsPublisher::start(
      PublisherOptions{(dir.path / "missing" / "m.prom").string(), kSecond, std::nullopt},
      [](std::uint64_t) { return std::string("m 1\n"); }, messages, false);
  REQUIRE(!publisher.ok());
  CHECK(publisher.error().message.find("No such file or directory") != std::string::npos);
}

TEST_CASE("publisher: later write errors are said and counted, tracing goes on") {
  // Root writes into a read-only directory anyway: the failure is made by a
  // directory put where the temporary file goes instead.
  TempDir dir;
  const std::string file = (dir.path / "m.prom").string();
  std::uint64_t errors_seen = 0;
  std::ostringstream messages;
  auto publisher = MetricsPublisher::start(
      PublisherOptions{file, kSecond, std::nullopt},
      [&](std::uint64_t errors) {
        errors_seen = errors;
        return std::string("m 1\n");
      },
      messages, true);
  REQUIRE(publisher.ok());
  // A directory where the temporary file must go: every rewrite fails.
  fs::create_directory(temporary_path(file));
  const auto now = Clock::now();
  (*publisher)->tick(now + std::chrono::seconds(2));
  (*publisher)->tick(now + std::chrono::seconds(4));
  CHECK((*publisher)->file_errors() == 2);
  CHECK(read(file) == "m 1\n"); // the last good content stays
  // Said once for the same reason, not at every interval.
  const std::string said = messages.str();
  CHECK(said.find("tracing goes on") != std::string::npos);
  CHECK(said.find("tracing goes on") == said.rfind("tracing goes on"));
  // The failures are in the metrics themselves.
  fs::remove(temporary_path(file));
  (*publisher)->tick(now + std::chrono::seconds(6));
  CHECK(errors_seen == 2);
  CHECK(messages.str().find(file + " is written again") != std::string::npos);
}

TEST_CASE("publisher: --listen that cannot bind is an error at start") {
  std::ostringstream messages;
  auto first = MetricsPublisher::start(
      PublisherOptions{std::nullopt, kSecond, "127.0.0.1:0"},
      [](std::uint64_t) { return std::string(); }, messages, false);
  REQUIRE(first.ok());
  const std::string url = (*first)->server()->url();
  CHECK(messages.str().find("serving metrics at " + url) != std::string::npos);
  const std::string port =
      url.substr(url.rfind(':') + 1, url.find("/metrics") - url.rfind(':') - 1);
  auto second = MetricsPublisher::start(
      PublisherOptions{std::nullopt, kSecond, "127.0.0.1:" + port},
      [](std::uint64_t) { return std::string(); }, messages, false);
  CHECK(!second.ok());
}

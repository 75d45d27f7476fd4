#include "cli/replay_input.h"

#include <doctest/doctest.h>
#include <fcntl.h>
#include <functional>
#include <sstream>
#include <string>
#include <unistd.h>

using namespace allocwatch;

namespace {

const std::string kDat = "tests/golden/traces/events-6.18-memcg.dat";
const std::string kText = "tests/golden/traces/events-6.18-memcg.txt";

int open_file(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  REQUIRE(fd >= 0);
  return fd;
}

std::size_t count(RecordSource& records, LineKind kind) {
  std::size_t n = 0;
  while (const Record* r = records.next())
    n += r->kind == kind;
  return n;
}

std::string fatal_message(const std::function<void()>& f, int* code = nullptr) {
  try {
    f();
  } catch (const FatalError& e) {
    if (code != nullptr)
      *code = e.exit_code();
    return e.what();
  }
  return "";
}

} // namespace

TEST_CASE("ReplayInput: a trace.dat is told by its magic and read as one, the text as text") {
  const int dat_fd = open_file(kDat);
  std::ostringstream said;
  ReplayInput dat(
      dat_fd, "m.dat", std::nullopt, [] { return false; }, &said);
  CHECK(dat.dat());
  CHECK(said.str() == "allocwatch: reading instance allocwatch-test-dat-14473 of the trace.dat\n");
  CHECK(count(dat.records(), LineKind::Event) == 5620);
  ::close(dat_fd);

  const int text_fd = open_file(kText);
  ReplayInput text(
      text_fd, "m.txt", std::nullopt, [] { return false; }, nullptr);
  CHECK_FALSE(text.dat());
  CHECK(count(text.records(), LineKind::Event) == 5620);
  ::close(text_fd);
}

TEST_CASE("ReplayInput: a stop ends the input") {
  const int fd = open_file(kDat);
  bool stop = false;
  ReplayInput input(
      fd, "m.dat", std::nullopt, [&stop] { return stop; }, nullptr);
  REQUIRE(input.records().next() != nullptr);
  stop = true;
  CHECK(input.records().next() == nullptr);
  ::close(fd);
}

TEST_CASE("ReplayInput: --buffer with a text input is a usage error; no record understood is one") {
  const int fd = open_file(kText);
  int code = 0;
  CHECK(fatal_message(
            [fd] {
              ReplayInput(
                  fd, "m.txt", "x", [] { return false; }, nullptr);
            },
            &code) == "--buffer picks a buffer of a trace.dat; m.txt is not one");
  CHECK(code == 2);
  ReplayInput text(
      fd, "m.txt", std::nullopt, [] { return false; }, nullptr);
  CHECK(fatal_message([&] { text.check_understood(true, 7); }).empty());
  CHECK(fatal_message([&] { text.check_understood(false, 0); }).empty()); // a quiet trace
  CHECK(fatal_message([&] { text.check_understood(false, 7); }) ==
        "m.txt holds no line of an ftrace trace (7 lines not understood): replay what "
        "trace_pipe printed, or a --save file");
  ::close(fd);
}

TEST_CASE("ReplayInput: a trace.dat through a pipe is read as text, then said to be a trace.dat") {
  int pipe_fds[2];
  REQUIRE(::pipe(pipe_fds) == 0);
  const std::string head("\027\010\104tracing6\0garbage\n", 20);
  REQUIRE(::write(pipe_fds[1], head.data(), head.size()) == static_cast<ssize_t>(head.size()));
  ::close(pipe_fds[1]);
  ReplayInput input(
      pipe_fds[0], "stdin", std::nullopt, [] { return false; }, nullptr);
  CHECK_FALSE(input.dat());
  while (input.records().next() != nullptr) {
  }
  CHECK(fatal_message([&] { input.check_understood(false, 1); }) ==
        "stdin is a trace.dat, which libtracecmd reads from a file, not a pipe: give its name to "
        "-i");
  ::close(pipe_fds[0]);
}

#include "fake_tracefs.h"
#include "tracefs/files.h"
#include "tracefs/pipe_source.h"

#include <atomic>
#include <doctest/doctest.h>
#include <fcntl.h>
#include <string>
#include <sys/stat.h>
#include <thread>
#include <unistd.h>

namespace allocwatch {
namespace {

using testing::FakeTracefs;

// A fake tracefs whose trace_pipe is a FIFO the test writes into.
struct PipeFixture {
  FakeTracefs fake;
  InstancePtr top;
  int writer = -1;

  PipeFixture() {
    REQUIRE(::mkfifo(fake.path("trace_pipe").c_str(), 0600) == 0);
    Result<InstancePtr> opened = open_top_level(fake.dir());
    REQUIRE(opened.ok());
    top = std::move(*opened);
  }
  ~PipeFixture() {
    if (writer >= 0)
      ::close(writer);
  }
  void open_writer() {
    writer = ::open(fake.path("trace_pipe").c_str(), O_WRONLY | O_NONBLOCK);
    REQUIRE(writer >= 0);
  }
  void say(const std::string& text) const {
    REQUIRE(::write(writer, text.data(), text.size()) == static_cast<ssize_t>(text.size()));
  }
};

std::string read_all(ByteSource& source) {
  std::string text;
  char buf[65536];
  while (std::size_t n = source.read(buf, sizeof buf))
    text.append(buf, n);
  return text;
}

TEST_CASE("pipe: reads what comes; once told to stop, switches tracing off, drains, ends") {
  PipeFixture f;
  std::atomic<bool> stop = false;
  Result<std::unique_ptr<PipeSource>> pipe =
      PipeSource::open(f.top.get(), [&] { return stop.load(); });
  REQUIRE(pipe.ok());
  f.open_writer();

  f.say("first line\n");
  char buf[65536];
  const std::size_t n = (*pipe)->read(buf, sizeof buf);
  CHECK(std::string(buf, n) == "first line\n");
  CHECK(f.fake.read("tracing_on") == "1\n");

  // What the kernel still holds when the stop comes is read, not lost.
  f.say("second line\nthird line\n");
  stop = true;
  CHECK(read_all(**pipe) == "second line\nthird line\n");
  CHECK(f.fake.read("tracing_on").front() == '0');
  CHECK((*pipe)->read(buf, sizeof buf) == 0); // ended for good
}

TEST_CASE("pipe: a stop asked while the pipe is quiet ends the read") {
  PipeFixture f;
  std::atomic<bool> stop = false;
  Result<std::unique_ptr<PipeSource>> pipe =
      PipeSource::open(f.top.get(), [&] { return stop.load(); });
  REQUIRE(pipe.ok());
  f.open_writer(); // open but silent: reads find nothing and wait
  std::thread stopper([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    stop = true;
  });
  char buf[4096];
  CHECK((*pipe)->read(buf, sizeof buf) == 0);
  stopper.join();
  CHECK(f.fake.read("tracing_on").front() == '0');
}

// The reader waits on a silent pipe; the first line wakes it, and the second
// comes 50 ms later. What one read() returns shows whether the reader gave
// the kernel time to gather more after the wake-up.
std::string first_read_after_wake_up(std::chrono::milliseconds batch_delay) {
  PipeFixture f;
  Result<std::unique_ptr<PipeSource>> pipe = PipeSource::open(
      f.top.get(), [] { return false; }, batch_delay);
  REQUIRE(pipe.ok());
  f.open_writer();
  std::thread writer([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(100)); // the reader is in poll
    f.say("first line\n");
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    f.say("second line\n");
  });
  char buf[4096];
  const std::size_t n = (*pipe)->read(buf, sizeof buf);
  writer.join();
  return std::string(buf, n);
}

TEST_CASE("pipe: after a wake-up, what comes within the batch delay is read at once") {
  CHECK(first_read_after_wake_up(std::chrono::milliseconds(500)) == "first line\nsecond line\n");
  // Without the delay, the wake-up at the first line reads it alone.
  CHECK(first_read_after_wake_up(std::chrono::milliseconds(0)) == "first line\n");
}

TEST_CASE("pipe: close() ends the input") {
  PipeFixture f;
  Result<std::unique_ptr<PipeSource>> pipe = PipeSource::open(f.top.get(), [] { return false; });
  REQUIRE(pipe.ok());
  f.open_writer();
  f.say("never read\n");
  (*pipe)->close();
  char buf[64];
  CHECK((*pipe)->read(buf, sizeof buf) == 0);
}

TEST_CASE("pipe: a missing trace_pipe is a clear error") {
  FakeTracefs fake;
  Result<InstancePtr> top = open_top_level(fake.dir());
  REQUIRE(top.ok());
  Result<std::unique_ptr<PipeSource>> pipe = PipeSource::open(top->get(), [] { return false; });
  REQUIRE_FALSE(pipe.ok());
  CHECK(pipe.error().message ==
        "cannot open " + fake.path("trace_pipe") + ": No such file or directory");
}

} // namespace
} // namespace allocwatch

// PipeSource: the live trace, read from a buffer's trace_pipe.
//
// The pipe is read without blocking and waited on with poll(2) for at most
// kPollInterval. The poll of the whole buffer's trace_pipe wakes at its first
// event (buffer_percent applies only to one CPU's pipe), so after a wake-up
// the kernel is given a batch delay (kBatchDelay) to gather more: the same
// lines come in fewer, fuller reads, at most that much later. Woken at every
// event, allocwatch made some 200 polls a second under the live tests'
// reclaim, each followed by reads that found the pipe empty and by work on a
// few lines with cold caches; that was most of its user CPU.
//
// should_stop is asked at every read(), and at least every kPollInterval plus
// the batch delay while the kernel has little to say. Once it says true,
// tracing is switched off in that buffer, what the kernel still holds is read
// (until the pipe is empty), and read() then returns 0. A signal cuts the
// batch delay short.
#pragma once

#include "trace/line_reader.h"
#include "util/result.h"

#include <chrono>
#include <functional>
#include <memory>

struct tracefs_instance;

namespace allocwatch {

class PipeSource final : public ByteSource {
public:
  static constexpr std::chrono::milliseconds kPollInterval{200};
  static constexpr std::chrono::milliseconds kBatchDelay{50};

  // Opens trace_pipe of `instance` (nullptr: the top level). The instance
  // must outlive the PipeSource.
  static Result<std::unique_ptr<PipeSource>>
  open(tracefs_instance* instance, std::function<bool()> should_stop,
       std::chrono::milliseconds batch_delay = kBatchDelay);
  ~PipeSource() override;
  PipeSource(const PipeSource&) = delete;
  PipeSource& operator=(const PipeSource&) = delete;

  // Blocks until there are bytes or the end. Throws FatalError when the pipe
  // cannot be read or tracing cannot be switched off.
  std::size_t read(char* buf, std::size_t n) override;

  // Ends the input now: later reads return 0, and the instance can be removed.
  void close();

private:
  PipeSource(tracefs_instance* instance, int fd, std::function<bool()> should_stop,
             std::chrono::milliseconds batch_delay);
  // Reads what is there without waiting: bytes read, 0 when empty, -1 at end.
  long read_available(char* buf, std::size_t n);

  tracefs_instance* instance_;
  int fd_;
  std::function<bool()> should_stop_;
  std::chrono::milliseconds batch_delay_;
  bool draining_ = false; // tracing is off: read what is left, then end
};

} // namespace allocwatch

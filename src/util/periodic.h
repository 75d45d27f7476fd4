// Periodic: the work a live run does now and then while it waits for trace
// lines (the status line; metrics), without a thread of its own. The live
// loop calls run() from PipeSource's should_stop, which is asked at every
// read and at least every PipeSource::kPollInterval and kBatchDelay (250 ms
// in all); each task keeps its own pace (the status line: at most once a
// second).
#pragma once

#include <chrono>
#include <functional>
#include <utility>
#include <vector>

namespace allocwatch {

class Periodic {
public:
  using Clock = std::chrono::steady_clock;
  using Task = std::function<void(Clock::time_point now)>;

  void add(Task task) { tasks_.push_back(std::move(task)); }
  void run(Clock::time_point now) const {
    for (const Task& task : tasks_)
      task(now);
  }

private:
  std::vector<Task> tasks_;
};

} // namespace allocwatch

// Periodic: the work a live run does now and then while it waits for trace
// lines (the status line; metrics), without a thread of its own. The live
// loop calls run() from its source's should_stop (PipeSource's or
// RawSource's), which is asked at every read and at least every
// kPollInterval and kBatchDelay (250 ms in all); each task keeps its own
// pace (the status line: at most once a second), or every() keeps it.
#pragma once

#include <chrono>
#include <functional>
#include <optional>
#include <utility>
#include <vector>

namespace allocwatch {

class Periodic {
public:
  using Clock = std::chrono::steady_clock;
  using Task = std::function<void(Clock::time_point now)>;

  void add(Task task) { tasks_.push_back(std::move(task)); }
  // `task` once every `interval`: the first an interval after the first
  // run(), then an interval after the run that last ran it.
  void every(Clock::duration interval, std::function<void()> task) {
    paced_.push_back({interval, std::move(task), std::nullopt});
  }
  void run(Clock::time_point now) {
    for (const Task& task : tasks_)
      task(now);
    for (Paced& paced : paced_) {
      if (!paced.due)
        paced.due = now + paced.interval;
      if (now < *paced.due)
        continue;
      paced.task();
      paced.due = now + paced.interval;
    }
  }

private:
  struct Paced {
    Clock::duration interval;
    std::function<void()> task;
    std::optional<Clock::time_point> due;
  };
  std::vector<Task> tasks_;
  std::vector<Paced> paced_;
};

} // namespace allocwatch

// TaskCgroups: the memory cgroup of each task that stalled, learnt beside
// the trace (no vmscan or compaction tracepoint carries a cgroup). A pid is
// looked up in /proc the first time it is asked for, checked against pid
// reuse by the task's start time, and looked up again at most once per
// `reread` so that a task that moved is followed. A task already gone when
// first asked for is unknown, counted, never guessed; one that exits later
// keeps the cgroup last read for it. At most `max_tasks` pids are kept: past
// that, those not asked for in the last max_tasks / 2 lookups are forgotten
// (and read again if asked for again).
#pragma once

#include "cgroup/container.h"
#include "cgroup/file_reader.h"
#include "cgroup/proc_cgroup.h"
#include "util/duration.h"
#include "util/flat_map.h"

#include <cstdint>
#include <memory>
#include <string>

namespace allocwatch {

struct TaskCgroup {
  CgroupVersion version = CgroupVersion::V2;
  std::string path; // "/kubepods/burstable/pod.../<id>", as /proc/PID/cgroup gives it
  Container container;
};

// Where an incident's cgroup comes from: /proc in a live run (TaskCgroups),
// or the records of a live run's --save file in its replay.
class CgroupLookup {
public:
  virtual ~CgroupLookup() = default;
  // The cgroup of `pid` at `now` (a monotonic clock), or nullptr when it is
  // unknown. The pointer is valid until the next call.
  virtual const TaskCgroup* of(std::int32_t pid, Nanos now) = 0;
};

class TaskCgroups final : public CgroupLookup {
public:
  static constexpr std::size_t kDefaultMaxTasks = 4096;
  static constexpr Nanos kDefaultReread = kSecond;

  // `files` and `proc` ("/proc") must outlive this object.
  explicit TaskCgroups(const FileReader& files, std::string proc = "/proc",
                       std::size_t max_tasks = kDefaultMaxTasks, Nanos reread = kDefaultReread);

  // Nullptr when the task was gone before its cgroup could be read.
  const TaskCgroup* of(std::int32_t pid, Nanos now) override;

  std::size_t tasks() const { return tasks_.size(); }
  std::size_t max_tasks() const { return max_tasks_; }
  // Lookups of a task already gone: attributed as unknown.
  std::uint64_t unknown() const { return unknown_; }
  // Tasks whose cgroup changed between two reads (moved, or the pid reused).
  std::uint64_t moves() const { return moves_; }

private:
  struct Entry {
    std::uint64_t start_time = 0;
    Nanos read_at = 0;
    std::uint64_t used = 0; // lookup counter at its last use
    TaskCgroup cgroup;
  };

  // The task's start time and cgroup as /proc says them now, or nothing.
  std::unique_ptr<Entry> read(std::int32_t pid, Nanos now) const;
  void make_room();

  const FileReader& files_;
  std::string proc_;
  std::size_t max_tasks_;
  Nanos reread_;
  FlatMap<std::uint64_t, std::unique_ptr<Entry>, IntegerHash> tasks_;
  std::uint64_t lookups_ = 0;
  std::uint64_t unknown_ = 0;
  std::uint64_t moves_ = 0;
};

} // namespace allocwatch

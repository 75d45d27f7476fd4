#include "cgroup/task_cgroups.h"

namespace allocwatch {

TaskCgroups::TaskCgroups(const FileReader& files, std::string proc, std::size_t max_tasks,
                         Nanos reread)
    : files_(files), proc_(std::move(proc)), max_tasks_(max_tasks < 2 ? 2 : max_tasks),
      reread_(reread) {}

std::unique_ptr<TaskCgroups::Entry> TaskCgroups::read(std::int32_t pid, Nanos now) const {
  const std::string dir = proc_ + "/" + std::to_string(pid);
  const std::optional<std::string> stat = files_.read(dir + "/stat");
  const std::optional<std::string> cgroups = files_.read(dir + "/cgroup");
  if (!stat || !cgroups)
    return nullptr;
  const std::optional<std::uint64_t> start_time = start_time_of(*stat);
  const std::optional<MemoryCgroup> memory = memory_cgroup_of(*cgroups);
  if (!start_time || !memory)
    return nullptr;
  auto entry = std::make_unique<Entry>();
  entry->start_time = *start_time;
  entry->read_at = now;
  entry->cgroup.version = memory->version;
  entry->cgroup.path = memory->path;
  entry->cgroup.container = container_of(memory->path);
  return entry;
}

void TaskCgroups::make_room() {
  const std::uint64_t recent = lookups_ - max_tasks_ / 2;
  tasks_.forget_if([recent](const std::unique_ptr<Entry>& entry) { return entry->used < recent; });
}

const TaskCgroup* TaskCgroups::of(std::int32_t pid, Nanos now) {
  ++lookups_;
  const auto key = static_cast<std::uint64_t>(static_cast<std::uint32_t>(pid));
  Entry* known = tasks_.find(key);
  if (known != nullptr && now - known->read_at < reread_) {
    known->used = lookups_;
    return &known->cgroup;
  }
  std::unique_ptr<Entry> fresh = read(pid, now);
  if (known != nullptr) {
    known->used = lookups_;
    if (fresh == nullptr) { // exited since: its last cgroup stands
      known->read_at = now;
      return &known->cgroup;
    }
    if (fresh->start_time != known->start_time || fresh->cgroup.path != known->cgroup.path)
      ++moves_;
    fresh->used = lookups_;
    *known = std::move(*fresh);
    return &known->cgroup;
  }
  if (fresh == nullptr) {
    ++unknown_;
    return nullptr;
  }
  if (tasks_.size() >= max_tasks_)
    make_room();
  fresh->used = lookups_;
  return &tasks_.insert(key, std::move(fresh)).cgroup;
}

} // namespace allocwatch

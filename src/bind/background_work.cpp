#include "bind/background_work.h"

#include "trace/event_fields.h"

#include <algorithm>

namespace allocwatch {

namespace {

std::uint64_t pages(std::string_view fields, std::string_view key) {
  const auto text = key_value_field(fields, key);
  if (!text)
    return 0;
  const auto value = parse_integer(*text);
  return value && *value > 0 ? static_cast<std::uint64_t>(*value) : 0;
}

} // namespace

BackgroundTask& BackgroundWork::task(std::int32_t pid, std::string_view comm) {
  if (last_ >= tasks_.size() || tasks_[last_].pid != pid) {
    auto found =
        std::lower_bound(tasks_.begin(), tasks_.end(), pid,
                         [](const BackgroundTask& t, std::int32_t p) { return t.pid < p; });
    if (found == tasks_.end() || found->pid != pid)
      found = tasks_.insert(found, BackgroundTask{.pid = pid, .comm = {}});
    last_ = static_cast<std::size_t>(found - tasks_.begin());
  }
  BackgroundTask& task = tasks_[last_];
  if (task.comm != comm && (task.comm.empty() || comm != "<...>"))
    task.comm = comm;
  return task;
}

void BackgroundWork::add(std::int32_t pid, std::string_view comm, EventRole role,
                         std::string_view fields, Nanos ts) {
  BackgroundTask& work = task(pid, comm);
  switch (role) {
  case EventRole::KswapdWake:
  case EventRole::KcompactdWake:
    ++work.wakes;
    if (work.woke_at >= 0)
      ++work.rewakes;
    else
      work.woke_at = ts;
    break;
  case EventRole::KswapdSleep:
  case EventRole::KcompactdSleep:
    if (work.woke_at >= 0 && ts >= work.woke_at)
      work.awake += ts - work.woke_at;
    work.woke_at = -1;
    break;
  case EventRole::LruShrinkInactive: {
    const KnownEvent& event = event_of_role(EventRole::LruShrinkInactive);
    work.pages_scanned += pages(fields, event.pages_key);
    work.pages_reclaimed += pages(fields, event.reclaimed_key);
    break;
  }
  default:
    break;
  }
}

} // namespace allocwatch

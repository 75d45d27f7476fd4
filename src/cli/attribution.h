// AttributingSink: gives each incident of a live run its task's memory
// cgroup (cgroup/task_cgroups.h) before the sinks behind it see it, and
// notes the cgroups whose memcg reclaim stalled for the limits report
// (cgroup/memcg_watch.h). Replays have no cgroups: they do without it.
#pragma once

#include "bind/incident.h"
#include "cgroup/memcg_watch.h"
#include "cgroup/task_cgroups.h"

#include <functional>

namespace allocwatch {

class AttributingSink : public Sink {
public:
  // Now, on a monotonic clock: when a task's cgroup is read again.
  using Clock = std::function<Nanos()>;

  // `cgroups`, `memcg` and `next` must outlive the sink.
  AttributingSink(TaskCgroups& cgroups, MemcgWatch& memcg, Sink& next, Clock clock);

  void incident(const Incident& incident) override;
  void passthrough(std::string_view line, Nanos at) override { next_.passthrough(line, at); }
  void finish(const ShrinkerStats& shrinkers) override { next_.finish(shrinkers); }

private:
  TaskCgroups& cgroups_;
  MemcgWatch& memcg_;
  Sink& next_;
  Clock clock_;
};

} // namespace allocwatch

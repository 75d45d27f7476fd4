// AttributingSink: gives each incident its task's memory cgroup (from /proc
// in a live run, from the records of a --save file in its replay) before
// the sinks behind it see it, notes the cgroups whose memcg reclaim stalled
// for the limits report (cgroup/memcg_watch.h), and, for a --save file,
// keeps the cgroup it gave each pid.
#pragma once

#include "bind/incident.h"
#include "cgroup/memcg_watch.h"
#include "cgroup/saved_cgroups.h"
#include "cgroup/task_cgroups.h"
#include "profile/profile.h"

#include <functional>

namespace allocwatch {

class AttributingSink : public Sink {
public:
  // Now, on a monotonic clock: when a task's cgroup is read again.
  using Clock = std::function<Nanos()>;

  // `cgroups`, `memcg`, `next` and `learnt` (if not null: each pid's
  // cgroup is written there) must outlive the sink.
  // `profile` says which spans are memcg reclaim: its pairs that begin with
  // the kernel's memcg reclaim begin, its functions bound to that event.
  AttributingSink(const Profile& profile, CgroupLookup& cgroups, MemcgWatch& memcg, Sink& next,
                  Clock clock, SavedCgroups* learnt = nullptr);

  void incident(const Incident& incident) override;
  void passthrough(std::string_view line, Nanos at) override { next_.passthrough(line, at); }
  void finish(const ShrinkerStats& shrinkers) override { next_.finish(shrinkers); }

private:
  CgroupLookup& cgroups_;
  MemcgWatch& memcg_;
  Sink& next_;
  Clock clock_;
  SavedCgroups* learnt_;
  std::vector<std::string> memcg_spans_;
};

} // namespace allocwatch

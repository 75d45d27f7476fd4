#include "cli/attribution.h"

#include "kernel/vocabulary.h"

#include <algorithm>

namespace allocwatch {

AttributingSink::AttributingSink(const Profile& profile, CgroupLookup& cgroups, MemcgWatch& memcg,
                                 Sink& next, Clock clock, SavedCgroups* learnt)
    : cgroups_(cgroups), memcg_(memcg), next_(next), clock_(std::move(clock)), learnt_(learnt) {
  for (const PairSpec& pair : profile.pairs)
    if (pair.begin == kMemcgReclaimBegin)
      memcg_spans_.push_back(pair.name);
  for (const Binding& binding : profile.bindings)
    if (std::find(binding.events.begin(), binding.events.end(), kMemcgReclaimBegin) !=
        binding.events.end())
      memcg_spans_.insert(memcg_spans_.end(), binding.functions.begin(), binding.functions.end());
}

void AttributingSink::incident(const Incident& incident) {
  Incident attributed = incident;
  if (!incident.background)
    attributed.cgroup = cgroups_.of(incident.pid, clock_());
  if (attributed.cgroup != nullptr) {
    if (std::find(memcg_spans_.begin(), memcg_spans_.end(), incident.span) != memcg_spans_.end())
      memcg_.note(attributed.cgroup->version, attributed.cgroup->path);
    if (learnt_ != nullptr) {
      TaskCgroup& kept = learnt_->tasks[incident.pid];
      if (kept.path != attributed.cgroup->path) // copied once per pid and move, not per stall
        kept = *attributed.cgroup;
    }
  }
  next_.incident(attributed);
}

} // namespace allocwatch

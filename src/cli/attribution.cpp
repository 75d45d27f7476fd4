#include "cli/attribution.h"

namespace allocwatch {

namespace {

// A memcg's limit was reached: the memcg reclaim entry, as a function
// (graph mode) or a tracepoint pair (events mode).
bool is_memcg_reclaim(std::string_view span) {
  return span == "try_to_free_mem_cgroup_pages" || span == "memcg_reclaim";
}

} // namespace

AttributingSink::AttributingSink(CgroupLookup& cgroups, MemcgWatch& memcg, Sink& next, Clock clock,
                                 SavedCgroups* learnt)
    : cgroups_(cgroups), memcg_(memcg), next_(next), clock_(std::move(clock)), learnt_(learnt) {}

void AttributingSink::incident(const Incident& incident) {
  Incident attributed = incident;
  if (!incident.background)
    attributed.cgroup = cgroups_.of(incident.pid, clock_());
  if (attributed.cgroup != nullptr) {
    if (is_memcg_reclaim(incident.span))
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

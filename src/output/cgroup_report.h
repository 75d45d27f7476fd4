// The stall report's cgroup part: which container stalled, and against whose
// limit. Written after the task tables, where the run learnt cgroups (live
// runs); a replay says once that it has none.
//
// Text:
//   allocwatch: stalls by memory cgroup, largest total first:
//     CGROUP                         CONTAINER     POD       KIND           COUNT  TOTAL_MS ...
//     /kubepods/burstable/pod.../..  3f4ae8b2c1d0  8b1e1f2c  memcg reclaim     12    45.120
//   allocwatch: memory limits of the cgroups whose memcg reclaim stalled, and
//   what their counters did during the run, the cgroup first, then each parent:
//     CGROUP                  LIMIT     HIGH  EVENTS_HIGH  EVENTS_MAX  OOM  OOM_KILL     (v2)
//     CGROUP                  LIMIT     FAILCNT  MAX_USAGE                               (v1)
// Container ids are cut to 12 digits and pod uids to their first group on
// text (docker's and kubectl's short forms); JSON has them whole:
//   {"type":"cgroup","cgroup":"/docker/<id>","runtime":"docker","container_id":"<id>",
//    "pod_uid":"","kind":"memcg reclaim","count":12,"total_ns":...,"max_ns":...,"p99_ns":...}
//   {"type":"memcg","cgroup":"/a/b","stalled":"/a/b/c","version":2,"limit":67108864,
//    "high":null,"events":{"high":0,"max":240,"oom":0,"oom_kill":0}}
//   {"type":"memcg", ..., "version":1,"limit":67108864,"failcnt":5230,"max_usage":67112960}
// Counters are the change from when the cgroup first stalled to the end;
// a limit is null where there is none, and a cgroup gone by the end has
// "gone":true and no counters.
#pragma once

#include "cgroup/memcg_watch.h"
#include "output/cgroup_stats.h"

#include <cstddef>
#include <iosfwd>
#include <vector>

namespace allocwatch {

void write_cgroup_report_text(std::ostream& out, const CgroupStats& stats,
                              const std::vector<MemcgChain>& limits, std::size_t max_rows);
void write_cgroup_report_json(std::ostream& out, const CgroupStats& stats,
                              const std::vector<MemcgChain>& limits);

} // namespace allocwatch

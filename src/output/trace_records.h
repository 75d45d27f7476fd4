// The records of the structured trace outputs (--format json, the journal),
// as values (output/record_value.h), built here once for every output that
// writes them:
//
//   {"type":"span","name":"try_to_free_pages","pid":170,"comm":"memhog-",
//    "cgroup":"/kubepods/burstable/pod<uid>/<id>","container_id":"<id>","pod_uid":"<uid>",
//    "start_ns":16466558000,"end_ns":16516484000,"duration_ns":49926000,
//    "lines":["...", "..."],
//    "tracepoints":[{"event":"mm_vmscan_direct_reclaim_begin","ts_ns":16466577000,
//                    "fields":{"order":0,"gfp_flags":"GFP_HIGHUSER_MOVABLE"}}, ...]}
//   {"type":"lost","line":"CPU:0 [LOST 600 EVENTS]","cpu":0,"events":600}
//   ("events" only when the kernel counted them: not for "CPU:0 [LOST EVENTS]")
//   {"type":"shrinker","symbol":"super_cache_scan","total_ns":8455000,
//    "max_ns":466000,"calls":40,"instances":[{"instance":"00000000ce7941b5",
//    "total_ns":1200000,"max_ns":400000,"calls":12}, ...]}
//
// "lines" and "line" are the trace's lines as the kernel printed them (what
// TextSink writes, straight from the Incident). "tracepoints" are the span's tracepoint lines (the
// ones it claimed, and a pair's own begin and end) with their fields; lines that print none (graph
// returns) are left out. Times are integer nanoseconds; -1 where the trace had none.
// "cgroup" is the task's memory cgroup as /proc/PID/cgroup names it, where the run learnt it
// (Incident::cgroup: live runs, replays of their --save files), with "container_id" and
// "pod_uid" where the path names them (cgroup/container.h); each key is left out when unknown,
// so the records of a plain trace's replay have none.
#pragma once

#include "bind/incident.h"
#include "bind/shrinker_stats.h"
#include "output/record_value.h"

#include <span>
#include <string_view>

namespace allocwatch {

// Each record is built into `record`, cleared first; its views point into
// the argument.
void span_record(const Incident& incident, RecordValue& record);
void lost_record(std::string_view line, RecordValue& record);
void shrinker_record(const ShrinkerSummary& shrinker, RecordValue& record);

// The tracepoints, as the list `name` of objects {"event","ts_ns","fields"}
// (those without a name are left out), added to `record`.
void add_tracepoints(std::string_view name, std::span<const Tracepoint> tracepoints,
                     RecordValue& record);

} // namespace allocwatch

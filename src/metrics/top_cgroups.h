// TopCgroups: stalls counted and timed per memory cgroup, at most `top`
// cgroups with series of their own (metrics/top_series.h), ranked by their
// stall time.
//
// Stalls of tasks whose cgroup is unknown (gone before it was read, or a
// replay of a trace without a live run's cgroups) are "other". A cgroup is
// its path as a label value (valid_utf8: paths are any bytes but '/' and
// NUL), so that no two series ever have the same labels: paths that differ
// only in invalid bytes share one series, and a path must start with '/'
// (anything else is "other").
#pragma once

#include "cgroup/task_cgroups.h"
#include "metrics/top_series.h"
#include "util/duration.h"

namespace allocwatch {

using TopCgroups = TopSeries<Nanos>;

// As many candidates as four times the series: a cgroup that stalls long
// enough is seen among them.
inline TopCgroups make_top_cgroups(std::size_t top) {
  return TopCgroups(top, 4 * top);
}

// A stall of `duration` of a task in `cgroup` (null: unknown).
void add_cgroup_stall(TopCgroups& top, const TaskCgroup* cgroup, Nanos duration);

} // namespace allocwatch

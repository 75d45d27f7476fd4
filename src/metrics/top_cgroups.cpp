#include "metrics/top_cgroups.h"

#include "metrics/exposition.h"

namespace allocwatch {

void add_cgroup_stall(TopCgroups& top, const TaskCgroup* cgroup, Nanos duration) {
  if (cgroup != nullptr && cgroup->path.starts_with('/'))
    top.add(valid_utf8(cgroup->path), duration);
  else
    top.add_other(duration);
}

} // namespace allocwatch

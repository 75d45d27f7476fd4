#include "output/cgroup_stats.h"

#include <algorithm>

namespace allocwatch {

Nanos CgroupRow::total() const {
  Nanos sum = 0;
  for (const Kind& kind : kinds)
    sum += kind.durations.total();
  return sum;
}

CgroupRow& CgroupStats::row_for(const TaskCgroup* cgroup) {
  const auto special = [this](CgroupRow*& row, CgroupRow::Of of) -> CgroupRow& {
    if (row == nullptr)
      row = &rows_.emplace_back(CgroupRow{of, {}, {}, {}});
    return *row;
  };
  if (cgroup == nullptr)
    return special(unknown_, CgroupRow::Of::Unknown);
  if (CgroupRow* row = index_.find(cgroup->path))
    return *row;
  if (index_.size() >= max_rows_)
    return special(other_, CgroupRow::Of::Other);
  CgroupRow& row =
      rows_.emplace_back(CgroupRow{CgroupRow::Of::Cgroup, cgroup->path, cgroup->container, {}});
  index_.insert(row.path, &row);
  return row;
}

void CgroupStats::incident(const Incident& incident) {
  if (incident.kind.empty() || incident.background)
    return;
  CgroupRow& row = row_for(incident.cgroup);
  auto kind = std::find_if(row.kinds.begin(), row.kinds.end(),
                           [&](const CgroupRow::Kind& k) { return k.name == incident.kind; });
  if (kind == row.kinds.end())
    kind = row.kinds.insert(row.kinds.end(), CgroupRow::Kind{std::string(incident.kind), {}});
  kind->durations.add(incident.end - incident.start);
}

std::vector<const CgroupRow*> CgroupStats::rows() const {
  std::vector<const CgroupRow*> sorted;
  for (const CgroupRow& row : rows_)
    sorted.push_back(&row);
  std::sort(sorted.begin(), sorted.end(), [](const CgroupRow* a, const CgroupRow* b) {
    if ((a->of == CgroupRow::Of::Cgroup) != (b->of == CgroupRow::Of::Cgroup))
      return a->of == CgroupRow::Of::Cgroup;
    if (a->total() != b->total())
      return a->total() > b->total();
    return a->of != b->of ? a->of < b->of : a->path < b->path;
  });
  return sorted;
}

} // namespace allocwatch

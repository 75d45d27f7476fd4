// CgroupStats: the stalls of tasks by the memory cgroup they ran in, and the
// container and pod that cgroup belongs to (cgroup/container.h). It reads the
// cgroup an AttributingSink gave each incident: nothing per line. At most
// `max_rows` cgroups keep rows of their own; stalls of later ones go to one
// "(other cgroups)" row, stalls of tasks whose cgroup could not be read to
// "(unknown)". Background work (kswapd, kcompactd) is not a container's.
#pragma once

#include "bind/incident.h"
#include "cgroup/task_cgroups.h"
#include "output/latency.h"
#include "util/flat_map.h"

#include <deque>
#include <string>
#include <string_view>
#include <vector>

namespace allocwatch {

struct CgroupRow {
  enum class Of : unsigned char { Cgroup, Other, Unknown };
  Of of = Of::Cgroup;
  std::string path; // empty for Other and Unknown
  Container container;
  // Per kind of stall, in the order first seen.
  struct Kind {
    std::string name;
    LatencySketch durations;
  };
  std::vector<Kind> kinds;
  Nanos total() const;
};

class CgroupStats : public Sink {
public:
  static constexpr std::size_t kDefaultRows = 256;

  explicit CgroupStats(std::size_t max_rows = kDefaultRows) : max_rows_(max_rows) {}

  void incident(const Incident& incident) override;
  void passthrough(std::string_view, Nanos) override {}
  void finish(const ShrinkerStats&) override {}

  // Largest total first (ties by path); the other and unknown rows last.
  std::vector<const CgroupRow*> rows() const;
  std::size_t max_rows() const { return max_rows_; }

private:
  CgroupRow& row_for(const TaskCgroup* cgroup);

  std::size_t max_rows_;
  std::deque<CgroupRow> rows_; // never moves: the index holds views of paths
  NameTable<CgroupRow> index_;
  CgroupRow* other_ = nullptr;
  CgroupRow* unknown_ = nullptr;
};

} // namespace allocwatch

// What a live run learnt of cgroups, kept in its --save file so that a
// replay of that file attributes each stall as the live run did. The records
// are '#' lines after the trace (the parser skips them), the last of them
// giving their size, so that a replay of a file reads them first:
//
//   # allocwatch cgroup 4242 v1 /kubepods/burstable/pod<uid>/<id>
//   # allocwatch memcg 0 v1 /kubepods/burstable/pod<uid>/<id> R,67108864,max,0,0,0,0,5,67112960
//   R,... # allocwatch cgroups 1234
//
// A memcg line is one level of a chain (the chain's number, then the level's
// path), with its first and last reading: readable (R) or not (-), limit,
// high ("max": none), high, max, oom and oom_kill events, failcnt, max
// usage. Paths are written with '%', spaces, control bytes and bytes from
// 0x7f on as %XX. A replay trusts none of it: a line that does not parse
// makes the records an error, and their size is bounded.
#pragma once

#include "cgroup/memcg_watch.h"
#include "cgroup/task_cgroups.h"
#include "util/result.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace allocwatch {

struct SavedCgroups {
  std::map<std::int32_t, TaskCgroup> tasks;
  std::vector<MemcgChain> chains;
};

// A replay's cgroups: those the live run read for each pid. `saved` must
// outlive it.
class SavedCgroupLookup final : public CgroupLookup {
public:
  explicit SavedCgroupLookup(const SavedCgroups& saved) : saved_(saved) {}
  const TaskCgroup* of(std::int32_t pid, Nanos) override {
    const auto it = saved_.tasks.find(pid);
    return it == saved_.tasks.end() ? nullptr : &it->second;
  }

private:
  const SavedCgroups& saved_;
};

// The records of `saved`, with the line that ends them.
std::string write_saved_cgroups(const SavedCgroups& saved);

// The records at the end of the file open as `fd` (a regular file: it is
// read with pread, the offset left alone); nothing when the file has none.
// At most kMaxSavedCgroupBytes are read.
constexpr std::size_t kMaxSavedCgroupBytes = 16 << 20;
Result<std::optional<SavedCgroups>> read_saved_cgroups(int fd);

// The records in `text` (without the ending line), for read_saved_cgroups
// and the tests.
Result<SavedCgroups> parse_saved_cgroups(std::string_view text);

} // namespace allocwatch

// libFuzzer harness: bytes as a cgroup path, a /proc/PID/cgroup, a
// /proc/PID/stat and a mountinfo, all untrusted. Each parser must stay in
// its input and give only what its contract allows: a container id of 64
// hex digits or none, a pod uid in the 8-4-4-4-12 form or none, a memory
// cgroup path that starts with '/' and lies inside the input.
#include "cgroup/container.h"
#include "cgroup/memcg.h"
#include "cgroup/proc_cgroup.h"

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string_view>

using namespace allocwatch;

namespace {

void require(bool condition) {
  if (!condition)
    std::abort();
}

bool hex(char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::unique_ptr<char[]> copy(new char[size > 0 ? size : 1]);
  std::memcpy(copy.get(), data, size);
  const std::string_view text(copy.get(), size);

  const Container container = container_of(text);
  require(container.id.empty() || container.id.size() == 64);
  for (char c : container.id)
    require(hex(c));
  require(container.id.empty() == (container.runtime == Runtime::None));
  require(container.pod_uid.empty() || container.pod_uid.size() == 36);
  for (std::size_t i = 0; i < container.pod_uid.size(); ++i)
    require((i == 8 || i == 13 || i == 18 || i == 23) ? container.pod_uid[i] == '-'
                                                      : hex(container.pod_uid[i]));
  require(container.unit.size() <= text.size());
  require(text.find(container.unit) != std::string_view::npos);

  if (const auto memory = memory_cgroup_of(text)) {
    require(memory->path.starts_with('/'));
    require(memory->path.data() >= text.data() &&
            memory->path.data() + memory->path.size() <= text.data() + text.size());
  }
  (void)start_time_of(text);

  const CgroupMounts mounts = cgroup_mounts(text);
  for (const std::string& point : {mounts.v1_memory, mounts.unified})
    require(point.empty() || text.find(point) != std::string_view::npos);
  const std::string dir = cgroup_dir({"/m", "/u"}, CgroupVersion::V2, text);
  require(dir.empty() || (dir.starts_with("/u") && dir.find("/..") == std::string::npos));
  for (std::string_view path = text; !path.empty();) {
    const std::string_view parent = parent_cgroup(path);
    require(parent.size() < path.size());
    path = parent;
  }
  return 0;
}

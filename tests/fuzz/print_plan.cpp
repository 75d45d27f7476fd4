// libFuzzer harness: bytes as one record of the events in a real trace.dat
// (tests/golden/traces/events-6.18-memcg.dat: 6.18's vmscan and compaction
// formats), untrusted: its first two bytes name the event. Where the
// event's print format has a PrintPlan, the plan must print exactly what
// libtraceevent's tep_print_event() prints of the same bytes, whatever
// they are, a record shorter than its fields included.
#include "ring/print_plan.h"

#include "ring/dat_input.h"

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <memory>
#include <string>
#include <traceevent/event-parse.h>
#include <traceevent/trace-seq.h>
#include <unistd.h>
#include <unordered_map>
#include <vector>

using namespace allocwatch;

namespace {

struct Formats {
  std::unique_ptr<DatInput> file; // owns the tep
  std::unordered_map<int, std::unique_ptr<PrintPlan>> plans;
};

const Formats& formats() {
  static const Formats loaded = [] {
    Formats f;
    const char* path = "tests/golden/traces/events-6.18-memcg.dat";
    const int fd = ::open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
      std::abort();
    auto file = DatInput::open(fd, path, std::nullopt);
    ::close(fd);
    if (!file)
      std::abort();
    f.file = std::move(*file);
    tep_event** events = tep_list_events(f.file->tep(), TEP_EVENT_SORT_ID);
    for (tep_event** each = events; each != nullptr && *each != nullptr; ++each)
      if (std::unique_ptr<PrintPlan> plan = PrintPlan::make(**each))
        f.plans.emplace((*each)->id, std::move(plan));
    if (f.plans.size() < 20)
      std::abort();
    return f;
  }();
  return loaded;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const Formats& f = formats();
  if (size < 2 || size > 4096)
    return 0;
  std::uint16_t id = 0;
  std::memcpy(&id, data, sizeof id);
  const auto found = f.plans.find(id);
  if (found == f.plans.end())
    return 0;
  std::vector<unsigned char> bytes(data, data + size);
  std::string planned;
  found->second->append(bytes.data(), bytes.size(), planned);

  tep_record record{};
  record.data = bytes.data();
  record.size = static_cast<int>(bytes.size());
  trace_seq seq;
  trace_seq_init(&seq);
  tep_print_event(f.file->tep(), &seq, &record, "%s", TEP_PRINT_INFO);
  trace_seq_terminate(&seq);
  const bool same = planned == std::string(seq.buffer, seq.len);
  trace_seq_destroy(&seq);
  if (!same)
    std::abort();
  return 0;
}

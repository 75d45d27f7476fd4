// libFuzzer harness: bytes as one page read from trace_pipe_raw, untrusted.
// The page sits at the end of its buffer, the slack included, and a page
// that cannot be read or written follows it: libtraceevent is not built
// with the sanitizers, so a read of kbuffer's past the buffer must fault.
// Every record must lie inside the bytes read, and the walk must end (a
// loop is a timeout). The records and their times must be those of
// kbuffer's own iteration (kbuffer_read_event, kbuffer_next_event) over the
// page as load() left it, cut where it lied.
#include "kbuffer_records.h"
#include "ring/page_reader.h"

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <initializer_list>
#include <optional>
#include <span>
#include <sys/mman.h>
#include <unistd.h>
#include <vector>

using namespace allocwatch;

namespace {

void require(bool condition) {
  if (!condition)
    std::abort();
}

constexpr std::size_t kPage = 4096;

// A buffer of kPage + kPageSlack bytes ending where an inaccessible page
// begins.
std::byte* guarded_buffer() {
  static std::byte* buffer = [] {
    const std::size_t unit = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
    const std::size_t room = (kPage + kPageSlack + unit - 1) / unit * unit;
    void* map =
        ::mmap(nullptr, room + unit, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    require(map != MAP_FAILED);
    auto* base = static_cast<std::byte*>(map);
    require(::mprotect(base + room, unit, PROT_NONE) == 0);
    return base + room - (kPage + kPageSlack);
  }();
  return buffer;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::byte* buffer = guarded_buffer();
  const std::size_t bytes = size < kPage ? size : kPage;
  for (int long_size : {8, 4}) {
    std::memcpy(buffer, data, bytes);
    PageReader reader(kPage, long_size);
    const bool loaded = reader.load(buffer, bytes);
    require(loaded == (bytes >= 8u + static_cast<std::size_t>(long_size)));
    require(reader.missed() >= -1);
    const std::span<const PageRecord> records = reader.records();
    require(records.size() <= kPage / 4); // a record takes 4 bytes at least
    std::vector<RawEvent> events;
    for (const PageRecord& r : records) {
      require(r.offset >= 8u + static_cast<std::size_t>(long_size));
      require(r.offset + std::size_t{r.size} <= bytes);
      events.push_back({0, r.ts, buffer + r.offset, r.size});
    }
    if (!loaded)
      continue;
    const std::optional<std::vector<RawEvent>> read =
        testing::kbuffer_records(buffer, long_size, 0, kPage / 4);
    require(read.has_value());
    const std::vector<RawEvent>& expected = *read;
    require(events.size() == expected.size());
    for (std::size_t i = 0; i < events.size(); ++i)
      require(events[i].ts == expected[i].ts && events[i].data == expected[i].data &&
              events[i].size == expected[i].size);
  }
  return 0;
}

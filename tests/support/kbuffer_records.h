// kbuffer_records: a page's records as libtraceevent's own iteration gives
// them (kbuffer_read_event, kbuffer_next_event): the independent reading
// that PageReader's tests and fuzz harness check its walk against. Only for
// a page that PageReader::load() has checked and cut (kbuffer trusts a
// page's lengths).
#pragma once

#include "ring/raw_event.h"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

extern "C" {
#include <kbuffer.h>
}

namespace allocwatch::testing {

// The records of `page` (of a kernel whose long is `long_size` bytes), as
// RawEvents of `cpu`; nullopt if kbuffer cannot load it or gives more than
// `most`.
inline std::optional<std::vector<RawEvent>> kbuffer_records(std::byte* page, int long_size,
                                                            std::int32_t cpu, std::size_t most) {
  kbuffer* kbuf = kbuffer_alloc(long_size == 4 ? KBUFFER_LSIZE_4 : KBUFFER_LSIZE_8,
                                KBUFFER_ENDIAN_SAME_AS_HOST);
  if (kbuf == nullptr)
    return std::nullopt;
  std::optional<std::vector<RawEvent>> events;
  if (kbuffer_load_subbuffer(kbuf, page) == 0) {
    events.emplace();
    unsigned long long ts = 0;
    for (void* data = kbuffer_read_event(kbuf, &ts); data != nullptr;
         data = kbuffer_next_event(kbuf, &ts)) {
      if (events->size() == most) {
        events.reset();
        break;
      }
      events->push_back({cpu, ts, data, static_cast<std::uint32_t>(kbuffer_event_size(kbuf))});
    }
  }
  kbuffer_free(kbuf);
  return events;
}

} // namespace allocwatch::testing

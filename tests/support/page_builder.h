// PageBuilder: a ring-buffer page built by hand, for the tests of ring/:
// a header, then records as the kernel lays them out on a little-endian
// machine (type_len in a record's low 5 bits, the time delta above).
#pragma once

#include "ring/page_reader.h"

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

namespace allocwatch::testing {

constexpr std::size_t kPageBytes = 4096;

struct PageBuilder {
  std::vector<std::byte> bytes = std::vector<std::byte>(kPageBytes + kPageSlack);
  std::size_t at = 16;

  void word32(std::uint32_t w) {
    std::memcpy(bytes.data() + at, &w, 4);
    at += 4;
  }
  // A record of `words` 4-byte payload words (type_len = words, 1..28),
  // whose first payload word is `id`.
  void record(std::uint32_t delta, std::uint32_t words, std::uint32_t id) {
    word32(words | delta << 5);
    word32(id);
    for (std::uint32_t i = 1; i < words; ++i)
      word32(0);
  }
  void time_extend(std::uint64_t delta) {
    word32(30 | static_cast<std::uint32_t>(delta & ((1u << 27) - 1)) << 5);
    word32(static_cast<std::uint32_t>(delta >> 27));
  }
  void padding(std::int32_t length) {
    word32(29 | 1u << 5);
    word32(static_cast<std::uint32_t>(length));
  }
  std::byte* finish(std::uint64_t ts, std::uint64_t flags = 0) {
    std::memcpy(bytes.data(), &ts, 8);
    const std::uint64_t commit = (at - 16) | flags;
    std::memcpy(bytes.data() + 8, &commit, 8);
    return bytes.data();
  }
  // Records at absolute times `ts` (ascending, gaps under 2^27 ns), each
  // with its time's low 32 bits as its id; the page's time is the first's.
  static PageBuilder at_times(const std::vector<std::uint64_t>& ts, std::uint64_t flags = 0) {
    PageBuilder b;
    std::uint64_t previous = ts.empty() ? 0 : ts.front();
    for (std::uint64_t t : ts) {
      b.record(static_cast<std::uint32_t>(t - previous), 2, static_cast<std::uint32_t>(t));
      previous = t;
    }
    b.finish(ts.empty() ? 0 : ts.front(), flags);
    return b;
  }
  void set_commit(std::uint64_t commit) { std::memcpy(bytes.data() + 8, &commit, 8); }
};

} // namespace allocwatch::testing

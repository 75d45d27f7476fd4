// EventTable: the binder's event roles by name, searched on every tracepoint
// line. Event names are a few dozen known ones of 10 to 40 bytes: a hash of
// their first and last eight bytes and their length, and an equality that
// compares eight bytes at a time inline, cost a fraction of StringHash's two
// finalisers and a call to memcmp per line.
#pragma once

#include "trace/swar.h"
#include "util/flat_map.h"

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace allocwatch {

struct EventName {
  std::string_view text;

  friend bool operator==(EventName a, EventName b) {
    using swar::load8;
    const std::size_t n = a.text.size();
    if (n != b.text.size())
      return false;
    const char* x = a.text.data();
    const char* y = b.text.data();
    if (n < 8) {
      for (std::size_t i = 0; i < n; ++i)
        if (x[i] != y[i])
          return false;
      return true;
    }
    for (std::size_t i = 0; i + 8 < n; i += 8)
      if (load8(x + i) != load8(y + i))
        return false;
    return load8(x + n - 8) == load8(y + n - 8); // the last eight, overlapping
  }
};

struct EventNameHash {
  std::size_t operator()(EventName name) const {
    using swar::load8;
    const std::string_view text = name.text;
    const std::size_t n = text.size();
    std::uint64_t word = n;
    if (n >= 8) {
      const std::uint64_t last = load8(text.data() + n - 8);
      word ^= load8(text.data()) ^ (last << 29 | last >> 35);
    } else {
      for (std::size_t i = 0; i < n; ++i)
        word ^= static_cast<std::uint64_t>(static_cast<unsigned char>(text[i])) << (8 * i + 8);
    }
    // The product's high bits depend on every bit of the word.
    return static_cast<std::size_t>((word * 0x9E3779B97F4A7C15ULL) >> 32);
  }
};

// Names to what they stand for. The map keeps views: the bytes of each name
// must outlive it.
template <class T> using EventTable = FlatMap<EventName, T*, EventNameHash>;

} // namespace allocwatch

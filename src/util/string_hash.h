// Hashes of text. StringHash: for string-keyed unordered containers that
// are searched with a string_view (find() then needs no temporary
// std::string, no allocation). hash_every_byte(): for bytes that may
// differ anywhere.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>

namespace allocwatch {

namespace string_hash_detail {

inline std::uint64_t load(const char* p) {
  std::uint64_t word;
  std::memcpy(&word, p, sizeof word);
  return word;
}

// The finaliser of MurmurHash3's 64-bit variant: every input bit reaches
// every output bit.
inline std::size_t mix(std::uint64_t h) {
  h ^= h >> 33;
  h *= 0xFF51AFD7ED558CCDULL;
  h ^= h >> 33;
  h *= 0xC4CEB9FE1A85EC53ULL;
  h ^= h >> 33;
  return static_cast<std::size_t>(h);
}

} // namespace string_hash_detail

// The keys are kernel symbol and event names, looked up once per trace line:
// the length and three 8-byte loads (start, middle, end) tell them apart in a
// few instructions, where std::hash reads every byte. A collision only costs a
// comparison.
struct StringHash {
  using is_transparent = void;
  std::size_t operator()(std::string_view text) const {
    using string_hash_detail::load;
    using string_hash_detail::mix;
    const std::size_t n = text.size();
    if (n < 8) {
      std::uint64_t word = 0;
      if (n != 0) // an empty view may have no data at all: memcpy(null) is undefined
        std::memcpy(&word, text.data(), n);
      return mix(word ^ n);
    }
    return mix(load(text.data()) ^ mix(load(text.data() + (n - 8) / 2) ^ n) ^
               (load(text.data() + n - 8) * 0x9E3779B97F4A7C15ULL));
  }
};

// A hash that every byte of `bytes` moves, a word at a time: for keys that
// differ anywhere (a record's fields), where StringHash samples three words.
inline std::uint64_t hash_every_byte(std::string_view bytes) {
  std::uint64_t h = bytes.size();
  std::size_t at = 0;
  for (; at + 8 <= bytes.size(); at += 8)
    h = (h ^ string_hash_detail::load(bytes.data() + at)) * 0x9E3779B97F4A7C15ULL;
  if (at < bytes.size()) {
    std::uint64_t tail = 0;
    std::memcpy(&tail, bytes.data() + at, bytes.size() - at);
    h = (h ^ tail) * 0x9E3779B97F4A7C15ULL;
  }
  return string_hash_detail::mix(h);
}

} // namespace allocwatch

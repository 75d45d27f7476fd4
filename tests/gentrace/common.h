// Times, limits and the one way out that every part of gentrace shares.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace gentrace {

using Nanos = std::int64_t;
constexpr Nanos kMicro = 1000;
constexpr Nanos kMilli = 1000 * kMicro;
constexpr Nanos kSecond = 1000 * kMilli;

// No planned call or pair lasts longer than this, so neither the generator
// nor allocwatch (10 s window) ever needs a line older than kHoldFor.
constexpr Nanos kLongestSpan = 2500 * kMilli;
constexpr Nanos kHoldFor = 5 * kSecond;
// allocwatch's defaults that the plan must stay clear of.
constexpr Nanos kWindow = 10 * kSecond;
constexpr std::size_t kMaxPendingPerTask = 4096;

[[noreturn]] inline void die(const std::string& message) {
  std::fprintf(stderr, "gentrace: %s\n", message.c_str());
  std::exit(2);
}

} // namespace gentrace

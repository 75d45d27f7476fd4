// Durations and timestamps are integer nanoseconds everywhere: the kernel
// prints fixed-point decimals and floating point would lose the last digit.
#pragma once

#include "util/result.h"

#include <cstdint>
#include <string>
#include <string_view>

namespace allocwatch {

using Nanos = std::int64_t;

constexpr Nanos kMicro = 1000;
constexpr Nanos kMilli = 1000 * kMicro;
constexpr Nanos kSecond = 1000 * kMilli;

// Parses "134us", "1.5ms", "500ns", "2s", "250 us"; a bare number is in
// `bare_unit` (µs for thresholds, seconds for --duration).
Result<Nanos> parse_duration(std::string_view text, Nanos bare_unit = kMicro);

// "8.455000" for 8455000 ns: milliseconds with six decimals, exact.
std::string format_ms(Nanos ns);

// "134us", "1.5ms", "2s": the shortest exact form, for messages and plans.
std::string format_duration(Nanos ns);

} // namespace allocwatch

// Sizes in bytes as profiles write them: "8MiB", "512KiB", "1GiB", "65536".
#pragma once

#include "util/result.h"

#include <cstdint>
#include <string>
#include <string_view>

namespace allocwatch {

// Parses a whole number with an optional unit: B, KiB, MiB, GiB (powers of
// 1024; K, M, G and KB, MB, GB are read the same way, as memory is counted).
// A space may stand before the unit. A bare number is in bytes.
Result<std::uint64_t> parse_size(std::string_view text);

// "8MiB", "1536KiB", "1000B": the largest unit that divides `bytes` exactly,
// so that parse_size reads it back.
std::string format_size(std::uint64_t bytes);

} // namespace allocwatch

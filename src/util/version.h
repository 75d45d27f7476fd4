#pragma once

namespace allocwatch {
inline constexpr const char* kVersion = "0.1.0";
} // namespace allocwatch

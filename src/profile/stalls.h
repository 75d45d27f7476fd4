// Background tasks: the kernel threads whose slow calls are background work
// (kswapd reclaims, kcompactd compacts) rather than stalls of the task that
// allocates. The report keeps them apart; the profile names them.
#pragma once

#include <span>
#include <string>
#include <string_view>

namespace allocwatch {

// True when `comm` is one of the `background` tasks: it starts with one of
// the names ("kswapd0" for "kswapd"), or it is a comm function_graph cut to
// 7 bytes that starts such a name ("kcompac" for "kcompactd").
bool is_background_comm(std::span<const std::string> background, std::string_view comm);

} // namespace allocwatch

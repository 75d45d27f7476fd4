#include "profile/stalls.h"

#include <doctest/doctest.h>
#include <string>
#include <vector>

using namespace allocwatch;

TEST_CASE("stalls: background tasks by the start of their comm, also when function_graph cut it") {
  const std::vector<std::string> background = {"kswapd", "kcompactd"};
  CHECK(is_background_comm(background, "kswapd0"));
  CHECK(is_background_comm(background, "kswapd1"));
  CHECK(is_background_comm(background, "kcompactd0"));
  CHECK(is_background_comm(background, "kcompac"));     // graph traces cut comms to 7 bytes
  CHECK_FALSE(is_background_comm(background, "kcomp")); // too short to be a cut comm
  CHECK_FALSE(is_background_comm(background, "memhog"));
  CHECK_FALSE(is_background_comm(background, "<...>"));
  CHECK_FALSE(is_background_comm(background, ""));
  CHECK_FALSE(is_background_comm({}, "kswapd0"));
}

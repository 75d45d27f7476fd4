// libFuzzer harness: the profile loader on YAML text. A profile it takes
// must also be one the binder takes, and one whose functions and events a
// plan could use; what it refuses must be refused with FILE:LINE:COL or
// FILE: and one line.
#include "bind/binder.h"
#include "bind/run_stats.h"
#include "bind/shrinker_stats.h"
#include "output/fanout_sink.h"
#include "profile/loader.h"
#include "trace/parser.h"

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

using namespace allocwatch;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view yaml(reinterpret_cast<const char*>(data), size);
  Result<Profile> profile = load_profile_text(yaml, "fuzz.yaml");
  if (!profile) {
    const std::string& message = profile.error().message;
    if (!message.starts_with("fuzz.yaml:") || message.find('\n') != std::string::npos)
      std::abort();
    return 0;
  }
  if (profile->description.empty() || (profile->functions.empty() && profile->pairs.empty()) ||
      profile->window < profile->threshold)
    std::abort();
  // A store of up to 1 GiB is a valid profile's (max_held_bytes); the binder
  // allocates it whole, over this harness's malloc limit. The binder's own
  // harness is the pipeline's; here a small store does.
  profile->max_held_bytes = std::min<std::uint64_t>(profile->max_held_bytes, 1 << 20);
  FanoutSink none;
  ShrinkerStats shrinkers;
  RunStats stats;
  for (Mode mode : {Mode::Graph, Mode::Events}) {
    Binder binder(*profile, BinderOptions{profile->threshold, mode}, none, shrinkers, stats);
    for (std::string_view line :
         {"  bash-2143    [001] .....   224.615001: mm_compaction_begin: zone_start=0x1000",
          "  bash-2143    [001] .....   224.800223: mm_compaction_end: zone_start=0x1000",
          "   16.516484 |   1)   memhog-170   | * 49926.22 us |    } /* try_to_free_pages */"})
      binder.feed(parse_line(line));
    binder.finish();
  }
  return 0;
}

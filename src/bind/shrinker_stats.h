// ShrinkerStats: the time each shrinker took, from complete
// mm_shrink_slab_start/end pairs, printed at the end in the 2016 script's
// format, per shrinker function and, when one function serves several
// instances (every superblock shares super_cache_scan), per instance.
// Instances come and go with their superblocks (a container's mounts), so
// at most kMaxInstances have totals of their own; the calls of any newer
// one count in its function's "(other)" instance, and every function's
// totals stay exact.
#pragma once

#include "trace/event_fields.h" // parse_shrinker_id
#include "util/duration.h"
#include "util/string_hash.h"

#include <cstdint>
#include <deque>
#include <iosfwd>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace allocwatch {

struct ShrinkerTotals {
  Nanos total = 0;
  Nanos max = 0;
  std::uint64_t calls = 0;
  void add(Nanos duration);
  void add(const ShrinkerTotals& other);
};

// One shrinker function's totals, and each of its instances'. The views
// point into the ShrinkerStats that made it and live as long as it does.
struct ShrinkerSummary {
  struct Instance {
    std::string_view name; // "00000000ce7941b5"
    ShrinkerTotals totals;
  };
  std::string_view symbol; // "super_cache_scan"
  ShrinkerTotals totals;
  std::vector<Instance> instances; // largest total first (ties by name)
};

class ShrinkerStats {
public:
  static constexpr std::size_t kMaxInstances = 4096;
  // The instance name of a function's calls past kMaxInstances.
  static constexpr std::string_view kOtherInstance = "(other)";

  void add(std::string_view symbol, std::string_view instance, Nanos duration);
  // The totals of one shrinker, to add to: the binder keeps the reference (it
  // stays valid as long as this object) and spares the lookup by name on
  // every call. Only for a pair that completed: a shrinker that has totals is
  // printed, even with no call added.
  ShrinkerTotals& totals(std::string_view symbol, std::string_view instance);
  bool empty() const { return instances_.empty(); }
  // Instances with totals of their own (an address reused by another
  // function counts once per function), "(other)" not counted.
  std::size_t instances() const { return own_instances_; }
  // Every shrinker function seen, largest total first (ties by name).
  std::vector<ShrinkerSummary> summary() const;
  // Largest total first (ties by name):
  //   super_cache_scan : total time = 8.455000 ms, max latency = 0.466000 ms
  // then, for each function with more than one instance, in the same order,
  // its instances by total:
  //   super_cache_scan[00000000ce7941b5] : total time = ..., calls = 12
  // Nothing when no pair was complete.
  void print(std::ostream& out) const;

private:
  struct Shrinker {
    std::string symbol;
    ShrinkerTotals totals;
  };
  // Keyed by instance, one lookup per pair: an instance is a shrinker's
  // address, so it has one symbol, unless the address was reused by another
  // shrinker, hence the (almost always single-entry) list, a deque so that
  // the totals totals() hands out never move.
  std::unordered_map<std::string, std::deque<Shrinker>, StringHash, std::equal_to<>> instances_;
  std::size_t own_instances_ = 0;
};

} // namespace allocwatch

// ShrinkerKeys: the shrinkers that mm_shrink_slab_start lines name, each
// parsed once. A begin keeps its shrinker's key; its end, which in a
// complete pair prints the same "%pS %p:" prefix, is then matched with one
// comparison instead of a parse, and its duration added to the shrinker's
// totals without a lookup by name.
#pragma once

#include "bind/shrinker_stats.h"
#include "util/flat_map.h"

#include <cstddef>
#include <deque>
#include <string>
#include <string_view>

namespace allocwatch {

// One shrinker as a shrink_slab line names it.
struct ShrinkerKey {
  // The fields before the instance's ':', "super_cache_scan+0x0/0x210
  // 00000000ce7941b5": what parse_shrinker_id reads.
  std::string prefix;
  std::string_view symbol;   // "super_cache_scan", in prefix
  std::string_view instance; // "00000000ce7941b5", in prefix; never empty
  // Its totals, once a pair of it completed (see ShrinkerStats::totals).
  ShrinkerTotals* totals = nullptr;
  // The shrinker whose begin came next, the last time a task's begin of
  // this one was followed by another: the kernel calls a node's shrinkers in
  // the order of its list, so this is most often the task's next one.
  ShrinkerKey* next = nullptr;

  // Whether parse_shrinker_id(fields) gives this symbol and instance because
  // the fields start with the same prefix, then ':' (false when they name the
  // shrinker some other way; parse them to know).
  bool named_by(std::string_view fields) const {
    return fields.size() > prefix.size() && fields[prefix.size()] == ':' &&
           fields.starts_with(prefix);
  }
};

class ShrinkerKeys {
public:
  // A kernel has a few hundred shrinkers at most; past this many keys (a
  // trace that is not a kernel's), lines are parsed as they come instead.
  static constexpr std::size_t kMaxKeys = 4096;

  // The key of the shrinker that shrink_slab `fields` name; nullptr when they
  // name no instance, or when the table is full and the key is new.
  ShrinkerKey* find(std::string_view fields);
  // The same, `previous` being the key of the task's last begin (or
  // nullptr): when the fields name its successor (or itself), the key is
  // found with one comparison, without parsing them.
  ShrinkerKey* find_after(ShrinkerKey* previous, std::string_view fields);
  std::size_t size() const { return keys_.size(); }

private:
  std::deque<ShrinkerKey> keys_; // never moves an element: the index and begins point in
  NameTable<ShrinkerKey> index_; // by prefix
};

} // namespace allocwatch

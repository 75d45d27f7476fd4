// Event fields: what a tracepoint line's fields say, as named values. The
// report, the JSON output and the timeline read the claimed tracepoints of
// each over-threshold span through here, and the binder reads the shrinker
// of each shrink_slab line.
//
// Two formats:
//   key=value, space separated (almost every vmscan and compaction event):
//     "order=0 gfp_flags=GFP_HIGHUSER_MOVABLE|__GFP_COMP"
//     "zone_start=0x1 migrate_pfn=0x1 zone_end=0x1000, mode=sync" (the ',' is dropped)
//     "range=(0x1 ~ 0x200) nr_scanned=511"      (a value in parentheses keeps its spaces)
//     "node=0 zone=DMA      order=-1"           (runs of spaces are one separator)
//   mm_shrink_slab_start/end, "%pS %p: " then phrases and values:
//     "super_cache_scan+0x0/0x210 00000000ce7941b5: nid: 0 objects to shrink 0
//      gfp_flags GFP_KERNEL cache items 7 delta 14 total_scan 14 priority 0"
//     gives symbol=super_cache_scan, instance=00000000ce7941b5, nid=0,
//     nr_objects_to_shrink=0, gfp_flags=GFP_KERNEL, cache_items=7, ... (the
//     phrases are named as the tracepoint's own fields are).
// Words that are neither (a bare word, an unknown phrase) are skipped.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

namespace allocwatch {

// Which shrinker a mm_shrink_slab_start/end line is about. The views point
// into the fields they were parsed from.
struct ShrinkerId {
  std::string_view symbol;   // "super_cache_scan"
  std::string_view instance; // "00000000ce7941b5"
};

// Reads the kernel's "%pS %p:" prefix of the fields:
// "super_cache_scan+0x0/0x210 00000000ce7941b5: nid: 0 ..." gives
// {"super_cache_scan", "00000000ce7941b5"}. Missing parts are empty.
ShrinkerId parse_shrinker_id(std::string_view fields);

// One field. `key` and `value` point into the fields (or, for a shrink_slab
// phrase, at a static name); `number` is the value when it is a decimal
// integer that fits 64 bits ("-1", "44890"), so that a hex address or a
// flag word stays text.
struct EventField {
  std::string_view key;
  std::string_view value;
  std::optional<std::int64_t> number;
};

// The fields of one line of `event` (its name without the subsystem), in
// the order printed, into `out` (cleared first; its capacity is reused, so a
// warm vector allocates nothing).
void parse_event_fields(std::string_view event, std::string_view fields,
                        std::vector<EventField>& out);

// One field of a line of `event`, without parsing the others: its value
// (a view into `fields`), or its number; none if it is absent (or, for the
// number, not a number).
std::optional<std::string_view> event_field(std::string_view event, std::string_view fields,
                                            std::string_view key);
std::optional<std::int64_t> event_field_number(std::string_view event, std::string_view fields,
                                               std::string_view key);
// event_field() of a line whose event prints key=value words (as every
// event whose fields the kernel table names does): the event need not be
// looked up.
std::optional<std::string_view> key_value_field(std::string_view fields, std::string_view key);

// A decimal integer, optionally negative, with no other byte.
std::optional<std::int64_t> parse_integer(std::string_view text);

// The number of the first field called `key`; none if it is absent or not a
// number.
std::optional<std::int64_t> field_number(const std::vector<EventField>& fields,
                                         std::string_view key);
// The value of the first field called `key`; empty if absent.
std::string_view field_value(const std::vector<EventField>& fields, std::string_view key);

} // namespace allocwatch

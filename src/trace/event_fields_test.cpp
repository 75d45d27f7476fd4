#include "trace/event_fields.h"

#include <doctest/doctest.h>
#include <limits>
#include <string>
#include <vector>

using namespace allocwatch;

namespace {
// "key=value" per field, numbers marked with '#': "order=#0".
std::string shown(std::string_view event, std::string_view fields) {
  std::vector<EventField> out;
  parse_event_fields(event, fields, out);
  std::string text;
  for (const EventField& field : out) {
    if (!text.empty())
      text += ' ';
    text += std::string(field.key) + '=' + (field.number ? "#" : "") + std::string(field.value);
  }
  return text;
}
} // namespace

TEST_CASE("parse_shrinker_id reads the %pS %p prefix of shrink_slab fields") {
  const ShrinkerId id =
      parse_shrinker_id("super_cache_scan+0x0/0x210 00000000ce7941b5: nid: 0 objects to shrink 0");
  CHECK(id.symbol == "super_cache_scan");
  CHECK(id.instance == "00000000ce7941b5");
  const ShrinkerId bare = parse_shrinker_id("kfree_rcu_shrink_scan 00000000ecb61676:");
  CHECK(bare.symbol == "kfree_rcu_shrink_scan");
  CHECK(bare.instance == "00000000ecb61676");
  // A shrinker in a module: %pS adds " [module]" before the instance.
  const ShrinkerId module =
      parse_shrinker_id("ext4_es_scan+0x0/0x3b0 [ext4] 000000007988191a: nid: 0 objects");
  CHECK(module.symbol == "ext4_es_scan");
  CHECK(module.instance == "000000007988191a");
  const ShrinkerId empty = parse_shrinker_id("");
  CHECK(empty.symbol.empty());
  CHECK(empty.instance.empty());
}

TEST_CASE("event fields: key=value, numbers apart from text") {
  CHECK(shown("mm_vmscan_direct_reclaim_begin",
              "order=0 gfp_flags=GFP_HIGHUSER_MOVABLE|__GFP_COMP|__GFP_ZERO") ==
        "order=#0 gfp_flags=GFP_HIGHUSER_MOVABLE|__GFP_COMP|__GFP_ZERO");
  CHECK(shown("mm_vmscan_direct_reclaim_end", "nr_reclaimed=34") == "nr_reclaimed=#34");
  // Before 5.2 direct_reclaim_begin printed more fields; all are read.
  CHECK(shown("mm_vmscan_direct_reclaim_begin",
              "order=9 may_writepage=1 gfp_flags=GFP_TRANSHUGE classzone_idx=3") ==
        "order=#9 may_writepage=#1 gfp_flags=GFP_TRANSHUGE classzone_idx=#3");
  // Hex stays text: JSON has no hex numbers, and a pfn is read as printed.
  CHECK(shown("mm_compaction_begin",
              "zone_start=0x1 migrate_pfn=0x1 free_pfn=0xe00 zone_end=0x1000, mode=sync") ==
        "zone_start=0x1 migrate_pfn=0x1 free_pfn=0xe00 zone_end=0x1000 mode=sync");
  CHECK(shown("mm_compaction_finished", "node=0 zone=DMA      order=-1 ret=continue") ==
        "node=#0 zone=DMA order=#-1 ret=continue");
  CHECK(shown("mm_compaction_isolate_migratepages", "range=(0x1 ~ 0x200) nr_scanned=511") ==
        "range=(0x1 ~ 0x200) nr_scanned=#511");
  CHECK(shown("mm_compaction_try_to_compact_pages",
              "order=9 gfp_mask=GFP_TRANSHUGE|__GFP_NORETRY|__GFP_THISNODE priority=2") ==
        "order=#9 gfp_mask=GFP_TRANSHUGE|__GFP_NORETRY|__GFP_THISNODE priority=#2");
}

TEST_CASE("event fields: what is not key=value is skipped, never misread") {
  CHECK(shown("x", "") == "");
  CHECK(shown("x", "   ") == "");
  CHECK(shown("x", "bare words a=1 =2 b=") == "a=#1 b=");
  CHECK(shown("x", "range=(0x1 ~ 0x200") == "range=(0x1"); // no ')': one word
  CHECK(shown("x", "a=1,") == "a=#1");
  CHECK(shown("x", "a=b=c") == "a=b=c");
}

TEST_CASE("event fields: shrink_slab's symbol, instance and phrases") {
  CHECK(shown("mm_shrink_slab_start",
              "super_cache_scan+0x0/0x210 00000000ce7941b5: nid: 0 objects to shrink 0 gfp_flags "
              "GFP_KERNEL cache items 243 delta 121 total_scan 121 priority 0") ==
        "symbol=super_cache_scan instance=00000000ce7941b5 nid=#0 nr_objects_to_shrink=#0 "
        "gfp_flags=GFP_KERNEL cache_items=#243 delta=#121 total_scan=#121 priority=#0");
  CHECK(shown("mm_shrink_slab_end",
              "ext4_es_scan+0x0/0x3d0 [ext4] 0000000080e23003: nid: 0 unused scan count 0 new "
              "scan count 0 total_scan 0 last shrinker return val 6916") ==
        "symbol=ext4_es_scan instance=0000000080e23003 nid=#0 unused_scan=#0 new_scan=#0 "
        "total_scan=#0 retval=#6916");
  // 4.x printed pgs_scanned and lru_pgs; an unknown phrase is skipped.
  CHECK(shown("mm_shrink_slab_start",
              "s+0x0/0x1 00000000000000aa: nid: 1 objects to shrink 5 gfp_flags GFP_NOFS "
              "pgs_scanned 32 lru_pgs 1000 cache items 7 brand new thing 9 delta 3 total_scan 3") ==
        "symbol=s instance=00000000000000aa nid=#1 nr_objects_to_shrink=#5 gfp_flags=GFP_NOFS "
        "pgs_scanned=#32 lru_pgs=#1000 cache_items=#7 delta=#3 total_scan=#3");
  CHECK(shown("mm_shrink_slab_end", "truncated+0x0") == "symbol=truncated");
  CHECK(shown("mm_shrink_slab_end", "s+0x0/0x1 00000000000000aa: nid:") ==
        "symbol=s instance=00000000000000aa");
}

TEST_CASE("parse_integer: decimal, signed, 64 bits, nothing else") {
  CHECK(parse_integer("0") == 0);
  CHECK(parse_integer("-1") == -1);
  CHECK(parse_integer("9223372036854775807") == std::numeric_limits<std::int64_t>::max());
  CHECK(parse_integer("-9223372036854775808") == std::numeric_limits<std::int64_t>::min());
  CHECK_FALSE(parse_integer("9223372036854775808"));
  CHECK_FALSE(parse_integer("99999999999999999999"));
  CHECK_FALSE(parse_integer(""));
  CHECK_FALSE(parse_integer("-"));
  CHECK_FALSE(parse_integer("0x10"));
  CHECK_FALSE(parse_integer("1.5"));
  CHECK_FALSE(parse_integer("+1"));
}

TEST_CASE("field_number and field_value find the first field of a name") {
  std::vector<EventField> fields;
  parse_event_fields("e", "order=3 gfp_flags=GFP_KERNEL order=4", fields);
  CHECK(field_number(fields, "order") == 3);
  CHECK_FALSE(field_number(fields, "gfp_flags"));
  CHECK_FALSE(field_number(fields, "nope"));
  CHECK(field_value(fields, "gfp_flags") == "GFP_KERNEL");
  CHECK(field_value(fields, "nope").empty());
}

TEST_CASE("event_field_number reads one field as parse_event_fields would") {
  CHECK(event_field_number("mm_vmscan_lru_shrink_inactive",
                           "nid=0 nr_scanned=44890 nr_reclaimed=1 priority=11",
                           "nr_scanned") == 44890);
  CHECK(event_field_number("e", "a=1 range=(0x1 ~ 0x2) nr=-3,", "nr") == -3);
  CHECK_FALSE(event_field_number("e", "a=1 b=0x2", "b"));
  CHECK_FALSE(event_field_number("e", "a=1", "missing"));
  CHECK(event_field_number("mm_shrink_slab_end",
                           "s+0x0/0x1 00000000000000aa: nid: 0 last shrinker return val 7",
                           "retval") == 7);
}

TEST_CASE("event_field finds one value as parse_event_fields would") {
  CHECK(event_field("mm_vmscan_direct_reclaim_begin", "order=0 gfp_flags=GFP_KERNEL|__GFP_ZERO",
                    "gfp_flags") == "GFP_KERNEL|__GFP_ZERO");
  CHECK(event_field("e", "zone_end=0x1000, mode=sync", "zone_end") == "0x1000");
  CHECK(event_field("e", "range=(0x1 ~ 0x200) n=1", "range") == "(0x1 ~ 0x200)");
  CHECK(event_field("e", "b=", "b") == "");
  CHECK_FALSE(event_field("e", "b=1", "c"));
  CHECK(event_field("mm_shrink_slab_start", "s+0x0/0x1 00000000000000aa: gfp_flags GFP_NOFS",
                    "gfp_flags") == "GFP_NOFS");
}

TEST_CASE("event_field: only a whole key at a word's start, with or without parentheses") {
  for (std::string_view fields : {"xorder=1 order=2 order_x=3", "r=(a order=9) xorder=1 order=2"}) {
    CAPTURE(fields);
    CHECK(event_field("e", fields, "order") == "2");
    CHECK_FALSE(event_field("e", fields, "rder"));
    CHECK_FALSE(event_field("e", fields, "order_"));
  }
  CHECK(event_field("e", "order=", "order") == "");
  CHECK_FALSE(event_field("e", "order", "order"));
  // Every field of every line, by both paths, is what parse_event_fields reads.
  for (std::string_view fields :
       {"nid=0 nr_scanned=44890 nr_reclaimed=1 flags=RECLAIM_WB_FILE|RECLAIM_WB_ASYNC",
        "zone_start=0x1 zone_end=0x1000, mode=sync", "node=0 zone=DMA      order=-1 ret=continue",
        "range=(0x1 ~ 0x200) nr_scanned=511 nr_taken=0", " a=1  b=2 "}) {
    std::vector<EventField> all;
    parse_event_fields("e", fields, all);
    for (const EventField& field : all) {
      CAPTURE(fields);
      CAPTURE(field.key);
      CHECK(event_field("e", fields, field.key) == field.value);
    }
  }
}

TEST_CASE("event_field: the first field of its key, as parse_event_fields reads it, any layout") {
  for (const std::string_view fields :
       {"nid=0 nr_scanned=32 nr_reclaimed=1", "nr_scanned=7", "  nr_scanned=8,  x=1",
        "xnr_scanned=1 nr_scanned=9", "nr_scanned_total=4 nr_scanned=5",
        "range=(0x1 nr_scanned=77) nr_scanned=6", "nid=0 nr_scanned=(12)", "nid=0", "nr_scanned= 3",
        "nr_scanned=-4", "nid=0 nr_scanned=99999999999999999999"}) {
    CAPTURE(fields);
    std::vector<EventField> all;
    parse_event_fields("e", fields, all);
    std::optional<std::string_view> first;
    for (const EventField& field : all)
      if (!first && field.key == "nr_scanned")
        first = field.value;
    CHECK(event_field("e", fields, "nr_scanned") == first);
  }
}

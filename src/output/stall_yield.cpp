#include "output/stall_yield.h"

#include "trace/event_fields.h"

#include <algorithm>

namespace allocwatch {

std::uint64_t positive_field(std::string_view fields, std::string_view key) {
  if (key.empty())
    return 0;
  const std::optional<std::string_view> value = key_value_field(fields, key);
  const std::optional<std::int64_t> number = value ? parse_integer(*value) : std::nullopt;
  return number && *number > 0 ? static_cast<std::uint64_t>(*number) : 0;
}

namespace {

// The unknown order sorts last.
bool order_before(const std::optional<std::int64_t>& a, const std::optional<std::int64_t>& b) {
  if (!a || !b)
    return a.has_value() && !b.has_value();
  return *a < *b;
}

} // namespace

void OrderCounts::add(std::optional<std::int64_t> order, std::uint64_t count) {
  const auto at = std::lower_bound(counts_.begin(), counts_.end(), order,
                                   [](const OrderCount& c, const std::optional<std::int64_t>& o) {
                                     return order_before(c.order, o);
                                   });
  if (at != counts_.end() && at->order == order)
    at->count += count;
  else if (counts_.size() < kOrders)
    counts_.insert(at, {order, count});
  else
    other_ += count;
}

void OrderCounts::merge(const OrderCounts& other) {
  for (const OrderCount& c : other.counts_)
    add(c.order, c.count);
  other_ += other.other_;
}

bool ReclaimFigures::any() const {
  return pages_scanned || shrinker_time || pages_written || throttled;
}

void ReclaimFigures::add(const ReclaimFigures& other) {
  pages_scanned += other.pages_scanned;
  shrinker_time += other.shrinker_time;
  pages_written += other.pages_written;
  sync_writes += other.sync_writes;
  throttled += other.throttled;
  throttled_time += other.throttled_time;
}

ReclaimFigures reclaim_figures(const KnownEvent& event, std::string_view fields) {
  ReclaimFigures figures;
  switch (event.role) {
  case EventRole::LruShrinkInactive:
    figures.pages_scanned = positive_field(fields, event.pages_key);
    break;
  case EventRole::ReclaimWrite:
    figures.pages_written = 1;
    figures.sync_writes =
        is_sync_write(key_value_field(fields, event.flags_key).value_or("")) ? 1 : 0;
    break;
  case EventRole::ReclaimThrottled:
    figures.throttled = 1;
    figures.throttled_time = static_cast<Nanos>(positive_field(fields, event.delay_key)) * kMicro;
    break;
  default:
    break;
  }
  return figures;
}

bool CompactionYield::any() const {
  return pages_migrated || migrate_failed ||
         std::any_of(ends.begin(), ends.end(), [](std::uint64_t n) { return n > 0; });
}

void CompactionYield::add(const CompactionYield& other) {
  pages_migrated += other.pages_migrated;
  migrate_failed += other.migrate_failed;
  for (std::size_t i = 0; i < ends.size(); ++i)
    ends[i] += other.ends[i];
}

bool CompactionYield::read(const KnownEvent& event, std::string_view fields) {
  if (event.role == EventRole::CompactMigrate) {
    pages_migrated += positive_field(fields, event.pages_key);
    migrate_failed += positive_field(fields, event.failed_key);
    return true;
  }
  if (event.role != EventRole::CompactEnd)
    return false;
  const std::string_view status = key_value_field(fields, event.status_key).value_or("");
  const std::span<const std::string_view> names = compaction_statuses();
  const auto found = std::find(names.begin(), names.end(), status);
  ++ends[found == names.end() ? kOtherEnd : static_cast<std::size_t>(found - names.begin())];
  return true;
}

void StallYield::merge(const StallYield& other) {
  reclaim = reclaim || other.reclaim;
  compaction = compaction || other.compaction;
  orders.merge(other.orders);
  figures.add(other.figures);
  pages_reclaimed += other.pages_reclaimed;
  compacted.add(other.compacted);
}

} // namespace allocwatch

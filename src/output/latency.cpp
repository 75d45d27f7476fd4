#include "output/latency.h"

#include <algorithm>
#include <bit>
#include <cstdint>
#include <optional>

namespace allocwatch {

std::uint16_t LatencySketch::bucket_of(Nanos duration) {
  const auto value = static_cast<std::uint64_t>(std::max<Nanos>(duration, 0));
  if (value < static_cast<std::uint64_t>(kSubBuckets))
    return static_cast<std::uint16_t>(value);
  // The power of two at or below the value, and which 32nd of it.
  const int exponent = std::bit_width(value) - 1; // >= kSubBucketBits
  const int shift = exponent - kSubBucketBits;
  const auto sub = static_cast<int>((value >> shift) & (kSubBuckets - 1));
  return static_cast<std::uint16_t>((shift + 1) * kSubBuckets + sub);
}

Nanos LatencySketch::bucket_last(std::uint16_t index) {
  if (index < kSubBuckets)
    return index;
  const int shift = index / kSubBuckets - 1;
  const std::int64_t sub = index % kSubBuckets;
  const auto first = static_cast<std::uint64_t>(kSubBuckets + sub) << shift;
  const std::uint64_t last = first + ((std::uint64_t{1} << shift) - 1);
  return static_cast<Nanos>(std::min<std::uint64_t>(last, INT64_MAX));
}

namespace {
std::uint32_t saturating_add(std::uint32_t count, std::uint32_t more) {
  return more > UINT32_MAX - count ? UINT32_MAX : count + more;
}
} // namespace

template <class F> void LatencySketch::for_each_bucket(F f) const {
  for (const auto& [index, count] : sparse_)
    f(index, count);
  for (std::size_t i = 0; i < counts_.size(); ++i)
    if (counts_[i] != 0)
      f(static_cast<std::uint16_t>(first_ + i), counts_[i]);
}

void LatencySketch::add_dense(std::uint16_t index, std::uint32_t count) {
  if (counts_.empty()) {
    first_ = index;
    counts_.assign(1, 0);
  } else if (index < first_) {
    counts_.insert(counts_.begin(), first_ - index, 0);
    first_ = index;
  } else if (static_cast<std::size_t>(index - first_) >= counts_.size()) {
    counts_.resize(static_cast<std::size_t>(index - first_) + 1, 0);
  }
  std::uint32_t& bucket = counts_[static_cast<std::size_t>(index - first_)];
  bucket = saturating_add(bucket, count);
}

void LatencySketch::add_to_bucket(std::uint16_t index, std::uint32_t count) {
  if (!counts_.empty()) {
    add_dense(index, count);
    return;
  }
  auto at = std::lower_bound(sparse_.begin(), sparse_.end(), index,
                             [](const auto& bucket, std::uint16_t i) { return bucket.first < i; });
  if (at != sparse_.end() && at->first == index) {
    at->second = saturating_add(at->second, count);
    return;
  }
  if (sparse_.size() < kSparseBuckets) {
    sparse_.insert(at, {index, count});
    return;
  }
  // One bucket too many for the list: counters over the range from now on.
  for (const auto& [i, c] : sparse_)
    add_dense(i, c);
  add_dense(index, count);
  std::vector<std::pair<std::uint16_t, std::uint32_t>>().swap(sparse_);
}

std::vector<std::pair<std::uint16_t, std::uint64_t>> LatencySketch::buckets() const {
  std::vector<std::pair<std::uint16_t, std::uint64_t>> used;
  for_each_bucket(
      [&used](std::uint16_t index, std::uint32_t count) { used.emplace_back(index, count); });
  return used;
}

namespace {
// Both are >= 0: the total stops at the largest Nanos (292 years) instead of
// overflowing.
Nanos saturating_add(Nanos total, Nanos more) {
  return more > INT64_MAX - total ? INT64_MAX : total + more;
}
} // namespace

void LatencySketch::add(Nanos duration) {
  duration = std::max<Nanos>(duration, 0);
  min_ = count_ == 0 ? duration : std::min(min_, duration);
  max_ = std::max(max_, duration);
  total_ = saturating_add(total_, duration);
  ++count_;
  add_to_bucket(bucket_of(duration), 1);
}

void LatencySketch::merge(const LatencySketch& other) {
  if (other.count_ == 0)
    return;
  min_ = count_ == 0 ? other.min_ : std::min(min_, other.min_);
  max_ = std::max(max_, other.max_);
  total_ = saturating_add(total_, other.total_);
  count_ += other.count_;
  other.for_each_bucket(
      [this](std::uint16_t index, std::uint32_t count) { add_to_bucket(index, count); });
}

Nanos LatencySketch::percentile(int per_cent) const {
  if (count_ == 0)
    return 0;
  per_cent = std::clamp(per_cent, 1, 100);
  // Nearest rank: ceil(per_cent * count / 100), at least 1.
  const std::uint64_t rank = (static_cast<std::uint64_t>(per_cent) * count_ + 99) / 100;
  std::uint64_t seen = 0;
  std::optional<std::uint16_t> found;
  for_each_bucket([&](std::uint16_t index, std::uint32_t count) {
    seen += count;
    if (!found && seen >= rank)
      found = index;
  });
  // Not found: counters that stopped at 2^32 - 1 count short.
  return found ? std::min(bucket_last(*found), max_) : max_;
}

std::size_t Log2Histogram::bucket_of(Nanos duration) {
  const auto us = static_cast<std::uint64_t>(std::max<Nanos>(duration, 0) / kMicro);
  return std::min<std::size_t>(std::bit_width(us), kBuckets - 1);
}

std::uint64_t Log2Histogram::low_us(std::size_t bucket) {
  return bucket == 0 ? 0 : std::uint64_t{1} << (bucket - 1);
}

std::uint64_t Log2Histogram::high_us(std::size_t bucket) {
  return std::uint64_t{1} << bucket;
}

void Log2Histogram::add(Nanos duration) {
  ++counts_[bucket_of(duration)];
  ++count_;
}

void Log2Histogram::merge(const Log2Histogram& other) {
  for (std::size_t i = 0; i < kBuckets; ++i)
    counts_[i] += other.counts_[i];
  count_ += other.count_;
}

std::pair<std::size_t, std::size_t> Log2Histogram::used_range() const {
  std::size_t first = 0;
  while (first < kBuckets && counts_[first] == 0)
    ++first;
  if (first == kBuckets)
    return {0, 0};
  std::size_t end = kBuckets;
  while (counts_[end - 1] == 0)
    --end;
  return {first, end};
}

} // namespace allocwatch

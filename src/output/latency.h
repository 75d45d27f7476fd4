// Latency aggregates of bounded size, for runs of weeks: whatever the number
// of durations added, a LatencySketch holds at most a few hundred counters
// and a Log2Histogram 64.
#pragma once

#include "util/duration.h"

#include <array>
#include <cstdint>
#include <utility>
#include <vector>

namespace allocwatch {

// Count, total, min and max of durations, exact, and percentiles from a
// log-linear histogram: below 32 ns one bucket per nanosecond, above it 32
// buckets per power of two, so a bucket is at most 1/32 of its lower end
// wide. The buckets in use are kept as a sorted list while there are at
// most 64 of them (512 bytes), then as counters over the range in use (at
// most 1888 of 4 bytes). A task's stalls from 100 us to 10 ms span about
// 210 buckets, and a long run fills more of them: as counters, a thousand
// such rows grew the report by most of a megabyte between a 100 MB and a
// 1 GB trace, where the list holds most rows' buckets in less. A counter
// stops at 2^32 - 1.
class LatencySketch {
public:
  static constexpr int kSubBucketBits = 5;
  static constexpr std::int64_t kSubBuckets = std::int64_t{1} << kSubBucketBits; // 32

  void add(Nanos duration); // negative durations count as 0
  void merge(const LatencySketch& other);

  std::uint64_t count() const { return count_; }
  Nanos total() const { return total_; } // stops at INT64_MAX
  Nanos min() const { return min_; }     // 0 when empty
  Nanos max() const { return max_; }     // 0 when empty

  // The nearest-rank percentile (1 <= per_cent <= 100): the smallest added
  // duration d such that at least per_cent % of the durations are <= d,
  // rounded up to the end of its bucket and capped at max(). So it is never
  // below the exact value, and at most 1/32 (3.1 %) above it; it is exact
  // when the rank falls on the largest duration (p99 of fewer than 100),
  // and for durations under 64 ns. 0 when empty.
  Nanos percentile(int per_cent) const;

  // Buckets in use, for tests: (index, count), by index.
  std::vector<std::pair<std::uint16_t, std::uint64_t>> buckets() const;
  static std::uint16_t bucket_of(Nanos duration);
  static Nanos bucket_last(std::uint16_t index); // the largest duration in the bucket

private:
  static constexpr std::size_t kSparseBuckets = 64;

  void add_to_bucket(std::uint16_t index, std::uint32_t count);
  void add_dense(std::uint16_t index, std::uint32_t count);
  // Calls f(index, count) for each bucket in use, by index.
  template <class F> void for_each_bucket(F f) const;

  std::uint64_t count_ = 0;
  Nanos total_ = 0;
  Nanos min_ = 0;
  Nanos max_ = 0;
  // Until more than kSparseBuckets are in use: (index, count), by index.
  std::vector<std::pair<std::uint16_t, std::uint32_t>> sparse_;
  std::uint16_t first_ = 0;           // the index of counts_[0]
  std::vector<std::uint32_t> counts_; // then: buckets first_ .. first_ + size - 1
};

// Durations in log2 buckets of whole microseconds, as funclatency and
// bpftrace's hist() show them: [0, 1) us, [1, 2), [2, 4), ... [2^62, 2^63).
// Counts are exact.
class Log2Histogram {
public:
  static constexpr std::size_t kBuckets = 64;

  void add(Nanos duration); // negative durations count as 0
  void merge(const Log2Histogram& other);

  std::uint64_t count() const { return count_; }
  std::uint64_t operator[](std::size_t bucket) const { return counts_[bucket]; }
  // The bucket of a duration, and its bounds in microseconds: [low, high).
  static std::size_t bucket_of(Nanos duration);
  static std::uint64_t low_us(std::size_t bucket);
  static std::uint64_t high_us(std::size_t bucket);
  // The first and one past the last bucket in use; {0, 0} when empty.
  std::pair<std::size_t, std::size_t> used_range() const;

private:
  std::uint64_t count_ = 0;
  std::array<std::uint64_t, kBuckets> counts_{};
};

} // namespace allocwatch

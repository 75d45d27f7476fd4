#include "output/latency.h"

#include <algorithm>
#include <cstdint>
#include <doctest/doctest.h>
#include <map>
#include <random>
#include <vector>

using namespace allocwatch;

namespace {
// The exact nearest-rank percentile of a set: the ceil(p * n / 100)-th smallest.
Nanos exact_percentile(std::vector<Nanos> values, int per_cent) {
  std::sort(values.begin(), values.end());
  const std::size_t rank = (static_cast<std::size_t>(per_cent) * values.size() + 99) / 100;
  return values[std::max<std::size_t>(rank, 1) - 1];
}
} // namespace

TEST_CASE("latency sketch: count, total, min, max are exact") {
  LatencySketch sketch;
  CHECK(sketch.count() == 0);
  CHECK(sketch.percentile(99) == 0);
  for (Nanos d : {300 * kMicro, 100 * kMicro, 5 * kMilli, 100 * kMicro})
    sketch.add(d);
  CHECK(sketch.count() == 4);
  CHECK(sketch.total() == 5500 * kMicro);
  CHECK(sketch.min() == 100 * kMicro);
  CHECK(sketch.max() == 5 * kMilli);
  // Fewer than 100 durations: the 99th percentile is the largest, exactly.
  CHECK(sketch.percentile(99) == 5 * kMilli);
  CHECK(sketch.percentile(100) == 5 * kMilli);
}

TEST_CASE("latency sketch: p99 of known sets") {
  SUBCASE("1..1000 us: the 990th smallest") {
    LatencySketch sketch;
    for (Nanos us = 1; us <= 1000; ++us)
      sketch.add(us * kMicro);
    const Nanos p99 = sketch.percentile(99);
    CHECK(p99 >= 990 * kMicro);
    CHECK(p99 <= 990 * kMicro + 990 * kMicro / 32);
    CHECK(sketch.percentile(50) >= 500 * kMicro);
    CHECK(sketch.percentile(50) <= 500 * kMicro + 500 * kMicro / 32);
  }
  SUBCASE("99 fast and one slow: p99 is the fast one, p100 the slow one") {
    LatencySketch sketch;
    for (int i = 0; i < 99; ++i)
      sketch.add(200 * kMicro);
    sketch.add(80 * kMilli);
    // Rank 99 of 100: a fast one, reported as the end of its bucket.
    CHECK(sketch.percentile(99) >= 200 * kMicro);
    CHECK(sketch.percentile(99) <= 200 * kMicro + 200 * kMicro / 32);
    CHECK(sketch.percentile(100) == 80 * kMilli);
  }
  SUBCASE("98 fast and two slow: p99 is a slow one") {
    LatencySketch sketch;
    for (int i = 0; i < 98; ++i)
      sketch.add(200 * kMicro);
    sketch.add(70 * kMilli);
    sketch.add(80 * kMilli);
    CHECK(sketch.percentile(99) >= 70 * kMilli);
    CHECK(sketch.percentile(99) <= 70 * kMilli + 70 * kMilli / 32);
  }
  SUBCASE("all equal: every percentile is that value") {
    LatencySketch sketch;
    for (int i = 0; i < 1000; ++i)
      sketch.add(123'456);
    CHECK(sketch.percentile(1) == 123'456);
    CHECK(sketch.percentile(99) == 123'456);
  }
  SUBCASE("under 64 ns: exact") {
    LatencySketch sketch;
    for (Nanos ns = 0; ns < 64; ++ns)
      for (int i = 0; i < 10; ++i)
        sketch.add(ns);
    CHECK(sketch.percentile(50) == 31);
    CHECK(sketch.percentile(99) == 63);
  }
}

TEST_CASE("latency sketch: never below the exact percentile, at most 1/32 above it") {
  std::mt19937_64 random(7);
  for (int round = 0; round < 50; ++round) {
    // Long-tailed durations from 1 us to 10 s, as stalls are.
    std::lognormal_distribution<double> spread(std::log(300'000.0), 1.5 + round % 3);
    const std::size_t n = 1 + random() % 5000;
    std::vector<Nanos> values;
    LatencySketch sketch;
    for (std::size_t i = 0; i < n; ++i) {
      const auto d = std::clamp<Nanos>(static_cast<Nanos>(spread(random)), kMicro, 10 * kSecond);
      values.push_back(d);
      sketch.add(d);
    }
    for (int p : {1, 50, 90, 99, 100}) {
      const Nanos exact = exact_percentile(values, p);
      const Nanos got = sketch.percentile(p);
      CHECK(got >= exact);
      CHECK(got <= exact + exact / 32);
      CHECK(got <= sketch.max());
    }
  }
}

TEST_CASE("latency sketch: merging is the same as adding to one") {
  LatencySketch a, b, both;
  for (Nanos d = 1; d < 2'000'000; d = d * 3 + 7) {
    (d % 2 ? a : b).add(d);
    both.add(d);
  }
  a.merge(b);
  CHECK(a.count() == both.count());
  CHECK(a.total() == both.total());
  CHECK(a.min() == both.min());
  CHECK(a.max() == both.max());
  CHECK(a.buckets() == both.buckets());
  LatencySketch empty;
  empty.merge(both);
  CHECK(empty.min() == both.min());
}

TEST_CASE("latency sketch: the same buckets as a list and as counters, and merged across") {
  // 64 buckets in use fit the list; one more turns it into counters.
  for (int distinct : {1, 63, 64, 65, 200}) {
    CAPTURE(distinct);
    LatencySketch all, odd, even;
    std::map<std::uint16_t, std::uint64_t> expected;
    for (int i = 0; i < distinct; ++i)
      for (int times = 0; times <= i % 3; ++times) {
        // The last duration of every other bucket from 1 us on: each one new.
        const Nanos d = LatencySketch::bucket_last(static_cast<std::uint16_t>(160 + 2 * i));
        all.add(d);
        (i % 2 ? odd : even).add(d);
        ++expected[LatencySketch::bucket_of(d)];
      }
    CHECK(all.buckets().size() == static_cast<std::size_t>(distinct));
    CHECK(all.buckets() ==
          std::vector<std::pair<std::uint16_t, std::uint64_t>>(expected.begin(), expected.end()));
    LatencySketch merged = odd;
    merged.merge(even);
    CHECK(merged.buckets() == all.buckets());
    // A short list into counters, and counters into a short list.
    LatencySketch few;
    few.add(5);
    few.add(1'000'000'000);
    LatencySketch few_then_all = few;
    few_then_all.merge(all);
    LatencySketch all_then_few = all;
    all_then_few.merge(few);
    CHECK(few_then_all.count() == all.count() + 2);
    CHECK(few_then_all.buckets() == all_then_few.buckets());
  }
}

TEST_CASE("latency sketch: bounded, whatever it is fed") {
  LatencySketch sketch;
  std::mt19937_64 random(1);
  for (int i = 0; i < 200'000; ++i)
    sketch.add(static_cast<Nanos>(random() >> 1));
  sketch.add(INT64_MAX);
  sketch.add(-5); // counts as 0
  // 32 exact buckets, then 32 per power of two up to 2^63.
  CHECK(sketch.buckets().size() <= 32 + 58 * 32);
  CHECK(sketch.percentile(100) == INT64_MAX);
  CHECK(sketch.min() == 0);
  CHECK(sketch.total() == INT64_MAX); // saturated, not overflowed
  CHECK(LatencySketch::bucket_last(LatencySketch::bucket_of(INT64_MAX)) == INT64_MAX);
}

TEST_CASE("latency sketch: buckets tile the numbers, each at most 1/32 wide") {
  for (Nanos d : {Nanos{0}, Nanos{31}, Nanos{32}, Nanos{63}, Nanos{64}, Nanos{65}, Nanos{999},
                  kMicro, 100 * kMicro, Nanos{123'456'789}, 10 * kSecond}) {
    const std::uint16_t index = LatencySketch::bucket_of(d);
    const Nanos last = LatencySketch::bucket_last(index);
    CHECK(last >= d);
    CHECK(last - d <= d / 32);
    CHECK(LatencySketch::bucket_of(last) == index);
    CHECK(LatencySketch::bucket_of(last + 1) == index + 1);
  }
}

TEST_CASE("log2 histogram: whole microseconds in [2^(k-1), 2^k) buckets") {
  CHECK(Log2Histogram::bucket_of(0) == 0);
  CHECK(Log2Histogram::bucket_of(999) == 0); // [0, 1) us
  CHECK(Log2Histogram::bucket_of(1000) == 1);
  CHECK(Log2Histogram::bucket_of(1999) == 1); // [1, 2)
  CHECK(Log2Histogram::bucket_of(2000) == 2); // [2, 4)
  CHECK(Log2Histogram::bucket_of(3999) == 2);
  CHECK(Log2Histogram::bucket_of(4000) == 3);
  CHECK(Log2Histogram::bucket_of(1023 * kMicro) == 10); // [512, 1024)
  CHECK(Log2Histogram::bucket_of(1024 * kMicro) == 11);
  CHECK(Log2Histogram::bucket_of(INT64_MAX) == 54);
  CHECK(Log2Histogram::low_us(0) == 0);
  CHECK(Log2Histogram::high_us(0) == 1);
  CHECK(Log2Histogram::low_us(11) == 1024);
  CHECK(Log2Histogram::high_us(11) == 2048);

  Log2Histogram histogram;
  CHECK(histogram.used_range() == std::pair<std::size_t, std::size_t>{0, 0});
  for (Nanos d : {150 * kMicro, 130 * kMicro, 5 * kMilli, 300 * kMicro})
    histogram.add(d);
  CHECK(histogram.count() == 4);
  CHECK(histogram[8] == 2); // [128, 256): 130 and 150
  CHECK(histogram[9] == 1); // [256, 512): 300
  CHECK(histogram[10] == 0);
  CHECK(histogram[13] == 1); // [4096, 8192): 5000
  CHECK(histogram.used_range() == std::pair<std::size_t, std::size_t>{8, 14});
  Log2Histogram other;
  other.add(1);
  histogram.merge(other);
  CHECK(histogram.count() == 5);
  CHECK(histogram.used_range() == std::pair<std::size_t, std::size_t>{0, 14});
}

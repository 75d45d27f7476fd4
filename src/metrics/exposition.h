// Exposition: Prometheus' text exposition format (version 0.0.4), what
// node_exporter's textfile collector reads and a /metrics endpoint serves:
//
//   # HELP allocwatch_stalls_total Stalls at or above the threshold, by kind and task.
//   # TYPE allocwatch_stalls_total counter
//   allocwatch_stalls_total{kind="direct reclaim",comm="postgres"} 12
//
// A family is declared once, then its samples follow. Label values are
// escaped (\\, \", \n) and made valid UTF-8 (a comm is any bytes the task
// chose; one invalid byte would make Prometheus refuse the whole scrape).
// Durations go in as integer nanoseconds and come out as exact decimal
// seconds: no floating point, no rounding.
//
// Why not prometheus-cpp (Debian's prometheus-cpp-dev 1.0.1): its pull
// exposer is civetweb, a general web server with threads of its own, in a
// process that runs as root and holds tracefs, and it adds its own
// exposer_* metrics (latencies in microseconds) to every scrape; its core's
// model is counters updated at each event, while these metrics are read
// from aggregates the run keeps anyway, so only its text serializer would be
// used, for civetweb, libcurl and zlib as build dependencies. This writer is
// checked by promtool and by a real Prometheus in tests/fleet.
#pragma once

#include "util/duration.h"

#include <array>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>

namespace allocwatch {

struct Label {
  std::string_view name;
  std::string_view value;
};

// Durations in buckets whose upper bounds cover 100 µs to 10 s, a 1-2.5-5
// series per decade as Prometheus' client libraries use.
class DurationHistogram {
public:
  static constexpr std::array<Nanos, 16> kUpperBounds = {
      100 * kMicro, 250 * kMicro,  500 * kMicro, 1 * kMilli,   2500 * kMicro, 5 * kMilli,
      10 * kMilli,  25 * kMilli,   50 * kMilli,  100 * kMilli, 250 * kMilli,  500 * kMilli,
      1 * kSecond,  2500 * kMilli, 5 * kSecond,  10 * kSecond};

  void add(Nanos duration);
  std::uint64_t count() const { return count_; }
  Nanos sum() const { return sum_; }
  // Observations at or below kUpperBounds[i] (Prometheus' "le": cumulative).
  std::uint64_t cumulative(std::size_t i) const;

private:
  std::array<std::uint64_t, kUpperBounds.size()> in_bucket_{}; // not cumulative
  std::uint64_t count_ = 0;
  Nanos sum_ = 0;
};

class Exposition {
public:
  enum class Type { Counter, Gauge, Histogram };

  // "# HELP" and "# TYPE" lines. `name` is the family's name (a histogram's
  // without _bucket/_sum/_count); `help` is one line of plain text.
  void family(std::string_view name, Type type, std::string_view help);
  void sample(std::string_view name, std::initializer_list<Label> labels, std::uint64_t value);
  // A duration, written in seconds.
  void sample_seconds(std::string_view name, std::initializer_list<Label> labels, Nanos value);
  // The _bucket (cumulative, +Inf last), _sum and _count samples of `name`.
  void histogram(std::string_view name, std::initializer_list<Label> labels,
                 const DurationHistogram& histogram);

  const std::string& text() const { return text_; }

private:
  void head(std::string_view name, std::string_view suffix, std::initializer_list<Label> labels,
            const Label* extra = nullptr);

  std::string text_;
};

// "0.001234567" for 1234567 ns: exact, without trailing zeros ("1" for 1 s).
std::string seconds_text(Nanos ns);

// `value` with every byte sequence that is not valid UTF-8 replaced by
// U+FFFD, each invalid byte once.
std::string valid_utf8(std::string_view value);

} // namespace allocwatch

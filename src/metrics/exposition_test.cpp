#include "metrics/exposition.h"

#include <doctest/doctest.h>

using namespace allocwatch;

TEST_CASE("exposition: seconds are exact decimals of the nanoseconds") {
  CHECK(seconds_text(0) == "0");
  CHECK(seconds_text(1) == "0.000000001");
  CHECK(seconds_text(100 * kMicro) == "0.0001");
  CHECK(seconds_text(1234567) == "0.001234567");
  CHECK(seconds_text(2500 * kMilli) == "2.5");
  CHECK(seconds_text(10 * kSecond) == "10");
  CHECK(seconds_text(-1500 * kMilli) == "-1.5");
  CHECK(seconds_text(INT64_MIN) == "-9223372036.854775808");
}

TEST_CASE("exposition: a family, its samples, label values escaped") {
  Exposition out;
  out.family("allocwatch_stalls_total", Exposition::Type::Counter, "Stalls by kind\nand \\ task");
  out.sample("allocwatch_stalls_total", {{"kind", "direct reclaim"}, {"comm", "a\"b\\c\nd"}}, 12);
  out.sample("allocwatch_stalls_total", {}, 0);
  out.family("allocwatch_threshold_seconds", Exposition::Type::Gauge, "The threshold.");
  out.sample_seconds("allocwatch_threshold_seconds", {}, 100 * kMicro);
  CHECK(out.text() ==
        "# HELP allocwatch_stalls_total Stalls by kind\\nand \\\\ task\n"
        "# TYPE allocwatch_stalls_total counter\n"
        "allocwatch_stalls_total{kind=\"direct reclaim\",comm=\"a\\\"b\\\\c\\nd\"} 12\n"
        "allocwatch_stalls_total 0\n"
        "# HELP allocwatch_threshold_seconds The threshold.\n"
        "# TYPE allocwatch_threshold_seconds gauge\n"
        "allocwatch_threshold_seconds 0.0001\n");
}

TEST_CASE("exposition: label values become valid UTF-8, valid text is kept") {
  CHECK(valid_utf8("kworker/0:1") == "kworker/0:1");
  CHECK(valid_utf8("caf\xc3\xa9") == "caf\xc3\xa9");           // é
  CHECK(valid_utf8("\xf0\x9f\x90\x8d") == "\xf0\x9f\x90\x8d"); // a 4-byte sequence
  CHECK(valid_utf8("a\xff"
                   "b") == "a\xef\xbf\xbd"
                           "b");                                               // never valid
  CHECK(valid_utf8("\xc3") == "\xef\xbf\xbd");                                 // cut short
  CHECK(valid_utf8("\xc0\xaf") == "\xef\xbf\xbd\xef\xbf\xbd");                 // overlong '/'
  CHECK(valid_utf8("\xed\xa0\x80") == "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd"); // a surrogate
  CHECK(valid_utf8("\xf4\x90\x80\x80").find("\xf4") == std::string::npos);     // > U+10FFFF
  Exposition out;
  out.sample("m", {{"comm", "x\x80y"}}, 1);
  CHECK(out.text() == "m{comm=\"x\xef\xbf\xbdy\"} 1\n");
}

TEST_CASE("exposition: histogram buckets are cumulative, le inclusive, +Inf is the count") {
  DurationHistogram h;
  h.add(50 * kMicro);  // <= 100us
  h.add(100 * kMicro); // <= 100us: le is inclusive
  h.add(100 * kMicro + 1);
  h.add(3 * kMilli);
  h.add(20 * kSecond); // only in +Inf
  CHECK(h.count() == 5);
  CHECK(h.sum() == 50 * kMicro + 200 * kMicro + 1 + 3 * kMilli + 20 * kSecond);
  CHECK(h.cumulative(0) == 2);
  CHECK(h.cumulative(1) == 3);
  CHECK(h.cumulative(5) == 4); // le 5ms
  CHECK(h.cumulative(DurationHistogram::kUpperBounds.size() - 1) == 4);

  Exposition out;
  out.histogram("d_seconds", {{"kind", "k"}}, h);
  const std::string& text = out.text();
  CHECK(text.starts_with("d_seconds_bucket{kind=\"k\",le=\"0.0001\"} 2\n"
                         "d_seconds_bucket{kind=\"k\",le=\"0.00025\"} 3\n"));
  CHECK(text.find("d_seconds_bucket{kind=\"k\",le=\"10\"} 4\n"
                  "d_seconds_bucket{kind=\"k\",le=\"+Inf\"} 5\n"
                  "d_seconds_sum{kind=\"k\"} 20.003250001\n"
                  "d_seconds_count{kind=\"k\"} 5\n") != std::string::npos);
}

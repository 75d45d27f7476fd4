#include "util/duration.h"

#include <doctest/doctest.h>

using namespace allocwatch;

TEST_CASE("parse_duration takes the units operators type") {
  CHECK(parse_duration("134us").value() == 134'000);
  CHECK(parse_duration("1.5ms").value() == 1'500'000);
  CHECK(parse_duration("500ns").value() == 500);
  CHECK(parse_duration("2s").value() == 2'000'000'000);
  CHECK(parse_duration("250 us").value() == 250'000);
  CHECK(parse_duration("0.5us").value() == 500);
  CHECK(parse_duration(".5ms").value() == 500'000);
}

TEST_CASE("a bare number is in the caller's unit") {
  CHECK(parse_duration("134").value() == 134'000);
  CHECK(parse_duration("30", kSecond).value() == 30'000'000'000);
}

TEST_CASE("parse_duration rejects what it cannot read exactly") {
  CHECK_FALSE(parse_duration("").ok());
  CHECK_FALSE(parse_duration("us").ok());
  CHECK_FALSE(parse_duration("12 parsecs").ok());
  CHECK_FALSE(parse_duration("1.").ok());
  CHECK_FALSE(parse_duration("0.1ns").ok());
  CHECK_FALSE(parse_duration("-5us").ok());
  CHECK_FALSE(parse_duration("99999999999999999999s").ok());
  CHECK(parse_duration("1x").error().message.find("unknown unit") != std::string::npos);
}

TEST_CASE("format_ms prints milliseconds with six exact decimals") {
  CHECK(format_ms(8'455'000) == "8.455000");
  CHECK(format_ms(466'000) == "0.466000");
  CHECK(format_ms(1) == "0.000001");
  CHECK(format_ms(0) == "0.000000");
  CHECK(format_ms(12'345'678'901) == "12345.678901");
}

TEST_CASE("format_duration gives the shortest exact form") {
  CHECK(format_duration(134'000) == "134us");
  CHECK(format_duration(1'500'000) == "1.5ms");
  CHECK(format_duration(2'000'000'000) == "2s");
  CHECK(format_duration(500) == "500ns");
  CHECK(format_duration(1'234) == "1.234us");
  CHECK(format_duration(1'000'001) == "1000.001us");
}

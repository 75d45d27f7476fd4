#include "trace/capture_record.h"

#include <doctest/doctest.h>

using namespace allocwatch;

TEST_CASE("capture record: written, read back, nothing else taken for one") {
  CHECK(capture_record(100) == "# allocwatch tracing_thresh_us 100\n");
  CHECK(parse_capture_record(capture_record(100) + "# tracer: function_graph\n") == 100 * kMicro);
  CHECK(parse_capture_record(capture_record(0)) == 0);
  CHECK_FALSE(parse_capture_record("# tracer: function_graph\n"));
  CHECK_FALSE(parse_capture_record("# allocwatch tracing_thresh_us 100")); // cut: no newline
  CHECK_FALSE(parse_capture_record("# allocwatch tracing_thresh_us 1x0\n"));
  CHECK_FALSE(parse_capture_record("# allocwatch tracing_thresh_us -1\n"));
  CHECK_FALSE(parse_capture_record("# allocwatch tracing_thresh_us 99999999999999999999\n"));
}

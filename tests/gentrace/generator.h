// The generator: tasks planned episode by episode and interleaved in time
// order over the cpus, each line as the kernel prints it (with lost events,
// torn and corrupt records, context switch banners), the truth beside it.
#pragma once

#include "common.h"
#include "model.h"

#include <cstdint>
#include <cstdio>
#include <string>

namespace gentrace {

struct Options {
  Format format = Format::Graph;
  std::uint64_t seed = 1;
  std::uint64_t bytes = 0;
  std::uint64_t calls = 0;
  Nanos threshold = 0;
  std::string trace_path;
  std::string expected_path;
  int tasks = 0; // user tasks; 0: 6-18
  int cpus = 0;  // 0: 2-8
  bool dense = false;
  Nanos max_span = 0;
  bool no_span = false;
};

// Writes the trace `opt` asks for to `trace` and allocwatch's stdout for it
// to `expected`; a summary to stderr.
void generate(const Options& opt, std::FILE* trace, std::FILE* expected);

} // namespace gentrace

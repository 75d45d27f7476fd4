// libFuzzer harness: a trace.dat of the input's bytes, replayed as -i
// replays one: written to an anonymous file, opened by DatRecords (which
// checks it through libtracecmd, in a child first), every record decoded
// by EventDecoder with the file's own formats and each line formatted, as
// a printed line would be. A truncated or forged file must be refused or
// read, never crash; what opened must hold together: a Lost record followed
// by a record of its CPU, a formatted line never empty, fields inside their
// line. (Time order is not checked: a forged CPU's records may go back in
// time, and the merge keeps each CPU's order; the unit tests check it on
// real files.)
//
// Seeds: real files made on this machine (tests/golden/make-dat.sh; the
// version 6 and uncompressed ones by trace-cmd convert), and forged ones
// kept as regressions. libtracecmd and libtraceevent are the system's,
// not instrumented: the fuzzer's coverage is allocwatch's code, and their
// faults show as crashes only where they fault. DatInput opens each file in
// a child process first: a library fault there (or an allocation past
// -malloc_limit_mb) is a refused file, not a finding, though libFuzzer
// still writes the child's input to the findings directory; the fuzzer's
// exit status tells a real finding.
#include "asan_options.h"
#include "ring/dat_reader.h"

#include <cstdint>
#include <cstdlib>
#include <string>
#include <sys/mman.h>
#include <unistd.h>

using namespace allocwatch;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const int fd = ::memfd_create("trace.dat", MFD_CLOEXEC);
  if (fd < 0)
    std::abort();
  for (std::size_t at = 0; at < size;) {
    const ssize_t n = ::write(fd, data + at, size - at);
    if (n <= 0)
      std::abort();
    at += static_cast<std::size_t>(n);
  }
  auto records = DatRecords::open(fd, "fuzz.dat", std::nullopt);
  ::close(fd);
  if (!records) {
    if (records.error().message.empty())
      std::abort();
    return 0;
  }
  std::string line;
  int lost_cpu = -1;
  while (const Record* r = (*records)->next()) {
    if (lost_cpu >= 0 && r->cpu != lost_cpu)
      std::abort(); // a Lost record is followed by a record of its CPU
    lost_cpu = r->kind == LineKind::Lost ? r->cpu : -1;
    if (r->kind == LineKind::Lost) {
      if (r->line.empty())
        std::abort();
      continue;
    }
    if (r->formatter == nullptr)
      continue;
    line.clear();
    std::size_t fields_at = 0, fields_size = 0;
    r->formatter->format(r->blob, line, fields_at, fields_size);
    if (line.empty() || fields_at + fields_size > line.size())
      std::abort();
  }
  return 0;
}

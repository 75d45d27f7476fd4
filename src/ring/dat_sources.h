// DatSources: the files of the traced kernel that a trace.dat's header
// copies, behind a small interface so that tests can hand fixed bytes
// (tracefs/dat_sources has the one that reads the live kernel, through
// libtracefs).
//
// Paths are those of the traced buffer's tracing directory:
// "events/header_page", "events/header_event", "events/SYSTEM/NAME/format",
// "printk_formats", "saved_cmdlines", "trace_clock"; and "/proc/kallsyms",
// the one path outside it.
#pragma once

#include "util/result.h"

#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace allocwatch {

class DatSources {
public:
  // Takes one chunk of a file, in order; an error stops the read and is
  // what read() returns.
  using Chunk = std::function<Status(std::string_view)>;

  virtual ~DatSources() = default;
  // Hands the whole file to `out`, in chunks of bounded size (a file may be
  // larger than one should hold: /proc/kallsyms is megabytes). An error
  // names the file and says why.
  virtual Status read(const std::string& path, const Chunk& out) = 0;
  // The names of the events under events/ftrace/ (funcgraph_entry, ...).
  virtual Result<std::vector<std::string>> ftrace_events() = 0;
};

// The whole file in memory: for the small ones (a format, header_page).
Result<std::string> read_whole(DatSources& sources, const std::string& path);

} // namespace allocwatch

// load_local_events: what decoding the running kernel's ring buffer needs,
// from its tracefs: a tep with the sub-buffer header, the formats of the
// named event systems' events (ftrace's too, when named), pending until a
// record of theirs is decoded (ring/event_formats.h), the printk formats
// and saved_cmdlines, and the kernel's functions from /proc/kallsyms in a
// KernelSymbols table that the tep asks (not libtraceevent's own table,
// four times its size: ring/kernel_symbols.h).
//
// It is tracefs_local_events_system() but for that table and the pending
// formats: libtracefs 1.6 has no way to leave kallsyms out. A format that
// does not parse, when its event is first decoded, is skipped, as
// libtracefs skips it (its records are then Malformed); no header page, or
// none of the systems' formats, is an error. Without a readable
// /proc/kallsyms, addresses stay unnamed.
#pragma once

#include "ring/event_formats.h"
#include "ring/kernel_symbols.h"
#include "util/result.h"

#include <memory>
#include <string>
#include <vector>

struct tep_handle;

namespace allocwatch {

struct TepFree {
  void operator()(tep_handle* tep) const;
};
using TepPtr = std::unique_ptr<tep_handle, TepFree>;

// The tep, the formats still to be parsed into it and the table it names
// functions through: keep them together.
struct LocalEvents {
  TepPtr tep;
  std::unique_ptr<PendingFormats> formats;
  std::unique_ptr<KernelSymbols> symbols;
  std::string saved_cmdlines; // the text the tep's comms were read from
};

Result<LocalEvents> load_local_events(const std::string& tracing_dir,
                                      const std::vector<std::string>& systems,
                                      const std::string& kallsyms = "/proc/kallsyms");

} // namespace allocwatch

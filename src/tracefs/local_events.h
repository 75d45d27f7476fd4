// load_local_events: what decoding the running kernel's ring buffer needs,
// from its tracefs: a tep with the sub-buffer header, the formats of the
// named event systems' events (ftrace's too, when named), pending until a
// record of theirs is decoded (ring/event_formats.h), the printk formats
// and saved_cmdlines, and the kernel's functions from /proc/kallsyms in a
// KernelSymbols table that the tep asks (not libtraceevent's own table,
// four times its size: ring/kernel_symbols.h), read when the tep is first
// asked for a name (KallsymsOnDemand), and the symbols a format names
// among its print arguments, registered in the tep as the format is parsed
// (ring/print_names.h).
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
#include "ring/print_names.h"
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

// The kernel's functions for a tep, from a kallsyms file read in full the
// first time the tep asks for a name: a run that names no function never
// reads it (printing /proc/kallsyms costs the kernel 40 to 60 ms on a
// 2-vCPU virtual machine; a raw run in events mode names shrinkers').
//
// It also finds the symbols that event formats name by their addresses
// (ring/print_names.h), reading the file through again for them: a run
// whose events' formats name none (all but 6.1+'s mm_vmscan_write_folio
// among vmscan's and compaction's) never does.
class KallsymsOnDemand final : public SymbolAddresses {
public:
  explicit KallsymsOnDemand(std::string path) : path_(std::move(path)) {}
  // SymbolSearch's answer from the whole file; none when it cannot be read.
  std::vector<std::pair<std::string, std::uint64_t>>
  addresses(const std::vector<std::string>& names) override;
  // The tep asks this; it must outlive the tep's use.
  void install(tep_handle* tep);
  // The table, read now if it was not; nullptr when the file cannot be read.
  const KernelSymbols* table();
  // Whether the file has been read (or tried).
  bool read() const { return tried_; }

private:
  std::string path_;
  bool tried_ = false;
  std::unique_ptr<KernelSymbols> table_;
};

// The tep, the formats still to be parsed into it and the table it names
// functions through: keep them together.
struct LocalEvents {
  TepPtr tep;
  std::unique_ptr<PendingFormats> formats;
  std::unique_ptr<KallsymsOnDemand> symbols;
  std::string saved_cmdlines; // the text the tep's comms were read from
};

Result<LocalEvents> load_local_events(const std::string& tracing_dir,
                                      const std::vector<std::string>& systems,
                                      const std::string& kallsyms = "/proc/kallsyms");

} // namespace allocwatch

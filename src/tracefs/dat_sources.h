// TracefsDatSources: what a trace.dat's header copies (ring/dat_sources.h),
// read from the running kernel through libtracefs: the traced buffer's own
// events/ and trace_clock (an instance's header_page gives its own
// sub-buffer size), the top level's printk_formats and saved_cmdlines
// (instances have none), and /proc/kallsyms.
#pragma once

#include "ring/dat_sources.h"

struct tracefs_instance;

namespace allocwatch {

class TracefsDatSources final : public DatSources {
public:
  // `buffer` is the traced buffer (an instance, or the top level); `top` is
  // the top level of the same tracing directory. Both must outlive this.
  TracefsDatSources(tracefs_instance* buffer, tracefs_instance* top);

  Status read(const std::string& path, const Chunk& out) override;
  Result<std::vector<std::string>> ftrace_events() override;

private:
  tracefs_instance* buffer_;
  tracefs_instance* top_;
};

} // namespace allocwatch

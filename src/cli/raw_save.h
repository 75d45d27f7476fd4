// RawSave: --save of a run that reads the ring buffer raw: a trace.dat of
// the pages as read (ring/dat_writer.h), which trace-cmd report and
// KernelShark open and `allocwatch -i` replays.
//
//   auto save = value_or_throw(RawSave::open(session, path));   // after session.start()
//   session.open_raw(should_stop, &save->pages());
//   ... read every record ...
//   throw_on_error(save->finish(trailer, session.raw_task_names()));   // before session.restore()
//
// Until finish() succeeds nothing is under the path.
#pragma once

#include "ring/dat_writer.h"
#include "tracefs/dat_sources.h"
#include "tracefs/session.h"
#include "util/result.h"

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace allocwatch {

class RawSave {
public:
  // The header files and formats of the session's traced buffer are read
  // now; the session must be started and outlive the RawSave.
  static Result<std::unique_ptr<RawSave>> open(const Session& session, const std::string& path);

  PageSink& pages() { return *writer_; }
  // Writes the file whole (kallsyms and saved_cmdlines read now), with
  // `trailer` (the cgroups the run learnt: cgroup/saved_cgroups.h) after
  // the pages, or says why not: a page that could not be kept, a write
  // that failed. Its saved_cmdlines names the tasks as `names`, the run's
  // (tracefs/saved_comms.h, with_run_names()), and the others as the
  // kernel's does.
  Status finish(std::string_view trailer,
                const std::vector<std::pair<std::int32_t, std::string>>& names);

private:
  // The live kernel's files, but saved_cmdlines with the run's names.
  class Sources final : public DatSources {
  public:
    Sources(tracefs_instance* buffer, tracefs_instance* top) : kernel_(buffer, top) {}
    Status read(const std::string& path, const Chunk& out) override;
    Result<std::vector<std::string>> ftrace_events() override { return kernel_.ftrace_events(); }
    std::vector<std::pair<std::int32_t, std::string>> names;

  private:
    TracefsDatSources kernel_;
  };

  explicit RawSave(const Session& session);
  Sources sources_;
  std::unique_ptr<DatWriter> writer_;
};

} // namespace allocwatch

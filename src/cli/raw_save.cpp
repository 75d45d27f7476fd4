#include "cli/raw_save.h"

#include "tracefs/saved_comms.h"

#include <sys/sysinfo.h>

namespace allocwatch {

RawSave::RawSave(const Session& session) : sources_(session.traced_buffer(), session.top_level()) {}

Result<std::unique_ptr<RawSave>> RawSave::open(const Session& session, const std::string& path) {
  if (session.traced_buffer() == nullptr)
    return Error{"the session is not started"};
  std::unique_ptr<RawSave> save(new RawSave(session));
  DatWriterOptions options;
  options.path = path;
  // Pages may come from any CPU the kernel can bring up.
  options.cpus = ::get_nprocs_conf();
  for (const PlannedEvent& event : session.plan().events)
    options.events.push_back({event.system, event.name});
  Result<std::unique_ptr<DatWriter>> writer = DatWriter::create(save->sources_, std::move(options));
  if (!writer)
    return Error{"--save " + path + ": " + writer.error().message};
  save->writer_ = std::move(*writer);
  return save;
}

Status RawSave::Sources::read(const std::string& path, const Chunk& out) {
  if (path != "saved_cmdlines")
    return kernel_.read(path, out);
  Result<std::string> kernel = read_whole(kernel_, path);
  if (!kernel)
    return kernel.error();
  return out(with_run_names(*kernel, names));
}

Status RawSave::finish(std::string_view trailer,
                       const std::vector<std::pair<std::int32_t, std::string>>& names) {
  sources_.names = names;
  return writer_->finish(trailer);
}

} // namespace allocwatch

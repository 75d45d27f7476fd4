#include "ring/dat_sources.h"

namespace allocwatch {

Result<std::string> read_whole(DatSources& sources, const std::string& path) {
  std::string content;
  Status read = sources.read(path, [&content](std::string_view chunk) -> Status {
    content.append(chunk);
    return Ok{};
  });
  if (!read)
    return read.error();
  return content;
}

} // namespace allocwatch

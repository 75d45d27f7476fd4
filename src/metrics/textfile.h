// Writing the metrics file so that a reader (node_exporter's textfile
// collector, every scrape) sees the old content or the new, never a part of
// either: the text goes to a temporary file in the same directory, which
// rename(2) then puts in place. The temporary's name starts with '.' and ends
// in ".tmp", so the collector (which reads *.prom) never picks it up.
#pragma once

#include "util/result.h"

#include <string>
#include <string_view>

namespace allocwatch {

// "<dir>/.<name>.<pid>.tmp" for "<dir>/<name>".
std::string temporary_path(const std::string& path);

// Replaces `path` with `content` (mode 0644: node_exporter does not run as
// root). Never follows a symlink at the temporary's name; a stale temporary
// is replaced. On error, the previous file stays as it was and the
// temporary is removed; the message names the file and the reason.
Status write_file_atomically(const std::string& path, std::string_view content);

} // namespace allocwatch

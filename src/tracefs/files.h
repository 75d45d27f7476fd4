// Whole-file reads and writes of tracefs files through libtracefs, with
// errors that name the file and say why. `instance` nullptr is the top level;
// `path` is relative to the instance's directory ("options/funcgraph-proc").
#pragma once

#include "util/result.h"

#include <string>

struct tracefs_instance;

namespace allocwatch {

// Points libtracefs at `dir` (tracefs_set_tracing_dir(), process-wide):
// every later call with a nullptr instance, and every new instance, is there.
Status use_tracing_dir(const std::string& dir);

// The full path of `path`, for messages.
std::string tracefs_path(tracefs_instance* instance, const std::string& path);

// The file's whole content. Unlike tracefs_instance_file_read(), an empty
// file reads as "" and an unreadable one as an error.
Result<std::string> read_tracefs_file(tracefs_instance* instance, const std::string& path);

// Truncates the file and writes `text` in one write(2), as `echo -n text > file`.
Status write_tracefs_file(tracefs_instance* instance, const std::string& path,
                          const std::string& text);

// "cannot write /sys/kernel/tracing/current_tracer: Device or resource busy".
Error tracefs_error(const char* verb, tracefs_instance* instance, const std::string& path, int err);

} // namespace allocwatch

// Whole-file reads and writes of tracefs files through libtracefs, with
// errors that name the file and say why. `instance` is a buffer's directory
// (open_top_level() for the top level); `path` is relative to it
// ("options/funcgraph-proc").
#pragma once

#include "util/result.h"

#include <memory>
#include <string>
#include <string_view>

struct tracefs_instance;

namespace allocwatch {

struct InstanceFree {
  void operator()(tracefs_instance* instance) const;
};
using InstancePtr = std::unique_ptr<tracefs_instance, InstanceFree>;

// The top level of `tracing_dir` as an instance object. libtracefs' nullptr
// for the top level ignores tracefs_set_tracing_dir() in some calls
// (tracefs_file_exists, tracefs_instance_exists look in /sys/kernel/tracing),
// so everything here names the top level it means.
Result<InstancePtr> open_top_level(const std::string& tracing_dir);

// Points libtracefs at `dir` (tracefs_set_tracing_dir(), process-wide): new
// instances are made there, and most calls with a nullptr instance look there.
Status use_tracing_dir(const std::string& dir);

// The full path of `path`, for messages.
std::string tracefs_path(tracefs_instance* instance, const std::string& path);

// The file's whole content. Unlike tracefs_instance_file_read(), an empty
// file reads as "" and an unreadable one as an error.
Result<std::string> read_tracefs_file(tracefs_instance* instance, const std::string& path);

// Truncates the file and writes `text` in one write(2), as `echo -n text > file`.
Status write_tracefs_file(tracefs_instance* instance, const std::string& path,
                          const std::string& text);

// A file's value without the blanks around it: "0\n" reads as "0".
std::string_view trimmed(std::string_view text);

// "cannot write /sys/kernel/tracing/current_tracer: Device or resource busy".
Error tracefs_error(const char* verb, tracefs_instance* instance, const std::string& path, int err);

} // namespace allocwatch

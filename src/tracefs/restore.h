// Putting tracefs back: the primitives a Session's restore() uses, and
// `allocwatch --restore` (restore_from_state_files), which replays the state files
// killed runs left.
#pragma once

#include "tracefs/state_file.h"
#include "util/result.h"

#include <functional>
#include <ostream>
#include <string>
#include <vector>

struct tracefs_instance;

namespace allocwatch {

// What to write into `path` (top level) so that it reads `snapshot` again.
std::string restorable(const std::string& path, const std::string& snapshot);

// Writes back, last changed first, every entry whose file differs from its
// snapshot. Goes on past errors, and returns them all.
Status restore_entries(tracefs_instance* top, const std::vector<StateEntry>& entries);

// Removes the instance `name` of `tracing_dir`; Ok when it is gone already.
Status remove_instance(const std::string& tracing_dir, const std::string& name);

// Removes the state file at `path`; Ok when it is gone already.
Status remove_state_file(const std::string& path);

// True when `dir` is a mounted tracefs or debugfs (statfs magic).
bool is_mounted_tracefs(const std::string& dir);

// What --restore takes as a state file's tracing directory. Tests take their
// fake tracefs (plain files in /tmp) for one, and nothing else.
struct RestoreChecks {
  std::function<bool(const std::string& dir)> is_tracing_dir = is_mounted_tracefs;
};

// allocwatch --restore: replays every state file in `state_dir` whose process
// is gone (each state file names its tracing directory), then removes the
// allocwatch-<pid> instances in `tracing_dir` whose process is gone, and the
// state files killed runs had not finished writing (<pid>.state.tmp). Says on
// `messages` what it did, or that there was nothing to do.
//
// It trusts nothing it reads: it refuses, touching nothing, a state file
// directory that check_state_dir() refuses; and each state file that
// read_state_file() refuses, or whose pid is not its file's, whose tracing
// directory is not an absolute path to a tracefs or debugfs, whose instance
// is not allocwatch-<its pid>, or that names a file is_saved_file()
// does not take (an absolute path, "..", anything else).
Status restore_from_state_files(const std::string& state_dir, const std::string& tracing_dir,
                                std::ostream& messages, const RestoreChecks& checks = {});

} // namespace allocwatch

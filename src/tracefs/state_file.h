// State file: what a session is about to change, written before the first
// change, so that `allocwatch --restore` can put tracefs back after a run
// that was killed (kill -9, a crash, a power-cut of the terminal).
//
// One file per run, <dir>/<pid>.state (dir 0700, file 0600), written to
// <pid>.state.tmp and renamed into place; removed once the run has restored
// everything. A run killed between the write and the rename leaves the .tmp
// (it had changed nothing yet): the next run and --restore remove it.
//
// --restore runs as root over what it finds in the directory, so nothing
// read here is trusted: the directory must be a real directory (not a
// symlink) of this user, closed to group and others; a state file a regular
// file (opened without following a symlink) of this user with mode 0600,
// no larger than kMaxStateFileBytes, in the current format, ending with its
// end marker (a state file cut short is refused, never half replayed).
#pragma once

#include "util/result.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <sys/types.h>
#include <vector>

namespace allocwatch {

constexpr const char* kDefaultStateDir = "/run/allocwatch";
// Far larger than any state file: the largest snapshot is set_ftrace_filter,
// a few MB even with every function of a kernel in it (only with --force).
constexpr std::size_t kMaxStateFileBytes = 16 << 20;

// One top-level tracefs file, as it read before the session changed it.
struct StateEntry {
  std::string path;     // relative to the tracing directory: "options/funcgraph-proc"
  std::string snapshot; // the file's content, byte for byte
};

struct StateFile {
  pid_t pid = 0;
  // The process's start time (field 22 of /proc/<pid>/stat): a reused pid is
  // not mistaken for a running allocwatch.
  std::uint64_t start_time = 0;
  std::string tracing_dir;
  std::string instance;            // the private instance to remove; empty: none
  std::vector<StateEntry> entries; // in the order the files are first changed
};

std::string state_file_path(const std::string& dir, pid_t pid);

// Creates `dir` (0700) if needed, and its missing parents (0755: /run may
// not exist in a minimal root, an initramfs or a container); then checks it
// as check_state_dir() does.
Status ensure_state_dir(const std::string& dir);

// Ok when `dir` is a directory, not a symlink, owned by this user, with no
// access for group or others. Names what is wrong otherwise.
Status check_state_dir(const std::string& dir);

// Writes <dir>/<pid>.state through a temporary file and rename(2), fsynced.
Status write_state_file(const std::string& dir, const StateFile& state);

// The state file format, both ways. parse_state_file() names the state file as
// `name` in its errors.
std::string format_state_file(const StateFile& state);
Result<StateFile> parse_state_file(std::string_view text, const std::string& name);

// Opens `path` without following a symlink and reads it if it is a regular
// file of this user, mode 0600, at most kMaxStateFileBytes; then parses it.
Result<StateFile> read_state_file(const std::string& path);

// The <pid>.state files in `dir`, sorted; none when `dir` does not exist.
Result<std::vector<std::string>> list_state_files(const std::string& dir);

// A <pid>.state.tmp left by a run killed while it wrote its state file.
struct UnfinishedStateFile {
  std::string path;
  pid_t pid;
};
// Removes those of processes that are gone, and says which.
Result<std::vector<UnfinishedStateFile>> remove_unfinished_state_files(const std::string& dir);

// Field 22 of /proc/<pid>/stat; none when the process does not exist.
std::optional<std::uint64_t> process_start_time(pid_t pid);

// True when the state file's process is still running.
bool state_file_owner_alive(const StateFile& state);

} // namespace allocwatch

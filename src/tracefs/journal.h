// Journal: what a session is about to change, written before the first
// change, so that `allocwatch --restore` can put tracefs back after a run
// that was killed (kill -9, a crash, a power-cut of the terminal).
//
// One file per run, <dir>/<pid>.state (dir 0700, file 0600), replaced
// atomically; removed once the run has restored everything.
#pragma once

#include "util/result.h"

#include <cstdint>
#include <optional>
#include <string>
#include <sys/types.h>
#include <vector>

namespace allocwatch {

constexpr const char* kDefaultJournalDir = "/run/allocwatch";

// One top-level tracefs file, as it read before the session changed it.
struct JournalEntry {
  std::string path;     // relative to the tracing directory: "options/funcgraph-proc"
  std::string snapshot; // the file's content, byte for byte
};

struct Journal {
  pid_t pid = 0;
  // The process's start time (field 22 of /proc/<pid>/stat): a reused pid is
  // not mistaken for a running allocwatch.
  std::uint64_t start_time = 0;
  std::string tracing_dir;
  std::string instance;              // the private instance to remove; empty: none
  std::vector<JournalEntry> entries; // in the order the files are first changed
};

std::string journal_path(const std::string& dir, pid_t pid);

// Creates `dir` (0700) if needed; refuses a directory others could write to.
Status ensure_journal_dir(const std::string& dir);

// Writes <dir>/<pid>.state through a temporary file and rename(2), fsynced.
Status write_journal(const std::string& dir, const Journal& journal);

Result<Journal> read_journal(const std::string& path);

// The <pid>.state files in `dir`, sorted; none when `dir` does not exist.
Result<std::vector<std::string>> list_journals(const std::string& dir);

// Field 22 of /proc/<pid>/stat; none when the process does not exist.
std::optional<std::uint64_t> process_start_time(pid_t pid);

// True when the journal's process is still running.
bool journal_owner_alive(const Journal& journal);

} // namespace allocwatch

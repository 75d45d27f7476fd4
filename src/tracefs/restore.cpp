#include "tracefs/restore.h"

#include "tracefs/files.h"
#include "ring/libtracefs.h"
#include "tracefs/session.h"
#include "util/escape.h"

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <linux/magic.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

namespace allocwatch {

namespace {

// The function lines of set_ftrace_filter, without its "#### all functions
// enabled ####" comment and without probes ("f:traceoff"), which truncating
// the file does not remove and writing them again would duplicate.
std::string filter_functions_of(std::string_view content) {
  std::string functions;
  std::size_t pos = 0;
  while (pos < content.size()) {
    std::size_t end = content.find('\n', pos);
    if (end == std::string_view::npos)
      end = content.size();
    const std::string_view line = trimmed(content.substr(pos, end - pos));
    if (!line.empty() && line.front() != '#' && line.find(':') == std::string_view::npos) {
      functions += line;
      functions += '\n';
    }
    pos = end + 1;
  }
  return functions;
}

bool reads_as(const std::string& path, const std::string& current, const std::string& snapshot) {
  return current == snapshot || restorable(path, current) == restorable(path, snapshot);
}

} // namespace

// Most files read back what was written; these do not.
std::string restorable(const std::string& path, const std::string& snapshot) {
  if (path == "buffer_size_kb") {
    // "7 (expanded: 1408)": a buffer no tracer has used yet. Writing any
    // size expands it for good; its expanded size is the closest state.
    const std::string_view marker = "(expanded: ";
    const std::size_t at = snapshot.find(marker);
    if (at != std::string::npos) {
      const std::size_t start = at + marker.size();
      return snapshot.substr(start, snapshot.find(')', start) - start) + "\n";
    }
    return snapshot;
  }
  if (path == "set_ftrace_filter" || path == "set_ftrace_notrace")
    return filter_functions_of(snapshot);
  if ((path == "set_ftrace_pid" || path == "set_event_pid") && trimmed(snapshot) == "no pid")
    return "";
  if (path.ends_with("/filter") && trimmed(snapshot) == "none")
    return "0";
  if (path.ends_with("/enable")) { // "1*": enabled in soft mode by a trigger
    std::string plain = snapshot;
    plain.erase(std::remove(plain.begin(), plain.end(), '*'), plain.end());
    return plain;
  }
  return snapshot;
}

Status restore_entries(tracefs_instance* top, const std::vector<StateEntry>& entries) {
  std::string errors;
  for (auto e = entries.rbegin(); e != entries.rend(); ++e) {
    Result<std::string> current = read_tracefs_file(top, e->path);
    if (current && reads_as(e->path, *current, e->snapshot))
      continue;
    if (Status written = write_tracefs_file(top, e->path, restorable(e->path, e->snapshot));
        !written)
      errors += (errors.empty() ? "" : "; ") + written.error().message;
  }
  if (!errors.empty())
    return Error{errors};
  return Ok{};
}

Status remove_instance(const std::string& tracing_dir, const std::string& name) {
  tracefs_instance* instance = tracefs_instance_alloc(tracing_dir.c_str(), name.c_str());
  if (instance == nullptr) // gone already
    return Ok{};
  const int removed = tracefs_instance_destroy(instance);
  const int err = errno;
  tracefs_instance_free(instance);
  if (removed != 0 && err != ENOENT)
    return Error{"cannot remove the instance " + name + ": " + std::strerror(err)};
  return Ok{};
}

Status remove_state_file(const std::string& path) {
  if (::unlink(path.c_str()) != 0 && errno != ENOENT)
    return Error{"cannot remove the journal " + path + ": " + std::strerror(errno)};
  return Ok{};
}

bool is_mounted_tracefs(const std::string& dir) {
  struct statfs fs {};
  return ::statfs(dir.c_str(), &fs) == 0 &&
         (fs.f_type == TRACEFS_MAGIC || fs.f_type == DEBUGFS_MAGIC);
}

namespace {

// What restore_from_state_files() checks of a state file beyond its format.
Status check_state_file(const StateFile& state, const std::string& path,
                        const RestoreChecks& checks) {
  auto refuse = [&](const std::string& why) {
    return Error{"refusing the journal " + escaped(path) + ": " + why};
  };
  if (state_file_path(path.substr(0, path.rfind('/')), state.pid) != path)
    return refuse("it names pid " + std::to_string(state.pid) + ", not its file's");
  const std::string& dir = state.tracing_dir;
  if (dir.front() != '/')
    return refuse("its tracing directory " + quote(dir) + " is not an absolute path");
  if (!checks.is_tracing_dir(dir))
    return refuse("its tracing directory " + quote(dir) + " is not a tracefs or debugfs");
  if (!state.instance.empty() && state.instance != "allocwatch-" + std::to_string(state.pid))
    return refuse("its instance " + quote(state.instance) + " is not allocwatch-" +
                  std::to_string(state.pid));
  for (const StateEntry& e : state.entries)
    if (!is_saved_file(e.path))
      return refuse("it names " + quote(e.path) + ", not a file allocwatch saves");
  return Ok{};
}

} // namespace

Status restore_from_state_files(const std::string& state_dir, const std::string& tracing_dir,
                                std::ostream& messages, const RestoreChecks& checks) {
  // What is left to do when a state file is refused.
  static constexpr const char* kByHand = " (check tracefs by hand, then remove the journal)";
  int failures = 0;
  auto fail = [&](const std::string& text) {
    messages << "allocwatch: " << text << '\n';
    ++failures;
  };
  int done = 0;

  // The directory first: one that is not root's own is not read at all.
  struct stat dir_stat {};
  const bool dir_exists = ::lstat(state_dir.c_str(), &dir_stat) == 0 || errno != ENOENT;
  if (dir_exists) {
    if (Status trusted = check_state_dir(state_dir); !trusted)
      return Error{trusted.error().message + "; nothing was restored"};
    Result<std::vector<UnfinishedStateFile>> removed = remove_unfinished_state_files(state_dir);
    if (!removed)
      return removed.error();
    for (const UnfinishedStateFile& leftover : *removed) {
      ++done;
      messages << "allocwatch: removed " << escaped(leftover.path) << ", the journal pid "
               << leftover.pid << " was writing when it was killed (it had changed nothing)\n";
    }
  }

  Result<std::vector<std::string>> state_files = list_state_files(state_dir);
  if (!state_files)
    return state_files.error();
  std::vector<pid_t> live;
  for (const std::string& path : *state_files) {
    Result<StateFile> state = read_state_file(path);
    if (!state) {
      fail(state.error().message + "; nothing of it was restored" + kByHand);
      continue;
    }
    if (Status trusted = check_state_file(*state, path, checks); !trusted) {
      fail(trusted.error().message + "; nothing of it was restored" + kByHand);
      continue;
    }
    if (state_file_owner_alive(*state)) {
      messages << "allocwatch: pid " << state->pid << " is running: its journal " << path
               << " is left alone\n";
      live.push_back(state->pid);
      continue;
    }
    Result<InstancePtr> top = open_top_level(state->tracing_dir);
    Status replayed = top ? restore_entries(top->get(), state->entries) : Status(top.error());
    if (replayed && !state->instance.empty())
      replayed = remove_instance(state->tracing_dir, state->instance);
    if (replayed)
      replayed = remove_state_file(path);
    if (!replayed) {
      fail("replaying " + path + " failed: " + replayed.error().message);
      continue;
    }
    ++done;
    const std::size_t files = state->entries.size();
    messages << "allocwatch: restored what pid " << state->pid << " changed in "
             << escaped(state->tracing_dir) << " (" << files << (files == 1 ? " file" : " files")
             << (state->instance.empty() ? "" : ", instance " + state->instance + " removed")
             << ")\n";
  }

  // Instances of runs that died before their state file named them, or whose
  // state file is gone.
  // tracefs_instances() would do, but leaks its regex (libtracefs 1.6.4).
  std::vector<std::string> instances;
  if (Status dir = use_tracing_dir(tracing_dir); dir)
    tracefs_instances_walk(
        [](const char* name, void* found) {
          static_cast<std::vector<std::string>*>(found)->push_back(name);
          return 0;
        },
        &instances);
  for (const std::string& name : instances) {
    constexpr std::string_view prefix = "allocwatch-";
    const std::string_view digits =
        std::string_view(name).substr(std::min(name.size(), prefix.size()));
    pid_t pid = 0;
    const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), pid);
    if (name.compare(0, prefix.size(), prefix) != 0 || digits.empty() || ec != std::errc() ||
        end != digits.data() + digits.size())
      continue;
    const bool running = std::find(live.begin(), live.end(), pid) != live.end() ||
                         ::kill(pid, 0) == 0 || errno == EPERM;
    if (running) {
      messages << "allocwatch: instance " << name << " belongs to running pid " << pid
               << ": left alone\n";
      continue;
    }
    if (Status removed = remove_instance(tracing_dir, name); !removed) {
      fail(removed.error().message);
      continue;
    }
    ++done;
    messages << "allocwatch: removed the instance " << name << " left by pid " << pid << '\n';
  }

  if (failures > 0)
    return Error{std::to_string(failures) +
                 (failures == 1 ? " journal or instance was" : " journals or instances were") +
                 " not restored (see above)"};
  if (done == 0)
    messages << "allocwatch: nothing to restore: no journal of a killed run in " << state_dir
             << ", no instance left behind\n";
  return Ok{};
}

} // namespace allocwatch

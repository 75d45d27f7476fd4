#include "tracefs/state_file.h"

#include "util/escape.h"
#include "util/read_limit.h"

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <dirent.h>
#include <fcntl.h>
#include <fstream>
#include <sstream>
#include <sys/stat.h>
#include <unistd.h>

namespace allocwatch {

namespace {

// The format: a header of "key value" lines, then per entry a line
// "file PATH SIZE" followed by SIZE bytes of snapshot and a newline, so that
// any content (empty, without a final newline) survives exactly; then the
// line "end", the last bytes of the file. Format 1 had no end marker, so a
// state file cut at an entry boundary read as whole.
constexpr std::string_view kMagic = "allocwatch-journal 2";
constexpr std::string_view kOldMagic = "allocwatch-journal 1";
constexpr std::string_view kEndMarker = "end";
constexpr std::string_view kStateSuffix = ".state";
constexpr std::string_view kTemporarySuffix = ".state.tmp";

Error system_error(const std::string& what, int err) {
  return Error{what + ": " + std::strerror(err)};
}

template <class T> bool parse_number(std::string_view text, T& out) {
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
  return ec == std::errc() && end == text.data() + text.size();
}

// The pid of "<pid><suffix>", or none.
std::optional<pid_t> pid_of(std::string_view name, std::string_view suffix) {
  pid_t pid = 0;
  if (name.size() > suffix.size() && name.ends_with(suffix) &&
      parse_number(name.substr(0, name.size() - suffix.size()), pid) && pid > 0)
    return pid;
  return std::nullopt;
}

Status write_all(int fd, const std::string& data) {
  std::size_t done = 0;
  while (done < data.size()) {
    const ssize_t n = ::write(fd, data.data() + done, data.size() - done);
    if (n < 0) {
      if (errno == EINTR)
        continue;
      return Error{std::strerror(errno)};
    }
    done += static_cast<std::size_t>(n);
  }
  return Ok{};
}

// Creates the missing directories above `dir`, each 0755 as /run is.
Status create_parents(const std::string& dir) {
  const std::size_t slash = dir.find_last_of('/');
  if (slash == std::string::npos || slash == 0)
    return Ok{};
  const std::string parent = dir.substr(0, slash);
  struct stat st {};
  if (::stat(parent.c_str(), &st) == 0)
    return Ok{};
  if (errno != ENOENT)
    return system_error("cannot use " + escaped(parent), errno);
  if (Status above = create_parents(parent); !above)
    return above;
  if (::mkdir(parent.c_str(), 0755) != 0 && errno != EEXIST)
    return system_error("cannot create " + escaped(parent), errno);
  if (::chmod(parent.c_str(), 0755) != 0) // whatever the umask
    return system_error("cannot set the mode of " + escaped(parent), errno);
  return Ok{};
}

} // namespace

std::string state_file_path(const std::string& dir, pid_t pid) {
  return dir + "/" + std::to_string(pid) + std::string(kStateSuffix);
}

Status check_state_dir(const std::string& dir) {
  struct stat st {};
  if (::lstat(dir.c_str(), &st) != 0)
    return system_error("cannot use the journal directory " + escaped(dir), errno);
  const char* wrong = nullptr;
  if (S_ISLNK(st.st_mode))
    wrong = "it is a symbolic link";
  else if (!S_ISDIR(st.st_mode))
    wrong = "it is not a directory";
  else if (st.st_uid != ::geteuid())
    wrong = "it is owned by another user";
  else if ((st.st_mode & 077) != 0)
    wrong = "group or others have access to it";
  if (wrong != nullptr)
    return Error{"refusing the journal directory " + escaped(dir) + ": " + wrong +
                 " (it must be a directory of this user, mode 0700)"};
  return Ok{};
}

Status ensure_state_dir(const std::string& dir) {
  if (::mkdir(dir.c_str(), 0700) != 0) {
    if (errno == ENOENT) {
      if (Status parents = create_parents(dir); !parents)
        return Error{"cannot create the journal directory " + escaped(dir) + ": " +
                     parents.error().message};
      if (::mkdir(dir.c_str(), 0700) != 0 && errno != EEXIST)
        return system_error("cannot create the journal directory " + escaped(dir), errno);
    } else if (errno != EEXIST) {
      return system_error("cannot create the journal directory " + escaped(dir), errno);
    }
  }
  return check_state_dir(dir);
}

std::string format_state_file(const StateFile& state) {
  std::string text;
  text += kMagic;
  text += "\npid " + std::to_string(state.pid);
  text += "\nstart_time " + std::to_string(state.start_time);
  text += "\ntracing_dir " + state.tracing_dir;
  text += "\ninstance " + state.instance + "\n";
  for (const StateEntry& e : state.entries) {
    text += "file " + e.path + " " + std::to_string(e.snapshot.size()) + "\n";
    text += e.snapshot;
    text += "\n";
  }
  text += kEndMarker;
  text += "\n";
  return text;
}

Status write_state_file(const std::string& dir, const StateFile& state) {
  if (Status ready = ensure_state_dir(dir); !ready)
    return ready;
  const std::string path = state_file_path(dir, state.pid);
  // One line each in the format; the kernel's names never hold a newline.
  if (state.tracing_dir.find('\n') != std::string::npos ||
      state.instance.find('\n') != std::string::npos ||
      std::any_of(state.entries.begin(), state.entries.end(),
                  [](const StateEntry& e) { return e.path.find('\n') != std::string::npos; }))
    return Error{"cannot write the journal " + path + ": a name holds a newline"};
  const std::string text = format_state_file(state);
  if (text.size() > kMaxStateFileBytes)
    return Error{"cannot write the journal " + path + ": the snapshot is larger than " +
                 std::to_string(kMaxStateFileBytes >> 20) + " MiB"};

  const std::string temporary =
      dir + "/" + std::to_string(state.pid) + std::string(kTemporarySuffix);
  const int fd =
      ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd < 0)
    return system_error("cannot write the journal " + temporary, errno);
  // 0600 whatever the umask: --restore reads no state file of another mode.
  Status written = ::fchmod(fd, 0600) == 0 ? Status(Ok{}) : Status(Error{std::strerror(errno)});
  if (written)
    written = write_all(fd, text);
  if (written && ::fsync(fd) != 0)
    written = Error{std::strerror(errno)};
  if (::close(fd) != 0 && written)
    written = Error{std::strerror(errno)};
  if (written && ::rename(temporary.c_str(), path.c_str()) != 0)
    written = Error{std::strerror(errno)};
  if (!written) {
    ::unlink(temporary.c_str());
    return Error{"cannot write the journal " + path + ": " + written.error().message};
  }
  return Ok{};
}

Result<StateFile> parse_state_file(std::string_view text, const std::string& name) {
  auto corrupt = [&](const std::string& why) {
    return Error{"the journal " + escaped(name) + " is damaged (" + why + ")"};
  };

  std::size_t pos = 0;
  auto next_line = [&](std::string_view& line) {
    const std::size_t end = text.find('\n', pos);
    if (end == std::string_view::npos)
      return false;
    line = text.substr(pos, end - pos);
    pos = end + 1;
    return true;
  };
  auto value_of = [&](std::string_view key, std::string_view& value) {
    std::string_view line;
    if (!next_line(line) || line.size() <= key.size() || !line.starts_with(key) ||
        line[key.size()] != ' ')
      return false;
    value = line.substr(key.size() + 1);
    return true;
  };

  std::string_view line;
  if (!next_line(line) || (line != kMagic && line != kOldMagic))
    return corrupt("not an allocwatch journal");
  if (line == kOldMagic)
    return Error{"the journal " + escaped(name) +
                 " is of an older allocwatch (format 1, which cannot show that it was written "
                 "whole)"};
  StateFile state;
  std::string_view value;
  if (!value_of("pid", value) || !parse_number(value, state.pid) || state.pid <= 0)
    return corrupt("no pid");
  if (!value_of("start_time", value) || !parse_number(value, state.start_time))
    return corrupt("no start_time");
  if (!value_of("tracing_dir", value) || value.empty())
    return corrupt("no tracing_dir");
  state.tracing_dir = value;
  if (!next_line(line) || !line.starts_with("instance "))
    return corrupt("no instance");
  state.instance = line.substr(9);
  for (;;) {
    if (!next_line(line))
      return corrupt("cut short: no end marker");
    if (line == kEndMarker) {
      if (pos != text.size())
        return corrupt("bytes after the end marker");
      return state;
    }
    if (!line.starts_with("file "))
      return corrupt("an entry without its 'file' line");
    value = line.substr(5);
    const std::size_t space = value.rfind(' ');
    std::size_t size = 0;
    if (space == std::string_view::npos || space == 0 ||
        !parse_number(value.substr(space + 1), size))
      return corrupt("a bad 'file' line");
    if (text.size() - pos < size + 1 || text[pos + size] != '\n')
      return corrupt("a truncated snapshot");
    state.entries.push_back(
        {std::string(value.substr(0, space)), std::string(text.substr(pos, size))});
    pos += size + 1;
  }
}

Result<StateFile> read_state_file(const std::string& path) {
  const std::string shown = escaped(path);
  // O_NONBLOCK: a FIFO planted in the directory must not block the open.
  const int fd = ::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0)
    return system_error(errno == ELOOP ? "refusing the journal " + shown + ": it is a symbolic link"
                                       : "cannot read the journal " + shown,
                        errno);
  auto refuse = [&](const std::string& why) -> Error {
    ::close(fd);
    return Error{"refusing the journal " + shown + ": " + why};
  };
  struct stat st {};
  if (::fstat(fd, &st) != 0)
    return refuse(std::strerror(errno));
  if (!S_ISREG(st.st_mode))
    return refuse("it is not a regular file");
  if (st.st_uid != ::geteuid())
    return refuse("it is owned by another user (uid " + std::to_string(st.st_uid) + ")");
  if ((st.st_mode & 07777) != 0600) {
    char mode[8];
    std::snprintf(mode, sizeof mode, "%04o", static_cast<unsigned>(st.st_mode & 07777));
    return refuse(std::string("its mode is ") + mode + ", not 0600");
  }
  if (static_cast<std::uint64_t>(st.st_size) > kMaxStateFileBytes)
    return refuse("it is larger than any journal allocwatch writes");
  std::string text;
  const int err = read_at_most(fd, kMaxStateFileBytes, text);
  if (err == EFBIG) // it grew since fstat
    return refuse("it is larger than any journal allocwatch writes");
  if (err != 0) {
    ::close(fd);
    return system_error("cannot read the journal " + shown, err);
  }
  ::close(fd);
  return parse_state_file(text, path);
}

Result<std::vector<std::string>> list_state_files(const std::string& dir) {
  std::vector<std::string> paths;
  DIR* d = ::opendir(dir.c_str());
  if (d == nullptr) {
    if (errno == ENOENT)
      return paths;
    return system_error("cannot list the journal directory " + escaped(dir), errno);
  }
  while (const dirent* entry = ::readdir(d))
    if (pid_of(entry->d_name, kStateSuffix))
      paths.push_back(dir + "/" + entry->d_name);
  ::closedir(d);
  std::sort(paths.begin(), paths.end());
  return paths;
}

Result<std::vector<UnfinishedStateFile>> remove_unfinished_state_files(const std::string& dir) {
  std::vector<UnfinishedStateFile> removed;
  DIR* d = ::opendir(dir.c_str());
  if (d == nullptr) {
    if (errno == ENOENT)
      return removed;
    return system_error("cannot list the journal directory " + escaped(dir), errno);
  }
  std::vector<UnfinishedStateFile> found;
  while (const dirent* entry = ::readdir(d))
    if (const std::optional<pid_t> pid = pid_of(entry->d_name, kTemporarySuffix))
      found.push_back({dir + "/" + entry->d_name, *pid});
  ::closedir(d);
  std::sort(
      found.begin(), found.end(),
      [](const UnfinishedStateFile& a, const UnfinishedStateFile& b) { return a.path < b.path; });
  for (UnfinishedStateFile& leftover : found) {
    // Its writer may still be writing it (EPERM: alive, another user's).
    if (::kill(leftover.pid, 0) == 0 || errno != ESRCH)
      continue;
    if (::unlink(leftover.path.c_str()) != 0 && errno != ENOENT)
      return system_error("cannot remove " + escaped(leftover.path), errno);
    removed.push_back(std::move(leftover));
  }
  return removed;
}

std::optional<std::uint64_t> process_start_time(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string stat;
  if (!in || !std::getline(in, stat))
    return std::nullopt;
  // The comm (field 2) may hold spaces and ')'; the fields after the last ')'
  // start with field 3.
  const std::size_t close = stat.rfind(')');
  if (close == std::string::npos)
    return std::nullopt;
  std::istringstream fields(stat.substr(close + 1));
  std::string field;
  for (int index = 3; index <= 22 && fields >> field; ++index) {
    std::uint64_t value = 0;
    if (index == 22 && parse_number(std::string_view(field), value))
      return value;
  }
  return std::nullopt;
}

bool state_file_owner_alive(const StateFile& state) {
  const std::optional<std::uint64_t> start = process_start_time(state.pid);
  return start && *start == state.start_time;
}

} // namespace allocwatch

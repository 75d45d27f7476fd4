#include "tracefs/journal.h"

#include <algorithm>
#include <cerrno>
#include <charconv>
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
// any content (empty, without a final newline) survives exactly.
constexpr std::string_view kMagic = "allocwatch-journal 1";

Error system_error(const std::string& what, int err) {
  return Error{what + ": " + std::strerror(err)};
}

template <class T> bool parse_number(std::string_view text, T& out) {
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
  return ec == std::errc() && end == text.data() + text.size();
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

} // namespace

std::string journal_path(const std::string& dir, pid_t pid) {
  return dir + "/" + std::to_string(pid) + ".state";
}

Status ensure_journal_dir(const std::string& dir) {
  if (::mkdir(dir.c_str(), 0700) != 0 && errno != EEXIST)
    return system_error("cannot create the journal directory " + dir, errno);
  struct stat st {};
  if (::lstat(dir.c_str(), &st) != 0)
    return system_error("cannot use the journal directory " + dir, errno);
  if (!S_ISDIR(st.st_mode) || st.st_uid != geteuid() || (st.st_mode & 022) != 0)
    return Error{"refusing the journal directory " + dir +
                 ": it must be a directory of this user that no one else can write to"};
  return Ok{};
}

Status write_journal(const std::string& dir, const Journal& journal) {
  if (Status ready = ensure_journal_dir(dir); !ready)
    return ready;
  std::string text;
  text += kMagic;
  text += "\npid " + std::to_string(journal.pid);
  text += "\nstart_time " + std::to_string(journal.start_time);
  text += "\ntracing_dir " + journal.tracing_dir;
  text += "\ninstance " + journal.instance + "\n";
  for (const JournalEntry& e : journal.entries) {
    text += "file " + e.path + " " + std::to_string(e.snapshot.size()) + "\n";
    text += e.snapshot;
    text += "\n";
  }

  const std::string path = journal_path(dir, journal.pid);
  const std::string temporary = path + ".tmp";
  const int fd = ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0)
    return system_error("cannot write the journal " + temporary, errno);
  Status written = write_all(fd, text);
  if (written && ::fsync(fd) != 0)
    written = Error{std::strerror(errno)};
  ::close(fd);
  if (written && ::rename(temporary.c_str(), path.c_str()) != 0)
    written = Error{std::strerror(errno)};
  if (!written) {
    ::unlink(temporary.c_str());
    return Error{"cannot write the journal " + path + ": " + written.error().message};
  }
  return Ok{};
}

Result<Journal> read_journal(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    return system_error("cannot read the journal " + path, errno);
  std::stringstream buffer;
  buffer << in.rdbuf();
  const std::string text = buffer.str();
  auto corrupt = [&](const std::string& why) {
    return Error{"the journal " + path + " is damaged (" + why + ")"};
  };

  std::size_t pos = 0;
  auto next_line = [&](std::string_view& line) {
    const std::size_t end = text.find('\n', pos);
    if (end == std::string::npos)
      return false;
    line = std::string_view(text).substr(pos, end - pos);
    pos = end + 1;
    return true;
  };
  auto value_of = [&](std::string_view key, std::string_view& value) {
    std::string_view line;
    if (!next_line(line) || line.substr(0, key.size() + 1) != std::string(key) + " ")
      return false;
    value = line.substr(key.size() + 1);
    return true;
  };

  std::string_view line;
  if (!next_line(line) || line != kMagic)
    return corrupt("not an allocwatch journal");
  Journal journal;
  std::string_view value;
  if (!value_of("pid", value) || !parse_number(value, journal.pid))
    return corrupt("no pid");
  if (!value_of("start_time", value) || !parse_number(value, journal.start_time))
    return corrupt("no start_time");
  if (!value_of("tracing_dir", value) || value.empty())
    return corrupt("no tracing_dir");
  journal.tracing_dir = value;
  if (!value_of("instance", value))
    return corrupt("no instance");
  journal.instance = value;
  while (pos < text.size()) {
    if (!value_of("file", value))
      return corrupt("an entry without its 'file' line");
    const std::size_t space = value.rfind(' ');
    std::size_t size = 0;
    if (space == std::string_view::npos || space == 0 ||
        !parse_number(value.substr(space + 1), size))
      return corrupt("a bad 'file' line");
    if (text.size() - pos < size + 1 || text[pos + size] != '\n')
      return corrupt("a truncated snapshot");
    journal.entries.push_back({std::string(value.substr(0, space)), text.substr(pos, size)});
    pos += size + 1;
  }
  return journal;
}

Result<std::vector<std::string>> list_journals(const std::string& dir) {
  std::vector<std::string> paths;
  DIR* d = ::opendir(dir.c_str());
  if (d == nullptr) {
    if (errno == ENOENT)
      return paths;
    return system_error("cannot list the journal directory " + dir, errno);
  }
  while (const dirent* entry = ::readdir(d)) {
    const std::string_view name = entry->d_name;
    pid_t pid = 0;
    constexpr std::string_view suffix = ".state";
    if (name.size() > suffix.size() && name.substr(name.size() - suffix.size()) == suffix &&
        parse_number(name.substr(0, name.size() - suffix.size()), pid))
      paths.push_back(dir + "/" + std::string(name));
  }
  ::closedir(d);
  std::sort(paths.begin(), paths.end());
  return paths;
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

bool journal_owner_alive(const Journal& journal) {
  const std::optional<std::uint64_t> start = process_start_time(journal.pid);
  return start && *start == journal.start_time;
}

} // namespace allocwatch

#include "fake_tracefs.h"
#include "tracefs/state_file.h"

#include <doctest/doctest.h>
#include <filesystem>
#include <fstream>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

namespace allocwatch {
namespace {

using testing::TempDir;

mode_t mode_of(const std::string& path) {
  struct stat st {};
  REQUIRE(::stat(path.c_str(), &st) == 0);
  return st.st_mode & 07777;
}

TEST_CASE("state file: every snapshot survives a write and a read byte for byte") {
  TempDir tmp;
  const std::string dir = tmp.dir() + "/run";
  StateFile state;
  state.pid = 4242;
  state.start_time = 123456789;
  state.tracing_dir = "/tmp/a dir with spaces";
  state.instance = "allocwatch-4242";
  state.entries = {{"current_tracer", "nop\n"},
                   {"set_ftrace_filter", ""},
                   {"buffer_size_kb", "7 (expanded: 1408)\n"},
                   {"events/vmscan/mm_shrink_slab_start/filter", "nr_objects_to_shrink > 10"},
                   {"set_event_pid", "12\n34\n\n"},
                   {"odd", std::string("a\0b\nfile 3 x\n", 14)}};
  REQUIRE(write_state_file(dir, state).ok());
  CHECK(mode_of(dir) == 0700);
  CHECK(mode_of(state_file_path(dir, 4242)) == 0600);
  CHECK_FALSE(std::filesystem::exists(state_file_path(dir, 4242) + ".tmp"));

  Result<StateFile> read = read_state_file(state_file_path(dir, 4242));
  REQUIRE(read.ok());
  CHECK(read->pid == 4242);
  CHECK(read->start_time == 123456789);
  CHECK(read->tracing_dir == state.tracing_dir);
  CHECK(read->instance == state.instance);
  REQUIRE(read->entries.size() == state.entries.size());
  for (std::size_t i = 0; i < state.entries.size(); ++i) {
    CHECK(read->entries[i].path == state.entries[i].path);
    CHECK(read->entries[i].snapshot == state.entries[i].snapshot);
  }
}

TEST_CASE("state file: a state file cut anywhere is refused, also at an entry boundary") {
  TempDir tmp;
  StateFile state;
  state.pid = 7;
  state.tracing_dir = "/sys/kernel/tracing";
  state.entries = {{"current_tracer", "nop\n"}, {"tracing_thresh", "0\n"}};
  const std::string text = format_state_file(state);
  REQUIRE(parse_state_file(text, "j").ok());
  CHECK(text.ends_with("\nend\n"));
  // Format 1 read a state file cut right after an entry as whole: half of it
  // would have been replayed.
  const std::size_t after_first_entry = text.find("file tracing_thresh");
  CHECK(parse_state_file(text.substr(0, after_first_entry), "j").error().message ==
        "the journal j is damaged (cut short: no end marker)");
  for (std::size_t cut = 0; cut < text.size(); ++cut) {
    CAPTURE(cut);
    CHECK_FALSE(parse_state_file(text.substr(0, cut), "j").ok());
  }
  CHECK(parse_state_file(text + "x", "j").error().message ==
        "the journal j is damaged (bytes after the end marker)");
  CHECK(parse_state_file("allocwatch-journal 1\npid 7\n", "j").error().message ==
        "the journal j is of an older allocwatch (format 1, which cannot show that it was "
        "written whole)");

  REQUIRE(write_state_file(tmp.dir(), state).ok());
  const std::string path = state_file_path(tmp.dir(), 7);
  std::filesystem::resize_file(path, std::filesystem::file_size(path) - 6);
  Result<StateFile> read = read_state_file(path);
  REQUIRE_FALSE(read.ok());
  CHECK(read.error().message == "the journal " + path + " is damaged (a truncated snapshot)");
  std::ofstream(path) << "something else\n";
  CHECK(read_state_file(path).error().message ==
        "the journal " + path + " is damaged (not an allocwatch journal)");
}

TEST_CASE(
    "state file: only a regular file of this user, mode 0600, of a state file's size is read") {
  TempDir tmp;
  StateFile state;
  state.pid = 9;
  state.tracing_dir = "/sys/kernel/tracing";
  REQUIRE(write_state_file(tmp.dir(), state).ok());
  const std::string path = state_file_path(tmp.dir(), 9);
  REQUIRE(read_state_file(path).ok());

  REQUIRE(::chmod(path.c_str(), 0666) == 0);
  CHECK(read_state_file(path).error().message ==
        "refusing the journal " + path + ": its mode is 0666, not 0600");
  REQUIRE(::chmod(path.c_str(), 0600) == 0);
  if (::geteuid() == 0) {
    REQUIRE(::chown(path.c_str(), 65534, 65534) == 0); // nobody
    CHECK(read_state_file(path).error().message ==
          "refusing the journal " + path + ": it is owned by another user (uid 65534)");
    REQUIRE(::chown(path.c_str(), 0, 0) == 0);
  }
  const std::string link = tmp.dir() + "/10.state";
  std::filesystem::create_symlink(path, link);
  CHECK(read_state_file(link).error().message ==
        "refusing the journal " + link +
            ": it is a symbolic link: Too many levels of symbolic "
            "links");
  const std::string fifo = tmp.dir() + "/11.state";
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  CHECK(read_state_file(fifo).error().message ==
        "refusing the journal " + fifo + ": it is not a regular file");
  std::filesystem::resize_file(path, kMaxStateFileBytes + 1);
  CHECK(read_state_file(path).error().message ==
        "refusing the journal " + path + ": it is larger than any journal allocwatch writes");
}

TEST_CASE("state file: the directory is made with its missing parents, as /run may be missing") {
  TempDir tmp;
  const std::string run = tmp.dir() + "/root/run";
  const std::string dir = run + "/allocwatch";
  const mode_t umask_before = ::umask(077);
  const Status made = ensure_state_dir(dir);
  ::umask(umask_before);
  REQUIRE(made.ok());
  CHECK(mode_of(tmp.dir() + "/root") == 0755);
  CHECK(mode_of(run) == 0755);
  CHECK(mode_of(dir) == 0700);
  CHECK(ensure_state_dir(dir).ok()); // there already
}

TEST_CASE("state file: a directory that is a symlink, or open to others, is refused") {
  TempDir tmp;
  const std::string real = tmp.dir() + "/real";
  REQUIRE(::mkdir(real.c_str(), 0700) == 0);
  const std::string link = tmp.dir() + "/link";
  std::filesystem::create_directory_symlink(real, link);
  CHECK(check_state_dir(real).ok());
  CHECK(check_state_dir(link).error().message ==
        "refusing the journal directory " + link +
            ": it is a symbolic link (it must be a directory of this user, mode 0700)");
  REQUIRE(::chmod(real.c_str(), 0750) == 0);
  CHECK(check_state_dir(real).error().message ==
        "refusing the journal directory " + real +
            ": group or others have access to it (it must be a directory of this user, mode "
            "0700)");
  if (::geteuid() == 0) {
    REQUIRE(::chmod(real.c_str(), 0700) == 0);
    REQUIRE(::chown(real.c_str(), 65534, 65534) == 0);
    CHECK(check_state_dir(real).error().message ==
          "refusing the journal directory " + real +
              ": it is owned by another user (it must be a directory of this user, mode 0700)");
  }
}

TEST_CASE("state file: a killed writer's .tmp is removed once its process is gone") {
  TempDir tmp;
  const pid_t child = fork();
  if (child == 0)
    _exit(0);
  REQUIRE(waitpid(child, nullptr, 0) == child);
  const std::string gone = tmp.dir() + "/" + std::to_string(child) + ".state.tmp";
  const std::string alive = tmp.dir() + "/" + std::to_string(getpid()) + ".state.tmp";
  for (const std::string& path : {gone, alive, tmp.dir() + "/x.state.tmp"})
    std::ofstream(path) << "allocwatch-journal 2\npid";
  Result<std::vector<UnfinishedStateFile>> removed = remove_unfinished_state_files(tmp.dir());
  REQUIRE(removed.ok());
  REQUIRE(removed->size() == 1);
  CHECK((*removed)[0].path == gone);
  CHECK((*removed)[0].pid == child);
  CHECK_FALSE(std::filesystem::exists(gone));
  CHECK(std::filesystem::exists(alive)); // its writer may be writing it
  CHECK(std::filesystem::exists(tmp.dir() + "/x.state.tmp"));
  CHECK(remove_unfinished_state_files(tmp.dir() + "/missing")->empty());
}

TEST_CASE("state file: a directory others can write to is not written to") {
  TempDir tmp;
  const std::string dir = tmp.dir() + "/open";
  REQUIRE(::mkdir(dir.c_str(), 0777) == 0);
  REQUIRE(::chmod(dir.c_str(), 0777) == 0);
  StateFile state;
  state.pid = 1;
  state.tracing_dir = "/x";
  Status written = write_state_file(dir, state);
  REQUIRE_FALSE(written.ok());
  CHECK(written.error().message.find("refusing the journal directory " + dir) == 0);
}

TEST_CASE("state file: list_state_files finds <pid>.state files only") {
  TempDir tmp;
  for (const char* name : {"12.state", "3.state", "x.state", "12.state.tmp", "lock"})
    std::ofstream(tmp.dir() + "/" + name) << "";
  Result<std::vector<std::string>> found = list_state_files(tmp.dir());
  REQUIRE(found.ok());
  CHECK(*found == std::vector<std::string>{tmp.dir() + "/12.state", tmp.dir() + "/3.state"});
  CHECK(list_state_files(tmp.dir() + "/missing")->empty());
}

TEST_CASE("state file: a running process is alive; an exited one, or a reused pid, is not") {
  StateFile self;
  self.pid = getpid();
  self.start_time = process_start_time(getpid()).value();
  CHECK(state_file_owner_alive(self));
  self.start_time += 1; // the same pid, started at another time: reused
  CHECK_FALSE(state_file_owner_alive(self));

  const pid_t child = fork();
  if (child == 0)
    _exit(0);
  REQUIRE(child > 0);
  REQUIRE(waitpid(child, nullptr, 0) == child);
  CHECK_FALSE(process_start_time(child).has_value());
}

} // namespace
} // namespace allocwatch

#include "tracefs/fake_tracefs.h"
#include "tracefs/journal.h"

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

TEST_CASE("journal: every snapshot survives a write and a read byte for byte") {
  TempDir tmp;
  const std::string dir = tmp.dir() + "/run";
  Journal journal;
  journal.pid = 4242;
  journal.start_time = 123456789;
  journal.tracing_dir = "/tmp/a dir with spaces";
  journal.instance = "allocwatch-4242";
  journal.entries = {{"current_tracer", "nop\n"},
                     {"set_ftrace_filter", ""},
                     {"buffer_size_kb", "7 (expanded: 1408)\n"},
                     {"events/vmscan/mm_shrink_slab_start/filter", "nr_objects_to_shrink > 10"},
                     {"set_event_pid", "12\n34\n\n"},
                     {"odd", std::string("a\0b\nfile 3 x\n", 14)}};
  REQUIRE(write_journal(dir, journal).ok());
  CHECK(mode_of(dir) == 0700);
  CHECK(mode_of(journal_path(dir, 4242)) == 0600);
  CHECK_FALSE(std::filesystem::exists(journal_path(dir, 4242) + ".tmp"));

  Result<Journal> read = read_journal(journal_path(dir, 4242));
  REQUIRE(read.ok());
  CHECK(read->pid == 4242);
  CHECK(read->start_time == 123456789);
  CHECK(read->tracing_dir == journal.tracing_dir);
  CHECK(read->instance == journal.instance);
  REQUIRE(read->entries.size() == journal.entries.size());
  for (std::size_t i = 0; i < journal.entries.size(); ++i) {
    CHECK(read->entries[i].path == journal.entries[i].path);
    CHECK(read->entries[i].snapshot == journal.entries[i].snapshot);
  }
}

TEST_CASE("journal: a damaged journal is an error that names it") {
  TempDir tmp;
  Journal journal;
  journal.pid = 7;
  journal.tracing_dir = "/sys/kernel/tracing";
  journal.entries = {{"current_tracer", "nop\n"}};
  REQUIRE(write_journal(tmp.dir(), journal).ok());
  const std::string path = journal_path(tmp.dir(), 7);
  std::filesystem::resize_file(path, std::filesystem::file_size(path) - 3);
  Result<Journal> read = read_journal(path);
  REQUIRE_FALSE(read.ok());
  CHECK(read.error().message == "the journal " + path + " is damaged (a truncated snapshot)");

  std::ofstream(path) << "something else\n";
  CHECK(read_journal(path).error().message ==
        "the journal " + path + " is damaged (not an allocwatch journal)");
}

TEST_CASE("journal: a directory others can write to is refused") {
  TempDir tmp;
  const std::string dir = tmp.dir() + "/open";
  REQUIRE(::mkdir(dir.c_str(), 0777) == 0);
  REQUIRE(::chmod(dir.c_str(), 0777) == 0);
  Journal journal;
  journal.pid = 1;
  journal.tracing_dir = "/x";
  Status written = write_journal(dir, journal);
  REQUIRE_FALSE(written.ok());
  CHECK(written.error().message.find("refusing the journal directory " + dir) == 0);
}

TEST_CASE("journal: list_journals finds <pid>.state files only") {
  TempDir tmp;
  for (const char* name : {"12.state", "3.state", "x.state", "12.state.tmp", "lock"})
    std::ofstream(tmp.dir() + "/" + name) << "";
  Result<std::vector<std::string>> found = list_journals(tmp.dir());
  REQUIRE(found.ok());
  CHECK(*found == std::vector<std::string>{tmp.dir() + "/12.state", tmp.dir() + "/3.state"});
  CHECK(list_journals(tmp.dir() + "/missing")->empty());
}

TEST_CASE("journal: a running process is alive; an exited one, or a reused pid, is not") {
  Journal self;
  self.pid = getpid();
  self.start_time = process_start_time(getpid()).value();
  CHECK(journal_owner_alive(self));
  self.start_time += 1; // the same pid, started at another time: reused
  CHECK_FALSE(journal_owner_alive(self));

  const pid_t child = fork();
  if (child == 0)
    _exit(0);
  REQUIRE(child > 0);
  REQUIRE(waitpid(child, nullptr, 0) == child);
  CHECK_FALSE(process_start_time(child).has_value());
}

} // namespace
} // namespace allocwatch

// libFuzzer harness: --restore over a state file of the input's bytes. It
// must never write outside the tracefs the state file names, nor any file
// there that allocwatch does not save, nor trust a state file it did not
// write; and it must not crash on any bytes.
//
// Set up once: a temporary root holding a fake tracefs (plain files, as in
// the unit tests; --restore's checks take its path, and no other, for a
// tracefs),
// a state directory, and a directory "outside" with a victim file. In the
// input, "@TRACEFS@" stands for the fake's path and "@OUTSIDE@" for the
// outside directory's, so that the fuzzer can aim at both. The state file is
// written as <pid>.state with the pid its text names (1 when none), mode
// 0600 (as allocwatch writes it; the owner and mode checks have their unit
// tests). After each input: the victim and every file outside the fake are
// as they were, and each file of the fake that changed is one that
// is_saved_file() takes; then the fake is put back.
#include "tracefs/state_file.h"

#include "fake_tracefs.h"
#include "tracefs/restore.h"
#include "tracefs/session.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <sys/stat.h>

using namespace allocwatch;
namespace fs = std::filesystem;

namespace {

struct World {
  testing::FakeTracefs fake;
  testing::TempDir root;
  std::string state_files = root.dir() + "/run";
  std::string outside = root.dir() + "/outside";
  std::map<std::string, std::string> fake_state;
  RestoreChecks checks;

  World() {
    if (!ensure_state_dir(state_files).ok())
      std::abort();
    fs::create_directory(outside);
    std::ofstream(outside + "/victim") << "precious\n";
    fake_state = fake.state();
    checks.is_tracing_dir = [dir = fake.dir()](const std::string& d) { return d == dir; };
  }

  // Every path under the root, but the fake's, with its content.
  std::map<std::string, std::string> outside_state() const {
    std::map<std::string, std::string> files;
    for (const auto& entry : fs::recursive_directory_iterator(root.dir())) {
      const std::string path = entry.path().string();
      if (path.starts_with(state_files + "/"))
        continue; // --restore removes state files; that is its job
      if (entry.is_regular_file() && !entry.is_symlink()) {
        std::ifstream in(path, std::ios::binary);
        std::ostringstream content;
        content << in.rdbuf();
        files[path] = content.str();
      } else {
        files[path] = "";
      }
    }
    return files;
  }
};

void replace_all(std::string& text, std::string_view from, const std::string& to) {
  for (std::size_t at = text.find(from); at != std::string::npos;
       at = text.find(from, at + to.size()))
    text.replace(at, from.size(), to);
}

void fail(const char* why, const std::string& detail) {
  std::fprintf(stderr, "state_file: %s: %s\n", why, detail.c_str());
  std::abort();
}

// Made at the first input and kept to the end. libFuzzer ends with exit(),
// which unwinds no stack, so the world's temporary directories go at exit,
// with it; a finding (abort) leaves them beside the crash for a look.
World* world = nullptr;
void remove_world() {
  delete world;
  world = nullptr;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (world == nullptr) {
    world = new World;
    std::atexit(remove_world);
  }
  static const std::map<std::string, std::string> outside_before = world->outside_state();

  std::string text(reinterpret_cast<const char*>(data), size);
  replace_all(text, "@TRACEFS@", world->fake.dir());
  replace_all(text, "@OUTSIDE@", world->outside);
  (void)parse_state_file(text, "fuzz");
  pid_t pid = 1;
  if (text.starts_with("allocwatch-journal 2\npid "))
    pid = std::max(1, std::atoi(text.c_str() + 25));

  const std::string path = state_file_path(world->state_files, pid);
  {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out << text;
  }
  ::chmod(path.c_str(), 0600);
  std::ostringstream said;
  (void)restore_from_state_files(world->state_files, world->fake.dir(), said, world->checks);

  if (world->outside_state() != outside_before)
    fail("--restore wrote outside the fake tracefs", said.str());
  const std::map<std::string, std::string> now = world->fake.state();
  for (const auto& [file, content] : now) {
    const auto before = world->fake_state.find(file);
    if (before != world->fake_state.end() && before->second == content)
      continue;
    if (!is_saved_file(file))
      fail("--restore changed a file allocwatch does not save", file);
    if (before == world->fake_state.end())
      fs::remove(world->fake.path(file));
    else
      world->fake.write(file, before->second);
  }
  for (const auto& [file, content] : world->fake_state)
    if (!now.contains(file)) {
      if (file.ends_with("/"))
        fs::create_directories(world->fake.path(file));
      else
        world->fake.write(file, content);
    }
  fs::remove(path);
  return 0;
}

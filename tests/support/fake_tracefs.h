// Test support (unit tests only): a fake tracefs in a temporary directory,
// with plain files where the kernel has its control files. libtracefs is
// pointed at it by make_plan()/Session through the Plan's tracing_dir; the
// destructor points libtracefs back at the system's tracefs.
//
// A fake file reads back exactly what was written, so the fake's contents
// start at values a kernel reads back after allocwatch writes them (e.g.
// set_ftrace_filter empty, not "#### all functions enabled ####").
#pragma once

#include "profile/profile.h"
#include "ring/libtracefs.h"

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <stdexcept>
#include <string>
#include <unistd.h>

namespace allocwatch::testing {

class FakeTracefs {
public:
  FakeTracefs() {
    char pattern[] = "/tmp/allocwatch-fake-tracefs-XXXXXX";
    if (::mkdtemp(pattern) == nullptr)
      throw std::runtime_error("mkdtemp failed");
    dir_ = pattern;
    write("available_tracers", "function_graph function nop\n");
    write("current_tracer", "nop\n");
    write("tracing_thresh", "0\n");
    write("tracing_on", "1\n");
    write("buffer_size_kb", "1408\n");
    write("set_ftrace_filter", "");
    write("set_ftrace_pid", "");
    write("set_event_pid", "");
    write("trace", "what another user traced\n");
    write("available_filter_functions", "__alloc_pages_noprof\n"
                                        "__alloc_pages\n"
                                        "try_to_free_pages\n"
                                        "shrink_node\n"
                                        "do_shrink_slab [some_module]\n");
    for (const char* option :
         {"funcgraph-proc", "funcgraph-abstime", "funcgraph-tail", "funcgraph-retval",
          "record-tgid", "latency-format", "raw", "event-fork", "function-fork"})
      write(std::string("options/") + option, "0\n");
    for (const char* option : {"funcgraph-duration", "funcgraph-cpu", "funcgraph-overhead",
                               "funcgraph-irqs", "context-info", "irq-info", "sleep-time"})
      write(std::string("options/") + option, "1\n");
    std::string events;
    for (const char* event : {"vmscan/mm_vmscan_direct_reclaim_begin",
                              "vmscan/mm_vmscan_direct_reclaim_end", "vmscan/mm_shrink_slab_start",
                              "vmscan/mm_shrink_slab_end", "compaction/mm_compaction_begin"}) {
      write(std::string("events/") + event + "/enable", "0\n");
      write(std::string("events/") + event + "/filter", "none\n");
      std::string line = event;
      line[line.find('/')] = ':';
      events += line + "\n";
    }
    write("events/vmscan/enable", "0\n");
    write("events/compaction/enable", "0\n");
    write("available_events", events);
    std::filesystem::create_directories(dir_ + "/instances");
  }

  ~FakeTracefs() {
    tracefs_set_tracing_dir(nullptr);
    std::error_code ignored;
    std::filesystem::remove_all(dir_, ignored);
  }

  FakeTracefs(const FakeTracefs&) = delete;
  FakeTracefs& operator=(const FakeTracefs&) = delete;

  const std::string& dir() const { return dir_; }
  std::string path(const std::string& relative) const { return dir_ + "/" + relative; }

  void write(const std::string& relative, const std::string& content) const {
    const std::filesystem::path p = path(relative);
    std::filesystem::create_directories(p.parent_path());
    std::ofstream out(p, std::ios::binary | std::ios::trunc);
    out << content;
  }

  std::string read(const std::string& relative) const {
    std::ifstream in(path(relative), std::ios::binary);
    std::stringstream content;
    content << in.rdbuf();
    return content.str();
  }

  // Turns a file into one that reads but refuses writes (EIO), as the kernel
  // refuses set_ftrace_filter on a locked-down machine; root ignores modes.
  void make_unwritable(const std::string& relative) const {
    std::filesystem::remove(path(relative));
    std::filesystem::create_symlink("/proc/version", path(relative));
  }

  // Every file and directory, with each file's content: what must be the
  // same after a session as before. "trace" is data a session clears, not
  // state, and is left out.
  std::map<std::string, std::string> state() const {
    std::map<std::string, std::string> files;
    for (const auto& entry : std::filesystem::recursive_directory_iterator(dir_)) {
      const std::string relative = std::filesystem::relative(entry.path(), dir_).string();
      if (relative == "trace")
        continue;
      if (entry.is_symlink())
        files[relative] = "-> " + std::filesystem::read_symlink(entry.path()).string();
      else if (entry.is_directory())
        files[relative + "/"] = "";
      else
        files[relative] = read(relative);
    }
    return files;
  }

private:
  std::string dir_;
};

// A profile over the fake's functions and events.
inline Profile fake_profile() {
  Profile p;
  p.name = "fake";
  p.buffer_size_kb = 4096;
  p.functions = {{{"__alloc_frozen_pages_noprof", "__alloc_pages_noprof", "__alloc_pages"}, {}},
                 {{"try_to_free_pages"}, {}},
                 {{"shrink_lruvec", "shrink_node_memcg"}, {}}};
  p.events = {{"vmscan", "mm_vmscan_direct_reclaim_begin", {}},
              {"vmscan", "mm_vmscan_direct_reclaim_end", {}},
              {"vmscan", "mm_shrink_slab_start", {}},
              {"compaction", "mm_compaction_begin", {}}};
  return p;
}

// A temporary directory, removed with what is in it.
class TempDir {
public:
  TempDir() {
    char pattern[] = "/tmp/allocwatch-test-XXXXXX";
    if (::mkdtemp(pattern) == nullptr)
      throw std::runtime_error("mkdtemp failed");
    dir_ = pattern;
  }
  ~TempDir() {
    std::error_code ignored;
    std::filesystem::remove_all(dir_, ignored);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::string& dir() const { return dir_; }

private:
  std::string dir_;
};

} // namespace allocwatch::testing

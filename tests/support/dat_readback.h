// Test support (unit tests only): a trace.dat read back through libtracecmd,
// trace-cmd's own reader, as an independent check of the files DatWriter
// writes: every record with its CPU, exact timestamp, event, task and the
// fields as libtraceevent prints them from the file's formats.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

// <trace-cmd/trace-cmd.h> includes <tracefs.h>, whose inline
// tracefs_hist_start() passes a plain 0 where C++ wants the enum: an int
// overload, seen first, takes that call (as src/tracefs/libtracefs.h does).
struct tracefs_instance;
struct tracefs_hist;
int tracefs_hist_command(tracefs_instance* instance, tracefs_hist* hist, int command);
#include <trace-cmd/trace-cmd.h>
inline int tracefs_hist_command(tracefs_instance* instance, tracefs_hist* hist, int command) {
  return tracefs_hist_command(instance, hist, static_cast<enum tracefs_hist_command>(command));
}

namespace allocwatch::testing {

struct ReadRecord {
  int cpu = -1;
  std::uint64_t ts = 0;
  std::string system;
  std::string name;
  int pid = -1;
  std::string comm;
  std::string info; // the print format's text, as `trace-cmd report` shows it
};

struct ReadBack {
  bool opened = false;
  std::vector<ReadRecord> records; // in timestamp order, as trace-cmd merges the CPUs
  // The symbol libtraceevent finds for `lookup` (from the file's kallsyms).
  std::string symbol;
};

inline ReadBack read_back(const std::string& path, std::uint64_t lookup = 0) {
  ReadBack result;
  tracecmd_input* input = tracecmd_open(path.c_str(), TRACECMD_FL_LOAD_NO_PLUGINS);
  if (input == nullptr)
    return result;
  result.opened = true;
  tep_handle* tep = tracecmd_get_tep(input);
  if (lookup != 0) {
    const char* symbol = tep_find_function(tep, lookup);
    result.symbol = symbol != nullptr ? symbol : "";
  }
  tracecmd_iterate_events(
      input, nullptr, 0,
      [](tracecmd_input* in, tep_record* record, int cpu, void* data) -> int {
        tep_handle* t = tracecmd_get_tep(in);
        ReadRecord r;
        r.cpu = cpu;
        r.ts = record->ts;
        if (tep_event* event = tep_find_event_by_record(t, record)) {
          r.system = event->system;
          r.name = event->name;
        }
        r.pid = tep_data_pid(t, record);
        const char* comm = tep_data_comm_from_pid(t, r.pid);
        r.comm = comm != nullptr ? comm : "";
        trace_seq seq;
        trace_seq_init(&seq);
        tep_print_event(t, &seq, record, "%s", TEP_PRINT_INFO);
        trace_seq_terminate(&seq);
        r.info.assign(seq.buffer, seq.len);
        trace_seq_destroy(&seq);
        static_cast<ReadBack*>(data)->records.push_back(std::move(r));
        return 0;
      },
      &result);
  tracecmd_close(input);
  return result;
}

} // namespace allocwatch::testing

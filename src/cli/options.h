// The command line: one table of options (CLI11), parsed into plain data.
#pragma once

#include "profile/profile.h"
#include "util/duration.h"

#include <optional>
#include <string>
#include <vector>

namespace allocwatch {

// Where a live run reads the kernel's trace: each CPU's binary
// trace_pipe_raw, decoded in user space, or the text of trace_pipe.
enum class Source { Raw, Text };

struct Options {
  std::optional<Nanos> threshold;         // -t; unset: the profile's
  std::string profile = "default";        // -p NAME|FILE
  std::optional<std::string> input;       // -i FILE ("-": stdin): replay, no tracefs
  std::optional<std::string> buffer;      // --buffer NAME: a trace.dat's instance to replay
  std::optional<Mode> mode;               // --mode; unset: graph if the kernel can
  std::optional<Source> source;           // --source; unset: raw (text with --save)
  std::optional<Nanos> duration;          // --duration
  std::optional<std::string> command;     // -c CMD
  std::optional<int> pid;                 // --pid
  std::optional<std::string> cgroup;      // --cgroup
  std::optional<std::string> save;        // --save FILE
  std::optional<std::string> tracefs_dir; // --tracefs DIR
  std::optional<std::string> report;      // --report FILE: the stall report, all rows
  std::optional<std::string> timeline;    // --timeline FILE: Chrome trace-event JSON
  bool json = false;                      // --format json
  // --watch: the always-on agent (events mode and the watch profile unless
  // given, incidents as JSON records or journal entries, no --save).
  bool watch = false;
  std::optional<std::string> metrics_file; // --metrics-file FILE
  Nanos metrics_interval = 15 * kSecond;   // --metrics-interval
  int metrics_cgroups = 10;                // --metrics-cgroups: cgroups with series, per kind
  std::optional<std::string> listen;       // --listen [ADDR:]PORT, checked by parse_listen_address
  bool check = false;
  bool list_profiles = false;
  bool restore = false;
  bool force = false;
  bool quiet = false;
};

// What parse_options decided: run with these options, or exit now with this
// status after the text CLI11 printed (--help, --version, a usage error).
struct ParsedOptions {
  Options options;
  std::optional<int> exit_now;
};

ParsedOptions parse_options(int argc, const char* const* argv);

} // namespace allocwatch

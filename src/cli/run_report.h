// RunReport: what a run reports besides the trace lines: the stall report
// (text on stderr in text mode, all of it with --report FILE, JSON records
// after the spans in --format json; text on stderr again for a watch whose
// stdout is the journal, which takes incidents, not report records) and the
// --timeline file. Its files are
// opened when it is made, so that a path that cannot be written fails
// before tracing starts; every write error is told at the end (exit 1).
#pragma once

#include "bind/background_work.h"
#include "bind/run_stats.h"
#include "cgroup/memcg_watch.h"
#include "cli/options.h"
#include "metrics/render.h"
#include "output/cgroup_stats.h"
#include "output/fanout_sink.h"
#include "output/stall_stats.h"
#include "output/timeline_sink.h"
#include "profile/profile.h"
#include "util/output_file.h"

#include <iosfwd>
#include <memory>
#include <optional>

namespace allocwatch {

// The columns of the terminal on `fd`, which the report and the counts on
// it fit (80 when it does not say); kWhole when `fd` is no terminal.
std::size_t report_width(int fd);

class RunReport {
public:
  // Throws FatalError (exit 1) when --report or --timeline cannot be written.
  // `journal`: the run's output is the journal (no report records there).
  RunReport(const Options& options, const Profile& profile, bool journal);

  // The run's observers of the incidents: the stall statistics (by task and
  // by cgroup), the timeline.
  void observe(FanoutSink& sinks);
  const StallStats& stalls() const { return stalls_; }
  // A live run learns cgroups: the report then has its cgroup part, with
  // the limits `memcg` watched (read again at the end). `memcg` must
  // outlive this object.
  void attribute(MemcgWatch& memcg) { memcg_ = &memcg; }
  // What the background tasks did, for the report; `work` must outlive
  // this object.
  void background(const BackgroundWork& work) { work_ = &work; }
  // The limits' last reading, taken once (the first call, or the report's
  // first writing); empty when the run learnt no cgroups.
  const std::vector<MemcgChain>& cgroup_limits();
  // The sizes of the stall report's bounded tables, for the metrics.
  std::vector<TableSize> tables() const;

  // After the last line, in --format json: the run's record and the
  // report's records, after the spans and shrinker totals (nothing when the
  // journal is the output). `mode`: the binder's, none if no trace line came.
  void write_json(std::ostream& out, const RunStats& stats, std::optional<Mode> mode);
  // At the very end: the text report on `err` (text mode, not -q; its top
  // rows only, fitted to `err_width` columns, when `err` is a terminal;
  // kWhole otherwise), the report file, the timeline closed.
  // Throws FatalError naming every file that could not be written.
  void finish(std::ostream& err, std::size_t err_width);

private:
  const Options& options_;
  const Profile& profile_;
  const bool json_records_; // the report goes out as JSON records, not text
  StallStats stalls_;
  CgroupStats cgroups_;
  MemcgWatch* memcg_ = nullptr;
  const BackgroundWork* work_ = nullptr;
  const std::vector<MemcgChain>* limits_ = nullptr;
  std::unique_ptr<OutputFile> report_file_;
  std::unique_ptr<OutputFile> timeline_file_;
  std::optional<TimelineSink> timeline_;
};

} // namespace allocwatch

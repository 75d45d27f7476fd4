#include "cli/run_report.h"

#include "bind/shrinker_stats.h"
#include "output/cgroup_report.h"
#include "output/stall_report.h"
#include "output/status_line.h"
#include "output/text_table.h"
#include "util/result.h"

#include <algorithm>
#include <ostream>
#include <sys/utsname.h>
#include <unistd.h>

namespace allocwatch {

namespace {
std::unique_ptr<OutputFile> open_output(const std::optional<std::string>& path) {
  if (!path)
    return nullptr;
  return value_or_throw(OutputFile::create(*path));
}
} // namespace

RunReport::RunReport(const Options& options, const Profile& profile, bool journal)
    : options_(options), profile_(profile), json_records_(options.json && !journal),
      stalls_(StallStats::Limits{.window = profile.window}, stall_spans(profile)),
      report_file_(open_output(options.report)), timeline_file_(open_output(options.timeline)) {
  if (timeline_file_)
    timeline_.emplace(timeline_file_->stream(), profile.window);
}

void RunReport::observe(FanoutSink& sinks) {
  sinks.add(stalls_);
  sinks.add(cgroups_);
  if (timeline_)
    sinks.add(*timeline_);
}

std::vector<TableSize> RunReport::tables() const {
  std::vector<TableSize> tables = {
      {"task_rows", stalls_.task_rows(), stalls_.limits().task_rows},
      {"order_rows", stalls_.order_rows_kept(), stalls_.limits().order_rows},
      {"held_figures", stalls_.held_figures(), StallStats::kHeldFigures}};
  if (memcg_ == nullptr)
    return tables; // a replay has no cgroups
  const std::vector<const CgroupRow*> rows = cgroups_.rows();
  tables.push_back({"cgroup_rows",
                    static_cast<std::uint64_t>(std::count_if(
                        rows.begin(), rows.end(),
                        [](const CgroupRow* row) { return row->of == CgroupRow::Of::Cgroup; })),
                    cgroups_.max_rows()});
  tables.push_back({"memcg_cgroups", memcg_->cgroups(), MemcgWatch::kMaxCgroups});
  return tables;
}

const std::vector<MemcgChain>& RunReport::cgroup_limits() {
  static const std::vector<MemcgChain> kNone;
  if (memcg_ == nullptr)
    return kNone;
  if (limits_ == nullptr)
    limits_ = &memcg_->finish();
  return *limits_;
}

void RunReport::write_json(std::ostream& out, const RunStats& stats, std::optional<Mode> mode) {
  if (!json_records_)
    return;
  // A live run traces this kernel; a replay's trace says not which.
  struct utsname host {};
  const bool live = !options_.input && ::uname(&host) == 0;
  write_run_json(out, RunRecord{profile_.name, mode, profile_.threshold,
                                live ? std::string_view(host.release) : std::string_view(), stats});
  write_report_json(out, stalls_, work_);
  if (memcg_ != nullptr)
    write_cgroup_report_json(out, cgroups_, cgroup_limits());
}

std::size_t report_width(int fd) {
  if (::isatty(fd) != 1)
    return kWhole;
  const int columns = terminal_width(fd);
  return columns > 0 ? static_cast<std::size_t>(columns) : 80;
}

void RunReport::finish(std::ostream& err, std::size_t err_width) {
  ReportTextOptions text{profile_.threshold, kTerminalReportRows, profile_.background, err_width,
                         work_};
  if (!json_records_ && !options_.quiet) {
    if (err_width == kWhole)
      text.max_rows = ReportTextOptions{}.max_rows;
    write_report_text(err, stalls_, text);
    if (memcg_ != nullptr)
      write_cgroup_report_text(err, cgroups_, cgroup_limits(), text.max_rows);
    else if (stalls_.stalls() > 0)
      write_wrapped(err,
                    "allocwatch: no stalls by cgroup: a replay knows cgroups only from the --save "
                    "file of a live run\n",
                    err_width);
  }
  std::string failed;
  if (report_file_) {
    text.max_rows = ReportTextOptions{}.max_rows;
    text.width = kWhole;
    write_report_text(report_file_->stream(), stalls_, text);
    if (memcg_ != nullptr)
      write_cgroup_report_text(report_file_->stream(), cgroups_, cgroup_limits(), text.max_rows);
    if (Status closed = report_file_->finish(); !closed)
      failed = closed.error().message;
  }
  if (timeline_file_) {
    timeline_->finish(ShrinkerStats{}); // closed, even when the run ended early
    if (Status closed = timeline_file_->finish(); !closed)
      failed += (failed.empty() ? "" : "; ") + closed.error().message;
  }
  if (!failed.empty())
    throw FatalError(failed);
}

} // namespace allocwatch

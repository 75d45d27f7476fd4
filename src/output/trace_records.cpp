#include "output/trace_records.h"

#include "cgroup/task_cgroups.h"
#include "trace/parser.h"

namespace allocwatch {

namespace {

void add_totals(const ShrinkerTotals& totals, RecordValue& record) {
  record.integer("total_ns", totals.total)
      .integer("max_ns", totals.max)
      .count("calls", totals.calls);
}

} // namespace

void span_record(const Incident& incident, RecordValue& record) {
  record.clear();
  record.string("type", "span")
      .string("name", incident.span)
      .integer("pid", incident.pid)
      .string("comm", incident.comm);
  if (incident.cgroup != nullptr) {
    const Container& container = incident.cgroup->container;
    record.string("cgroup", incident.cgroup->path);
    if (!container.id.empty())
      record.string("container_id", container.id);
    if (!container.pod_uid.empty())
      record.string("pod_uid", container.pod_uid);
  }
  record.integer("start_ns", incident.start)
      .integer("end_ns", incident.end)
      .integer("duration_ns",
               incident.start >= 0 && incident.end >= 0 ? incident.end - incident.start : -1)
      .list("lines");
  for (std::string_view line : incident.lines)
    record.string({}, line);
  record.end();
  add_tracepoints("tracepoints", incident.tracepoints, record);
}

void lost_record(std::string_view line, RecordValue& record) {
  record.clear();
  record.string("type", "lost").string("line", line);
  // A LOST line is rare and short: read here, not carried by every sink.
  const Record lost = parse_line(line);
  if (lost.kind != LineKind::Lost)
    return;
  record.integer("cpu", lost.cpu);
  if (lost.lost > 0)
    record.count("events", lost.lost);
}

void shrinker_record(const ShrinkerSummary& shrinker, RecordValue& record) {
  record.clear();
  record.string("type", "shrinker").string("symbol", shrinker.symbol);
  add_totals(shrinker.totals, record);
  record.list("instances");
  for (const ShrinkerSummary::Instance& instance : shrinker.instances) {
    record.object({}).string("instance", instance.name);
    add_totals(instance.totals, record);
    record.end();
  }
  record.end();
}

void add_tracepoints(std::string_view name, std::span<const Tracepoint> tracepoints,
                     RecordValue& record) {
  record.list(name);
  for (const Tracepoint& tracepoint : tracepoints)
    if (!tracepoint.name.empty())
      record.object({})
          .string("event", tracepoint.name)
          .integer("ts_ns", tracepoint.ts)
          .fields("fields", tracepoint.name, tracepoint.fields)
          .end();
  record.end();
}

} // namespace allocwatch

#include "output/cgroup_report.h"

#include "output/json_text.h"
#include "output/text_table.h"
#include "util/escape.h"

#include <cstdio>
#include <ostream>
#include <string>

namespace allocwatch {

namespace {

constexpr std::string_view kOther = "(other cgroups)";
constexpr std::string_view kUnknown = "(unknown)";

std::string_view row_name(const CgroupRow& row) {
  switch (row.of) {
  case CgroupRow::Of::Other:
    return kOther;
  case CgroupRow::Of::Unknown:
    return kUnknown;
  case CgroupRow::Of::Cgroup:
    break;
  }
  return row.path;
}

// The path for a terminal: a 64-digit container id cut to docker's 12
// (the CONTAINER column has it), the rest escaped.
std::string short_path(std::string_view path) {
  const auto hex = [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); };
  std::string text;
  for (std::size_t i = 0; i < path.size();) {
    std::size_t run = 0;
    while (i + run < path.size() && hex(path[i + run]))
      ++run;
    if (run == 0) {
      text += path[i++];
      continue;
    }
    text += path.substr(i, run == 64 ? 12 : run);
    i += run;
  }
  return escaped(text);
}

// "64.0MiB", "1.50GiB", "512KiB": a size to read, not to parse.
std::string human_size(std::uint64_t bytes) {
  char text[32];
  if (bytes >= (std::uint64_t{1} << 30))
    std::snprintf(text, sizeof text, "%.2fGiB", static_cast<double>(bytes) / (1 << 30));
  else if (bytes >= (1 << 20))
    std::snprintf(text, sizeof text, "%.1fMiB", static_cast<double>(bytes) / (1 << 20));
  else
    std::snprintf(text, sizeof text, "%lluKiB", static_cast<unsigned long long>(bytes >> 10));
  return text;
}

std::string limit_text(const std::optional<std::uint64_t>& limit) {
  return limit ? human_size(*limit) : "max";
}

// "+240", the change of a counter; "gone" for a cgroup removed by the end.
std::string delta(const MemcgLevel& level, std::uint64_t MemcgState::*counter) {
  if (!level.last.readable || !level.first.readable)
    return level.last.readable ? "?" : "gone";
  return '+' + std::to_string(level.last.*counter - level.first.*counter);
}

void write_limit_json(std::ostream& out, const std::optional<std::uint64_t>& limit) {
  if (limit)
    out << *limit;
  else
    out << "null";
}

} // namespace

void write_cgroup_report_text(std::ostream& out, const CgroupStats& stats,
                              const std::vector<MemcgChain>& limits, std::size_t max_rows) {
  const std::vector<const CgroupRow*> rows = stats.rows();
  if (rows.empty())
    return;
  out << "allocwatch: stalls by memory cgroup, largest total first:\n";
  Table table({"CGROUP", "CONTAINER", "POD", "KIND", "COUNT", "TOTAL_MS", "MAX_MS", "P99_MS"},
              "llllrrrr");
  std::size_t shown = 0;
  std::size_t hidden = 0;
  for (const CgroupRow* row : rows) {
    for (const CgroupRow::Kind& kind : row->kinds) {
      if (shown == max_rows) {
        ++hidden;
        continue;
      }
      ++shown;
      table.add({short_path(row_name(*row)), row->container.id.substr(0, 12),
                 row->container.pod_uid.substr(0, 8), escaped(kind.name),
                 std::to_string(kind.durations.count()), ms(kind.durations.total()),
                 ms(kind.durations.max()), ms(kind.durations.percentile(99))});
    }
  }
  table.write(out);
  if (hidden)
    out << "  ... " << hidden << " more rows (--report FILE has them all)\n";

  if (limits.empty())
    return;
  out << "allocwatch: memory limits of the cgroups whose memcg reclaim stalled, and what their "
         "counters did during the run (the cgroup, then each parent):\n";
  for (const MemcgChain& chain : limits) {
    if (chain.version == CgroupVersion::V2) {
      Table levels({"CGROUP", "LIMIT", "HIGH", "EVENTS_HIGH", "EVENTS_MAX", "OOM", "OOM_KILL"},
                   "lrrrrrr");
      for (const MemcgLevel& level : chain.levels)
        levels.add({short_path(level.path), limit_text(level.first.limit),
                    limit_text(level.first.high), delta(level, &MemcgState::high_events),
                    delta(level, &MemcgState::max_events), delta(level, &MemcgState::oom),
                    delta(level, &MemcgState::oom_kill)});
      levels.write(out);
    } else {
      Table levels({"CGROUP", "LIMIT", "FAILCNT", "MAX_USAGE"}, "lrrr");
      for (const MemcgLevel& level : chain.levels)
        levels.add({short_path(level.path), limit_text(level.first.limit),
                    delta(level, &MemcgState::failcnt),
                    level.last.readable ? human_size(level.last.max_usage) : "gone"});
      levels.write(out);
    }
  }
}

void write_cgroup_report_json(std::ostream& out, const CgroupStats& stats,
                              const std::vector<MemcgChain>& limits) {
  for (const CgroupRow* row : stats.rows()) {
    for (const CgroupRow::Kind& kind : row->kinds) {
      out << "{\"type\":\"cgroup\",\"cgroup\":";
      write_json_string(out, row_name(*row));
      out << ",\"runtime\":";
      write_json_string(out, runtime_name(row->container.runtime));
      out << ",\"container_id\":";
      write_json_string(out, row->container.id);
      out << ",\"pod_uid\":";
      write_json_string(out, row->container.pod_uid);
      out << ",\"kind\":";
      write_json_string(out, kind.name);
      out << ",\"count\":" << kind.durations.count() << ",\"total_ns\":" << kind.durations.total()
          << ",\"max_ns\":" << kind.durations.max()
          << ",\"p99_ns\":" << kind.durations.percentile(99) << "}\n";
    }
  }
  for (const MemcgChain& chain : limits) {
    for (const MemcgLevel& level : chain.levels) {
      out << "{\"type\":\"memcg\",\"cgroup\":";
      write_json_string(out, level.path);
      out << ",\"stalled\":";
      write_json_string(out, chain.levels.front().path);
      const bool v2 = chain.version == CgroupVersion::V2;
      out << ",\"version\":" << (v2 ? 2 : 1) << ",\"limit\":";
      write_limit_json(out, level.first.limit);
      if (!level.first.readable || !level.last.readable) {
        out << ",\"gone\":true}\n";
        continue;
      }
      const MemcgState& a = level.first;
      const MemcgState& b = level.last;
      if (v2) {
        out << ",\"high\":";
        write_limit_json(out, a.high);
        out << ",\"events\":{\"high\":" << b.high_events - a.high_events
            << ",\"max\":" << b.max_events - a.max_events << ",\"oom\":" << b.oom - a.oom
            << ",\"oom_kill\":" << b.oom_kill - a.oom_kill << "}}\n";
      } else {
        out << ",\"failcnt\":" << b.failcnt - a.failcnt << ",\"max_usage\":" << b.max_usage
            << "}\n";
      }
    }
  }
}

} // namespace allocwatch

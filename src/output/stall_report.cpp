#include "output/stall_report.h"

#include "cgroup/task_cgroups.h"
#include "output/json_text.h"
#include "output/text_table.h"
#include "util/escape.h"

#include <algorithm>
#include <cstdio>
#include <ostream>
#include <sstream>

namespace allocwatch {

namespace {

constexpr std::string_view kOtherTasks = "(other tasks)";
constexpr std::string_view kOtherOrders = "(other)";
constexpr std::string_view kOther = "other"; // orders past a row's bound; an unknown status
constexpr std::string_view kUnknown = "?";   // an order and flags no claimed line printed
constexpr std::size_t kBarWidth = 52;        // bpftrace's

std::string task_name(const StallRow& row) {
  if (row.other)
    return std::string(kOtherTasks);
  return escaped(row.comm) + '-' + std::to_string(row.pid);
}

// A shrinker's name as the shrinker totals print it: its symbol, and
// `[instance]` when `several` instances of it were seen.
// Whether a shrinker function had several instances: then each is named.
enum class Instances { One, Several };

std::string shrinker_name(std::string_view symbol, std::string_view instance, Instances instances) {
  return escaped(symbol) +
         (instances == Instances::Several ? '[' + escaped(instance) + ']' : std::string());
}

// What a row's stalls were: the span, or for a shrinker call, the shrinker.
std::string span_name(const StallStats& stats, const StallRow& row) {
  if (row.shrinker.empty())
    return escaped(row.span);
  return shrinker_name(row.shrinker, row.instance,
                       stats.several_instances(row.shrinker) ? Instances::Several : Instances::One);
}

void write_task_table(std::ostream& out, const StallStats& stats,
                      const std::vector<const StallRow*>& rows, const ReportTextOptions& options) {
  Table table({"TASK", "KIND", "SPAN", "COUNT", "TOTAL_MS", "MAX_MS", "P99_MS"}, "lllrrrr");
  table.drop_to_fit(6);
  table.narrow_to_fit(2, 8);
  table.narrow_to_fit(1, 8);
  table.narrow_to_fit(0, 8);
  const auto add = [&](const StallRow& row) {
    table.add({task_name(row), escaped(row.kind), span_name(stats, row),
               std::to_string(row.durations.count()), ms(row.durations.total()),
               ms(row.durations.max()), ms(row.durations.percentile(99))});
  };
  write_rows(out, rows, options.max_rows, table, add, options.width);
  if (table.drops(options.width))
    out << "  (P99_MS left out to fit the terminal: --report FILE has it)\n";
}

// The name of CompactionYield::ends[i].
std::string_view end_name(std::size_t i) {
  if (i == CompactionYield::kUnknownEnd)
    return kUnknown;
  return i == CompactionYield::kOtherEnd ? kOther : compaction_statuses()[i];
}

// "0=14 9=45 ?=1": stalls by order, the unknown order `?`, the orders past
// OrderCounts' bound "other".
std::string order_counts(const OrderCounts& orders) {
  std::string text;
  const auto put = [&text](std::string_view order, std::uint64_t count) {
    text += (text.empty() ? "" : " ") + std::string(order) + '=' + std::to_string(count);
  };
  for (const OrderCount& c : orders.counts())
    put(c.order ? std::to_string(*c.order) : std::string(kUnknown), c.count);
  if (orders.other() > 0)
    put(kOther, orders.other());
  return text.empty() ? "-" : text;
}

// How compactions ended, "complete=3 success=1", in the kernel's enum order;
// a status no kernel we know of prints is "other", an end line not claimed
// `?`.
std::string compaction_ends(const CompactionYield& yield) {
  std::string text;
  for (std::size_t i = 0; i < yield.ends.size(); ++i) {
    if (yield.ends[i] == 0)
      continue;
    const std::string_view name = end_name(i);
    text += (text.empty() ? "" : " ") + std::string(name) + '=' + std::to_string(yield.ends[i]);
  }
  return text.empty() ? "-" : text;
}

// Per task and kind, what its reclaim stalls got, then what its compaction
// stalls got: the rows of `stalls` (the stall table's order) that are
// reclaims, then those that are compactions.
void write_yield_tables(std::ostream& out, const std::vector<const StallRow*>& stalls,
                        const ReportTextOptions& options) {
  std::vector<const StallRow*> reclaims;
  std::vector<const StallRow*> compactions;
  for (const StallRow* row : stalls) {
    if (row->yield.reclaim)
      reclaims.push_back(row);
    if (row->yield.compaction)
      compactions.push_back(row);
  }
  // The longest word of `texts`.
  const auto longest = [](const std::vector<std::string>& texts) {
    std::size_t most = 0;
    for (const std::string& text : texts)
      for (std::size_t at = 0; at < text.size();) {
        const std::size_t space = std::min(text.find(' ', at), text.size());
        most = std::max(most, space - at);
        at = space + 1;
      }
    return most;
  };
  // On a terminal, COUNT gives way first (the stall table has it), then the
  // numbers' headings wrap at '_', KIND and the lists at their spaces (never
  // inside a word: a kind, a "name=count"), then TASK.
  const auto fit = [&longest](Table& table, const std::vector<const StallRow*>& rows,
                              std::size_t first_number, std::size_t end,
                              std::vector<std::size_t> lists) {
    std::vector<std::string> kinds;
    std::vector<std::string> items;
    for (const StallRow* row : rows) {
      kinds.push_back(escaped(row->kind));
      items.push_back(order_counts(row->yield.orders));
      items.push_back(compaction_ends(row->yield.compacted));
    }
    table.drop_to_fit(2);
    for (std::size_t column = first_number; column < end; ++column)
      table.narrow_to_fit(column);
    table.narrow_to_fit(1, longest(kinds));
    for (const std::size_t column : lists)
      table.narrow_to_fit(column, longest(items));
    table.narrow_to_fit(0, 8);
  };
  const auto dropped = [&out, &options](const Table& table) {
    if (table.drops(options.width))
      out << "  (columns left out to fit the terminal: --report FILE has them)\n";
  };
  if (!reclaims.empty()) {
    out << "allocwatch: what each task's slow reclaim got: its orders, pages scanned, reclaimed "
           "and written, times throttled and ms waited:\n";
    Table table({"TASK", "KIND", "COUNT", "ORDERS", "PAGES_SCANNED", "PAGES_RECLAIMED",
                 "PAGES_WRITTEN", "SYNC_WRITES", "THROTTLED", "WAITED_MS"},
                "llrlrrrrrr");
    table.drop_to_fit(7); // SYNC_WRITES: none since 3.x (kernel/vocabulary.h)
    fit(table, reclaims, 4, 10, {3});
    write_rows(
        out, reclaims, options.max_rows, table,
        [&table](const StallRow& row) {
          const StallYield& y = row.yield;
          table.add({task_name(row), escaped(row.kind), std::to_string(row.durations.count()),
                     order_counts(y.orders), std::to_string(y.figures.pages_scanned),
                     std::to_string(y.pages_reclaimed), std::to_string(y.figures.pages_written),
                     std::to_string(y.figures.sync_writes), std::to_string(y.figures.throttled),
                     ms(y.figures.throttled_time)});
        },
        options.width);
    dropped(table);
  }
  if (!compactions.empty()) {
    out << "allocwatch: what each task's slow compaction got: its orders, pages migrated and "
           "failed, how each run ended:\n";
    Table table({"TASK", "KIND", "COUNT", "ORDERS", "PAGES_MIGRATED", "MIGRATE_FAILED", "ENDED"},
                "llrlrrl");
    fit(table, compactions, 4, 6, {6, 3});
    write_rows(
        out, compactions, options.max_rows, table,
        [&table](const StallRow& row) {
          const StallYield& y = row.yield;
          table.add({task_name(row), escaped(row.kind), std::to_string(row.durations.count()),
                     order_counts(y.orders), std::to_string(y.compacted.pages_migrated),
                     std::to_string(y.compacted.migrate_failed), compaction_ends(y.compacted)});
        },
        options.width);
    dropped(table);
  }
}

// The yield of a stall row, as JSON keys after its count: its orders; a
// reclaim's pages and throttling; a compaction's migrations and ends.
void write_yield_json(std::ostream& out, const StallYield& yield) {
  if (!yield.orders.empty()) {
    out << ",\"orders\":{";
    const char* comma = "";
    for (const OrderCount& c : yield.orders.counts()) {
      out << comma << '"' << (c.order ? std::to_string(*c.order) : std::string(kUnknown))
          << "\":" << c.count;
      comma = ",";
    }
    if (yield.orders.other() > 0)
      out << comma << "\"other\":" << yield.orders.other();
    out << '}';
  }
  if (yield.reclaim) {
    const ReclaimFigures& f = yield.figures;
    out << ",\"pages_scanned\":" << f.pages_scanned
        << ",\"pages_reclaimed\":" << yield.pages_reclaimed
        << ",\"pages_written\":" << f.pages_written << ",\"sync_writes\":" << f.sync_writes
        << ",\"throttled\":" << f.throttled << ",\"throttled_ns\":" << f.throttled_time;
  }
  if (yield.compaction) {
    const CompactionYield& c = yield.compacted;
    out << ",\"pages_migrated\":" << c.pages_migrated << ",\"migrate_failed\":" << c.migrate_failed
        << ",\"ends\":{";
    const char* comma = "";
    for (std::size_t i = 0; i < c.ends.size(); ++i)
      if (c.ends[i] > 0) {
        out << comma << '"' << end_name(i) << "\":" << c.ends[i];
        comma = ",";
      }
    out << '}';
  }
}

std::string background_names(const std::vector<std::string>& names) {
  std::string text;
  for (const std::string& name : names)
    text += (text.empty() ? "" : ", ") + escaped(name);
  return text;
}

// bpftrace's hist() bounds: 1024 is "1K", 1048576 "1M".
std::string hist_bound(std::uint64_t value) {
  static constexpr const char* kSuffixes[] = {"", "K", "M", "G", "T", "P", "E"};
  std::size_t suffix = 0;
  while (value >= 1024 && value % 1024 == 0 && suffix + 1 < std::size(kSuffixes)) {
    value /= 1024;
    ++suffix;
  }
  return std::to_string(value) + kSuffixes[suffix];
}

void write_histogram(std::ostream& out, const Log2Histogram& histogram, std::size_t width) {
  // A line is 30 columns and the bar; a terminal narrower than 82 gets a
  // shorter bar.
  const std::size_t bar_width =
      width == kWhole ? kBarWidth : std::clamp<std::size_t>(width, 40, 82) - 30;
  const auto [first, end] = histogram.used_range();
  std::uint64_t most = 0;
  for (std::size_t i = first; i < end; ++i)
    most = std::max(most, histogram[i]);
  for (std::size_t i = first; i < end; ++i) {
    const std::string label = '[' + hist_bound(Log2Histogram::low_us(i)) + ", " +
                              hist_bound(Log2Histogram::high_us(i)) + ')';
    const auto bar = static_cast<std::size_t>(histogram[i] * bar_width / most);
    char head[64];
    std::snprintf(head, sizeof head, "  %-16s %8llu |", label.c_str(),
                  static_cast<unsigned long long>(histogram[i]));
    out << head << std::string(bar, '@') << std::string(bar_width - bar, ' ') << "|\n";
  }
}

void write_row_json(std::ostream& out, const StallRow& row) {
  out << "{\"type\":\"" << (row.background ? "background" : "stall") << "\",\"pid\":" << row.pid
      << ",\"comm\":";
  write_json_string(out, row.other ? kOtherTasks : std::string_view(row.comm));
  // The task's cgroup and its ids, each where known.
  if (row.cgroup != nullptr)
    for (const auto& [key, value] :
         {std::pair<std::string_view, std::string_view>{"cgroup", row.cgroup->path},
          {"container_id", row.cgroup->container.id},
          {"pod_uid", row.cgroup->container.pod_uid}}) {
      if (value.empty())
        continue;
      out << ",\"" << key << "\":";
      write_json_string(out, value);
    }
  out << ",\"kind\":";
  write_json_string(out, row.kind);
  out << ",\"span\":";
  write_json_string(out, row.span);
  if (!row.shrinker.empty()) {
    out << ",\"shrinker\":";
    write_json_string(out, row.shrinker);
    out << ",\"instance\":";
    write_json_string(out, row.instance);
  }
  out << ",\"count\":" << row.durations.count() << ",\"total_ns\":" << row.durations.total()
      << ",\"max_ns\":" << row.durations.max() << ",\"p99_ns\":" << row.durations.percentile(99);
  write_yield_json(out, row.yield);
  out << "}\n";
}

} // namespace

void write_report_text(std::ostream& to, const StallStats& stats,
                       const ReportTextOptions& options) {
  // Written whole, then cut to the width: tables fit it, other lines are
  // cut at their spaces.
  std::ostringstream out;
  const std::string threshold = format_duration(options.threshold);
  const std::vector<const StallRow*> stalls = stats.rows(StallTable::Tasks);
  if (stalls.empty()) {
    out << "allocwatch: no stall of " << threshold << " or more\n";
  } else {
    out << "allocwatch: stalls of " << threshold
        << " or more, by task and kind, largest total first:\n";
    write_task_table(out, stats, stalls, options);
  }

  const std::vector<const StallRow*> background = stats.rows(StallTable::Background);
  if (!background.empty()) {
    out << "allocwatch: background work of " << threshold << " or more ("
        << background_names(options.background) << "), by task:\n";
    write_task_table(out, stats, background, options);
  }

  if (options.work != nullptr && !options.work->tasks().empty()) {
    out << "allocwatch: what the background tasks did, every run, slow or not:\n";
    Table table({"TASK", "WAKES", "REWAKES", "AWAKE_MS", "PAGES_SCANNED", "PAGES_RECLAIMED"},
                "lrrrrr");
    for (std::size_t column = 4; column < 6; ++column) // their headings, at '_'
      table.narrow_to_fit(column);
    table.narrow_to_fit(0, 8);
    for (const BackgroundTask& task : options.work->tasks())
      table.add({escaped(task.comm) + '-' + std::to_string(task.pid), std::to_string(task.wakes),
                 std::to_string(task.rewakes), ms(task.awake), std::to_string(task.pages_scanned),
                 std::to_string(task.pages_reclaimed)});
    table.write(out, options.width);
  }

  const std::vector<const OrderRow*> orders = stats.order_rows();
  if (!orders.empty()) {
    out << "allocwatch: reclaim and compaction stalls by order and gfp flags:\n";
    Table table({"KIND", "ORDER", "GFP_FLAGS", "COUNT", "TOTAL_MS", "MAX_MS"}, "lrlrrr");
    table.narrow_to_fit(2, 8);
    table.narrow_to_fit(0, 8);
    write_rows(
        out, orders, options.max_rows, table,
        [&table](const OrderRow& row) {
          table.add({escaped(row.kind),
                     row.other   ? "-"
                     : row.order ? std::to_string(*row.order)
                                 : std::string(kUnknown),
                     row.other   ? std::string(kOtherOrders)
                     : row.order ? escaped(row.gfp_flags)
                                 : std::string(kUnknown),
                     std::to_string(row.count), ms(row.total), ms(row.max)});
        },
        options.width);
  }

  write_yield_tables(out, stalls, options);

  const std::vector<ReclaimTotals> reclaim = stats.reclaim();
  if (!reclaim.empty()) {
    out << "allocwatch: what slow reclaim got for its time (pages and shrinker calls printed "
           "inside it):\n";
    Table table({"KIND", "COUNT", "TOTAL_MS", "PAGES_SCANNED", "PAGES_RECLAIMED", "SHRINKERS_MS",
                 "SHRINKERS_SHARE"},
                "lrrrrrr");
    for (std::size_t column = 3; column < 7; ++column) // their headings, at '_'
      table.narrow_to_fit(column);
    table.narrow_to_fit(0, 8);
    for (const ReclaimTotals& totals : reclaim) {
      char share[16] = "-";
      if (totals.total > 0)
        std::snprintf(share, sizeof share, "%.1f%%",
                      100.0 * static_cast<double>(totals.figures.shrinker_time) /
                          static_cast<double>(totals.total));
      table.add({escaped(totals.kind), std::to_string(totals.count), ms(totals.total),
                 std::to_string(totals.figures.pages_scanned),
                 std::to_string(totals.pages_reclaimed), ms(totals.figures.shrinker_time), share});
    }
    table.write(out, options.width);
  }

  if (!stats.shrinkers().empty()) {
    out << "allocwatch: shrinkers, every call (slow or not), largest total first:\n";
    Table table({"SHRINKER", "CALLS", "TOTAL_MS", "MAX_MS"}, "lrrr");
    table.narrow_to_fit(0, 8);
    std::vector<const ShrinkerRow*> rows;
    for (const ShrinkerRow& row : stats.shrinkers())
      rows.push_back(&row);
    write_rows(
        out, rows, options.max_rows, table,
        [&table](const ShrinkerRow& row) {
          table.add({row.instance.empty()
                         ? escaped(row.symbol)
                         : "  " + shrinker_name(row.symbol, row.instance, Instances::Several),
                     std::to_string(row.totals.calls), ms(row.totals.total), ms(row.totals.max)});
        },
        options.width);
  }

  for (const KindHistogram* kind : stats.histograms()) {
    out << "allocwatch: latency of " << escaped(kind->kind) << " stalls ("
        << kind->histogram.count() << "), usecs:\n";
    write_histogram(out, kind->histogram, options.width);
  }
  if (options.width == kWhole)
    to << out.str();
  else
    write_wrapped(to, out.str(), options.width);
}

void write_run_json(std::ostream& out, const RunRecord& run) {
  const RunStats& stats = run.stats;
  out << "{\"type\":\"run\",\"profile\":";
  write_json_string(out, run.profile);
  out << ",\"mode\":";
  if (run.mode)
    write_json_string(out, mode_name(*run.mode));
  else
    out << "null";
  out << ",\"threshold_ns\":" << run.threshold << ",\"kernel\":";
  if (run.kernel.empty())
    out << "null";
  else
    write_json_string(out, run.kernel);
  out << ",\"lines_read\":" << stats.lines_read << ",\"not_understood\":" << stats.lines_malformed
      << ",\"lost_events\":" << stats.lost_events << ",\"lost_lines\":" << stats.lost_lines
      << ",\"lost_uncounted\":" << stats.lost_uncounted
      << ",\"held_expired\":" << stats.held_expired
      << ",\"held_dropped_per_task\":" << stats.held_over_cap
      << ",\"held_dropped_bound\":" << stats.held_dropped
      << ",\"held_released\":" << stats.held_released
      << ",\"unmatched_ends\":" << stats.unmatched_ends
      << ",\"replaced_begins\":" << stats.replaced_begins
      << ",\"orphan_returns\":" << stats.orphan_returns << "}\n";
}

void write_report_json(std::ostream& out, const StallStats& stats, const BackgroundWork* work) {
  for (const StallTable table : {StallTable::Tasks, StallTable::Background})
    for (const StallRow* row : stats.rows(table))
      write_row_json(out, *row);
  if (work != nullptr)
    for (const BackgroundTask& task : work->tasks()) {
      out << "{\"type\":\"background_work\",\"pid\":" << task.pid << ",\"comm\":";
      write_json_string(out, task.comm);
      out << ",\"wakes\":" << task.wakes << ",\"rewakes\":" << task.rewakes
          << ",\"awake_ns\":" << task.awake << ",\"pages_scanned\":" << task.pages_scanned
          << ",\"pages_reclaimed\":" << task.pages_reclaimed << "}\n";
    }
  for (const OrderRow* row : stats.order_rows()) {
    out << "{\"type\":\"order\",\"kind\":";
    write_json_string(out, row->kind);
    out << ",\"order\":";
    if (row->other)
      out << -1;
    else if (row->order)
      out << *row->order;
    else
      out << "null";
    out << ",\"gfp_flags\":";
    if (row->other)
      write_json_string(out, kOtherOrders);
    else if (row->order)
      write_json_string(out, row->gfp_flags);
    else
      out << "null";
    out << ",\"count\":" << row->count << ",\"total_ns\":" << row->total
        << ",\"max_ns\":" << row->max << "}\n";
  }
  for (const ReclaimTotals& totals : stats.reclaim()) {
    out << "{\"type\":\"reclaim\",\"kind\":";
    write_json_string(out, totals.kind);
    out << ",\"count\":" << totals.count << ",\"total_ns\":" << totals.total
        << ",\"pages_scanned\":" << totals.figures.pages_scanned
        << ",\"pages_reclaimed\":" << totals.pages_reclaimed
        << ",\"shrinker_ns\":" << totals.figures.shrinker_time
        << ",\"pages_written\":" << totals.figures.pages_written
        << ",\"sync_writes\":" << totals.figures.sync_writes
        << ",\"throttled\":" << totals.figures.throttled
        << ",\"throttled_ns\":" << totals.figures.throttled_time << "}\n";
  }
  for (const KindHistogram* kind : stats.histograms()) {
    out << "{\"type\":\"histogram\",\"kind\":";
    write_json_string(out, kind->kind);
    out << ",\"unit\":\"us\",\"buckets\":[";
    const auto [first, end] = kind->histogram.used_range();
    for (std::size_t i = first; i < end; ++i)
      out << (i == first ? "" : ",") << "{\"low\":" << Log2Histogram::low_us(i)
          << ",\"high\":" << Log2Histogram::high_us(i) << ",\"count\":" << kind->histogram[i]
          << '}';
    out << "]}\n";
  }
  out.flush();
}

} // namespace allocwatch

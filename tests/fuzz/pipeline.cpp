// libFuzzer harness: a byte stream through everything a replay does, the
// LineReader (fed in pieces of sizes the input chooses), parse_line, the
// Binder with one of the shipped profiles, and every observer of a run
// behind a FanoutSink: both trace sinks (text and JSON Lines), the journal
// sink (to a fake journal), the stall statistics, the timeline and the
// Prometheus metrics; at the end, the stall report as text and JSON and the
// metrics' text, as a run writes them.
//
// The first bytes choose: the profile (configs/*.yaml, read from the
// current directory at start) and the size of its held-line store, the
// threshold, the mode (from the input, graph, events), the read sizes,
// whether the journal sink is in, and whether a line of about kMaxLineBytes
// is spliced in (one input in four at most, as it costs; inputs are kept
// small, and the longest-line paths need a line of 64 KiB).
#include "bind/binder.h"
#include "bind/run_stats.h"
#include "bind/shrinker_stats.h"
#include "metrics/render.h"
#include "metrics/stall_metrics.h"
#include "output/fanout_sink.h"
#include "output/journal_sink.h"
#include "output/json_sink.h"
#include "output/stall_report.h"
#include "output/stall_stats.h"
#include "output/text_sink.h"
#include "output/timeline_sink.h"
#include "profile/loader.h"
#include "trace/line_reader.h"
#include "trace/parser.h"

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

using namespace allocwatch;

namespace {

std::vector<Profile> shipped_profiles() {
  std::vector<std::filesystem::path> paths;
  for (const auto& entry : std::filesystem::directory_iterator("configs"))
    if (entry.path().extension() == ".yaml")
      paths.push_back(entry.path());
  std::sort(paths.begin(), paths.end());
  std::vector<Profile> profiles;
  for (const auto& path : paths) {
    Result<Profile> profile = load_profile_file(path.string());
    if (!profile) {
      std::fprintf(stderr, "pipeline: %s\n", profile.error().message.c_str());
      std::abort();
    }
    profiles.push_back(std::move(*profile));
  }
  if (profiles.empty()) {
    std::fprintf(stderr, "pipeline: no configs/*.yaml here: run from the source tree\n");
    std::abort();
  }
  return profiles;
}

// Hands out the input in pieces of the chosen sizes, cycling.
class Pieces : public ByteSource {
public:
  Pieces(std::string_view data, std::vector<std::size_t> sizes)
      : data_(data), sizes_(std::move(sizes)) {}
  std::size_t read(char* buf, std::size_t n) override {
    const std::size_t want = std::min({n, sizes_[calls_++ % sizes_.size()], data_.size() - at_});
    std::copy_n(data_.data() + at_, want, buf);
    at_ += want;
    return want;
  }

private:
  std::string_view data_;
  std::vector<std::size_t> sizes_;
  std::size_t at_ = 0;
  std::size_t calls_ = 0;
};

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const std::vector<Profile> profiles = shipped_profiles();
  if (size < 4)
    return 0;
  // The held-line store: the profile's own (8 MiB, 4 MiB of it touched at
  // once) for one input in sixteen, as it costs; else a small one, whose
  // drops and slides the fuzzer then reaches with small inputs.
  Profile profile = profiles[data[0] % profiles.size()];
  if ((data[3] & 0x0f) != 0)
    profile.max_held_bytes = data[3] & 0x08 ? 1 << 20 : 64 << 10;
  static constexpr Nanos kThresholds[] = {0, 1000, 100 * kMicro, 5 * kMilli};
  BinderOptions options{kThresholds[data[1] & 3], std::nullopt};
  if ((data[1] >> 2 & 3) == 1)
    options.mode = Mode::Graph;
  else if ((data[1] >> 2 & 3) == 2)
    options.mode = Mode::Events;
  const std::vector<std::size_t> sizes = {std::size_t{1} + data[2] % 64, std::size_t{1} << 20,
                                          std::size_t{1} + data[2] / 4};
  const std::size_t chunk = data[3] & 0x80 ? 4096 : 64 + (data[3] & 0x3f);
  std::string text(reinterpret_cast<const char*>(data) + 4, size - 4);
  if ((data[1] & 0x10) && (data[3] & 0x40)) { // a line of kMaxLineBytes - 2 .. + 5 bytes
    const std::size_t at = text.empty() ? 0 : data[2] % (text.size() + 1);
    text.insert(at, kMaxLineBytes - 2 + (data[3] & 7), data[1] & 0x20 ? ' ' : 'x');
  }

  Pieces source(text, sizes);
  LineReader reader(source, chunk);
  std::ostringstream text_out, json_out, journal_fallback, messages, timeline_out;
  TextSink text_sink(text_out);
  JsonSink json_sink(json_out);
  // A fake journal that refuses one entry in eight: the fallback path too.
  std::uint64_t entries = 0;
  JournalSink journal_sink(journal_fallback, messages, [&](std::span<const iovec> fields) {
    if (fields.empty())
      std::abort();
    return ++entries % 8 == 0 ? -ENOBUFS : 0;
  });
  StallStats stalls(StallStats::Limits{.window = profile.window});
  TimelineSink timeline(timeline_out, profile.window);
  StallMetrics metrics(profile);
  FanoutSink sinks;
  sinks.add(text_sink);
  sinks.add(json_sink);
  // The journal sink makes a string of every field of each entry
  // (output/journal_fields.h), which costs more than all the rest: one
  // input in four.
  if ((data[1] & 0xc0) == 0)
    sinks.add(journal_sink);
  sinks.add(stalls);
  sinks.add(timeline);
  sinks.add(metrics);
  ShrinkerStats shrinkers;
  RunStats stats;
  Binder binder(profile, options, sinks, shrinkers, stats);
  std::string_view line;
  std::uint64_t lines = 0;
  while (reader.next(line)) {
    if (line.size() > kMaxLineBytes + 1)
      std::abort();
    binder.feed(parse_line(line));
    ++lines;
  }
  binder.finish();
  std::ostringstream counts, report;
  stats.print(counts);
  write_report_text(report, stalls, ReportTextOptions{options.threshold, kTerminalReportRows, {}});
  write_report_json(report, stalls);
  const std::string exposition = render_metrics(
      MetricsSources{"fuzz", "events", profile.name, options.threshold, metrics, shrinkers, stats});
  if (exposition.empty())
    std::abort();
  if (stats.lines_read != lines || stats.lines_malformed < reader.lines_cut())
    std::abort();
  return 0;
}

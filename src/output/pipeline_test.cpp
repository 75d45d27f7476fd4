// The whole pipeline, parser to binder to the report's sinks, on the real
// traces of tests/golden/traces (run from the repository root).
#include "bind/binder.h"
#include "output/json_sink.h"
#include "output/stall_report.h"
#include "output/stall_stats.h"
#include "output/text_sink.h"
#include "output/timeline_sink.h"
#include "profile/loader.h"
#include "trace/parser.h"
#include "tracepoints.h"

#include <doctest/doctest.h>
#include <fstream>
#include <random>
#include <sstream>

using namespace allocwatch;

namespace {

constexpr Nanos us = kMicro;

} // namespace

// The whole pipeline over nonsense: real lines shuffled, cut, doubled and
// byte-flipped, plus a marker comment whose event name is empty, through the
// parser, the binder with the shipped default profile, and both sinks. It
// asserts only that every line is accounted for; its worth is under
// `make test SAN=1`, where any out-of-bounds access or undefined behaviour
// fails it (it found memcpy from the empty name's null pointer).
TEST_CASE("parser, binder and sinks survive mutated real traces") {
  auto profile = load_profile_file("configs/default.yaml");
  REQUIRE_MESSAGE(profile.ok(), "run from the repository root");
  std::vector<std::string> real;
  for (const char* name :
       {"graph-6.1-thresh100.txt", "graph-6.1-thresh0.txt", "events-6.18-dropcaches-compact.txt"}) {
    std::ifstream in(std::string("tests/golden/traces/") + name);
    REQUIRE_MESSAGE(in, "run from the repository root");
    for (std::string line; std::getline(in, line);)
      real.push_back(line);
  }
  real.push_back("   20.000001 |   0)   a-1   |               |  /* a trace_marker text */");
  std::mt19937 rng(20261122);
  for (int round = 0; round < 16; ++round) {
    std::ostringstream out;
    TextSink text(out);
    JsonSink json(out);
    Sink& sink = round % 2 ? static_cast<Sink&>(json) : static_cast<Sink&>(text);
    RunStats stats;
    ShrinkerStats shrinkers;
    Binder binder(*profile, BinderOptions{Nanos{1} << (round % 20), std::nullopt}, sink, shrinkers,
                  stats);
    std::uint64_t lines = 0;
    for (int i = 0; i < 3000; ++i) {
      std::string line = real[rng() % real.size()];
      switch (rng() % 10) {
      case 0:
        line.resize(rng() % (line.size() + 1));
        break;
      case 1:
        if (!line.empty())
          line[rng() % line.size()] = static_cast<char>(rng());
        break;
      case 2:
        line += line;
        break;
      default:
        break;
      }
      binder.feed(parse_line(line));
      ++lines;
    }
    binder.finish();
    CHECK(stats.lines_read == lines);
  }
}

// The tracepoints the binder hands on with each line (so that no sink parses
// it again) are what parsing the line again gives, whatever the line; and
// the stall report and the timeline made from them are those made from the
// lines alone.
TEST_CASE("each incident's tracepoints are its lines' own, parsed once") {
  auto profile = load_profile_file("configs/default.yaml");
  REQUIRE_MESSAGE(profile.ok(), "run from the repository root");
  struct Checking : Sink {
    StallStats given;
    StallStats reread;
    std::ostringstream json_given_out, timeline_given_out, timeline_reread_out;
    JsonSink json_given{json_given_out};
    TimelineSink timeline_given{timeline_given_out, 10 * kSecond};
    TimelineSink timeline_reread{timeline_reread_out, 10 * kSecond};
    std::uint64_t incidents = 0;
    std::uint64_t tracepoints = 0;
    void incident(const Incident& incident) override {
      ++incidents;
      REQUIRE(incident.tracepoints.size() == incident.lines.size());
      for (std::size_t i = 0; i < incident.lines.size(); ++i) {
        const Tracepoint parsed = tracepoint_of(parse_line(incident.lines[i]));
        CHECK(incident.tracepoints[i].name == parsed.name);
        CHECK(incident.tracepoints[i].fields == parsed.fields);
        CHECK(incident.tracepoints[i].ts == parsed.ts);
        tracepoints += !parsed.name.empty();
      }
      given.incident(incident);
      json_given.incident(incident);
      timeline_given.incident(incident);
      Incident lines_only = incident;
      const std::vector<Tracepoint> reparsed = tracepoints_of_lines(incident.lines);
      lines_only.tracepoints = reparsed;
      reread.incident(lines_only);
      timeline_reread.incident(lines_only);
    }
    void passthrough(std::string_view, Nanos) override {}
    void finish(const ShrinkerStats&) override {}
  };
  const auto report = [](const StallStats& stats) {
    std::ostringstream out;
    write_report_text(out, stats, ReportTextOptions{});
    return out.str();
  };
  for (const char* name :
       {"graph-6.1-thresh100.txt", "graph-6.1-thresh0.txt", "events-6.18-dropcaches-compact.txt"}) {
    std::vector<std::string> lines;
    std::ifstream in(std::string("tests/golden/traces/") + name);
    REQUIRE_MESSAGE(in, "run from the repository root");
    for (std::string line; std::getline(in, line);)
      lines.push_back(line);
    std::mt19937 rng(20261123);
    for (const Nanos threshold : {Nanos{0}, 10 * us, 100 * us}) {
      for (const bool mutate : {false, true}) {
        CAPTURE(name);
        CAPTURE(threshold);
        CAPTURE(mutate);
        Checking sink;
        RunStats stats;
        ShrinkerStats shrinkers;
        Binder binder(*profile, BinderOptions{threshold, std::nullopt}, sink, shrinkers, stats);
        for (std::string line : lines) {
          if (mutate && rng() % 8 == 0 && !line.empty())
            line[rng() % line.size()] = static_cast<char>(rng());
          binder.feed(parse_line(line));
        }
        binder.finish();
        CHECK(sink.incidents > 0);
        if (!mutate)
          CHECK(sink.tracepoints > 0);
        CHECK(report(sink.given) == report(sink.reread));
        CHECK(sink.timeline_given_out.str() == sink.timeline_reread_out.str());
        if (!mutate)
          CHECK(sink.json_given_out.str().find("\"tracepoints\":[{") != std::string::npos);
      }
    }
  }
}

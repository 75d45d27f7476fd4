#include "bind/binder.h"
#include "trace/parser.h"

#include <cstdio>
#include <doctest/doctest.h>
#include <sstream>

using namespace allocwatch;

namespace {

constexpr Nanos us = kMicro;
constexpr Nanos ms = kMilli;

struct SeenIncident {
  std::string span;
  std::string kind;
  bool background;
  std::int32_t pid;
  std::string comm;
  Nanos start;
  Nanos end;
  std::vector<std::string> lines;
};

class RecordingSink : public Sink {
public:
  std::vector<SeenIncident> incidents;
  std::vector<std::string> passed;
  std::vector<Nanos> passed_at;
  int finished = 0;

  void incident(const Incident& incident) override {
    incidents.push_back({std::string(incident.span), std::string(incident.kind),
                         incident.background, incident.pid, std::string(incident.comm),
                         incident.start, incident.end,
                         std::vector<std::string>(incident.lines.begin(), incident.lines.end())});
  }
  void passthrough(std::string_view line, Nanos at) override {
    passed.emplace_back(line);
    passed_at.push_back(at);
  }
  void finish(const ShrinkerStats&) override { ++finished; }
};

using Lines = std::vector<std::string>;

PairSpec pair(std::string name, std::string begin, std::string end, std::vector<std::string> claims,
              std::vector<Mode> modes, bool shrinker = false) {
  PairSpec spec;
  spec.name = std::move(name);
  spec.begin = std::move(begin);
  spec.end = std::move(end);
  spec.claims = std::move(claims);
  spec.modes = std::move(modes);
  spec.shrinker = shrinker;
  return spec;
}

// The shape of configs/default.yaml: functions claim the events of their
// work, __alloc_pages claims nothing, pairs for the events mode.
Profile test_profile() {
  Profile profile;
  profile.name = "test";
  profile.bindings = {
      {{"try_to_free_pages"},
       {"mm_vmscan_direct_reclaim_begin", "mm_vmscan_direct_reclaim_end",
        "mm_vmscan_lru_shrink_inactive"},
       {}},
      {{"try_to_compact_pages", "compact_zone"},
       {"mm_compaction_try_to_compact_pages", "mm_compaction_begin", "mm_compaction_end"},
       {}},
      {{"shrink_slab"}, {"mm_shrink_slab_start", "mm_shrink_slab_end"}, {}},
  };
  profile.pairs = {
      pair("direct_reclaim", "mm_vmscan_direct_reclaim_begin", "mm_vmscan_direct_reclaim_end",
           {"mm_vmscan_lru_shrink_inactive"}, {Mode::Events}),
      pair("memcg_reclaim", "mm_vmscan_memcg_reclaim_begin", "mm_vmscan_memcg_reclaim_end",
           {"mm_vmscan_lru_shrink_inactive"}, {Mode::Events}),
      pair("compaction", "mm_compaction_begin", "mm_compaction_end",
           {"mm_compaction_isolate_migratepages"}, {Mode::Events}),
      pair("shrink_slab", "mm_shrink_slab_start", "mm_shrink_slab_end", {},
           {Mode::Graph, Mode::Events}, true),
  };
  return profile;
}

struct Who {
  std::int32_t pid;
  std::int32_t cpu = 0;
  std::string comm = "dd";
};

std::string timestamp(Nanos ts) {
  char text[40];
  std::snprintf(text, sizeof text, "%lld.%09lld", static_cast<long long>(ts / kSecond),
                static_cast<long long>(ts % kSecond));
  return text;
}

// Feeds hand-made records to a binder. Each helper returns the line it fed,
// to compare with what the sink got. The record's text lives in one buffer
// that is overwritten after each line, as LineReader does: whatever the
// binder keeps, it must have copied.
class Trace {
public:
  explicit Trace(Nanos threshold, std::optional<Mode> mode = Mode::Graph,
                 Profile profile = test_profile())
      : binder(profile, BinderOptions{threshold, mode, true, &work}, sink, shrinkers, stats),
        format_(mode == Mode::Events ? TraceFormat::Events : TraceFormat::Graph) {}

  RunStats stats;
  ShrinkerStats shrinkers;
  BackgroundWork work;
  RecordingSink sink;
  Binder binder;

  std::string event(const Who& who, Nanos ts, std::string_view name,
                    std::string_view fields = "x=1") {
    Record record = base(who, ts, LineKind::Event);
    return feed(record, std::string("/* ") + std::string(name) + ": " + std::string(fields) + " */",
                name, fields);
  }
  // "} /* fn */", or a bare "}" when fn is empty; duration -1: no duration.
  std::string ret(const Who& who, Nanos ts, Nanos duration, std::string_view fn,
                  std::uint16_t depth = 0) {
    Record record = base(who, ts, LineKind::GraphReturn);
    record.duration = duration;
    record.depth = depth;
    return feed(record, fn.empty() ? "}" : "} /* " + std::string(fn) + " */", fn, {});
  }
  std::string bare(const Who& who, Nanos ts, Nanos duration, std::uint16_t depth = 0) {
    return ret(who, ts, duration, {}, depth);
  }
  std::string entry(const Who& who, Nanos ts, std::string_view fn, std::uint16_t depth = 0) {
    Record record = base(who, ts, LineKind::GraphEntry);
    record.depth = depth;
    return feed(record, std::string(fn) + "() {", fn, {});
  }
  std::string leaf(const Who& who, Nanos ts, Nanos duration, std::string_view fn,
                   std::uint16_t depth = 0) {
    Record record = base(who, ts, LineKind::GraphLeaf);
    record.duration = duration;
    record.depth = depth;
    return feed(record, std::string(fn) + "();", fn, {});
  }
  // The trace format of the next lines.
  void set_format(TraceFormat format) { format_ = format; }
  // From now on, records come as the ring buffer's do: a blob (here, the
  // line itself) that `formatter` prints on demand; no line, no fields.
  void set_formatter(const RecordFormatter* formatter) { formatter_ = formatter; }
  // The comm printed on the next lines (graph traces cut it, "<...>" when unknown).
  void set_comm(std::string comm) { comm_ = std::move(comm); }

  std::string other(LineKind kind, std::string_view text, std::uint64_t lost = 0) {
    Record record;
    record.kind = kind;
    record.lost = lost;
    return feed(record, std::string(text), {}, {});
  }

  // The lines of the only incident; fails when there is not exactly one.
  Lines only_incident() const {
    REQUIRE(sink.incidents.size() == 1);
    return sink.incidents.front().lines;
  }
  // Incident i; fails (never reads past the end) when there are fewer.
  const SeenIncident& incident(std::size_t i) const {
    REQUIRE(i < sink.incidents.size());
    return sink.incidents[i];
  }

private:
  Record base(const Who& who, Nanos ts, LineKind kind) const {
    Record record;
    record.kind = kind;
    record.format = format_;
    record.ts = ts;
    record.pid = who.pid;
    record.cpu = who.cpu;
    return record;
  }

  // Lays out "ts | cpu) comm-pid | duration | body" in the buffer and points
  // the record's views into it.
  std::string feed(Record& record, const std::string& body, std::string_view name,
                   std::string_view fields) {
    std::string line;
    if (record.kind == LineKind::Skip || record.kind == LineKind::Lost ||
        record.kind == LineKind::Malformed) {
      line = body;
    } else {
      line = timestamp(record.ts) + " | " + std::to_string(record.cpu) + ") " + comm_ + "-" +
             std::to_string(record.pid) + " | " +
             (record.duration >= 0 ? std::to_string(record.duration) + " ns" : "") + " | " +
             std::string(record.depth * 2u, ' ') + body;
    }
    buffer_ = line + '\0' + std::string(name) + '\0' + std::string(fields);
    const std::string_view all(buffer_);
    record.line = all.substr(0, line.size());
    record.name = all.substr(line.size() + 1, name.size());
    record.fields = all.substr(line.size() + 2 + name.size(), fields.size());
    const std::size_t comm_at = line.find(") ");
    if (comm_at != std::string::npos && record.pid >= 0)
      record.comm = all.substr(comm_at + 2, comm_.size());
    if (formatter_ != nullptr && record.kind != LineKind::Lost) {
      record.blob = record.line;
      record.formatter = formatter_;
      record.line = {};
      // What the decoder gives a shrink_slab record: its fields to the ':'.
      if (record.name.starts_with("mm_shrink_slab_"))
        record.shrinker = record.fields.substr(0, record.fields.find(':') + 1);
      record.fields = {};
    }
    binder.feed(record);
    buffer_.assign(buffer_.size(), '#');
    return line;
  }

  TraceFormat format_;
  std::string buffer_;
  std::string comm_ = "dd";
  const RecordFormatter* formatter_ = nullptr;
};

// Prints a blob as the line it holds, its fields those of the "/* name:
// fields */" body, and counts what it printed.
class CountingFormatter final : public RecordFormatter {
public:
  mutable std::vector<std::string> printed;
  void format(std::string_view blob, std::string& out, std::size_t& fields_at,
              std::size_t& fields_size) const override {
    printed.emplace_back(blob);
    fields_at = 0;
    fields_size = 0;
    const std::size_t name = blob.find("/* ");
    const std::size_t colon = blob.find(": ", name);
    if (name != std::string_view::npos && colon != std::string_view::npos) {
      fields_at = out.size() + colon + 2;
      fields_size = blob.size() - 3 - (colon + 2);
    }
    out.append(blob);
  }
};

const Who task1{1};
const Who task2{2};

} // namespace

TEST_CASE("every line is counted, LOST lines pass through") {
  Trace t(100 * us);
  t.other(LineKind::Skip, "# tracer: function_graph");
  t.other(LineKind::Malformed, "<XXX>--86198074 Unknown type 0");
  t.other(LineKind::Lost, "CPU:0 [LOST 600 EVENTS]", 600);
  t.other(LineKind::Lost, "CPU:1 [LOST 5 EVENTS]", 5);
  t.other(LineKind::Lost, "CPU:1 [LOST EVENTS]", 0);
  t.event(task1, 1000 * us, "mm_compaction_kcompactd_sleep");
  t.other(LineKind::Lost, "CPU:0 [LOST 7 EVENTS]", 7);
  CHECK(t.stats.lines_read == 7);
  CHECK(t.stats.lines_malformed == 1);
  CHECK(t.stats.lost_lines == 4);
  CHECK(t.stats.lost_events == 612);
  CHECK(t.stats.lost_uncounted == 1);
  CHECK(t.sink.passed == Lines{"CPU:0 [LOST 600 EVENTS]", "CPU:1 [LOST 5 EVENTS]",
                               "CPU:1 [LOST EVENTS]", "CPU:0 [LOST 7 EVENTS]"});
  // Each is placed at the newest timestamp read before it (0 before any).
  CHECK(t.sink.passed_at == std::vector<Nanos>{0, 0, 0, 1000 * us});
  CHECK(t.sink.incidents.empty());
}

TEST_CASE("the mode comes from the first graph or event line unless given") {
  SUBCASE("detected from a graph line") {
    Trace t(100 * us, std::nullopt);
    t.other(LineKind::Skip, "# tracer: function_graph");
    t.other(LineKind::Lost, "CPU:0 [LOST 1 EVENTS]", 1);
    CHECK_FALSE(t.binder.mode().has_value());
    t.ret(task1, 1000 * us, 200 * us, "__alloc_pages");
    CHECK(t.binder.mode() == Mode::Graph);
    CHECK(t.sink.incidents.size() == 1);
  }
  SUBCASE("detected from an event line of the nop tracer") {
    Trace t(100 * us, std::nullopt);
    t.set_format(TraceFormat::Events);
    const std::string begin = t.event(task1, 1000 * us, "mm_vmscan_direct_reclaim_begin");
    CHECK(t.binder.mode() == Mode::Events);
    const std::string end = t.event(task1, 1200 * us, "mm_vmscan_direct_reclaim_end");
    CHECK(t.only_incident() == Lines{begin, end}); // a pair of events mode only
  }
  SUBCASE("given: events mode has no function spans") {
    Trace t(100 * us, Mode::Events);
    CHECK(t.binder.mode() == Mode::Events);
    t.entry(task1, 900 * us, "try_to_free_pages");
    t.ret(task1, 1000 * us, 200 * us, "try_to_free_pages");
    t.leaf(task1, 1000 * us, 200 * us, "compact_zone");
    t.bare(task1, 1100 * us, 300 * us);
    CHECK(t.sink.incidents.empty());
    CHECK(t.stats.orphan_returns == 0);
    CHECK(t.binder.tasks() == 0);
  }
}

TEST_CASE("a return over threshold prints the events bound to it, then its own line") {
  Trace t(100 * us);
  const std::string begin = t.event(task1, 1000 * us, "mm_vmscan_direct_reclaim_begin");
  const std::string lru = t.event(task1, 1050 * us, "mm_vmscan_lru_shrink_inactive");
  t.event(task1, 1060 * us, "mm_compaction_begin"); // not bound to try_to_free_pages
  const std::string end = t.event(task1, 1190 * us, "mm_vmscan_direct_reclaim_end");
  // At depth 1, inside an allocation still running: lines stay held for it.
  const std::string ret = t.ret(task1, 1200 * us, 200 * us, "try_to_free_pages", 1);
  REQUIRE(t.sink.incidents.size() == 1);
  const SeenIncident& incident = t.incident(0);
  CHECK(incident.lines == Lines{begin, lru, end, ret});
  CHECK(incident.span == "try_to_free_pages");
  CHECK(incident.pid == 1);
  CHECK(incident.comm == "dd");
  CHECK(incident.start == 1000 * us);
  CHECK(incident.end == 1200 * us);
  CHECK(t.stats.functions_over_threshold.at("try_to_free_pages") == 1);
  CHECK(t.binder.held_lines() == 1); // mm_compaction_begin waits for its own span
}

TEST_CASE("over threshold means duration >= threshold") {
  Trace t(100 * us);
  t.event(task1, 1000 * us, "mm_vmscan_lru_shrink_inactive");
  t.ret(task1, 1099 * us, 100 * us - 1, "try_to_free_pages", 1);
  CHECK(t.sink.incidents.empty());
  CHECK(t.stats.functions_over_threshold.empty());
  CHECK(t.stats.pairs_over_threshold.empty());
  CHECK(t.binder.held_lines() == 1); // a sub-threshold span claims nothing
  const std::string lru = t.event(task1, 2000 * us, "mm_vmscan_lru_shrink_inactive");
  const std::string ret = t.ret(task1, 2050 * us, 100 * us, "try_to_free_pages", 1);
  CHECK(t.only_incident() == Lines{lru, ret});
}

TEST_CASE("every return over threshold prints, whatever the function") {
  Trace t(100 * us);
  const std::string lru = t.event(task1, 1000 * us, "mm_vmscan_lru_shrink_inactive");
  // Both at depth 1, in some call still running: nothing proves the line dead.
  const std::string alloc = t.ret(task1, 1200 * us, 500 * us, "__alloc_pages", 1);
  CHECK(t.only_incident() == Lines{alloc}); // __alloc_pages claims nothing
  CHECK(t.binder.held_lines() == 1);
  const std::string ttfp = t.ret(task1, 1300 * us, 400 * us, "try_to_free_pages", 1);
  REQUIRE(t.sink.incidents.size() == 2);
  CHECK(t.incident(1).lines == Lines{lru, ttfp});
  CHECK(t.stats.functions_over_threshold.at("__alloc_pages") == 1);
  CHECK(t.stats.functions_over_threshold.at("try_to_free_pages") == 1);
}

TEST_CASE("function names match exactly, never by prefix (the 2016 script's try_to_compact)") {
  SUBCASE("try_to_compact_pages claims mm_compaction_try_to_compact_pages") {
    Trace t(100 * us);
    const std::string ev = t.event(task1, 1000 * us, "mm_compaction_try_to_compact_pages");
    const std::string wrong = t.ret(task1, 1100 * us, 200 * us, "try_to_compact", 1);
    const std::string right = t.ret(task1, 1150 * us, 250 * us, "try_to_compact_pages", 1);
    REQUIRE(t.sink.incidents.size() == 2);
    CHECK(t.incident(0).lines == Lines{wrong});
    CHECK(t.incident(1).lines == Lines{ev, right});
  }
  SUBCASE("a binding of try_to_compact does not bind try_to_compact_pages") {
    Profile profile = test_profile();
    profile.bindings = {{{"try_to_compact"}, {"mm_compaction_try_to_compact_pages"}, {}}};
    Trace t(100 * us, Mode::Graph, profile);
    t.event(task1, 1000 * us, "mm_compaction_try_to_compact_pages");
    const std::string ret = t.ret(task1, 1150 * us, 250 * us, "try_to_compact_pages");
    CHECK(t.only_incident() == Lines{ret});
  }
}

TEST_CASE("events of a sub-threshold call are never emitted with a later call") {
  Trace t(100 * us);
  t.event(task1, 1000 * us, "mm_vmscan_direct_reclaim_begin");
  t.event(task1, 1040 * us, "mm_vmscan_lru_shrink_inactive");
  t.event(task1, 1059 * us, "mm_vmscan_direct_reclaim_end");
  t.ret(task1, 1060 * us, 60 * us, "try_to_free_pages");
  CHECK(t.sink.incidents.empty());
  const std::string begin = t.event(task1, 2000 * us, "mm_vmscan_direct_reclaim_begin");
  const std::string end = t.event(task1, 2199 * us, "mm_vmscan_direct_reclaim_end");
  const std::string ret = t.ret(task1, 2200 * us, 200 * us, "try_to_free_pages");
  CHECK(t.only_incident() == Lines{begin, end, ret});
}

TEST_CASE("the 1 us slack: an event at start - 1 us is claimed, 1 ns earlier is not") {
  Trace t(100 * us);
  const Nanos start = 5000 * us;
  t.event(task1, start - 1 * us - 1, "mm_vmscan_lru_shrink_inactive");
  const std::string edge = t.event(task1, start - 1 * us, "mm_vmscan_lru_shrink_inactive");
  const std::string last = t.event(task1, start + 200 * us, "mm_vmscan_lru_shrink_inactive");
  t.event(task1, start + 200 * us + 1, "mm_vmscan_lru_shrink_inactive"); // after its end
  const std::string ret = t.ret(task1, start + 200 * us, 200 * us, "try_to_free_pages", 1);
  CHECK(t.only_incident() == Lines{edge, last, ret});
  CHECK(t.binder.held_lines() == 2);
}

TEST_CASE("a sub-threshold call's last event within 1 us of a slow call is the slow call's") {
  // The price of the slack, as DESIGN.md says: abstime has whole microseconds.
  Trace t(100 * us);
  t.event(task1, 960 * us, "mm_vmscan_lru_shrink_inactive");
  const std::string last = t.event(task1, 999 * us, "mm_vmscan_lru_shrink_inactive");
  t.ret(task1, 999 * us, 50 * us, "try_to_free_pages");
  const std::string ret = t.ret(task1, 1200 * us, 200 * us, "try_to_free_pages");
  CHECK(t.only_incident() == Lines{last, ret});
}

TEST_CASE("a span claims only lines read before its closing line") {
  Trace t(100 * us);
  const std::string ret = t.ret(task1, 1200 * us, 200 * us, "try_to_free_pages");
  t.event(task1, 1100 * us, "mm_vmscan_lru_shrink_inactive");
  CHECK(t.only_incident() == Lines{ret});
  CHECK(t.binder.held_lines() == 1);
}

TEST_CASE("a span claims only its own task's lines; comm is not the key") {
  Trace t(100 * us);
  const Who kworker{7, 1, "kworker/u4:2"};
  const Who browser{8, 0, "Web Content"};
  const Who other_dd{9};
  t.set_comm("kworker/u4:2");
  const std::string k_ev = t.event(kworker, 1000 * us, "mm_vmscan_lru_shrink_inactive");
  t.set_comm("Web Content");
  const std::string w_ev = t.event(browser, 1001 * us, "mm_vmscan_lru_shrink_inactive");
  t.set_comm("dd");
  t.event(other_dd, 1002 * us, "mm_vmscan_lru_shrink_inactive");
  t.set_comm("<...>"); // the same pid, its comm not saved
  const std::string d_ev = t.event(task1, 1003 * us, "mm_vmscan_lru_shrink_inactive");
  t.set_comm("dd");
  const std::string d_ret = t.ret(task1, 1200 * us, 200 * us, "try_to_free_pages");
  t.set_comm("Web Content");
  const std::string w_ret = t.ret(browser, 1200 * us, 200 * us, "try_to_free_pages");
  t.set_comm("kworker/u4:2");
  const std::string k_ret = t.ret(kworker, 1200 * us, 200 * us, "try_to_free_pages");
  REQUIRE(t.sink.incidents.size() == 3);
  CHECK(t.incident(0).lines == Lines{d_ev, d_ret});
  CHECK(t.incident(0).comm == "dd");
  CHECK(t.incident(1).lines == Lines{w_ev, w_ret});
  CHECK(t.incident(1).comm == "Web Content");
  CHECK(t.incident(2).lines == Lines{k_ev, k_ret});
  CHECK(t.incident(2).pid == 7);
  CHECK(t.binder.held_lines() == 1); // pid 9's
}

TEST_CASE("pid 0 is one task per cpu") {
  Trace t(100 * us);
  const Who idle0{0, 0, "<idle>"};
  const Who idle1{0, 1, "<idle>"};
  t.event(idle1, 1000 * us, "mm_vmscan_lru_shrink_inactive");
  const std::string ev0 = t.event(idle0, 1001 * us, "mm_vmscan_lru_shrink_inactive");
  t.entry(idle0, 1002 * us, "try_to_free_pages");
  const std::string bare1 = t.bare(idle1, 1300 * us, 298 * us, 1);
  CHECK(t.stats.orphan_returns == 1); // the entry is cpu 0's
  REQUIRE(t.sink.incidents.size() == 1);
  CHECK(t.incident(0).lines == Lines{bare1});
  const std::string ret0 = t.ret(idle0, 1300 * us, 300 * us, "try_to_free_pages", 1);
  REQUIRE(t.sink.incidents.size() == 2);
  CHECK(t.incident(1).lines == Lines{ev0, ret0});
  CHECK(t.binder.held_lines() == 1);
}

TEST_CASE("a function and a pair of the same name are counted apart") {
  Trace t(100 * us);
  t.event(task1, 1000 * us, "mm_shrink_slab_start",
          "super_cache_scan+0x0/0x210 00000000ce7941b5: nid: 0");
  t.event(task1, 1150 * us, "mm_shrink_slab_end",
          "super_cache_scan+0x0/0x210 00000000ce7941b5: nid: 0");
  t.ret(task1, 1160 * us, 170 * us, "shrink_slab");
  t.ret(task1, 1300 * us, 120 * us, "shrink_slab");
  CHECK(t.stats.functions_over_threshold.at("shrink_slab") == 2);
  CHECK(t.stats.pairs_over_threshold.at("shrink_slab") == 1);
}

TEST_CASE("each line is emitted at most once: nested spans") {
  Trace t(100 * us);
  const std::string begin = t.event(task1, 1000 * us, "mm_vmscan_direct_reclaim_begin");
  const std::string start = t.event(task1, 1010 * us, "mm_shrink_slab_start",
                                    "super_cache_scan+0x0/0x210 00000000ce7941b5: nid: 0");
  const std::string end = t.event(task1, 1060 * us, "mm_shrink_slab_end",
                                  "super_cache_scan+0x0/0x210 00000000ce7941b5: nid: 0");
  const std::string lru = t.event(task1, 1100 * us, "mm_vmscan_lru_shrink_inactive");
  const std::string slab = t.ret(task1, 1170 * us, 165 * us, "shrink_slab", 2);
  const std::string ttfp = t.ret(task1, 1200 * us, 200 * us, "try_to_free_pages", 1);
  const std::string alloc = t.ret(task1, 1210 * us, 220 * us, "__alloc_pages", 0);
  REQUIRE(t.sink.incidents.size() == 3);
  CHECK(t.incident(0).lines == Lines{start, end, slab}); // the pair took 50 us: no incident
  CHECK(t.incident(1).lines == Lines{begin, lru, ttfp});
  CHECK(t.incident(2).lines == Lines{alloc});
  CHECK(t.binder.held_lines() == 0);
}

TEST_CASE("an entry pairs with the bare return at its depth") {
  Trace t(100 * us);
  const std::string alloc = t.entry(task1, 1000 * us, "__alloc_pages", 0);
  const std::string ttfp = t.entry(task1, 1010 * us, "try_to_free_pages", 1);
  const std::string begin = t.event(task1, 1011 * us, "mm_vmscan_direct_reclaim_begin");
  const std::string inner = t.bare(task1, 1200 * us, 190 * us, 1);
  const std::string outer = t.bare(task1, 1300 * us, 300 * us, 0);
  REQUIRE(t.sink.incidents.size() == 2);
  CHECK(t.incident(0).lines == Lines{ttfp, begin, inner});
  CHECK(t.incident(0).span == "try_to_free_pages");
  CHECK(t.incident(0).start == 1010 * us);
  CHECK(t.incident(1).lines == Lines{alloc, outer});
  CHECK(t.incident(1).span == "__alloc_pages");
  CHECK(t.stats.orphan_returns == 0);
  CHECK(t.stats.functions_over_threshold.at("__alloc_pages") == 1);
  CHECK(t.binder.tasks() == 1); // idle, forgotten at the next sweep
}

TEST_CASE("a bare return without a duration starts at its entry") {
  Trace t(100 * us);
  const std::string entry = t.entry(task1, 1000 * us, "try_to_free_pages");
  const std::string ev = t.event(task1, 1000 * us - 1 * us, "mm_vmscan_lru_shrink_inactive");
  const std::string ret = t.bare(task1, 1100 * us, -1);
  CHECK(t.only_incident() == Lines{entry, ev, ret});
  CHECK(t.incident(0).start == 1000 * us);
  CHECK(t.incident(0).end == 1100 * us);
}

TEST_CASE("a sub-threshold bare return closes its entry and prints nothing") {
  Trace t(100 * us);
  t.entry(task1, 1000 * us, "try_to_free_pages");
  t.event(task1, 1001 * us, "mm_vmscan_lru_shrink_inactive");
  t.bare(task1, 1050 * us, 50 * us);
  CHECK(t.sink.incidents.empty());
  const std::string ret = t.bare(task1, 1300 * us, 300 * us);
  CHECK(t.stats.orphan_returns == 1);
  CHECK(t.only_incident() == Lines{ret});
}

TEST_CASE("a return discards deeper entries whose returns never came") {
  Trace t(100 * us);
  const std::string outer = t.entry(task1, 1000 * us, "__alloc_pages", 0);
  t.entry(task1, 1010 * us, "try_to_compact_pages", 1); // trace cut: its return is lost
  const std::string outer_ret = t.bare(task1, 1500 * us, 500 * us, 0);
  const std::string late = t.bare(task1, 1600 * us, 200 * us, 1);
  REQUIRE(t.sink.incidents.size() == 2);
  CHECK(t.incident(0).lines == Lines{outer, outer_ret});
  CHECK(t.stats.orphan_returns == 1);
  CHECK(t.incident(1).lines == Lines{late});
  CHECK(t.incident(1).span.empty());
}

TEST_CASE("a new entry at a depth replaces the one there, and discards deeper ones") {
  Trace t(100 * us);
  t.entry(task1, 1000 * us, "__alloc_pages", 0);
  t.entry(task1, 1010 * us, "try_to_free_pages", 1);
  const std::string second = t.entry(task1, 2000 * us, "__alloc_pages", 0);
  t.bare(task1, 2100 * us, 50 * us, 1);
  CHECK(t.stats.orphan_returns == 1);
  const std::string ret = t.bare(task1, 2300 * us, 300 * us, 0);
  CHECK(t.only_incident() == Lines{second, ret});
  CHECK(t.incident(0).start == 2000 * us);
}

TEST_CASE("a bare return with no entry at its depth is an orphan that claims nothing") {
  Trace t(100 * us);
  t.bare(task1, 1000 * us, 50 * us);
  CHECK(t.stats.orphan_returns == 1);
  CHECK(t.sink.incidents.empty());
  t.event(task1, 1900 * us, "mm_vmscan_lru_shrink_inactive");
  const std::string ret = t.bare(task1, 2000 * us, 500 * us);
  CHECK(t.stats.orphan_returns == 2);
  CHECK(t.only_incident() == Lines{ret});
  CHECK(t.incident(0).span.empty());
  CHECK(t.incident(0).start == 1500 * us);
  CHECK(t.stats.functions_over_threshold.at("") == 1);
  // Released: that return at depth 0 shows no call around the line still runs.
  CHECK(t.binder.held_lines() == 0);
}

TEST_CASE("a named return also closes the entry at its depth") {
  Trace t(100 * us);
  t.entry(task1, 1000 * us, "try_to_free_pages");
  const std::string ev = t.event(task1, 1001 * us, "mm_vmscan_lru_shrink_inactive");
  const std::string ret = t.ret(task1, 1200 * us, 200 * us, "try_to_free_pages");
  CHECK(t.only_incident() == Lines{ev, ret});
  t.bare(task1, 1300 * us, 300 * us);
  CHECK(t.stats.orphan_returns == 1);
}

TEST_CASE("a leaf's span begins at its timestamp") {
  Trace t(100 * us);
  t.leaf(task1, 500 * us, 99 * us, "compact_zone");
  CHECK(t.sink.incidents.empty());
  t.event(task1, 999 * us - 1, "mm_compaction_begin");
  const std::string ev = t.event(task1, 999 * us, "mm_compaction_begin");
  const std::string leaf = t.leaf(task1, 1000 * us, 200 * us, "compact_zone");
  CHECK(t.only_incident() == Lines{ev, leaf});
  CHECK(t.incident(0).start == 1000 * us);
  CHECK(t.incident(0).end == 1200 * us);
}

TEST_CASE("a pair over threshold prints its begin, the claimed lines, its end") {
  Trace t(100 * us, Mode::Events);
  const std::string begin = t.event(task1, 1000 * us, "mm_vmscan_direct_reclaim_begin");
  const std::string lru = t.event(task1, 1100 * us, "mm_vmscan_lru_shrink_inactive");
  t.event(task1, 1101 * us, "mm_compaction_isolate_migratepages"); // compaction's, not this pair's
  t.event(task2, 1102 * us, "mm_vmscan_lru_shrink_inactive");
  const std::string end = t.event(task1, 1300 * us, "mm_vmscan_direct_reclaim_end");
  REQUIRE(t.sink.incidents.size() == 1);
  const SeenIncident& incident = t.incident(0);
  CHECK(incident.lines == Lines{begin, lru, end});
  CHECK(incident.span == "direct_reclaim");
  CHECK(incident.start == 1000 * us);
  CHECK(incident.end == 1300 * us);
  CHECK(t.stats.pairs_over_threshold.at("direct_reclaim") == 1);
  // Task 2's line waits for its next line (or the sweep); compaction's line
  // was released: no compaction begin of task 1 is open to claim it.
  CHECK(t.binder.held_lines() == 1);
}

TEST_CASE("every pair that claims an event can claim it") {
  Trace t(100 * us, Mode::Events);
  const std::string begin = t.event(task1, 1000 * us, "mm_vmscan_memcg_reclaim_begin");
  const std::string lru = t.event(task1, 1100 * us, "mm_vmscan_lru_shrink_inactive");
  const std::string end = t.event(task1, 1300 * us, "mm_vmscan_memcg_reclaim_end");
  CHECK(t.only_incident() == Lines{begin, lru, end});
  CHECK(t.incident(0).span == "memcg_reclaim");
}

TEST_CASE("a sub-threshold pair prints nothing, and its events are released") {
  Trace t(100 * us, Mode::Events);
  t.event(task1, 1000 * us, "mm_vmscan_direct_reclaim_begin");
  t.event(task1, 1050 * us, "mm_vmscan_lru_shrink_inactive");
  t.event(task1, 1099 * us, "mm_vmscan_direct_reclaim_end");
  CHECK(t.sink.incidents.empty());
  CHECK(t.binder.held_lines() == 0); // no begin of the task is open to claim it
  const std::string begin = t.event(task1, 2000 * us, "mm_vmscan_direct_reclaim_begin");
  const std::string end = t.event(task1, 2100 * us, "mm_vmscan_direct_reclaim_end");
  CHECK(t.only_incident() == Lines{begin, end});
}

TEST_CASE("a begin replaces an open one; an end without a begin is counted and ignored") {
  Trace t(100 * us, Mode::Events);
  t.event(task1, 1000 * us, "mm_vmscan_direct_reclaim_begin");
  const std::string second = t.event(task1, 2000 * us, "mm_vmscan_direct_reclaim_begin");
  CHECK(t.stats.replaced_begins == 1);
  const std::string end = t.event(task1, 2300 * us, "mm_vmscan_direct_reclaim_end");
  CHECK(t.only_incident() == Lines{second, end});
  CHECK(t.incident(0).start == 2000 * us);
  t.event(task1, 9000 * us, "mm_vmscan_direct_reclaim_end");
  CHECK(t.stats.unmatched_ends == 1);
  CHECK(t.sink.incidents.size() == 1);
}

TEST_CASE("a task whose work began before the trace") {
  Trace t(100 * us, Mode::Events);
  t.event(task1, 1000 * us, "mm_vmscan_lru_shrink_inactive");
  t.event(task1, 1200 * us, "mm_vmscan_direct_reclaim_end"); // its begin is not in the trace
  CHECK(t.stats.unmatched_ends == 1);
  CHECK(t.sink.incidents.empty());
  const std::string begin = t.event(task1, 2000 * us, "mm_vmscan_direct_reclaim_begin");
  const std::string end = t.event(task1, 2500 * us, "mm_vmscan_direct_reclaim_end");
  CHECK(t.only_incident() == Lines{begin, end}); // not the early lru line
}

TEST_CASE("a lost shrink_slab_end does not pair an old start with another instance's end") {
  const std::string a = "super_cache_scan+0x0/0x210 00000000ce7941b5: nid: 0";
  const std::string b = "super_cache_scan+0x0/0x210 00000000c60de79d: nid: 0";
  SUBCASE("the next start replaces the one whose end was lost") {
    Trace t(100 * us, Mode::Events);
    t.event(task1, 1000 * us, "mm_shrink_slab_start", a); // end lost
    t.event(task1, 5000 * us, "mm_shrink_slab_start", b);
    t.event(task1, 5010 * us, "mm_shrink_slab_end", b);
    CHECK(t.stats.replaced_begins == 1);
    CHECK(t.sink.incidents.empty()); // not a 4010 us call
    std::ostringstream out;
    t.shrinkers.print(out);
    CHECK(out.str() == "super_cache_scan : total time = 0.010000 ms, max latency = 0.010000 ms\n");
  }
  SUBCASE("an end of another instance is not this start's end") {
    Trace t(100 * us, Mode::Events);
    const std::string start = t.event(task1, 1000 * us, "mm_shrink_slab_start", a);
    t.event(task1, 5000 * us, "mm_shrink_slab_end", b); // its start was lost
    CHECK(t.stats.unmatched_ends == 1);
    CHECK(t.sink.incidents.empty());
    const std::string end = t.event(task1, 5100 * us, "mm_shrink_slab_end", a);
    CHECK(t.only_incident() == Lines{start, end});
    CHECK(t.incident(0).span == "shrink_slab");
    CHECK(t.stats.unmatched_ends == 1);
  }
  SUBCASE("module shrinkers too: the [module] word is not the instance") {
    const std::string ext4_a = "ext4_es_scan+0x0/0x3b0 [ext4] 000000007988191a: nid: 0";
    const std::string ext4_b = "ext4_es_scan+0x0/0x3b0 [ext4] 00000000aa88191b: nid: 0";
    Trace t(100 * us, Mode::Events);
    const std::string start = t.event(task1, 1000 * us, "mm_shrink_slab_start", ext4_a);
    t.event(task1, 5000 * us, "mm_shrink_slab_end", ext4_b); // its start was lost
    CHECK(t.stats.unmatched_ends == 1);
    CHECK(t.sink.incidents.empty());
  }
}

TEST_CASE("a shrinker end is its begin's by instance, however it prints the symbol") {
  // Ends that print the begin's prefix take the fast path (its key); an end
  // of the same instance printed otherwise (another offset, another symbol:
  // the address reused) still closes the pair, and counts under the end's
  // symbol, as the parsed path always did.
  Trace t(100 * us, Mode::Events);
  const std::string a = "super_cache_scan+0x0/0x210 00000000ce7941b5: nid: 0";
  const std::string a_offset = "super_cache_scan+0x8/0x210 00000000ce7941b5: nid: 0";
  const std::string a_other = "other_scan+0x0/0x10 00000000ce7941b5: nid: 0";
  for (int round = 0; round < 3; ++round) { // the key learnt, then used
    const Nanos at = (1000 + 1000 * round) * us;
    t.event(task1, at, "mm_shrink_slab_start", a);
    t.event(task1, at + 10 * us, "mm_shrink_slab_end", a);
  }
  t.event(task1, 5000 * us, "mm_shrink_slab_start", a);
  t.event(task1, 5020 * us, "mm_shrink_slab_end", a_offset);
  t.event(task1, 6000 * us, "mm_shrink_slab_start", a);
  t.event(task1, 6040 * us, "mm_shrink_slab_end", a_other);
  CHECK(t.stats.unmatched_ends == 0);
  std::ostringstream out;
  t.shrinkers.print(out);
  CHECK(out.str() == "super_cache_scan : total time = 0.050000 ms, max latency = 0.020000 ms\n"
                     "other_scan : total time = 0.040000 ms, max latency = 0.040000 ms\n");
}

TEST_CASE("shrinker begins of many tasks, in list order, pair with their own ends") {
  // Each task's next begin is guessed from its last: tasks that take the
  // shrinkers in another order, or start anywhere in it, pair all the same.
  Trace t(100 * us, Mode::Events);
  const std::vector<std::string> list = {
      "ext4_es_scan+0x0/0x3d0 ffff8881f3ebcbd6: nid: 0",
      "deferred_split_scan+0x0/0x2a0 ffff88813b55e483: nid: 0",
      "kfree_rcu_shrink_scan+0x0/0x120 ffff8881b9223abe: nid: 0",
  };
  for (int i = 0; i < 30; ++i) {
    const Nanos at = (1000 + 10 * i) * us;
    const std::size_t first = static_cast<std::size_t>(i) % list.size();
    const std::size_t second = (first + (i % 2 == 0 ? 1 : 2)) % list.size();
    t.event(task1, at, "mm_shrink_slab_start", list[first]);
    t.event(task1, at + 1 * us, "mm_shrink_slab_end", list[first]);
    t.event(task2, at, "mm_shrink_slab_start", list[second]);
    t.event(task2, at + 2 * us, "mm_shrink_slab_end", list[second]);
  }
  CHECK(t.stats.unmatched_ends == 0);
  CHECK(t.stats.replaced_begins == 0);
  std::ostringstream out;
  t.shrinkers.print(out);
  CHECK(out.str() ==
        "deferred_split_scan : total time = 0.030000 ms, max latency = 0.002000 ms\n"
        "ext4_es_scan : total time = 0.030000 ms, max latency = 0.002000 ms\n"
        "kfree_rcu_shrink_scan : total time = 0.030000 ms, max latency = 0.002000 ms\n");
}

TEST_CASE("every complete shrinker pair feeds the statistics, over threshold or not") {
  Trace t(100 * us, Mode::Events);
  const std::string a = "super_cache_scan+0x0/0x210 00000000ce7941b5: nid: 0";
  const std::string b = "super_cache_scan+0x0/0x210 00000000c60de79d: nid: 0";
  const std::string c = "scan_shadow_nodes+0x0/0x30 00000000ee93bcbd: nid: 0";
  t.event(task1, 1000 * us, "mm_shrink_slab_start", a);
  t.event(task1, 1010 * us, "mm_shrink_slab_end", a);
  t.event(task1, 1020 * us, "mm_shrink_slab_start", b);
  t.event(task1, 1320 * us, "mm_shrink_slab_end", b);
  t.event(task2, 1000 * us, "mm_shrink_slab_start", c);
  t.event(task2, 1100 * us, "mm_shrink_slab_end", c);
  CHECK(t.sink.incidents.size() == 2);
  std::ostringstream out;
  t.shrinkers.print(out);
  CHECK(out.str() ==
        "super_cache_scan : total time = 0.310000 ms, max latency = 0.300000 ms\n"
        "scan_shadow_nodes : total time = 0.100000 ms, max latency = 0.100000 ms\n"
        "super_cache_scan[00000000c60de79d] : total time = 0.300000 ms, max latency = 0.300000 "
        "ms, calls = 1\n"
        "super_cache_scan[00000000ce7941b5] : total time = 0.010000 ms, max latency = 0.010000 "
        "ms, calls = 1\n");
}

TEST_CASE("graph mode uses only the pairs meant for it") {
  Trace t(100 * us, Mode::Graph);
  t.event(task1, 1000 * us, "mm_vmscan_direct_reclaim_begin");
  t.event(task1, 1300 * us, "mm_vmscan_direct_reclaim_end");
  CHECK(t.sink.incidents.empty()); // direct_reclaim pairs only in events mode
  CHECK(t.binder.held_lines() == 2);
  const std::string start = t.event(task1, 2000 * us, "mm_shrink_slab_start",
                                    "super_cache_scan+0x0/0x210 00000000ce7941b5: nid: 0");
  const std::string end = t.event(task1, 2200 * us, "mm_shrink_slab_end",
                                  "super_cache_scan+0x0/0x210 00000000ce7941b5: nid: 0");
  CHECK(t.only_incident() == Lines{start, end});
  // The pair printed both lines: shrink_slab's own return cannot print them again.
  const std::string ret = t.ret(task1, 2210 * us, 215 * us, "shrink_slab");
  REQUIRE(t.sink.incidents.size() == 2);
  CHECK(t.incident(1).lines == Lines{ret});
}

TEST_CASE("a pair's begin already claimed by another span is not printed again") {
  Profile profile = test_profile();
  profile.bindings.push_back({{"try_to_free_pages"}, {"mm_shrink_slab_start"}, {}});
  Trace t(100 * us, Mode::Graph, profile);
  const std::string start = t.event(task1, 1000 * us, "mm_shrink_slab_start",
                                    "super_cache_scan+0x0/0x210 00000000ce7941b5: nid: 0");
  const std::string ret = t.ret(task1, 1100 * us, 150 * us, "try_to_free_pages");
  const std::string end = t.event(task1, 1300 * us, "mm_shrink_slab_end",
                                  "super_cache_scan+0x0/0x210 00000000ce7941b5: nid: 0");
  REQUIRE(t.sink.incidents.size() == 2);
  CHECK(t.incident(0).lines == Lines{start, ret});
  CHECK(t.incident(1).lines == Lines{end});
  CHECK(t.incident(1).start == 1000 * us);
}

TEST_CASE("events no span can claim are not held") {
  Trace t(100 * us, Mode::Events);
  t.event(task1, 1000 * us, "mm_compaction_kcompactd_sleep");
  t.event(task1, 1001 * us, "mm_compaction_try_to_compact_pages"); // bound only in graph mode
  CHECK(t.binder.held_lines() == 0);
  CHECK(t.binder.tasks() == 0);
  t.event(task1, 1002 * us, "mm_vmscan_lru_shrink_inactive");
  CHECK(t.binder.held_lines() == 1);
}

TEST_CASE("held lines older than the window are dropped and counted") {
  Profile profile = test_profile();
  profile.window = 10 * ms;
  Trace t(100 * us, Mode::Graph, profile);
  t.event(task1, 1000 * us, "mm_vmscan_lru_shrink_inactive");
  const std::string kept = t.event(task1, 5000 * us, "mm_vmscan_lru_shrink_inactive");
  t.event(task2, 15000 * us, "mm_compaction_kcompactd_sleep"); // only moves time on
  const std::string ev = t.event(task1, 15000 * us, "mm_vmscan_lru_shrink_inactive");
  CHECK(t.stats.held_expired == 1); // 1000 us is 14 ms old; 5000 us exactly 10 ms: kept
  const std::string ret = t.ret(task1, 15000 * us, 14900 * us, "try_to_free_pages");
  CHECK(t.only_incident() == Lines{kept, ev, ret});
}

TEST_CASE("the window applies to tasks that hold lines but are quiet") {
  Profile profile = test_profile();
  profile.window = 10 * ms;
  Trace t(100 * us, Mode::Graph, profile);
  t.event(task1, 1000 * us, "mm_vmscan_lru_shrink_inactive");
  t.event(task2, 12000 * us, "mm_vmscan_lru_shrink_inactive");
  const std::string ret = t.ret(task1, 12000 * us, 11500 * us, "try_to_free_pages");
  CHECK(t.only_incident() == Lines{ret}); // its line was too old to claim
  CHECK(t.stats.held_expired == 1);
  t.binder.finish();
  CHECK(t.stats.held_expired == 1); // counted once
  CHECK(t.binder.held_lines() == 1);
}

TEST_CASE("an entry older than the window is forgotten") {
  Profile profile = test_profile();
  profile.window = 10 * ms;
  Trace t(100 * us, Mode::Graph, profile);
  t.entry(task1, 1000 * us, "try_to_free_pages");
  t.event(task2, 20000 * us, "mm_vmscan_lru_shrink_inactive");
  const std::string ret = t.bare(task1, 20100 * us, 19100 * us);
  CHECK(t.stats.orphan_returns == 1);
  CHECK(t.only_incident() == Lines{ret});
  CHECK(t.incident(0).span.empty());
  CHECK(t.stats.held_expired == 0); // an entry is not a held tracepoint
}

TEST_CASE("the per-task cap drops the oldest held lines") {
  Profile profile = test_profile();
  profile.max_pending_per_task = 3;
  Trace t(100 * us, Mode::Graph, profile);
  Lines kept;
  for (int i = 0; i < 5; ++i) {
    const std::string line = t.event(task1, (1000 + i) * us, "mm_vmscan_lru_shrink_inactive");
    if (i >= 2)
      kept.push_back(line);
  }
  t.event(task2, 1000 * us, "mm_vmscan_lru_shrink_inactive");
  CHECK(t.stats.held_over_cap == 2);
  CHECK(t.stats.held_expired == 0);
  CHECK(t.binder.held_lines() == 4);
  kept.push_back(t.ret(task1, 1200 * us, 200 * us, "try_to_free_pages"));
  CHECK(t.only_incident() == kept);
}

TEST_CASE("an open pair begin older than the window is dropped") {
  Profile profile = test_profile();
  profile.window = 10 * ms;
  SUBCASE("found at its end") {
    Trace t(100 * us, Mode::Events, profile);
    t.event(task1, 1000 * us, "mm_vmscan_direct_reclaim_begin");
    t.event(task2, 20000 * us, "mm_compaction_kcompactd_sleep");
    t.event(task1, 20100 * us, "mm_vmscan_direct_reclaim_end");
    CHECK(t.stats.held_expired == 1);
    CHECK(t.stats.unmatched_ends == 1);
    CHECK(t.sink.incidents.empty());
  }
  SUBCASE("found by the next begin: a drop, not a replacement") {
    Trace t(100 * us, Mode::Events, profile);
    t.event(task1, 1000 * us, "mm_vmscan_direct_reclaim_begin");
    t.event(task1, 20000 * us, "mm_vmscan_direct_reclaim_begin");
    CHECK(t.stats.held_expired == 1);
    CHECK(t.stats.replaced_begins == 0);
  }
  SUBCASE("found at the end of input") {
    Trace t(100 * us, Mode::Events, profile);
    t.event(task1, 1000 * us, "mm_vmscan_direct_reclaim_begin");
    t.event(task2, 15000 * us, "mm_vmscan_direct_reclaim_begin");
    t.event(task2, 20000 * us, "mm_compaction_kcompactd_sleep");
    t.binder.finish();
    CHECK(t.stats.held_expired == 1);
    CHECK(t.binder.tasks() == 1);
  }
}

TEST_CASE("memory stays flat however long the input") {
  Profile profile = test_profile();
  profile.window = 5 * ms;
  Trace t(100 * us, Mode::Events, profile);
  std::size_t most_held = 0;
  std::size_t most_tasks = 0;
  // A fork storm: every pid reclaims once, holding a line past its end.
  for (int i = 0; i < 300000; ++i) {
    const Who who{1000 + i};
    const Nanos ts = Nanos{i} * 3 * us;
    t.event(who, ts, "mm_vmscan_direct_reclaim_begin");
    t.event(who, ts + 1 * us, "mm_vmscan_lru_shrink_inactive");
    t.event(who, ts + 2 * us, "mm_vmscan_direct_reclaim_end");
    if (i % 1000 == 999) {
      most_held = std::max(most_held, t.binder.held_lines());
      most_tasks = std::max(most_tasks, t.binder.tasks());
    }
  }
  // 900000 lines: what is kept is what one sweep interval and window hold.
  CHECK(most_tasks < 70000);
  CHECK(most_held < 70000);
  t.binder.finish();
  // The sweep releases all but the last 1 ms (its margin for reordering) and
  // the release rule's own 3 us.
  CHECK(t.binder.held_lines() <= (1 * ms + 3 * us) / (3 * us) + 1);
  CHECK(t.binder.tasks() == t.binder.held_lines());
  CHECK(t.stats.held_expired + t.stats.held_released + t.binder.held_lines() == 300000);
  CHECK(t.stats.held_released > 0);
  CHECK(t.stats.held_over_cap == 0); // every line accounted for
  CHECK(t.sink.incidents.empty());
}

TEST_CASE("finish prints nothing for spans still open, then finishes the sink") {
  Trace t(100 * us, Mode::Events);
  t.event(task1, 1000 * us, "mm_vmscan_direct_reclaim_begin");
  t.event(task1, 1100 * us, "mm_vmscan_lru_shrink_inactive");
  t.binder.finish();
  CHECK(t.sink.incidents.empty());
  CHECK(t.sink.finished == 1);
  CHECK(t.stats.held_expired == 0);
  CHECK(t.stats.held_over_cap == 0);
}

// ---- releasing held lines (DESIGN.md, "Releasing held lines") ----

TEST_CASE("release, events mode: a line no open begin can reach goes at the task's next line") {
  Trace t(100 * us, Mode::Events);
  t.event(task1, 1000 * us, "mm_vmscan_lru_shrink_inactive"); // no pair open
  CHECK(t.binder.held_lines() == 1);
  // 3 us later is within reach of a begin at that time (1 us slack, 1 us of
  // truncation, 1 us spare): kept.
  t.event(task1, 1003 * us, "mm_vmscan_lru_shrink_inactive");
  CHECK(t.binder.held_lines() == 2);
  t.event(task1, 1003 * us + 1, "mm_vmscan_lru_shrink_inactive");
  CHECK(t.binder.held_lines() == 2); // the first went
  CHECK(t.stats.held_released == 1);
  CHECK(t.stats.held_expired == 0); // released, not expired: nothing was lost
}

TEST_CASE("release, events mode: the 1 us slack still claims a line just before a begin") {
  Trace t(100 * us, Mode::Events);
  const std::string lru = t.event(task1, 1000 * us, "mm_vmscan_lru_shrink_inactive");
  const std::string begin = t.event(task1, 1001 * us, "mm_vmscan_direct_reclaim_begin");
  const std::string end = t.event(task1, 1200 * us, "mm_vmscan_direct_reclaim_end");
  CHECK(t.only_incident() == Lines{begin, lru, end});
}

TEST_CASE("release, events mode: an open begin keeps what it can claim, not what lies before") {
  Trace t(100 * us, Mode::Events);
  t.event(task1, 1000 * us, "mm_vmscan_lru_shrink_inactive");
  const std::string begin = t.event(task1, 1100 * us, "mm_vmscan_direct_reclaim_begin");
  CHECK(t.binder.held_lines() == 0); // 100 us before the begin: no span reaches it
  const std::string lru = t.event(task1, 1150 * us, "mm_vmscan_lru_shrink_inactive");
  t.event(task1, 5000 * us, "mm_compaction_kcompactd_sleep"); // time goes on; the begin is open
  CHECK(t.binder.held_lines() == 1);
  const std::string end = t.event(task1, 5100 * us, "mm_vmscan_direct_reclaim_end");
  CHECK(t.only_incident() == Lines{begin, lru, end});
}

TEST_CASE("release, events mode: a line claimed by two pairs waits for both") {
  Trace t(100 * us, Mode::Events);
  t.event(task1, 1000 * us, "mm_vmscan_memcg_reclaim_begin");
  t.event(task1, 1010 * us, "mm_vmscan_direct_reclaim_begin");
  const std::string lru = t.event(task1, 1020 * us, "mm_vmscan_lru_shrink_inactive");
  t.event(task1, 1030 * us, "mm_vmscan_direct_reclaim_end"); // 20 us: under threshold
  t.event(task1, 1040 * us, "mm_compaction_kcompactd_sleep");
  CHECK(t.binder.held_lines() == 1); // memcg_reclaim, still open, can claim it
  const std::string end = t.event(task1, 1500 * us, "mm_vmscan_memcg_reclaim_end");
  REQUIRE(t.sink.incidents.size() == 1);
  CHECK(t.incident(0).lines.at(1) == lru);
}

TEST_CASE("release, graph mode: a return at depth 0 proves every call around a line returned") {
  Trace t(100 * us);
  t.event(task1, 1000 * us, "mm_vmscan_lru_shrink_inactive");
  t.ret(task1, 1050 * us, 60 * us, "try_to_free_pages", 1); // depth 1: proves nothing
  CHECK(t.binder.held_lines() == 1);
  t.ret(task1, 1060 * us, 80 * us, "__alloc_pages", 0);
  CHECK(t.binder.held_lines() == 0);
  CHECK(t.stats.held_released == 1);
}

TEST_CASE("release, graph mode: a line within 3 us of the depth-0 line stays") {
  Trace t(100 * us);
  const std::string lru = t.event(task1, 1000 * us, "mm_vmscan_lru_shrink_inactive");
  t.ret(task1, 1003 * us, 10 * us, "__alloc_pages", 0);
  CHECK(t.binder.held_lines() == 1);
  // A call starting right after that return can still claim it (the slack).
  const std::string ret = t.ret(task1, 1200 * us, 199 * us, "try_to_free_pages", 0);
  CHECK(t.only_incident() == Lines{lru, ret});
}

TEST_CASE("release, graph mode: entries and leaves at depth 0 release too; other tasks' do not") {
  Trace t(100 * us);
  t.event(task1, 1000 * us, "mm_vmscan_lru_shrink_inactive");
  t.event(task2, 1000 * us, "mm_vmscan_lru_shrink_inactive");
  t.entry(task2, 2000 * us, "__alloc_pages", 0);
  CHECK(t.binder.held_lines() == 1); // task 2's went, task 1's stays
  t.leaf(task1, 2000 * us, 5 * us, "__alloc_pages", 0);
  CHECK(t.binder.held_lines() == 0);
}

TEST_CASE(
    "release, graph mode: a bound function that recurses keeps its lines for the outer call") {
  // try_to_free_pages within try_to_free_pages (as if a shrinker allocated
  // and reclaimed): the inner return is at depth 1, so it proves nothing
  // about the outer call, which still claims the line.
  Trace t(100 * us);
  const std::string lru = t.event(task1, 1000 * us, "mm_vmscan_lru_shrink_inactive");
  t.ret(task1, 1010 * us, 20 * us, "try_to_free_pages", 1); // under threshold
  CHECK(t.binder.held_lines() == 1);
  t.event(task1, 1500 * us, "mm_compaction_kcompactd_sleep");
  const std::string outer = t.ret(task1, 1600 * us, 700 * us, "try_to_free_pages", 0);
  CHECK(t.only_incident() == Lines{lru, outer});
}

TEST_CASE("release, graph mode: pairs of graph mode apply their own rule") {
  Profile profile = test_profile();
  profile.pairs.push_back(pair("slab_scan", "mm_shrink_slab_start", "mm_shrink_slab_end",
                               {"mm_vmscan_lru_shrink_inactive"}, {Mode::Graph}, true));
  profile.pairs.erase(profile.pairs.begin() + 3); // the other shrink_slab pair
  Trace t(100 * us, Mode::Graph, profile);
  const std::string start = t.event(task1, 1000 * us, "mm_shrink_slab_start",
                                    "super_cache_scan+0x0/0x210 00000000ce7941b5: nid: 0");
  const std::string lru = t.event(task1, 1100 * us, "mm_vmscan_lru_shrink_inactive");
  // A depth-0 return proves no function call claims them: the start line,
  // bound to shrink_slab only, goes (the open pair prints it from its begin);
  // the open pair can still claim the other.
  t.ret(task1, 1150 * us, 10 * us, "__alloc_pages", 0);
  CHECK(t.binder.held_lines() == 1);
  const std::string end = t.event(task1, 1300 * us, "mm_shrink_slab_end",
                                  "super_cache_scan+0x0/0x210 00000000ce7941b5: nid: 0");
  CHECK(t.only_incident() == Lines{start, lru, end});
}

TEST_CASE("release off: lines stay until claimed, the window or a bound") {
  Profile profile = test_profile();
  RunStats stats;
  ShrinkerStats shrinkers;
  RecordingSink sink;
  Binder binder(profile, BinderOptions{100 * us, Mode::Events, false}, sink, shrinkers, stats);
  Record record;
  record.kind = LineKind::Event;
  record.format = TraceFormat::Events;
  record.pid = 1;
  record.name = "mm_vmscan_lru_shrink_inactive";
  record.line = "x";
  for (int i = 0; i < 10; ++i) {
    record.ts = Nanos{i} * ms;
    binder.feed(record);
  }
  CHECK(binder.held_lines() == 10);
  CHECK(stats.held_released == 0);
}

TEST_CASE("the global bound drops the oldest held lines of all tasks, counts and reports them") {
  Profile profile = test_profile();
  profile.max_held_bytes = 64 * 1024;
  Trace t(100 * us, Mode::Graph, profile);
  // Lines no depth-0 line ever releases: 2000 lines of two tasks, ~250 bytes
  // held each, far more than 64 KiB.
  std::vector<std::string> lines;
  for (int i = 0; i < 2000; ++i)
    lines.push_back(t.event(i % 2 ? task2 : task1, (1000 + i) * us, "mm_vmscan_lru_shrink_inactive",
                            std::string(150, 'f')));
  CHECK(t.stats.held_dropped > 1000);
  CHECK(t.binder.store().held_bytes() <= 64 * 1024);
  const std::size_t held = t.binder.held_lines();
  CHECK(t.stats.held_dropped + held == 2000);
  // The newest are kept: a call over the last lines of task 1 claims them all.
  const std::string ret = t.ret(task1, 3000 * us, 2000 * us, "try_to_free_pages", 1);
  Lines expected;
  for (int i = 0; i < 2000; i += 2)
    if (i >= static_cast<int>(2000 - held))
      expected.push_back(lines[static_cast<std::size_t>(i)]);
  expected.push_back(ret);
  CHECK(t.only_incident() == expected);
  std::ostringstream report;
  t.stats.print(report);
  CHECK(report.str().find("allocwatch: " + std::to_string(t.stats.held_dropped) +
                          " held events dropped, oldest first, when all held lines filled "
                          "max_held_bytes (64KiB): slow calls may miss lines. Raise "
                          "max_held_bytes in the profile, or hold fewer lines: a higher "
                          "threshold (-t), a shorter window, a narrower profile\n") !=
        std::string::npos);
}

TEST_CASE("the report says nothing of the global bound when it dropped nothing") {
  RunStats stats;
  std::ostringstream report;
  stats.print(report);
  CHECK(report.str().find("max_held_bytes") == std::string::npos);
}

TEST_CASE("idle tasks cost nothing: thousands that appear once are forgotten") {
  Trace t(100 * us, Mode::Events);
  for (int i = 0; i < 20000; ++i) {
    const Who who{10000 + i};
    t.event(who, Nanos{i} * 10 * us, "mm_vmscan_lru_shrink_inactive"); // held: no begin yet
    CHECK(t.binder.tasks() <= 8192); // swept whenever the tasks known double
  }
  t.binder.finish();
  // Only the tasks of the last 1 ms are left: the sweep allows that much
  // reordering across cpus before it takes a line as past every later begin.
  CHECK(t.binder.tasks() == 101);
  CHECK(t.binder.held_lines() == 101);
  CHECK(t.stats.held_released == 19899);
  CHECK(t.stats.held_expired == 0);
}

TEST_CASE("binder: an incident carries its span's stall kind and whether its task is background") {
  Profile profile = test_profile();
  StallKind reclaim;
  reclaim.kind = "direct reclaim";
  reclaim.functions = {"try_to_free_pages"};
  reclaim.pairs = {"direct_reclaim"};
  StallKind shrinker;
  shrinker.kind = "shrinker";
  shrinker.pairs = {"shrink_slab"};
  profile.stalls = {reclaim, shrinker};

  SUBCASE("graph mode: functions, and the shrinker pair; inner calls have no kind") {
    Trace t(100 * us, Mode::Graph, profile);
    t.ret({1}, 10 * ms, 500 * us, "try_to_free_pages");
    t.ret({1}, 11 * ms, 500 * us, "shrink_node");
    t.set_comm("kswapd0");
    t.event({2}, 12 * ms, "mm_shrink_slab_start", "super_cache_scan+0x0/0x1f0 00000000aa: nid: 0");
    t.event({2}, 13 * ms, "mm_shrink_slab_end", "super_cache_scan+0x0/0x1f0 00000000aa: nid: 0");
    REQUIRE(t.sink.incidents.size() == 3);
    CHECK(t.incident(0).kind == "direct reclaim");
    CHECK_FALSE(t.incident(0).background);
    CHECK(t.incident(1).span == "shrink_node");
    CHECK(t.incident(1).kind.empty());
    CHECK(t.incident(2).kind == "shrinker");
    CHECK(t.incident(2).background);
  }
  SUBCASE("events mode: pairs") {
    Trace t(100 * us, Mode::Events, profile);
    t.set_format(TraceFormat::Events);
    t.event({1}, 10 * ms, "mm_vmscan_direct_reclaim_begin", "order=0");
    t.event({1}, 11 * ms, "mm_vmscan_direct_reclaim_end", "nr_reclaimed=3");
    t.event({1}, 12 * ms, "mm_compaction_begin", "x=1");
    t.event({1}, 13 * ms, "mm_compaction_end", "x=1");
    REQUIRE(t.sink.incidents.size() == 2);
    CHECK(t.incident(0).kind == "direct reclaim");
    CHECK(t.incident(1).span == "compaction");
    CHECK(t.incident(1).kind.empty());
  }
}

TEST_CASE("binder: what background tasks did reaches BackgroundWork, claimed or not") {
  Profile profile = test_profile();
  profile.background = {"kswapd", "kcompactd"};
  for (const Mode mode : {Mode::Graph, Mode::Events}) {
    CAPTURE(mode_name(mode));
    Trace t(100 * us, mode, profile);
    if (mode == Mode::Events)
      t.set_format(TraceFormat::Events);
    t.event({1}, 1 * ms, "mm_vmscan_lru_shrink_inactive", "nid=0 nr_scanned=32 nr_reclaimed=30");
    t.set_comm("kswapd0");
    t.event({44}, 2 * ms, "mm_vmscan_kswapd_wake", "nid=0 order=0");
    t.event({44}, 3 * ms, "mm_vmscan_lru_shrink_inactive", "nid=0 nr_scanned=32 nr_reclaimed=30");
    t.event({44}, 4 * ms, "mm_vmscan_kswapd_wake", "nid=0 order=2");
    t.event({44}, 7 * ms, "mm_vmscan_kswapd_sleep", "nid=0");
    t.set_comm("kcompac"); // function_graph's cut
    t.event({35}, 8 * ms, "mm_compaction_kcompactd_wake", "nid=0 order=2 classzone_idx=Normal");
    t.event({35}, 9 * ms, "mm_compaction_kcompactd_sleep", "nid=0");
    // The wakes and sleeps are no span's lines: only the two tasks that
    // printed an LRU scan (a line a span may claim) have state.
    CHECK(t.binder.tasks() == 2);
    const auto& tasks = t.work.tasks();
    REQUIRE(tasks.size() == 2); // the direct reclaimer's scan is not background work
    CHECK(tasks[0].pid == 35);
    CHECK(tasks[0].comm == "kcompac");
    CHECK(tasks[0].wakes == 1);
    CHECK(tasks[0].awake == 1 * ms);
    CHECK(tasks[1].pid == 44);
    CHECK(tasks[1].wakes == 2);
    CHECK(tasks[1].rewakes == 1);
    CHECK(tasks[1].awake == 5 * ms);
    CHECK(tasks[1].pages_scanned == 32);
    CHECK(tasks[1].pages_reclaimed == 30);
  }
}

TEST_CASE("binder: graph mode counts a stall kind's events-mode pairs beside its returns") {
  Profile profile = test_profile();
  StallKind reclaim;
  reclaim.kind = "direct reclaim";
  reclaim.functions = {"try_to_free_pages"};
  reclaim.pairs = {"direct_reclaim"};
  profile.stalls = {reclaim};
  // A pair of the profile that is no kernel begin/end pair is not counted.
  StallKind kswapd;
  kswapd.kind = "background reclaim";
  kswapd.functions = {"balance_pgdat"};
  kswapd.pairs = {"kswapd"};
  profile.stalls.push_back(kswapd);
  profile.pairs.push_back(
      pair("kswapd", "mm_vmscan_kswapd_wake", "mm_vmscan_kswapd_sleep", {}, {Mode::Events}));
  Trace t(100 * us, Mode::Graph, profile);
  // Slow, but its return is not in the trace (tracing_thresh above -t).
  t.event({1}, 1 * ms, "mm_vmscan_direct_reclaim_begin", "order=0");
  t.event({1}, 1 * ms + 200 * us, "mm_vmscan_direct_reclaim_end", "nr_reclaimed=3");
  // Slow, with its return.
  t.event({1}, 2 * ms, "mm_vmscan_direct_reclaim_begin", "order=0");
  t.event({1}, 2 * ms + 300 * us, "mm_vmscan_direct_reclaim_end", "nr_reclaimed=3");
  t.ret({1}, 2 * ms + 310 * us, 320 * us, "try_to_free_pages");
  // Quick; and an end without its begin, which only events mode counts.
  t.event({2}, 3 * ms, "mm_vmscan_direct_reclaim_begin", "order=0");
  t.event({2}, 3 * ms + 50 * us, "mm_vmscan_direct_reclaim_end", "nr_reclaimed=3");
  t.event({3}, 4 * ms, "mm_vmscan_direct_reclaim_end", "nr_reclaimed=3");
  t.binder.finish();
  REQUIRE(t.stats.graph_pairs.size() == 1);
  const RunStats::PairCheck& check = t.stats.graph_pairs.front();
  CHECK(check.pair == "direct_reclaim");
  CHECK(check.pairs == 2);
  CHECK(check.returns == 1);
  CHECK(t.stats.unmatched_ends == 0);
  CHECK(t.stats.pairs_over_threshold.empty());
  REQUIRE(t.sink.incidents.size() == 1); // the return, with the pair's lines it claims
  CHECK(t.incident(0).span == "try_to_free_pages");
  CHECK(t.incident(0).lines.size() == 3);
  std::ostringstream out;
  t.stats.print(out);
  CHECK(out.str().find("allocwatch: 2 direct_reclaim begin/end pairs took 100us or more, but only "
                       "1 try_to_free_pages return did") != std::string::npos);
}

TEST_CASE("a slow trace (a watch on a quiet machine) forgets idle tasks by its own time") {
  Profile profile = test_profile();
  profile.window = 10 * ms;
  Trace t(100 * us, Mode::Events, profile);
  std::size_t most_tasks = 0;
  // 2000 short-lived tasks, one reclaim each, 1 ms apart: 6000 lines, far
  // fewer than a sweep by line count waits for.
  for (int i = 0; i < 2000; ++i) {
    const Who who{5000 + i};
    const Nanos ts = Nanos{i} * 1 * ms;
    t.event(who, ts, "mm_vmscan_direct_reclaim_begin");
    t.event(who, ts + 20 * us, "mm_vmscan_direct_reclaim_end");
    most_tasks = std::max(most_tasks, t.binder.tasks());
  }
  // What two windows of trace time saw, at most.
  CHECK(most_tasks <= 2 * 10 + 1);
  CHECK(t.sink.incidents.empty());
}

TEST_CASE("ring buffer records: the same incidents, lines printed only when they print") {
  CountingFormatter formatter;
  Trace text(100 * us, Mode::Events);
  Trace raw(100 * us, Mode::Events);
  raw.set_formatter(&formatter);
  for (Trace* t : {&text, &raw}) {
    t->event(task1, 1000 * us, "mm_vmscan_direct_reclaim_begin");
    t->event(task1, 1050 * us, "mm_vmscan_lru_shrink_inactive");
    t->event(task1, 1099 * us, "mm_vmscan_direct_reclaim_end"); // under the threshold
    t->event(task1, 2000 * us, "mm_vmscan_direct_reclaim_begin");
    t->event(task1, 2100 * us, "mm_vmscan_lru_shrink_inactive", "nr_scanned=32 nr_reclaimed=7");
    t->event(task2, 2101 * us, "mm_vmscan_lru_shrink_inactive");
    t->event(task1, 2300 * us, "mm_vmscan_direct_reclaim_end");
  }
  REQUIRE(raw.sink.incidents.size() == 1);
  CHECK(raw.only_incident() == text.only_incident());
  CHECK(raw.incident(0).start == text.incident(0).start);
  // Only the three lines of the slow pair were printed; the fast pair's
  // and task 2's never were.
  CHECK(formatter.printed == raw.only_incident());
}

TEST_CASE("ring buffer records: exact times, no 1 us slack") {
  CountingFormatter formatter;
  Trace text(100 * us, Mode::Graph);
  Trace raw(100 * us, Mode::Graph);
  raw.set_formatter(&formatter);
  for (Trace* t : {&text, &raw}) {
    t->event(task1, 1000 * us - 1, "mm_vmscan_lru_shrink_inactive"); // 1 ns before the call
    t->event(task1, 1000 * us, "mm_vmscan_lru_shrink_inactive");
    t->ret(task1, 1200 * us, 200 * us, "try_to_free_pages");
  }
  CHECK(text.only_incident().size() == 3); // whole µs: the slack claims it
  CHECK(raw.only_incident().size() == 2);
}

TEST_CASE("ring buffer records: a shrinker pair is named without printing its lines") {
  CountingFormatter formatter;
  Trace t(100 * us, Mode::Events);
  t.set_formatter(&formatter);
  t.event(task1, 1000 * us, "mm_shrink_slab_start",
          "super_cache_scan+0x0 0xffff888102b24780: nid: 0");
  t.event(task1, 1050 * us, "mm_shrink_slab_end",
          "super_cache_scan+0x0 0xffff888102b24780: nid: 0");
  CHECK(t.sink.incidents.empty());
  CHECK(t.stats.unmatched_ends == 0);
  CHECK(formatter.printed.empty());
  const std::vector<ShrinkerSummary> summary = t.shrinkers.summary();
  REQUIRE(summary.size() == 1);
  CHECK(summary[0].symbol == "super_cache_scan");
  REQUIRE(summary[0].instances.size() == 1);
  CHECK(summary[0].instances[0].name == "0xffff888102b24780");
}

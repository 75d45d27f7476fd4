#include "kernel/vocabulary.h"
#include "profile/loader.h"

#include <algorithm>
#include <doctest/doctest.h>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace allocwatch {

namespace {

namespace fs = std::filesystem;

// The unit tests run from the source tree's root (tests/run-all.sh cd's there).
std::vector<fs::path> files_in(const fs::path& dir, const std::string& extension) {
  REQUIRE_MESSAGE(fs::is_directory(dir), dir.string() << " not found: run unit-tests from the "
                                                         "source tree's root");
  std::vector<fs::path> files;
  for (const fs::directory_entry& entry : fs::directory_iterator(dir))
    if (entry.path().extension() == extension)
      files.push_back(entry.path());
  std::sort(files.begin(), files.end());
  return files;
}

std::string read_text(const fs::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

Profile load_ok(std::string_view yaml) {
  Result<Profile> profile = load_profile_text(yaml, "t.yaml");
  REQUIRE_MESSAGE(profile.ok(), profile.error().message);
  return profile.value();
}

std::string load_error(std::string_view yaml) {
  Result<Profile> profile = load_profile_text(yaml, "t.yaml");
  REQUIRE(!profile.ok());
  return profile.error().message;
}

using Names = std::vector<std::string>;

} // namespace

TEST_CASE("profile default.yaml is the investigation the RFC made, plus memcg reclaim") {
  Result<Profile> loaded = load_profile_file("configs/default.yaml");
  REQUIRE_MESSAGE(loaded.ok(), loaded.error().message);
  const Profile& profile = loaded.value();
  CHECK(profile.name == "default");
  CHECK(profile.threshold == 100 * kMicro);
  CHECK(profile.window == 10 * kSecond);
  CHECK(profile.max_pending_per_task > 0);
  CHECK(profile.buffer_size_kb >= 8192);

  std::vector<Names> functions;
  for (const FunctionSpec& function : profile.functions)
    functions.push_back(function.alternatives);
  CHECK(functions == std::vector<Names>{
                         {"__alloc_frozen_pages_noprof", "__alloc_pages_noprof", "__alloc_pages",
                          "__alloc_pages_nodemask"},
                         {"try_to_free_pages"},
                         {"try_to_free_mem_cgroup_pages"},
                         {"memcg1_soft_limit_reclaim", "mem_cgroup_soft_limit_reclaim"},
                         {"shrink_node"},
                         {"shrink_lruvec", "shrink_node_memcg"},
                         {"shrink_inactive_list"},
                         {"evict_folios"},
                         {"shrink_slab"},
                         {"shrink_active_list"},
                         {"compact_zone"},
                         {"try_to_compact_pages"},
                     });

  Names events;
  for (const EventSpec& event : profile.events)
    events.push_back(event.system + "/" + event.name);
  CHECK(events == Names{
                      "vmscan/mm_shrink_slab_start",
                      "vmscan/mm_shrink_slab_end",
                      "vmscan/mm_vmscan_direct_reclaim_begin",
                      "vmscan/mm_vmscan_direct_reclaim_end",
                      "vmscan/mm_vmscan_lru_shrink_inactive",
                      "vmscan/mm_vmscan_memcg_reclaim_begin",
                      "vmscan/mm_vmscan_memcg_reclaim_end",
                      "vmscan/mm_vmscan_memcg_softlimit_reclaim_begin",
                      "vmscan/mm_vmscan_memcg_softlimit_reclaim_end",
                      "vmscan/mm_vmscan_node_reclaim_begin",
                      "vmscan/mm_vmscan_node_reclaim_end",
                      "compaction/mm_compaction_begin",
                      "compaction/mm_compaction_end",
                      "compaction/mm_compaction_try_to_compact_pages",
                      "vmscan/mm_vmscan_write_folio",
                      "vmscan/mm_vmscan_writepage",
                      "vmscan/mm_vmscan_throttled",
                      "compaction/mm_compaction_migratepages",
                      "vmscan/mm_vmscan_kswapd_wake",
                      "vmscan/mm_vmscan_kswapd_sleep",
                      "compaction/mm_compaction_kcompactd_wake",
                      "compaction/mm_compaction_kcompactd_sleep",
                  });

  std::vector<std::pair<Names, Names>> bindings;
  for (const Binding& binding : profile.bindings)
    bindings.emplace_back(binding.functions, binding.events);
  CHECK(bindings ==
        std::vector<std::pair<Names, Names>>{
            {{"try_to_free_pages"},
             {"mm_vmscan_direct_reclaim_begin", "mm_vmscan_direct_reclaim_end",
              "mm_vmscan_lru_shrink_inactive", "mm_vmscan_write_folio", "mm_vmscan_writepage",
              "mm_vmscan_throttled"}},
            {{"try_to_free_mem_cgroup_pages"},
             {"mm_vmscan_memcg_reclaim_begin", "mm_vmscan_memcg_reclaim_end",
              "mm_vmscan_lru_shrink_inactive", "mm_vmscan_write_folio", "mm_vmscan_writepage",
              "mm_vmscan_throttled"}},
            {{"shrink_inactive_list", "evict_folios", "shrink_lruvec", "shrink_node_memcg"},
             {"mm_vmscan_lru_shrink_inactive", "mm_vmscan_write_folio", "mm_vmscan_writepage",
              "mm_vmscan_throttled"}},
            {{"try_to_compact_pages"}, {"mm_compaction_try_to_compact_pages"}},
            {{"compact_zone"},
             {"mm_compaction_begin", "mm_compaction_end", "mm_compaction_migratepages"}},
        });

  struct PairView {
    std::string name, begin, end;
    Names claims;
    bool shrinker;
    std::vector<Mode> modes;
    bool operator==(const PairView&) const = default;
  };
  std::vector<PairView> pairs;
  for (const PairSpec& pair : profile.pairs)
    pairs.push_back({pair.name, pair.begin, pair.end, pair.claims, pair.shrinker, pair.modes});
  const Names inactive{"mm_vmscan_lru_shrink_inactive", "mm_vmscan_write_folio",
                       "mm_vmscan_writepage", "mm_vmscan_throttled"};
  const std::vector<Mode> events_only{Mode::Events};
  CHECK(pairs == std::vector<PairView>{
                     {"direct_reclaim", "mm_vmscan_direct_reclaim_begin",
                      "mm_vmscan_direct_reclaim_end", inactive, false, events_only},
                     {"memcg_reclaim", "mm_vmscan_memcg_reclaim_begin",
                      "mm_vmscan_memcg_reclaim_end", inactive, false, events_only},
                     {"memcg_softlimit_reclaim", "mm_vmscan_memcg_softlimit_reclaim_begin",
                      "mm_vmscan_memcg_softlimit_reclaim_end", inactive, false, events_only},
                     {"node_reclaim", "mm_vmscan_node_reclaim_begin", "mm_vmscan_node_reclaim_end",
                      inactive, false, events_only},
                     {"compaction",
                      "mm_compaction_begin",
                      "mm_compaction_end",
                      {"mm_compaction_migratepages"},
                      false,
                      events_only},
                     {"shrinker",
                      "mm_shrink_slab_start",
                      "mm_shrink_slab_end",
                      {},
                      true,
                      {Mode::Graph, Mode::Events}},
                 });
}

TEST_CASE("profile: every shipped profile loads cleanly") {
  const std::vector<fs::path> shipped = files_in("configs", ".yaml");
  CHECK(shipped.size() >= 6);
  for (const std::string name :
       {"default", "direct-reclaim", "compaction", "memcg", "shrinkers", "kswapd"})
    CHECK_MESSAGE(std::find(shipped.begin(), shipped.end(),
                            fs::path("configs") / (name + ".yaml")) != shipped.end(),
                  name);
  for (const fs::path& path : shipped) {
    INFO(path.string());
    Result<Profile> profile = load_profile_file(path.string());
    REQUIRE_MESSAGE(profile.ok(), profile.error().message);
    CHECK(profile->name == path.stem().string());
    CHECK(profile->warnings.empty());
    CHECK(!profile->description.empty());
    CHECK(!profile->functions.empty());
    // Events mode has spans only from pairs.
    CHECK(std::any_of(profile->pairs.begin(), profile->pairs.end(), [](const PairSpec& pair) {
      return std::find(pair.modes.begin(), pair.modes.end(), Mode::Events) != pair.modes.end();
    }));
  }
}

TEST_CASE("profile: each malformed profile fails with the message its .expected file holds") {
  const std::vector<fs::path> bad = files_in("tests/profiles/bad", ".yaml");
  CHECK(bad.size() >= 25);
  for (const fs::path& path : bad) {
    fs::path expected_path = path;
    expected_path.replace_extension(".expected");
    INFO(path.string());
    REQUIRE(fs::exists(expected_path));
    std::string expected = read_text(expected_path);
    while (!expected.empty() && expected.back() == '\n')
      expected.pop_back();
    Result<Profile> profile = load_profile_file(path.string());
    REQUIRE(!profile.ok());
    CHECK(profile.error().message == expected);
  }
}

// An event no kernel allocwatch knows has may be a newer kernel's: the
// profile loads (the running kernel decides when tracing), with a warning.
TEST_CASE("profile: each doubtful profile loads, with the warning its .expected file holds") {
  const std::vector<fs::path> doubtful = files_in("tests/profiles/warn", ".yaml");
  CHECK(doubtful.size() >= 2);
  for (const fs::path& path : doubtful) {
    fs::path expected_path = path;
    expected_path.replace_extension(".expected");
    INFO(path.string());
    REQUIRE(fs::exists(expected_path));
    std::string expected = read_text(expected_path);
    while (!expected.empty() && expected.back() == '\n')
      expected.pop_back();
    Result<Profile> profile = load_profile_file(path.string());
    REQUIRE_MESSAGE(profile.ok(), profile.error().message);
    REQUIRE(profile->warnings.size() == 1);
    CHECK(profile->warnings[0] == expected);
  }
}

TEST_CASE("profile: an unknown event is kept as written, well-formed names only") {
  const Profile profile = load_ok("description: d\nfunctions: [try_to_free_pages]\n"
                                  "events: [vmscan/lru_gen_aging_walk]\n");
  REQUIRE(profile.events.size() == 1);
  CHECK(profile.events[0].system == "vmscan");
  CHECK(profile.events[0].name == "lru_gen_aging_walk");
  CHECK(profile.warnings ==
        Names{"t.yaml:3:10: warning: event 'vmscan/lru_gen_aging_walk' is not one allocwatch "
              "knows; a live run uses it only if the kernel's available_events lists it"});
  // Known names warn of nothing, and still must sit in their own system.
  CHECK(load_ok("description: d\nfunctions: [f]\nevents: [vmscan/mm_vmscan_throttled]\n")
            .warnings.empty());
  CHECK(load_error("description: d\nfunctions: [f]\nevents: [compaction/mm_shrink_slab_end]\n") ==
        "t.yaml:3:10: 'mm_shrink_slab_end' is a vmscan event: write 'vmscan/mm_shrink_slab_end'");
  for (const char* bad : {"vmscan/", "vmscan/mm vmscan", "vmscan/a/b", "vmscan/mm_vmscan*"})
    CHECK_MESSAGE(
        load_error(std::string("description: d\nfunctions: [f]\nevents: ['") + bad + "']\n")
                .find("is not an event name") != std::string::npos,
        bad);
}

TEST_CASE("profile: optional keys take their defaults") {
  const Profile profile = load_ok(R"(description: |
  Two lines,
  kept as written.
functions: [try_to_free_pages]
events: [vmscan/mm_shrink_slab_start, vmscan/mm_shrink_slab_end]
pairs:
  - name: shrink_slab
    begin: mm_shrink_slab_start
    end: mm_shrink_slab_end
)");
  CHECK(profile.description == "Two lines,\nkept as written.");
  CHECK(profile.name == "t");
  CHECK(profile.path == "t.yaml");
  const Profile defaults;
  CHECK(profile.threshold == defaults.threshold);
  CHECK(profile.window == defaults.window);
  CHECK(profile.max_pending_per_task == defaults.max_pending_per_task);
  CHECK(profile.max_held_bytes == 8u << 20);
  CHECK(profile.buffer_size_kb == defaults.buffer_size_kb);
  REQUIRE(profile.pairs.size() == 1);
  CHECK(profile.pairs[0].modes == std::vector<Mode>{Mode::Graph, Mode::Events});
  CHECK(profile.pairs[0].claims.empty());
  CHECK_FALSE(profile.pairs[0].shrinker);
  CHECK(profile.bindings.empty());
}

TEST_CASE("profile: max_held_bytes takes bytes or a binary unit") {
  CHECK(load_ok("description: d\nmax_held_bytes: 4MiB\nfunctions: [f]\n").max_held_bytes ==
        4u << 20);
  CHECK(load_ok("description: d\nmax_held_bytes: 65536\nfunctions: [f]\n").max_held_bytes == 65536);
  CHECK(load_ok("description: d\nmax_held_bytes: 1G\nfunctions: [f]\n").max_held_bytes == 1u << 30);
}

TEST_CASE("profile: a bare threshold is in microseconds, a bare window in seconds") {
  const Profile profile = load_ok("description: d\nthreshold: 250\nwindow: 3\n"
                                  "max_pending_per_task: 7\nbuffer_size_kb: 65536\n"
                                  "functions: [try_to_free_pages]\n");
  CHECK(profile.threshold == 250 * kMicro);
  CHECK(profile.window == 3 * kSecond);
  CHECK(profile.max_pending_per_task == 7);
  CHECK(profile.buffer_size_kb == 65536);
  CHECK(load_ok("description: d\nthreshold: 1.5ms\nwindow: 500ms\n"
                "functions: [try_to_free_pages]\n")
            .threshold == 1500 * kMicro);
}

TEST_CASE("profile: a binding holds every kernel name of the functions it names") {
  const Profile profile = load_ok(R"(description: d
functions:
  - [__alloc_frozen_pages_noprof, __alloc_pages_noprof, __alloc_pages]
  - [shrink_lruvec, shrink_node_memcg]
events: [vmscan/mm_vmscan_lru_shrink_inactive, vmscan/mm_vmscan_wakeup_kswapd]
bindings:
  - functions: [__alloc_pages]
    events: [mm_vmscan_wakeup_kswapd]
  - functions: [shrink_node_memcg, shrink_lruvec]
    events: [mm_vmscan_lru_shrink_inactive]
)");
  REQUIRE(profile.bindings.size() == 2);
  CHECK(profile.bindings[0].functions ==
        Names{"__alloc_pages", "__alloc_frozen_pages_noprof", "__alloc_pages_noprof"});
  CHECK(profile.bindings[1].functions == Names{"shrink_node_memcg", "shrink_lruvec"});
}

TEST_CASE("profile: an event given as a list: each kernel's name, claimed together") {
  const Profile profile = load_ok(R"(description: d
functions: [try_to_free_pages]
events:
  - vmscan/mm_vmscan_direct_reclaim_begin
  - [vmscan/mm_vmscan_write_folio, vmscan/mm_vmscan_writepage]
  - [vmscan/mm_vmscan_throttled]
bindings:
  - functions: [try_to_free_pages]
    events: [mm_vmscan_writepage, mm_vmscan_throttled]
pairs:
  - name: p
    begin: mm_vmscan_direct_reclaim_begin
    end: mm_vmscan_throttled
    claims: [mm_vmscan_write_folio]
)");
  REQUIRE(profile.events.size() == 4);
  CHECK_FALSE(profile.events[0].optional);
  CHECK(profile.events[1].optional);
  CHECK(profile.events[1].entry == 1);
  CHECK(profile.events[2].entry == 1);
  CHECK(profile.events[3].optional);
  CHECK(profile.events[3].entry == 2);
  CHECK(profile.bindings[0].events ==
        Names{"mm_vmscan_write_folio", "mm_vmscan_writepage", "mm_vmscan_throttled"});
  CHECK(profile.pairs[0].claims == Names{"mm_vmscan_write_folio", "mm_vmscan_writepage"});
  CHECK(load_error("description: d\nevents: [[]]\n") ==
        "t.yaml:2:10: an empty list of alternatives: give at least one name");
  CHECK(load_error("description: d\nevents: [[vmscan/mm_vmscan_throttled, [x]]]\n") ==
        "t.yaml:2:39: an event is system/name or a list of them, not a list");
  CHECK(load_error("description: d\nevents: [vmscan/mm_vmscan_throttled, "
                   "[vmscan/mm_vmscan_throttled]]\n") ==
        "t.yaml:2:39: 'vmscan/mm_vmscan_throttled' is listed twice in 'events'");
}

TEST_CASE("profile: a stall kind names functions under every kernel name, and pairs") {
  const Profile profile = load_ok(R"(description: d
functions:
  - [__alloc_frozen_pages_noprof, __alloc_pages_noprof, __alloc_pages]
  - try_to_free_pages
events: [vmscan/mm_vmscan_direct_reclaim_begin, vmscan/mm_vmscan_direct_reclaim_end]
pairs:
  - name: direct_reclaim
    begin: mm_vmscan_direct_reclaim_begin
    end: mm_vmscan_direct_reclaim_end
stalls:
  - kind: allocation
    functions: [__alloc_pages]
  - kind: direct reclaim
    functions: [try_to_free_pages]
    pairs: [direct_reclaim]
background: [kswapd, khugepaged]
)");
  REQUIRE(profile.stalls.size() == 2);
  CHECK(profile.stalls[0].kind == "allocation");
  CHECK(profile.stalls[0].functions ==
        Names{"__alloc_pages", "__alloc_frozen_pages_noprof", "__alloc_pages_noprof"});
  CHECK(profile.stalls[0].pairs.empty());
  CHECK(profile.stalls[1].kind == "direct reclaim");
  CHECK(profile.stalls[1].functions == Names{"try_to_free_pages"});
  CHECK(profile.stalls[1].pairs == Names{"direct_reclaim"});
  CHECK(profile.stalls[1].pos.line == 13);
  CHECK(profile.background == Names{"kswapd", "khugepaged"});
  // Without the keys: no stall kinds, and kswapd and kcompactd are background.
  const Profile bare = load_ok("description: d\nfunctions: [try_to_free_pages]\n");
  CHECK(bare.stalls.empty());
  CHECK(bare.background == Names{"kswapd", "kcompactd"});
}

TEST_CASE("profile: every shipped profile gives a kind to its reclaim or compaction entry points") {
  for (const char* name :
       {"default", "compaction", "direct-reclaim", "kswapd", "memcg", "shrinkers"}) {
    CAPTURE(name);
    Result<Profile> profile = load_profile_file(std::string("configs/") + name + ".yaml");
    REQUIRE(profile.ok());
    CHECK_FALSE(profile->stalls.empty());
    // Every pair is a stall of some kind: events mode has no other spans to report.
    for (const PairSpec& pair : profile->pairs) {
      bool has_kind = false;
      for (const StallKind& stall : profile->stalls)
        has_kind = has_kind || std::find(stall.pairs.begin(), stall.pairs.end(), pair.name) !=
                                   stall.pairs.end();
      CAPTURE(pair.name);
      CHECK(has_kind);
    }
  }
}

TEST_CASE("profile: positions of functions, events, bindings and pairs are kept") {
  const Profile profile = load_ok(R"(description: d
functions:
  - try_to_free_pages
events:
  - vmscan/mm_vmscan_direct_reclaim_begin
  - vmscan/mm_vmscan_direct_reclaim_end
bindings:
  - functions: [try_to_free_pages]
    events: [mm_vmscan_direct_reclaim_begin]
pairs:
  - name: direct_reclaim
    begin: mm_vmscan_direct_reclaim_begin
    end: mm_vmscan_direct_reclaim_end
)");
  CHECK(profile.functions[0].pos.line == 3);
  CHECK(profile.functions[0].pos.column == 5);
  CHECK(profile.events[1].pos.line == 6);
  CHECK(profile.bindings[0].pos.line == 8);
  CHECK(profile.pairs[0].pos.line == 11);
  CHECK(profile.pairs[0].pos.column == 5);
}

TEST_CASE("profile: one pair per begin event only within a mode") {
  const std::string two_pairs = R"(description: d
events:
  - vmscan/mm_vmscan_direct_reclaim_begin
  - vmscan/mm_vmscan_direct_reclaim_end
  - vmscan/mm_vmscan_node_reclaim_end
pairs:
  - name: a
    begin: mm_vmscan_direct_reclaim_begin
    end: mm_vmscan_direct_reclaim_end
    modes: [events]
  - name: b
    begin: mm_vmscan_direct_reclaim_begin
    end: mm_vmscan_node_reclaim_end
    modes: [)";
  CHECK(load_ok(two_pairs + "graph]\n").pairs.size() == 2);
  CHECK(load_error(two_pairs + "graph, events]\n") ==
        "t.yaml:11:5: event 'mm_vmscan_direct_reclaim_begin' already begins pair 'a' in "
        "events mode");
}

TEST_CASE("profile: errors name the file as given, and reading errors say why") {
  CHECK(load_profile_text("description: [", "somewhere/odd.yaml")
            .error()
            .message.starts_with("somewhere/odd.yaml:1:"));
  const Result<Profile> missing = load_profile_file("tests/profiles/no-such-profile.yaml");
  REQUIRE(!missing.ok());
  CHECK(missing.error().message ==
        "tests/profiles/no-such-profile.yaml: cannot open: No such file or directory");
  const Result<Profile> directory = load_profile_file("configs");
  REQUIRE(!directory.ok());
  CHECK(directory.error().message == "configs: is a directory, not a profile");
}

TEST_CASE("profile: what the YAML guard refuses is an error at its place") {
  CHECK(load_error("---\n,") == "t.yaml:2:1: syntax error: ',' outside a [list] or {map}");
  CHECK(load_error("description: d\n#" + std::string(64 * 1024, 'x')) ==
        "t.yaml: larger than 64 KiB: not a profile");
}

TEST_CASE("profile: bytes of the profile in messages are escaped") {
  CHECK(load_error("description: d\nfunctions: [f]\n\"\\e]0;title\\a\": 1\n")
            .starts_with("t.yaml:3:1: unknown key '\\x1b]0;title\\x07'"));
  CHECK(load_profile_text("description: [", "odd\n\x1b[2Jname.yaml")
            .error()
            .message.starts_with("odd\\n\\x1b[2Jname.yaml:1:"));
}

TEST_CASE("profile: functions are exact kernel symbols") {
  CHECK(load_ok("description: d\nfunctions: [shrink_folio_list.constprop.0]\n")
            .functions[0]
            .alternatives[0] == "shrink_folio_list.constprop.0");
  CHECK(load_error("description: d\nfunctions: [\"try to free\"]\n") ==
        "t.yaml:2:13: 'try to free' is not a kernel function name");
  CHECK(load_error("description: d\nfunctions: [[]]\n") ==
        "t.yaml:2:13: an empty list of alternatives: give at least one name");
  CHECK(load_error("description: d\nfunctions: [[shrink_lruvec, shrink_lruvec]]\n") ==
        "t.yaml:2:29: 'shrink_lruvec' is given twice as an alternative");
}

TEST_CASE("profile: the built-in events include every vmscan and compaction event of 6.18") {
  // This machine's available_events (6.18), vmscan and compaction systems.
  for (const std::string_view name :
       {"mm_shrink_slab_end", "mm_shrink_slab_start", "mm_vmscan_direct_reclaim_begin",
        "mm_vmscan_direct_reclaim_end", "mm_vmscan_kswapd_sleep", "mm_vmscan_kswapd_wake",
        "mm_vmscan_lru_isolate", "mm_vmscan_lru_shrink_active", "mm_vmscan_lru_shrink_inactive",
        "mm_vmscan_memcg_reclaim_begin", "mm_vmscan_memcg_reclaim_end",
        "mm_vmscan_memcg_softlimit_reclaim_begin", "mm_vmscan_memcg_softlimit_reclaim_end",
        "mm_vmscan_node_reclaim_begin", "mm_vmscan_node_reclaim_end", "mm_vmscan_reclaim_pages",
        "mm_vmscan_throttled", "mm_vmscan_wakeup_kswapd", "mm_vmscan_write_folio"})
    CHECK_MESSAGE(known_event_system(name) == "vmscan", name);
  for (const std::string_view name :
       {"mm_compaction_begin", "mm_compaction_defer_compaction", "mm_compaction_defer_reset",
        "mm_compaction_deferred", "mm_compaction_end", "mm_compaction_fast_isolate_freepages",
        "mm_compaction_finished", "mm_compaction_isolate_freepages",
        "mm_compaction_isolate_migratepages", "mm_compaction_kcompactd_sleep",
        "mm_compaction_kcompactd_wake", "mm_compaction_migratepages", "mm_compaction_suitable",
        "mm_compaction_try_to_compact_pages", "mm_compaction_wakeup_kcompactd"})
    CHECK_MESSAGE(known_event_system(name) == "compaction", name);
  CHECK(known_event_system("mm_vmscan_writepage") == "vmscan");
  CHECK(known_event_system("mm_page_alloc").empty());
}

} // namespace allocwatch

#include "fake_tracefs.h"
#include "tracefs/plan.h"

#include <algorithm>
#include <doctest/doctest.h>
#include <filesystem>
#include <sstream>

namespace allocwatch {
namespace {

using testing::fake_profile;
using testing::FakeTracefs;

Result<Plan> plan_on(const FakeTracefs& fake, const Profile& profile, Nanos threshold,
                     std::optional<Mode> forced = std::nullopt) {
  return make_plan(profile, threshold, forced,
                   {.scope = {}, .tracing_dir = fake.dir(), .messages = nullptr});
}

TEST_CASE("plan: graph mode where function_graph exists; the first available alternative wins") {
  FakeTracefs fake;
  Result<Plan> plan = plan_on(fake, fake_profile(), 134 * kMicro);
  REQUIRE(plan.ok());
  CHECK(plan->mode == Mode::Graph);
  CHECK(plan->mode_reason.find("2 of 3 profile functions") != std::string::npos);
  REQUIRE(plan->functions.size() == 3);
  // __alloc_frozen_pages_noprof is not on this kernel; __alloc_pages_noprof
  // comes before __alloc_pages in the profile.
  CHECK(plan->functions[0].chosen == "__alloc_pages_noprof");
  CHECK(plan->functions[1].chosen == "try_to_free_pages");
  CHECK_FALSE(plan->functions[2].chosen.has_value());
  CHECK(plan->chosen_functions() ==
        std::vector<std::string>{"__alloc_pages_noprof", "try_to_free_pages"});
  REQUIRE(plan->warnings.size() == 1);
  CHECK(plan->warnings[0].find("shrink_lruvec | shrink_node_memcg") != std::string::npos);
  CHECK(plan->tracing_thresh_us == 134);
  CHECK(plan->buffer_size_kb == 4096);
  CHECK(plan->tracing_dir == fake.dir());
  CHECK(plan->instance_name == "allocwatch-" + std::to_string(getpid()));
}

TEST_CASE("plan: a function listed with a module in available_filter_functions is found") {
  FakeTracefs fake;
  Profile profile = fake_profile();
  profile.functions = {{{"do_shrink_slab"}, {}}};
  Result<Plan> plan = plan_on(fake, profile, 10 * kMicro);
  REQUIRE(plan.ok());
  CHECK(plan->mode == Mode::Graph);
  CHECK(plan->functions[0].chosen == "do_shrink_slab");
}

TEST_CASE("plan: events mode, and why, when the kernel has no function_graph") {
  FakeTracefs fake;
  fake.write("available_tracers", "blk function nop\n");
  std::ostringstream said;
  Result<Plan> plan = make_plan(fake_profile(), 100 * kMicro, std::nullopt,
                                {.scope = {}, .tracing_dir = fake.dir(), .messages = &said});
  REQUIRE(plan.ok());
  CHECK(plan->mode == Mode::Events);
  CHECK(said.str() == "allocwatch: events mode: this kernel has no function_graph tracer "
                      "(available: blk function nop)\n");
  // Resolved all the same, for --check, and not warned about: nothing is traced.
  REQUIRE(plan->functions.size() == 3);
  CHECK(plan->functions[0].chosen == "__alloc_pages_noprof");
  CHECK_FALSE(plan->functions[2].chosen.has_value());
  std::ostringstream shown;
  print_plan(*plan, shown);
  CHECK(shown.str().find("functions: not traced in events mode; graph mode would trace, on "
                         "this kernel:\n  __alloc_pages_noprof  (") != std::string::npos);
  CHECK(shown.str().find("  MISSING  (") != std::string::npos);

  Result<Plan> forced = plan_on(fake, fake_profile(), 100 * kMicro, Mode::Graph);
  REQUIRE_FALSE(forced.ok());
  CHECK(forced.error().message ==
        "--mode graph is impossible: this kernel has no function_graph tracer "
        "(available: blk function nop)");
}

TEST_CASE("plan: --mode events is obeyed even where graph mode is possible") {
  FakeTracefs fake;
  Result<Plan> plan = plan_on(fake, fake_profile(), 100 * kMicro, Mode::Events);
  REQUIRE(plan.ok());
  CHECK(plan->mode == Mode::Events);
  CHECK(plan->mode_forced);
  CHECK(plan->mode_reason == "--mode events");
}

TEST_CASE("plan: an unreadable available_filter_functions means events mode") {
  FakeTracefs fake;
  std::filesystem::remove(fake.path("available_filter_functions"));
  std::filesystem::create_directory(fake.path("available_filter_functions"));
  Result<Plan> plan = plan_on(fake, fake_profile(), 100 * kMicro);
  REQUIRE(plan.ok());
  CHECK(plan->mode == Mode::Events);
  CHECK(plan->mode_reason.find("function_graph cannot filter functions here: cannot read") == 0);
  REQUIRE(plan->functions_unreadable.has_value());
  std::ostringstream shown;
  print_plan(*plan, shown);
  CHECK(shown.str().find("functions: not traced in events mode (which names this kernel has is "
                         "unknown: cannot read") != std::string::npos);
  CHECK_FALSE(plan_on(fake, fake_profile(), 100 * kMicro, Mode::Graph).ok());
}

TEST_CASE("plan: no traceable function means events mode, or an error with --mode graph") {
  FakeTracefs fake;
  Profile profile = fake_profile();
  profile.functions = {{{"shrink_lruvec", "shrink_node_memcg"}, {}}};
  Result<Plan> plan = plan_on(fake, profile, 100 * kMicro);
  REQUIRE(plan.ok());
  CHECK(plan->mode == Mode::Events);
  CHECK(plan->mode_reason == "none of profile 'fake''s functions is in available_filter_functions");
  Result<Plan> forced = plan_on(fake, profile, 100 * kMicro, Mode::Graph);
  REQUIRE_FALSE(forced.ok());
  CHECK(forced.error().message.find("--mode graph is impossible: none of") == 0);

  profile.functions.clear();
  plan = plan_on(fake, profile, 100 * kMicro);
  REQUIRE(plan.ok());
  CHECK(plan->mode == Mode::Events);
  CHECK(plan->mode_reason == "profile 'fake' lists no functions to trace");
}

TEST_CASE("plan: an event the kernel lacks is refused, with the kernel's nearest events") {
  FakeTracefs fake;
  Profile profile = fake_profile();
  profile.path = "/etc/allocwatch/profiles/fake.yaml";
  // A newer kernel's event (or a typo): the kernel's available_events decides.
  profile.events.push_back({"vmscan", "mm_vmscan_direct_reclaim_stall", {12, 5}});
  Result<Plan> plan = plan_on(fake, profile, 100 * kMicro);
  REQUIRE_FALSE(plan.ok());
  CHECK(plan.error().message ==
        "/etc/allocwatch/profiles/fake.yaml:12:5: event 'vmscan/mm_vmscan_direct_reclaim_stall' "
        "does not exist on this kernel (it is not in available_events; nearest there: "
        "'vmscan/mm_vmscan_direct_reclaim_begin', 'vmscan/mm_vmscan_direct_reclaim_end', "
        "'vmscan/mm_shrink_slab_start')");

  // Further missing events are named after the first; events mode alike.
  profile.events.push_back({"compaction", "mm_compaction_new", {13, 5}});
  fake.write("available_tracers", "nop\n");
  plan = plan_on(fake, profile, 100 * kMicro);
  REQUIRE_FALSE(plan.ok());
  CHECK(plan.error().message.ends_with(
      "'vmscan/mm_shrink_slab_start'); nor does it have compaction/mm_compaction_new"));

  // A system the kernel has no event of; a profile without a path.
  profile = fake_profile();
  profile.events = {{"writeback", "wb_stall", {}}};
  plan = plan_on(fake, profile, 100 * kMicro);
  REQUIRE_FALSE(plan.ok());
  CHECK(plan.error().message ==
        "profile 'fake': event 'writeback/wb_stall' does not exist on this kernel (it is not in "
        "available_events; nor is any writeback event)");

  profile.events.clear();
  profile.functions.clear();
  Result<Plan> nothing = plan_on(fake, profile, 100 * kMicro);
  REQUIRE_FALSE(nothing.ok());
  CHECK(nothing.error().message == "profile 'fake' lists no events, and events mode needs some");
}

TEST_CASE("plan: an event whose format lacks a field the report reads is warned of") {
  FakeTracefs fake;
  Profile profile = fake_profile();
  profile.functions = {{{"try_to_free_pages"}, {}}};
  profile.events = {{"vmscan", "mm_vmscan_direct_reclaim_begin", {}},
                    {"vmscan", "mm_vmscan_direct_reclaim_end", {}},
                    {"vmscan", "mm_shrink_slab_start", {}}};
  // No format files: the table stands, nothing said.
  Result<Plan> plan = plan_on(fake, profile, 100 * kMicro);
  REQUIRE(plan.ok());
  CHECK(plan->warnings.empty());

  fake.write("events/vmscan/mm_vmscan_direct_reclaim_begin/format",
             "name: mm_vmscan_direct_reclaim_begin\nID: 1\nformat:\n\tfield:int order;\n\n"
             "print fmt: \"order=%d flags=%s\", REC->order, REC->gfp_flags\n");
  fake.write("events/vmscan/mm_vmscan_direct_reclaim_end/format",
             "print fmt: \"nr_reclaimed=%lu\", REC->nr_reclaimed\n");
  plan = plan_on(fake, profile, 100 * kMicro);
  REQUIRE(plan.ok());
  REQUIRE(plan->warnings.size() == 1);
  CHECK(plan->warnings[0] ==
        "event 'vmscan/mm_vmscan_direct_reclaim_begin' prints no gfp_flags= on this kernel "
        "(events/vmscan/mm_vmscan_direct_reclaim_begin/format): the stall report goes without "
        "it");
}

TEST_CASE("plan: of an event given as a list, the first name the kernel has, or none, said") {
  FakeTracefs fake;
  Profile profile = fake_profile();
  profile.functions = {{{"try_to_free_pages"}, {}}};
  // 5.10: mm_vmscan_writepage, and no mm_vmscan_throttled (new in 5.16).
  fake.write("available_events", "vmscan:mm_vmscan_direct_reclaim_begin\n"
                                 "vmscan:mm_vmscan_writepage\n");
  profile.events = {{"vmscan", "mm_vmscan_direct_reclaim_begin", {}, 0, false},
                    {"vmscan", "mm_vmscan_write_folio", {}, 1, true},
                    {"vmscan", "mm_vmscan_writepage", {}, 1, true},
                    {"vmscan", "mm_vmscan_throttled", {}, 2, true}};
  Result<Plan> plan = plan_on(fake, profile, 100 * kMicro);
  REQUIRE(plan.ok());
  REQUIRE(plan->events.size() == 2);
  CHECK(plan->events[0].name == "mm_vmscan_direct_reclaim_begin");
  CHECK(plan->events[1].name == "mm_vmscan_writepage");
  REQUIRE(plan->warnings.size() == 1);
  CHECK(plan->warnings[0] ==
        "event vmscan/mm_vmscan_throttled is not in available_events: not traced");
  // 6.18: the newest name wins, the older one is not enabled too.
  fake.write("available_events", "vmscan:mm_vmscan_direct_reclaim_begin\n"
                                 "vmscan:mm_vmscan_write_folio\nvmscan:mm_vmscan_writepage\n"
                                 "vmscan:mm_vmscan_throttled\n");
  plan = plan_on(fake, profile, 100 * kMicro);
  REQUIRE(plan.ok());
  REQUIRE(plan->events.size() == 3);
  CHECK(plan->events[1].name == "mm_vmscan_write_folio");
  CHECK(plan->events[2].name == "mm_vmscan_throttled");
  CHECK(plan->warnings.empty());
  std::ostringstream out;
  print_profile_alone(profile, "why", out);
  CHECK(out.str().find("  vmscan/mm_vmscan_direct_reclaim_begin\n"
                       "  (vmscan/mm_vmscan_write_folio | vmscan/mm_vmscan_writepage)\n"
                       "  (vmscan/mm_vmscan_throttled)\n") != std::string::npos);
}

TEST_CASE("plan: refusing a missing event changes nothing") {
  FakeTracefs fake;
  const auto before = fake.state();
  Profile profile = fake_profile();
  profile.events.push_back({"vmscan", "mm_vmscan_direct_reclaim_stall", {}});
  CHECK_FALSE(plan_on(fake, profile, 100 * kMicro).ok());
  CHECK(fake.state() == before);
}

TEST_CASE("plan: a profile checked without tracefs prints what it asks of a kernel") {
  Profile profile = fake_profile();
  profile.path = "fake.yaml";
  std::ostringstream out;
  print_profile_alone(profile, "reading tracefs needs root", out);
  const std::string text = out.str();
  CHECK(text.find("tracefs:   not read (reading tracefs needs root): the kernel is not asked\n") ==
        0);
  CHECK(text.find("profile:   fake (fake.yaml) loads\n") != std::string::npos);
  CHECK(text.find("  (__alloc_frozen_pages_noprof | __alloc_pages_noprof | __alloc_pages)\n") !=
        std::string::npos);
  CHECK(text.find("  compaction/mm_compaction_begin\n") != std::string::npos);
}

TEST_CASE("plan: tracing_thresh is the threshold in microseconds, rounded up, with a warning") {
  FakeTracefs fake;
  Profile profile = fake_profile();
  profile.functions = {{{"try_to_free_pages"}, {}}};
  struct Case {
    Nanos threshold;
    std::uint64_t us;
    bool warned;
  };
  for (Case c : {Case{134 * kMicro, 134, false}, Case{1500, 2, true}, Case{1, 1, true},
                 Case{0, 0, false}, Case{2 * kSecond, 2000000, false}}) {
    CAPTURE(c.threshold);
    Result<Plan> plan = plan_on(fake, profile, c.threshold);
    REQUIRE(plan.ok());
    CHECK(plan->tracing_thresh_us == c.us);
    CHECK(plan->threshold == c.threshold);
    CHECK(plan->warnings.size() == (c.warned ? 1u : 0u));
  }
  CHECK_FALSE(plan_on(fake, profile, -1).ok());
}

TEST_CASE("plan: making a plan and printing it change nothing") {
  FakeTracefs fake;
  const auto before = fake.state();
  const std::string trace_before = fake.read("trace");
  Result<Plan> plan = plan_on(fake, fake_profile(), 1500);
  REQUIRE(plan.ok());
  std::ostringstream out;
  print_plan(*plan, out);
  CHECK(fake.state() == before);
  CHECK(fake.read("trace") == trace_before);

  const std::string text = out.str();
  CHECK(text.find("mode:      graph (function_graph is available") != std::string::npos);
  CHECK(text.find("threshold: 1.5us (tracing_thresh 2 us)") != std::string::npos);
  CHECK(text.find("buffer:    4096 KB per cpu") != std::string::npos);
  CHECK(text.find("  __alloc_pages_noprof  (__alloc_frozen_pages_noprof | __alloc_pages_noprof "
                  "| __alloc_pages)") != std::string::npos);
  CHECK(text.find("  MISSING  (shrink_lruvec | shrink_node_memcg)") != std::string::npos);
  CHECK(text.find("  ok       compaction/mm_compaction_begin") != std::string::npos);
  CHECK(text.find("warning: threshold 1.5us is not a whole number") != std::string::npos);
}

TEST_CASE("plan: print_plan in events mode names the private instance") {
  FakeTracefs fake;
  fake.write("available_tracers", "nop\n");
  Result<Plan> plan = plan_on(fake, fake_profile(), 100 * kMicro);
  REQUIRE(plan.ok());
  std::ostringstream out;
  print_plan(*plan, out);
  const std::string text = out.str();
  CHECK(text.find("mode:      events (this kernel has no function_graph tracer (available: "
                  "nop))") != std::string::npos);
  CHECK(text.find("instance:  allocwatch-" + std::to_string(getpid()) +
                  " (private; the top level is not touched)") != std::string::npos);
  CHECK(text.find("functions: not traced in events mode") != std::string::npos);
  CHECK(text.find("  ok       vmscan/mm_shrink_slab_start") != std::string::npos);
}

TEST_CASE("plan: a tracing directory without tracefs files is a clear error") {
  testing::TempDir empty;
  Result<Plan> plan = make_plan(fake_profile(), 100 * kMicro, std::nullopt,
                                {.scope = {}, .tracing_dir = empty.dir(), .messages = nullptr});
  tracefs_set_tracing_dir(nullptr);
  REQUIRE_FALSE(plan.ok());
  CHECK(plan.error().message ==
        "cannot read " + empty.dir() + "/available_tracers: No such file or directory");
}

} // namespace
} // namespace allocwatch

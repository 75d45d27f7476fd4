#include "bind/shrinker_stats.h"
#include "cgroup/task_cgroups.h"
#include "output/journal_sink.h"
#include "tracepoints.h"

#include <cerrno>
#include <cstdlib>
#include <doctest/doctest.h>
#include <map>
#include <sstream>
#include <string>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>

using namespace allocwatch;

namespace {

using Entry = std::vector<std::string>;

// Records what would have gone to journald.
struct Journal {
  std::vector<Entry> entries;
  int result = 0;
  JournalSink::Send sender() {
    return [this](std::span<const iovec> fields) {
      Entry entry;
      for (const iovec& f : fields)
        entry.emplace_back(static_cast<const char*>(f.iov_base), f.iov_len);
      entries.push_back(entry);
      return result;
    };
  }
};

bool has(const Entry& entry, const std::string& field) {
  return std::find(entry.begin(), entry.end(), field) != entry.end();
}

const std::string_view kLines[] = {
    "cat-4242 [001] ..... 10.000100: mm_vmscan_memcg_reclaim_begin: order=0 gfp_flags=GFP_KERNEL",
    "cat-4242 [001] ..... 10.012445: mm_vmscan_memcg_reclaim_end: nr_reclaimed=32"};

Incident stall(Nanos duration, bool background = false, std::string_view kind = "memcg reclaim") {
  static std::vector<Tracepoint> tracepoints;
  return with_tracepoints(Incident{"memcg_reclaim", kind, background, 4242, "cat", 10'000'100'000,
                                   10'000'100'000 + duration, kLines},
                          tracepoints);
}

} // namespace

TEST_CASE("journal: a stall is one entry: the JSON record's fields, a summary, a priority") {
  Journal journal;
  std::ostringstream fallback, messages;
  JournalSink sink(fallback, messages, journal.sender());
  sink.incident(stall(12'345'000));
  REQUIRE(journal.entries.size() == 1);
  const Entry& e = journal.entries[0];
  CHECK(e[0] == "MESSAGE=memcg reclaim stall of 12.345 ms in cat-4242 (memcg_reclaim)");
  CHECK(has(e, "PRIORITY=5"));
  CHECK(has(e, "MESSAGE_ID=5e1fefd551e04db7b4321847c804a337"));
  CHECK(has(e, "SYSLOG_IDENTIFIER=allocwatch"));
  for (const char* field : {"TYPE=span", "NAME=memcg_reclaim", "PID=4242", "COMM=cat",
                            "START_NS=10000100000", "END_NS=10012445000", "DURATION_NS=12345000"})
    CHECK(has(e, field));
  CHECK(has(e, "LINES=" + std::string(kLines[0])));
  CHECK(has(e, "LINES=" + std::string(kLines[1])));
  for (const char* field :
       {"TRACEPOINTS_EVENT=mm_vmscan_memcg_reclaim_begin", "TRACEPOINTS_TS_NS=10000100000",
        "TRACEPOINTS_FIELDS_ORDER=0", "TRACEPOINTS_FIELDS_GFP_FLAGS=GFP_KERNEL",
        "TRACEPOINTS_EVENT=mm_vmscan_memcg_reclaim_end", "TRACEPOINTS_FIELDS_NR_RECLAIMED=32"})
    CHECK(has(e, field));
  CHECK(fallback.str().empty());
  CHECK(messages.str().empty());
  CHECK(sink.sent() == 1);
}

TEST_CASE("journal: a stall of a task whose cgroup is known carries CGROUP, CONTAINER_ID and "
          "POD_UID; unknown, none of them") {
  const std::string id(64, 'b');
  const std::string uid = "8b1e1f2c-4d3a-4f5e-9a8b-7c6d5e4f3a2b";
  TaskCgroup cgroup{CgroupVersion::V1,
                    "/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod"
                    "8b1e1f2c_4d3a_4f5e_9a8b_7c6d5e4f3a2b.slice/cri-containerd-" +
                        id + ".scope",
                    {}};
  cgroup.container = container_of(cgroup.path);
  Journal journal;
  std::ostringstream fallback, messages;
  JournalSink sink(fallback, messages, journal.sender());
  Incident attributed = stall(12'345'000);
  attributed.cgroup = &cgroup;
  sink.incident(attributed);
  sink.incident(stall(12'345'000));
  REQUIRE(journal.entries.size() == 2);
  CHECK(has(journal.entries[0], "CGROUP=" + cgroup.path));
  CHECK(has(journal.entries[0], "CONTAINER_ID=" + id));
  CHECK(has(journal.entries[0], "POD_UID=" + uid));
  for (const std::string& field : journal.entries[1])
    for (const char* name : {"CGROUP=", "CONTAINER_ID=", "POD_UID="})
      CHECK_FALSE(field.starts_with(name));
}

TEST_CASE("journal: a stall of many lines is still one entry: each repeated field once, its "
          "values a line each") {
  // A field a line and the tracepoints' fields as many again: far past the
  // 1024 iovecs sd_journal_sendv can hand the kernel, where it fails EINVAL.
  std::vector<std::string> texts;
  for (int i = 0; i < 600; ++i)
    texts.push_back("cat-4242 [001] ..... 10." + std::to_string(100000 + i) +
                    ": mm_vmscan_lru_shrink_inactive: nid=0 nr_scanned=" + std::to_string(i));
  const std::vector<std::string_view> lines(texts.begin(), texts.end());
  Incident incident = stall(12'345'000);
  incident.lines = lines;
  std::vector<Tracepoint> tracepoints;
  incident = with_tracepoints(incident, tracepoints);
  Journal journal;
  std::ostringstream fallback, messages;
  JournalSink sink(fallback, messages, journal.sender());
  sink.incident(incident);
  REQUIRE(journal.entries.size() == 1);
  const Entry& e = journal.entries[0];
  std::size_t iovecs = 0;
  std::map<std::string, int> names;
  for (const std::string& field : e) {
    iovecs += field.find('\n') == std::string::npos ? 2 : 5;
    ++names[field.substr(0, field.find('='))];
  }
  CHECK(iovecs <= 1000);
  for (const auto& [name, count] : names) {
    CAPTURE(name);
    CHECK(count == 1);
  }
  std::string all_lines = "LINES=";
  for (const std::string& text : texts)
    all_lines += text + "\n";
  all_lines.pop_back();
  CHECK(has(e, all_lines));
  std::string all_scanned = "TRACEPOINTS_FIELDS_NR_SCANNED=";
  for (int i = 0; i < 600; ++i)
    all_scanned += std::to_string(i) + "\n";
  all_scanned.pop_back();
  CHECK(has(e, all_scanned));
  CHECK(has(e, "PID=4242"));
  CHECK(fallback.str().empty());
  CHECK(messages.str().empty());
  CHECK(sink.sent() == 1);
}

TEST_CASE("journal: priority by severity") {
  CHECK(priority(stall(100 * kMicro)) == 5);
  CHECK(priority(stall(100 * kMilli)) == 4);
  CHECK(priority(stall(kSecond)) == 3);
  CHECK(priority(stall(2 * kSecond, true)) == 6);
  CHECK(priority(stall(2 * kSecond, false, "")) == 7);
  CHECK(journal_message(stall(2 * kSecond, true, "shrinker")) ==
        "shrinker of 2000.000 ms in background task cat-4242 (memcg_reclaim)");
  CHECK(journal_message(stall(1500 * kMicro, false, "")) ==
        "slow memcg_reclaim of 1.500 ms in cat-4242 (inside a stall)");
}

TEST_CASE("journal: LOST lines and shrinker totals are entries too") {
  Journal journal;
  std::ostringstream fallback, messages;
  JournalSink sink(fallback, messages, journal.sender());
  sink.passthrough("CPU:0 [LOST 600 EVENTS]", Nanos{0});
  ShrinkerStats shrinkers;
  shrinkers.add("super_cache_scan", "00000000ce7941b5", 400'000);
  shrinkers.add("super_cache_scan", "00000000c60de79d", 1'100'000);
  shrinkers.add("kfree_rcu_shrink_scan", "00000000ecb61676", 300'000);
  sink.finish(shrinkers);
  REQUIRE(journal.entries.size() == 3);
  CHECK(journal.entries[0][0] == "MESSAGE=the kernel lost events: CPU:0 [LOST 600 EVENTS]");
  CHECK(has(journal.entries[0], "PRIORITY=4"));
  CHECK(has(journal.entries[0], "LINE=CPU:0 [LOST 600 EVENTS]"));
  CHECK(has(journal.entries[0], "CPU=0"));
  CHECK(has(journal.entries[0], "EVENTS=600"));
  CHECK(journal.entries[1][0] ==
        "MESSAGE=shrinker super_cache_scan: 1.500 ms in 2 calls, the longest 1.100 ms");
  CHECK(has(journal.entries[1], "SYMBOL=super_cache_scan"));
  CHECK(has(journal.entries[1], "INSTANCES_INSTANCE=00000000c60de79d"));
  CHECK(has(journal.entries[1], "PRIORITY=6"));
  CHECK(journal.entries[2][0] ==
        "MESSAGE=shrinker kfree_rcu_shrink_scan: 0.300 ms in 1 calls, the longest 0.300 ms");
}

TEST_CASE("journal: when journald refuses, the record goes to stdout as JSON, said once") {
  Journal journal;
  journal.result = -ENOENT;
  std::ostringstream fallback, messages;
  JournalSink sink(fallback, messages, journal.sender());
  sink.incident(stall(2 * kMilli));
  sink.incident(stall(3 * kMilli));
  CHECK(sink.failed() == 2);
  CHECK(messages.str() == "allocwatch: cannot write to the journal (No such file or directory): "
                          "incidents go to standard output as JSON Lines instead\n");
  std::istringstream lines(fallback.str());
  std::string line;
  int records = 0;
  while (std::getline(lines, line)) {
    CHECK(line.starts_with("{\"type\":\"span\",\"name\":\"memcg_reclaim\""));
    ++records;
  }
  CHECK(records == 2);
}

TEST_CASE("journal: stdout is the journal only when JOURNAL_STREAM names stdout itself") {
  struct stat st {};
  REQUIRE(::fstat(STDOUT_FILENO, &st) == 0);
  const char* saved = std::getenv("JOURNAL_STREAM");
  const std::string saved_value = saved ? saved : "";
  ::unsetenv("JOURNAL_STREAM");
  CHECK(!stdout_is_journal());
  ::setenv("JOURNAL_STREAM", (std::to_string(st.st_dev) + ":" + std::to_string(st.st_ino)).c_str(),
           1);
  CHECK(stdout_is_journal());
  ::setenv("JOURNAL_STREAM",
           (std::to_string(st.st_dev) + ":" + std::to_string(st.st_ino + 1)).c_str(), 1);
  CHECK(!stdout_is_journal());
  ::setenv("JOURNAL_STREAM", "garbage", 1);
  CHECK(!stdout_is_journal());
  ::setenv("JOURNAL_STREAM",
           (std::to_string(st.st_dev) + ":" + std::to_string(st.st_ino) + "x").c_str(), 1);
  CHECK(!stdout_is_journal());
  if (saved)
    ::setenv("JOURNAL_STREAM", saved_value.c_str(), 1);
  else
    ::unsetenv("JOURNAL_STREAM");
}

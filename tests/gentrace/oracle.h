// The truth: DESIGN.md's binding rule over the plan. Fed every line the
// trace holds, with what the plan knows of it (task, tracepoint or function,
// true duration), it writes the exact stdout allocwatch must print.
#pragma once

#include "common.h"
#include "model.h"

#include <array>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace gentrace {

// Tasks are pids, except pid 0: one idle task per cpu.
std::uint64_t task_key(int pid, int cpu);

class Oracle {
public:
  Oracle(const World& world, std::string& expected);

  void lost(std::string_view line) { emit(line); }
  void event(std::uint64_t key, Nanos ts, Ev ev, int shrinker, std::string_view line);
  void function_return(std::uint64_t key, Nanos ts, Fn fn, Nanos duration, std::string_view line);

  // A task's next episode begins at `ts`: its calls begin then or later, so
  // of the lines before, only an open begin (whose end was lost) can claim
  // any. Letting the others go keeps dense traces of many tasks small here.
  void episode_start(std::uint64_t key, Nanos ts);

  // An end that would pair with a begin so old that allocwatch's window may
  // have let it go: the trace drops it (as if lost) to keep the truth exact.
  bool closes_stale_pair(std::uint64_t key, Nanos ts, Ev ev, int shrinker) const;

  // The shrinker report: per symbol, then per instance of shared symbols.
  void finish();

  std::uint64_t incidents() const { return incidents_; }
  std::uint64_t claimed() const { return claimed_; }
  std::uint64_t claimed_by_slack() const { return claimed_by_slack_; }
  std::uint64_t pairs_closed() const { return pairs_closed_; }
  std::size_t max_pending() const { return max_pending_; }

private:
  struct Held {
    Nanos ts;
    Ev ev;
    bool printed;
    std::string line;
  };
  struct Open {
    bool is_open = false;
    Nanos ts = 0;
    int shrinker = -1;
    std::string line;
  };
  struct TaskState {
    std::deque<Held> held; // claimable lines, in input order (so in time order)
    std::array<Open, kPairCount> open;
    std::deque<Nanos> recent; // every event of the last kWindow
  };
  struct ShrinkerTotal {
    Nanos total = 0;
    Nanos max = 0;
    std::uint64_t calls = 0;
  };

  void emit(std::string_view line) {
    expected_.append(line);
    expected_.push_back('\n');
  }
  // Lines older than any span could reach are let go; allocwatch must hold
  // at least as many, so the plan keeps each task under its per-task cap.
  void note_pending(TaskState& t, Nanos ts);
  void claim(TaskState& t, std::uint32_t mask, Nanos from, Nanos to);
  void close_pair(TaskState& t, const Pair& p, Open& open, Nanos end, std::string_view line);

  const World& world_;
  std::string& expected_;
  std::uint32_t claimable_ = 0;
  std::unordered_map<std::uint64_t, TaskState> tasks_;
  std::vector<ShrinkerTotal> stats_;
  std::uint64_t incidents_ = 0;
  std::uint64_t claimed_ = 0;
  std::uint64_t claimed_by_slack_ = 0;
  std::uint64_t pairs_closed_ = 0;
  std::size_t max_pending_ = 0;
};

} // namespace gentrace

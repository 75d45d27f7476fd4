// gentrace: a synthetic ftrace trace with known ground truth, for allocwatch's
// property tests and benchmark.
//
//   gentrace --format graph|events --seed N (--bytes SIZE | --calls N)
//            --threshold-us T --trace FILE --expected FILE
//            [--tasks N] [--cpus N] [--dense] [--max-span-us N] [--no-span]
//
// The shape options make the traces `make bench` needs beside the usual ones:
// --tasks N user tasks (else 6-18) on --cpus N cpus (else 2-8, at most 256);
// --dense: each task's next episode follows within tens of µs, not
// milliseconds, so that thousands of tasks are in reclaim at once;
// --max-span-us N: no call or pair lasts longer than about N µs (no stall);
// --no-span: one task that prints only tracepoints its spans would claim,
// and never a span (returns, begin/end pairs).
//
// It plans calls per task (each with its start, end and nested tracepoints),
// interleaves the tasks in global time order over 2-8 cpus, formats every line
// the way the kernel does (function_graph with funcgraph-proc, -abstime, -cpu
// and a tracing_thresh below T; or the nop tracer), and writes beside it the
// exact stdout `allocwatch -i FILE -t Tus` must print. The expected output comes
// from the plan (which task, which call, which µs each line carries), never
// from re-reading the text, and nothing of allocwatch is linked in: this
// program checks allocwatch, so it must not share its code or its mistakes.
//
// The rule it applies is DESIGN.md's "binding rule" with the default profile's
// bindings and pairs (the tables below). Times are integer nanoseconds.
#include <algorithm>
#include <array>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <map>
#include <queue>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace {

using Nanos = std::int64_t;
constexpr Nanos kMicro = 1000;
constexpr Nanos kMilli = 1000 * kMicro;
constexpr Nanos kSecond = 1000 * kMilli;

// No planned call or pair lasts longer than this, so neither the generator
// nor allocwatch (10 s window) ever needs a line older than kHoldFor.
constexpr Nanos kLongestSpan = 2500 * kMilli;
constexpr Nanos kHoldFor = 5 * kSecond;
// allocwatch's defaults that the plan must stay clear of.
constexpr Nanos kWindow = 10 * kSecond;
constexpr std::size_t kMaxPendingPerTask = 4096;

[[noreturn]] void die(const std::string& message) {
  std::fprintf(stderr, "gentrace: %s\n", message.c_str());
  std::exit(2);
}

// xoshiro256**, seeded by splitmix64: the same seed gives the same trace on
// every machine and compiler (std:: distributions would not).
class Rng {
public:
  explicit Rng(std::uint64_t seed) {
    for (auto& word : state_) {
      seed += 0x9e3779b97f4a7c15ULL;
      std::uint64_t z = seed;
      z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
      z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
      word = z ^ (z >> 31);
    }
  }
  std::uint64_t next() {
    const std::uint64_t result = rotl(state_[1] * 5, 7) * 9;
    const std::uint64_t t = state_[1] << 17;
    state_[2] ^= state_[0];
    state_[3] ^= state_[1];
    state_[1] ^= state_[2];
    state_[0] ^= state_[3];
    state_[2] ^= t;
    state_[3] = rotl(state_[3], 45);
    return result;
  }
  // Uniform in [0, n); the modulo bias is far below anything a test sees.
  std::uint64_t below(std::uint64_t n) { return next() % n; }
  // Uniform in [lo, hi].
  std::int64_t range(std::int64_t lo, std::int64_t hi) {
    return lo + static_cast<std::int64_t>(below(static_cast<std::uint64_t>(hi - lo) + 1));
  }
  bool one_in(std::uint64_t n) { return below(n) == 0; }
  bool percent(std::uint64_t p) { return below(100) < p; }
  template <class T, std::size_t N> const T& pick(const T (&items)[N]) { return items[below(N)]; }

private:
  static std::uint64_t rotl(std::uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
  std::uint64_t state_[4];
};

// ---- text helpers (no printf per field: this writes 500 MB in seconds) ----

void put_uint(std::string& s, std::uint64_t v) {
  char digits[20];
  int n = 0;
  do {
    digits[n++] = static_cast<char>('0' + v % 10);
    v /= 10;
  } while (v != 0);
  while (n > 0)
    s.push_back(digits[--n]);
}

void put_int(std::string& s, std::int64_t v) {
  if (v < 0) {
    s.push_back('-');
    put_uint(s, static_cast<std::uint64_t>(-v));
  } else {
    put_uint(s, static_cast<std::uint64_t>(v));
  }
}

int digit_count(std::uint64_t v) {
  int n = 1;
  while (v >= 10) {
    v /= 10;
    ++n;
  }
  return n;
}

// printf("%*lu") with `pad` as the fill: right-aligned in `width`.
void put_uint_right(std::string& s, std::uint64_t v, int width, char pad) {
  for (int i = digit_count(v); i < width; ++i)
    s.push_back(pad);
  put_uint(s, v);
}

void put_hex(std::string& s, std::uint64_t v, int width) {
  static constexpr char kHex[] = "0123456789abcdef";
  char digits[16];
  int n = 0;
  do {
    digits[n++] = kHex[v & 15];
    v >>= 4;
  } while (v != 0);
  for (int i = n; i < width; ++i)
    s.push_back('0');
  while (n > 0)
    s.push_back(digits[--n]);
}

// "8.455000": milliseconds with six decimals, as allocwatch's format_ms.
std::string format_ms(Nanos ns) {
  std::string s;
  put_uint(s, static_cast<std::uint64_t>(ns / kMilli));
  s.push_back('.');
  put_uint_right(s, static_cast<std::uint64_t>(ns % kMilli), 6, '0');
  return s;
}

// ---- what the kernel traces ----

enum class Format : std::uint8_t { Graph, Events };

enum Ev : std::uint8_t {
  kDirectBegin,
  kDirectEnd,
  kMemcgBegin,
  kMemcgEnd,
  kSoftBegin,
  kSoftEnd,
  kNodeBegin,
  kNodeEnd,
  kLruInactive,
  kCompactBegin,
  kCompactEnd,
  kTryCompact,
  kSlabStart,
  kSlabEnd,
  // Enabled but bound to nothing: allocwatch must leave them alone.
  kKswapdWake,
  kKswapdSleep,
  kWakeupKswapd,
  kKcompactdWake,
  kKcompactdSleep,
  kCompactFinished,
  kIsolateMigrate,
  kMigratePages,
  kEvCount,
};

constexpr std::string_view kEventName[kEvCount] = {
    "mm_vmscan_direct_reclaim_begin",
    "mm_vmscan_direct_reclaim_end",
    "mm_vmscan_memcg_reclaim_begin",
    "mm_vmscan_memcg_reclaim_end",
    "mm_vmscan_memcg_softlimit_reclaim_begin",
    "mm_vmscan_memcg_softlimit_reclaim_end",
    "mm_vmscan_node_reclaim_begin",
    "mm_vmscan_node_reclaim_end",
    "mm_vmscan_lru_shrink_inactive",
    "mm_compaction_begin",
    "mm_compaction_end",
    "mm_compaction_try_to_compact_pages",
    "mm_shrink_slab_start",
    "mm_shrink_slab_end",
    "mm_vmscan_kswapd_wake",
    "mm_vmscan_kswapd_sleep",
    "mm_vmscan_wakeup_kswapd",
    "mm_compaction_kcompactd_wake",
    "mm_compaction_kcompactd_sleep",
    "mm_compaction_finished",
    "mm_compaction_isolate_migratepages",
    "mm_compaction_migratepages",
};

constexpr std::uint32_t bit(Ev e) {
  return 1U << e;
}

enum Fn : std::uint8_t {
  kAlloc,
  kTryToFreePages,
  kTryToFreeMemcg,
  kShrinkNode,
  kShrinkLruvec,
  kShrinkInactiveList,
  kTryToCompact,
  kCompactZone,
  // Traced by the default profile but bound to nothing: their returns print
  // alone when over the threshold.
  kShrinkSlab,
  kShrinkActiveList,
  kSoftLimitReclaim,
  kFnCount,
};

// Graph mode: the tracepoints each function's over-threshold return claims
// (configs/default.yaml's bindings). The allocator, shrink_node, shrink_slab,
// shrink_active_list and the soft limit reclaim claim none. A reclaim claims
// the LRU lines its inner calls were too quick to print.
constexpr std::uint32_t kBinding[kFnCount] = {
    0,
    bit(kDirectBegin) | bit(kDirectEnd) | bit(kLruInactive),
    bit(kMemcgBegin) | bit(kMemcgEnd) | bit(kLruInactive),
    0,
    bit(kLruInactive),
    bit(kLruInactive),
    bit(kTryCompact),
    bit(kCompactBegin) | bit(kCompactEnd),
    0,
    0,
    0,
};

// Spans made of a begin and an end tracepoint of the same task.
struct Pair {
  Ev begin;
  Ev end;
  std::uint32_t claims;
  bool shrinker; // matched by shrinker instance too; feeds the shrinker report
  bool in_graph; // also a span in graph mode (else events mode only)
};

constexpr Pair kPairs[] = {
    {kDirectBegin, kDirectEnd, bit(kLruInactive), false, false},
    {kMemcgBegin, kMemcgEnd, bit(kLruInactive), false, false},
    {kSoftBegin, kSoftEnd, bit(kLruInactive), false, false},
    {kNodeBegin, kNodeEnd, bit(kLruInactive), false, false},
    {kCompactBegin, kCompactEnd, 0, false, false},
    {kSlabStart, kSlabEnd, 0, true, true},
};
constexpr std::size_t kPairCount = std::size(kPairs);

constexpr std::uint32_t claimable(Format format) {
  std::uint32_t mask = 0;
  if (format == Format::Graph) {
    for (std::uint32_t m : kBinding)
      mask |= m;
  }
  for (const Pair& p : kPairs) {
    if (format == Format::Events || p.in_graph)
      mask |= p.claims;
  }
  return mask;
}

// The names one kernel generation gives the traced functions.
struct Era {
  std::string_view alloc;
  std::string_view lruvec;
  std::string_view soft_limit;
  bool inactive_list_traced; // shrink_inactive_list not yet inlined
  bool old_direct_begin;     // "order may_writepage gfp_flags classzone_idx" (< 5.2)
  std::string_view super_offset;
};

constexpr Era kEras[] = {
    {"__alloc_pages_nodemask", "shrink_node_memcg", "mem_cgroup_soft_limit_reclaim", true, true,
     "+0x0/0x1e0"},
    {"__alloc_pages", "shrink_lruvec", "mem_cgroup_soft_limit_reclaim", false, false, "+0x0/0x1f0"},
    {"__alloc_pages_noprof", "evict_folios", "mem_cgroup_soft_limit_reclaim", false, false,
     "+0x0/0x210"},
    {"__alloc_frozen_pages_noprof", "shrink_lruvec", "memcg1_soft_limit_reclaim", false, false,
     "+0x0/0x210"},
};

struct Shrinker {
  std::string symbol;   // "super_cache_scan"
  std::string instance; // "00000000ce7941b5"
  std::string text;     // "super_cache_scan+0x0/0x210 00000000ce7941b5"
};

struct World {
  Format format = Format::Graph;
  Nanos max_span = 0; // --max-span-us: 0, no limit
  bool no_span = false;
  Nanos threshold = 0;     // allocwatch's -t
  Nanos kernel_thresh = 0; // graph: the tracing_thresh the trace was "taken" with
  const Era* era = nullptr;
  int cpus = 2;
  std::vector<Shrinker> shrinkers;

  std::string_view fn_name(Fn fn) const {
    switch (fn) {
    case kAlloc:
      return era->alloc;
    case kTryToFreePages:
      return "try_to_free_pages";
    case kTryToFreeMemcg:
      return "try_to_free_mem_cgroup_pages";
    case kShrinkNode:
      return "shrink_node";
    case kShrinkLruvec:
      return era->lruvec;
    case kShrinkInactiveList:
      return "shrink_inactive_list";
    case kTryToCompact:
      return "try_to_compact_pages";
    case kCompactZone:
      return "compact_zone";
    case kShrinkSlab:
      return "shrink_slab";
    case kShrinkActiveList:
      return "shrink_active_list";
    case kSoftLimitReclaim:
      return era->soft_limit;
    case kFnCount:
      break;
    }
    return "?";
  }
};

// ---- the plan: one task's lines, in time order ----

enum class StepKind : std::uint8_t { Event, Return };

struct Step {
  Nanos ts;  // true time; the line shows it truncated to µs
  Nanos dur; // Return: true duration
  StepKind kind;
  std::uint8_t id; // Ev or Fn
  std::uint8_t depth;
  std::int16_t shrinker; // slab events: index into World::shrinkers
  bool lost;             // overwritten in the ring buffer: a LOST line stands in for it
};

// Builds one episode of a task: nested calls and the tracepoints inside them.
// Every call's duration is chosen around the threshold so that fast and slow
// calls, and calls exactly at the threshold, all occur, nested every way.
class Planner {
public:
  Planner(const World& world, Rng& rng, std::vector<Step>& steps, Nanos now)
      : world_(world), rng_(rng), steps_(steps), now_(now) {}

  Nanos now() const { return now_; }
  bool graph() const { return world_.format == Format::Graph; }

  void at_event(Ev e, int shrinker = -1, bool lost = false) {
    for (const Pair& p : kPairs)
      if (e == p.begin)
        hurry_ = false;
    steps_.push_back(
        Step{now_, 0, StepKind::Event, e, depth_, static_cast<std::int16_t>(shrinker), lost});
  }
  void event(Ev e) {
    at_event(e);
    breathe();
  }
  void pause(Nanos d) { now_ += std::max<Nanos>(d, 0); }
  // The few hundred ns the kernel spends between two traced things.
  // Hurried, it is a few tens, until the next pair begins.
  void breathe() { now_ += hurry_ ? rng_.range(50, 400) : rng_.range(150, 3000); }

  // A traced call lasting `dur` unless its body runs longer. The kernel
  // prints its return only when it took at least its tracing_thresh.
  template <class Body> void call(Fn fn, Nanos dur, Body&& body) {
    const Nanos start = now_;
    now_ += hurry_ ? rng_.range(20, 200) : rng_.range(100, 900);
    ++depth_;
    body(dur);
    --depth_;
    const Nanos end = std::max(start + dur, now_ + rng_.range(50, 500));
    now_ = end;
    // A return is stamped when its event is written, after the duration was
    // taken: a little later, and on a busy machine much later (up to 18 us
    // seen in a TCG guest). The duration printed is then short of the stamp
    // minus the call's start: the call seems to start after lines of its own
    // and after calls nested in it began.
    const Nanos late =
        rng_.one_in(16) ? std::min(rng_.range(1, 20) * kMicro, (end - start) / 2) : 0;
    if (graph() && end - start - late >= world_.kernel_thresh)
      steps_.push_back(Step{end, end - start - late, StepKind::Return, fn, depth_, -1, false});
    breathe();
  }

  // A begin/end tracepoint pair around `body`, lasting `dur` unless the body
  // runs longer: the pair's span in events mode.
  template <class Body> void bracket(Ev begin, Ev end, Nanos dur, Body&& body) {
    const Nanos start = now_;
    at_event(begin);
    breathe();
    body(dur);
    now_ = std::max(start + dur, now_ + rng_.range(100, 800));
    at_event(end);
    breathe();
  }

  // A duration around the threshold: clearly below, just below, exactly at
  // (±1 ns, ±1 µs), above, far above.
  Nanos around_threshold() {
    if (world_.max_span > 0)
      return std::clamp<Nanos>(rng_.range(1, world_.max_span / 8), 2 * kMicro, world_.max_span / 8);
    const Nanos t = world_.threshold;
    Nanos d;
    switch (rng_.below(20)) {
    case 0:
    case 1:
    case 2:
    case 3:
    case 4:
    case 5:
      d = t * rng_.range(5, 60) / 100;
      break;
    case 6:
    case 7:
      d = t * rng_.range(60, 99) / 100;
      break;
    case 8: {
      static constexpr Nanos kEdges[] = {-kMicro, -1, 0, 0, 1, kMicro};
      d = t + rng_.pick(kEdges);
      break;
    }
    case 16:
    case 17:
    case 18:
      d = t * rng_.range(4, 40);
      break;
    case 19:
      // Now and then a real stall, whatever the threshold: the '@' and '$'
      // marks and 6 and 7 digit durations.
      d = rng_.one_in(8) ? rng_.range(100 * kMilli, kLongestSpan * 2 / 5) : t * rng_.range(40, 400);
      break;
    default:
      d = t * rng_.range(100, 400) / 100;
      break;
    }
    return std::clamp<Nanos>(d, 2 * kMicro, kLongestSpan * 2 / 5);
  }

  // A child's share of its parent's budget, now and then a duration around
  // the threshold instead, if that fits: children never outgrow their parent
  // by more than the few µs between calls, so no call exceeds kLongestSpan.
  Nanos share(Nanos budget, int percent) {
    const Nanos part = budget * percent / 100;
    if (rng_.one_in(12))
      return std::min(around_threshold(), part);
    return std::max<Nanos>(part - rng_.range(0, 999), 500);
  }

  // ---- the kernel paths ----

  void lru_scan(Nanos budget) {
    call(kShrinkLruvec, budget, [&](Nanos b) {
      if (rng_.percent(20))
        call(kShrinkActiveList, share(b, 20), [&](Nanos b2) { pause(b2 / 2); });
      if (world_.era->inactive_list_traced && rng_.percent(80)) {
        call(kShrinkInactiveList, share(b, 70), [&](Nanos b2) {
          pause(b2 * 8 / 10);
          event(kLruInactive);
        });
      } else {
        const int scans = rng_.percent(80) ? 1 : 2; // MGLRU may evict twice
        for (int i = 0; i < scans; ++i) {
          pause(b * 7 / 10 / scans);
          event(kLruInactive);
        }
      }
    });
  }

  // shrink_slab: every registered shrinker in list order, one start/end pair
  // each; most are instant, one carries the cost. Rarely the ring buffer
  // overwrites an end (the next start then replaces the open one), or an end
  // and the next start (the next end then names another instance).
  void slab_scan(Nanos budget) {
    call(kShrinkSlab, budget, [&](Nanos b) { shrinkers(b * 9 / 10); });
  }

  void shrinkers(Nanos budget) {
    const auto& list = world_.shrinkers;
    const std::size_t heavy = rng_.below(list.size());
    const std::uint64_t loss = rng_.below(60);
    const std::size_t lossy = rng_.below(list.size());
    for (std::size_t i = 0; i < list.size(); ++i) {
      if (rng_.percent(15))
        continue; // not memcg aware, or nothing to scan
      const int s = static_cast<int>(i);
      const bool lose_start = loss == 1 && i == lossy + 1;
      at_event(kSlabStart, s, lose_start);
      // --max-span-us: every shrinker quick, so that no shrink_slab runs long.
      Nanos d = world_.max_span > 0 ? rng_.range(0, 500) : rng_.range(0, 4 * kMicro);
      if (i == heavy)
        d = budget * rng_.range(30, 90) / 100;
      else if (world_.max_span == 0 && rng_.one_in(25))
        d = world_.threshold + rng_.pick(kSlabEdges);
      pause(d);
      at_event(kSlabEnd, s, (loss == 0 || loss == 1) && i == lossy);
      pause(world_.max_span > 0 ? rng_.range(50, 300) : rng_.range(300, 4000));
    }
  }

  void shrink_node(Nanos budget) {
    call(kShrinkNode, budget, [&](Nanos b) {
      const int lruvecs = static_cast<int>(rng_.range(1, 2));
      for (int i = 0; i < lruvecs; ++i)
        lru_scan(share(b, 45 / lruvecs));
      slab_scan(b * 4 / 10);
    });
  }

  // The memcg soft limit reclaim (cgroup v1) that kswapd and
  // do_try_to_free_pages run before the node scan.
  void soft_limit_reclaim(Nanos budget) {
    call(kSoftLimitReclaim, budget, [&](Nanos b) {
      bracket(kSoftBegin, kSoftEnd, b * 9 / 10, [&](Nanos b2) {
        const int scans = static_cast<int>(rng_.range(1, 2));
        for (int i = 0; i < scans; ++i) {
          pause(b2 / 3);
          event(kLruInactive);
        }
      });
    });
  }

  void direct_reclaim(Nanos budget) {
    call(kTryToFreePages, budget, [&](Nanos b) {
      bracket(kDirectBegin, kDirectEnd, b * 9 / 10, [&](Nanos b2) {
        if (rng_.percent(25))
          soft_limit_reclaim(share(b2, 30));
        const int rounds = static_cast<int>(rng_.range(1, 3));
        for (int i = 0; i < rounds; ++i)
          shrink_node(share(b2, 70 / rounds));
      });
    });
  }

  void compact_zone(Nanos budget) {
    call(kCompactZone, budget, [&](Nanos b) {
      bracket(kCompactBegin, kCompactEnd, b * 8 / 10, [&](Nanos b2) {
        const int rounds = static_cast<int>(rng_.range(0, 3));
        for (int i = 0; i < rounds; ++i) {
          pause(b2 / 5);
          event(kIsolateMigrate);
          event(kCompactFinished);
          if (rng_.percent(40))
            event(kMigratePages);
        }
      });
    });
  }

  void try_to_compact(Nanos budget) {
    call(kTryToCompact, budget, [&](Nanos b) {
      event(kTryCompact);
      const int zones = static_cast<int>(rng_.range(1, 2));
      for (int i = 0; i < zones; ++i)
        compact_zone(share(b, 80 / zones));
    });
  }

  // Node reclaim (node_reclaim_mode) on the allocator's fast path. It ends
  // now and then on its LRU scan, so that a direct reclaim right after it
  // starts within 1 µs of that scan: the sibling the slack lets it claim.
  // Returns whether it ended on that scan.
  bool node_reclaim(Nanos budget) {
    const bool scan_last = rng_.percent(50);
    bracket(kNodeBegin, kNodeEnd, budget, [&](Nanos b) {
      if (scan_last) {
        pause(b);
        hurry_ = true;
        event(kLruInactive);
      } else {
        shrink_node(share(b, 80));
      }
    });
    return scan_last;
  }

  // An allocation that may try node reclaim, then reclaim and compact.
  void allocation(bool reclaim, bool compact) {
    const bool slow = reclaim || compact;
    const Nanos total = slow ? around_threshold() * 2 : around_threshold() / 3;
    call(kAlloc, total, [&](Nanos b) {
      const bool scan_last = rng_.percent(20) && node_reclaim(share(b, slow ? 15 : 80));
      // kswapd already awake: nothing stands between the two reclaims.
      if (slow && !(scan_last && rng_.percent(70))) {
        event(kWakeupKswapd);
        if (rng_.percent(50))
          pause(b / 40);
      }
      if (reclaim)
        direct_reclaim(share(b, compact ? 60 : 80));
      if (compact)
        try_to_compact(share(b, reclaim ? 20 : 80));
    });
  }

  void memcg_charge() {
    call(kTryToFreeMemcg, around_threshold(), [&](Nanos b) {
      bracket(kMemcgBegin, kMemcgEnd, b * 9 / 10, [&](Nanos b2) {
        const int rounds = static_cast<int>(rng_.range(1, 2));
        for (int i = 0; i < rounds; ++i)
          shrink_node(share(b2, 80 / rounds));
      });
    });
  }

  void kswapd() {
    event(kKswapdWake);
    if (rng_.percent(30))
      soft_limit_reclaim(around_threshold());
    const int nodes = static_cast<int>(rng_.range(1, 3));
    for (int i = 0; i < nodes; ++i)
      shrink_node(around_threshold());
    event(kKswapdSleep);
  }

  void kcompactd() {
    event(kKcompactdWake);
    const int zones = static_cast<int>(rng_.range(1, 3));
    for (int i = 0; i < zones; ++i)
      compact_zone(around_threshold());
    event(kKcompactdSleep);
  }

  // `echo 2 > drop_caches` runs every shrinker from the shell, outside any
  // reclaim call; `echo 1 > compact_memory` compacts every zone.
  void drop_caches() {
    const int passes = static_cast<int>(rng_.range(1, 3));
    for (int i = 0; i < passes; ++i)
      slab_scan(around_threshold());
  }
  // --no-span: tracepoints a span would claim, and never a span.
  void unbounded_events() {
    for (int i = 0; i < 1000; ++i)
      event(rng_.percent(80) ? kLruInactive : kTryCompact);
  }

  void compact_memory() {
    const int zones = static_cast<int>(rng_.range(1, 3));
    for (int i = 0; i < zones; ++i)
      compact_zone(around_threshold());
  }

private:
  static constexpr Nanos kSlabEdges[] = {-1, 0, 0, kMicro - 1, kMicro, -kMicro};

  const World& world_;
  Rng& rng_;
  std::vector<Step>& steps_;
  Nanos now_;
  std::uint8_t depth_ = 0;
  bool hurry_ = false;
};

// ---- the truth: DESIGN.md's binding rule over the plan ----

// Tasks are pids, except pid 0: one idle task per cpu.
std::uint64_t task_key(int pid, int cpu) {
  return pid == 0 ? (1ULL << 32) | static_cast<std::uint32_t>(cpu)
                  : static_cast<std::uint64_t>(pid);
}

class Oracle {
public:
  Oracle(const World& world, std::string& expected) : world_(world), expected_(expected) {
    claimable_ = claimable(world.format);
    stats_.resize(world.shrinkers.size());
  }

  void lost(std::string_view line) { emit(line); }

  void event(std::uint64_t key, Nanos ts, Ev ev, int shrinker, std::string_view line) {
    TaskState& t = tasks_[key];
    note_pending(t, ts);
    for (std::size_t i = 0; i < kPairCount; ++i) {
      const Pair& p = kPairs[i];
      if (world_.format == Format::Graph && !p.in_graph)
        continue;
      Open& open = t.open[i];
      if (ev == p.begin) {
        open.is_open = true;
        open.ts = ts;
        open.shrinker = shrinker;
        open.line.assign(line);
      } else if (ev == p.end && open.is_open && (!p.shrinker || open.shrinker == shrinker)) {
        close_pair(t, p, open, ts, line);
      }
    }
    if ((claimable_ & bit(ev)) && !world_.no_span) // --no-span: nothing can claim it
      t.held.push_back(Held{ts, ev, false, std::string(line)});
  }

  void function_return(std::uint64_t key, Nanos ts, Fn fn, Nanos duration, std::string_view line) {
    if (duration > kLongestSpan)
      die("internal: a planned call is longer than kLongestSpan");
    if (duration < world_.threshold)
      return;
    TaskState& t = tasks_[key];
    const Nanos start = ts - duration;
    claim(t, kBinding[fn], start - kMicro, ts);
    emit(line);
    ++incidents_;
  }

  // A task's next episode begins at `ts`: its calls begin then or later, so
  // of the lines before, only an open begin (whose end was lost) can claim
  // any. Letting the others go keeps dense traces of many tasks small here.
  void episode_start(std::uint64_t key, Nanos ts) {
    const auto it = tasks_.find(key);
    if (it == tasks_.end())
      return;
    TaskState& t = it->second;
    Nanos keep_from = ts - 3 * kMicro; // truncation and the slack, with room
    for (const Open& open : t.open)
      if (open.is_open)
        keep_from = std::min(keep_from, open.ts - kMicro);
    while (!t.held.empty() && t.held.front().ts < keep_from)
      t.held.pop_front();
  }

  // An end that would pair with a begin so old that allocwatch's window may
  // have let it go: the trace drops it (as if lost) to keep the truth exact.
  bool closes_stale_pair(std::uint64_t key, Nanos ts, Ev ev, int shrinker) const {
    const auto it = tasks_.find(key);
    if (it == tasks_.end())
      return false;
    for (std::size_t i = 0; i < kPairCount; ++i) {
      const Pair& p = kPairs[i];
      const Open& open = it->second.open[i];
      if ((world_.format == Format::Events || p.in_graph) && ev == p.end && open.is_open &&
          (!p.shrinker || open.shrinker == shrinker) && ts - open.ts > kLongestSpan)
        return true;
    }
    return false;
  }

  // The shrinker report: per symbol, then per instance of shared symbols.
  void finish() {
    struct Total {
      Nanos total = 0;
      Nanos max = 0;
      std::vector<std::size_t> instances;
    };
    std::map<std::string, Total> symbols;
    for (std::size_t i = 0; i < stats_.size(); ++i) {
      if (stats_[i].calls == 0)
        continue;
      Total& sym = symbols[world_.shrinkers[i].symbol];
      sym.total += stats_[i].total;
      sym.max = std::max(sym.max, stats_[i].max);
      sym.instances.push_back(i);
    }
    std::vector<const std::pair<const std::string, Total>*> order;
    for (const auto& entry : symbols)
      order.push_back(&entry);
    std::stable_sort(order.begin(), order.end(),
                     [](auto* a, auto* b) { return a->second.total > b->second.total; });
    for (const auto* sym : order) {
      emit(sym->first + " : total time = " + format_ms(sym->second.total) +
           " ms, max latency = " + format_ms(sym->second.max) + " ms");
    }
    for (const auto* sym : order) {
      std::vector<std::size_t> inst = sym->second.instances;
      if (inst.size() < 2)
        continue;
      std::sort(inst.begin(), inst.end(), [&](std::size_t a, std::size_t b) {
        if (stats_[a].total != stats_[b].total)
          return stats_[a].total > stats_[b].total;
        return world_.shrinkers[a].instance < world_.shrinkers[b].instance;
      });
      for (std::size_t i : inst) {
        emit(sym->first + "[" + world_.shrinkers[i].instance + "] : total time = " +
             format_ms(stats_[i].total) + " ms, max latency = " + format_ms(stats_[i].max) +
             " ms, calls = " + std::to_string(stats_[i].calls));
      }
    }
  }

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
  void note_pending(TaskState& t, Nanos ts) {
    while (!t.held.empty() && t.held.front().ts < ts - kHoldFor)
      t.held.pop_front();
    while (!t.recent.empty() && t.recent.front() < ts - kWindow)
      t.recent.pop_front();
    t.recent.push_back(ts);
    max_pending_ = std::max(max_pending_, t.recent.size());
  }

  void claim(TaskState& t, std::uint32_t mask, Nanos from, Nanos to) {
    auto it = std::lower_bound(t.held.begin(), t.held.end(), from,
                               [](const Held& h, Nanos ts) { return h.ts < ts; });
    for (; it != t.held.end() && it->ts <= to; ++it) {
      if (it->printed || !(mask & bit(it->ev)))
        continue;
      it->printed = true;
      emit(it->line);
      ++claimed_;
      if (it->ts < from + kMicro)
        ++claimed_by_slack_;
    }
  }

  void close_pair(TaskState& t, const Pair& p, Open& open, Nanos end, std::string_view line) {
    open.is_open = false;
    ++pairs_closed_;
    const Nanos duration = end - open.ts;
    if (duration > kLongestSpan)
      die("internal: a pair longer than kLongestSpan was let through");
    if (p.shrinker) {
      ShrinkerTotal& s = stats_[static_cast<std::size_t>(open.shrinker)];
      s.total += duration;
      s.max = std::max(s.max, duration);
      ++s.calls;
    }
    if (duration < world_.threshold)
      return;
    emit(open.line);
    claim(t, p.claims, open.ts - kMicro, end);
    emit(line);
    ++incidents_;
  }

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

// ---- formatting, as kernel/trace/trace_functions_graph.c and trace_output.c ----

// What `%lu.%03lu us` shows after dropping decimals to keep 7 digits.
Nanos shown_duration(Nanos d) {
  const Nanos us = d / kMicro;
  switch (digit_count(static_cast<std::uint64_t>(us))) {
  case 1:
  case 2:
  case 3:
  case 4:
    return d;
  case 5:
    return d / 10 * 10;
  case 6:
    return d / 100 * 100;
  default:
    return us * kMicro;
  }
}

char duration_mark(Nanos d) {
  if (d > kSecond)
    return '$';
  if (d > 100 * kMilli)
    return '@';
  if (d > 10 * kMilli)
    return '*';
  if (d > kMilli)
    return '#';
  if (d > 100 * kMicro)
    return '!';
  if (d > 10 * kMicro)
    return '+';
  return ' ';
}

// trace_print_graph_duration: "431.377 us  ", always 12 columns.
void put_graph_duration(std::string& s, Nanos d) {
  const std::uint64_t us = static_cast<std::uint64_t>(d / kMicro);
  const std::uint64_t ns = static_cast<std::uint64_t>(d % kMicro);
  const std::size_t begin = s.size();
  put_uint(s, us);
  const int len = digit_count(us);
  if (len < 7) {
    s.push_back('.');
    const int decimals = std::min(3, 7 - len);
    std::string three;
    put_uint_right(three, ns, 3, '0');
    s.append(three, 0, static_cast<std::size_t>(decimals));
  }
  const std::size_t width = s.size() - begin;
  s.append(" us ");
  for (std::size_t i = width; i < 8; ++i)
    s.push_back(' ');
}

void put_abstime(std::string& s, Nanos ts) {
  put_uint_right(s, static_cast<std::uint64_t>(ts / kSecond), 5, ' ');
  s.push_back('.');
  put_uint_right(s, static_cast<std::uint64_t>(ts % kSecond / kMicro), 6, '0');
}

// print_graph_proc: "comm-pid" centred in 14 columns.
void put_graph_proc(std::string& s, std::string_view comm, int pid) {
  const int len = static_cast<int>(comm.size()) + digit_count(static_cast<std::uint64_t>(pid)) + 1;
  const int spaces = len < 14 ? 14 - len : 0;
  s.append(static_cast<std::size_t>(spaces / 2), ' ');
  s.append(comm);
  s.push_back('-');
  put_uint(s, static_cast<std::uint64_t>(pid));
  s.append(static_cast<std::size_t>(spaces - spaces / 2), ' ');
}

void put_graph_prefix(std::string& s, Nanos ts, int cpu, std::string_view comm, int pid) {
  put_abstime(s, ts);
  s.append(" |   ");
  put_uint(s, static_cast<std::uint64_t>(cpu));
  s.append(") ");
  put_graph_proc(s, comm, pid);
  s.append(" | ");
}

// "%16s-%-7d [%03d] flags %5lu.%06lu: "
void put_event_prefix(std::string& s, Nanos ts, int cpu, std::string_view comm, int pid,
                      std::string_view flags) {
  if (comm.size() < 16)
    s.append(16 - comm.size(), ' ');
  s.append(comm);
  s.push_back('-');
  put_int(s, pid);
  for (int i = digit_count(static_cast<std::uint64_t>(pid < 0 ? -pid : pid)) + (pid < 0); i < 7;
       ++i)
    s.push_back(' ');
  s.append(" [");
  put_uint_right(s, static_cast<std::uint64_t>(cpu), 3, '0');
  s.append("] ");
  s.append(flags);
  s.push_back(' ');
  put_abstime(s, ts);
  s.append(": ");
}

constexpr std::string_view kGfp[] = {
    "GFP_KERNEL",
    "GFP_HIGHUSER_MOVABLE|__GFP_COMP|__GFP_ZERO",
    "GFP_NOFS|__GFP_NOWARN|__GFP_NORETRY|__GFP_NOMEMALLOC",
    "GFP_KERNEL_ACCOUNT|__GFP_ZERO",
    "GFP_TRANSHUGE|__GFP_NORETRY|__GFP_THISNODE",
    "GFP_NOIO",
};

// The fields each TP_printk prints, numbers varied.
void put_fields(std::string& s, Ev ev, int shrinker, const World& w, Rng& rng) {
  switch (ev) {
  case kDirectBegin:
  case kMemcgBegin:
  case kSoftBegin:
    s.append("order=");
    put_uint(s, rng.percent(80) ? 0 : static_cast<std::uint64_t>(rng.range(1, 9)));
    if (w.era->old_direct_begin && ev == kDirectBegin) {
      s.append(" may_writepage=1 gfp_flags=");
      s.append(rng.pick(kGfp));
      s.append(" classzone_idx=");
      put_uint(s, static_cast<std::uint64_t>(rng.range(0, 3)));
    } else {
      s.append(" gfp_flags=");
      s.append(rng.pick(kGfp));
    }
    return;
  case kDirectEnd:
  case kMemcgEnd:
  case kSoftEnd:
  case kNodeEnd:
    s.append("nr_reclaimed=");
    put_uint(s, static_cast<std::uint64_t>(rng.range(0, 200)));
    return;
  case kNodeBegin:
    s.append("nid=");
    put_uint(s, static_cast<std::uint64_t>(rng.range(0, 1)));
    s.append(" order=0 gfp_flags=");
    s.append(rng.pick(kGfp));
    return;
  case kLruInactive: {
    const std::uint64_t scanned = static_cast<std::uint64_t>(rng.range(1, 50000));
    s.append("nid=0 nr_scanned=");
    put_uint(s, scanned);
    s.append(" nr_reclaimed=");
    put_uint(s, scanned - rng.below(scanned));
    s.append(" nr_dirty=0 nr_writeback=0 nr_congested=0 nr_immediate=0 nr_activate_anon=0 "
             "nr_activate_file=");
    put_uint(s, rng.below(8));
    s.append(" nr_ref_keep=0 nr_unmap_fail=0 priority=");
    put_uint(s, static_cast<std::uint64_t>(rng.range(0, 12)));
    s.append(" flags=RECLAIM_WB_FILE|RECLAIM_WB_ASYNC");
    return;
  }
  case kCompactBegin:
  case kCompactEnd: {
    const std::uint64_t start = rng.percent(30) ? 0x1 : 0x1000;
    s.append("zone_start=0x");
    put_hex(s, start, 1);
    s.append(" migrate_pfn=0x");
    put_hex(s, start + rng.below(0x3000), 1);
    s.append(" free_pfn=0x");
    put_hex(s, 0xd800 + rng.below(0xa000), 1);
    s.append(" zone_end=0x17fda, mode=");
    s.append(rng.percent(50) ? "async" : "sync");
    if (ev == kCompactEnd) {
      static constexpr std::string_view kStatus[] = {"complete", "partial_skipped", "success",
                                                     "contended"};
      s.append(" status=");
      s.append(rng.pick(kStatus));
    }
    return;
  }
  case kTryCompact:
    s.append("order=9 gfp_mask=");
    s.append(rng.percent(50) ? "GFP_TRANSHUGE|__GFP_NORETRY|__GFP_THISNODE" : "GFP_TRANSHUGE");
    s.append(" priority=");
    put_uint(s, static_cast<std::uint64_t>(rng.range(0, 2)));
    return;
  case kSlabStart:
    s.append(w.shrinkers[static_cast<std::size_t>(shrinker)].text);
    s.append(": nid: 0 objects to shrink ");
    put_uint(s, rng.below(1000));
    s.append(" gfp_flags ");
    s.append(rng.pick(kGfp));
    s.append(" cache items ");
    put_uint(s, rng.below(20000));
    s.append(" delta ");
    put_uint(s, rng.below(10000));
    s.append(" total_scan ");
    put_uint(s, rng.below(10000));
    s.append(" priority ");
    put_uint(s, static_cast<std::uint64_t>(rng.range(0, 12)));
    return;
  case kSlabEnd:
    s.append(w.shrinkers[static_cast<std::size_t>(shrinker)].text);
    s.append(": nid: 0 unused scan count ");
    put_uint(s, rng.below(1000));
    s.append(" new scan count ");
    put_uint(s, rng.below(1000));
    s.append(" total_scan ");
    put_uint(s, rng.below(1000));
    s.append(" last shrinker return val ");
    put_uint(s, rng.below(7000));
    return;
  case kKswapdWake:
    s.append("nid=0 order=");
    put_uint(s, rng.below(4));
    return;
  case kKswapdSleep:
  case kKcompactdSleep:
    s.append("nid=0");
    return;
  case kWakeupKswapd:
    s.append("nid=0 order=");
    put_uint(s, rng.below(10));
    s.append(" gfp_flags=");
    s.append(rng.pick(kGfp));
    return;
  case kKcompactdWake:
    s.append("nid=0 order=-1 highest_zoneidx=Normal");
    return;
  case kCompactFinished:
    s.append("node=0 zone=Normal   order=-1 ret=continue");
    return;
  case kIsolateMigrate: {
    const std::uint64_t from = 0x1000 + rng.below(0x10000);
    s.append("range=(0x");
    put_hex(s, from, 1);
    s.append(" ~ 0x");
    put_hex(s, from + 0x200, 1);
    s.append(") nr_scanned=");
    put_uint(s, rng.below(512));
    s.append(" nr_taken=");
    put_uint(s, rng.below(32));
    return;
  }
  case kMigratePages:
    s.append("nr_migrated=");
    put_uint(s, rng.below(512));
    s.append(" nr_failed=0");
    return;
  case kEvCount:
    break;
  }
}

// ---- tasks and the interleaving ----

enum class Role : std::uint8_t { User, Kswapd, Kcompactd, Idle, Shell, NoSpan };

struct Task {
  int pid;
  int cpu;
  Role role;
  std::string comm;  // as the nop tracer prints it (up to 15 characters)
  std::string gcomm; // as function_graph prints it: cut to 7, or "<...>"
  std::vector<Step> steps;
  std::size_t next = 0;
  Nanos cut = -1; // lines before this time precede the trace (it began mid-call)
};

struct Options {
  Format format = Format::Graph;
  std::uint64_t seed = 1;
  std::uint64_t bytes = 0;
  std::uint64_t calls = 0;
  Nanos threshold = 0;
  std::string trace_path;
  std::string expected_path;
  int tasks = 0; // user tasks; 0: 6-18
  int cpus = 0;  // 0: 2-8
  bool dense = false;
  Nanos max_span = 0;
  bool no_span = false;
};

class Generator {
public:
  explicit Generator(const Options& opt) : opt_(opt), rng_(opt.seed), text_rng_(opt.seed ^ 0x5eed) {
    world_.format = opt.format;
    world_.threshold = opt.threshold;
    // As if the trace was taken at a lower tracing_thresh than allocwatch's
    // threshold: returns between the two are in it and must not print.
    world_.kernel_thresh = std::max<Nanos>(kMicro, opt.threshold * rng_.range(25, 70) / 100);
    world_.era = &rng_.pick(kEras);
    world_.cpus = opt.cpus > 0 ? opt.cpus : static_cast<int>(rng_.range(2, 8));
    world_.max_span = opt.max_span;
    world_.no_span = opt.no_span;
    lost_run_.resize(static_cast<std::size_t>(world_.cpus));
    lost_pending_.resize(static_cast<std::size_t>(world_.cpus));
    last_on_cpu_.resize(static_cast<std::size_t>(world_.cpus));
    make_shrinkers();
    make_tasks();
  }

  void run(std::FILE* trace, std::FILE* expected_file) {
    std::string expected;
    Oracle oracle(world_, expected);
    oracle_ = &oracle;
    trace_ = trace;
    buf_.reserve(kFlushAt + 4096);
    if (rng_.percent(50))
      header();
    using Item = std::pair<Nanos, std::size_t>;
    std::priority_queue<Item, std::vector<Item>, std::greater<>> ready;
    for (std::size_t i = 0; i < tasks_.size(); ++i) {
      Task& t = tasks_[i];
      plan(t, clock_start_ + rng_.range(0, 20 * kMilli));
      if (rng_.percent(50) && !t.steps.empty())
        t.cut = rng_.range(t.steps.front().ts, t.steps.back().ts);
      if (!t.steps.empty())
        ready.emplace(t.steps.front().ts, i);
    }
    while (!ready.empty() && !full()) {
      const std::size_t i = ready.top().second;
      ready.pop();
      Task& t = tasks_[i];
      if (t.next == 0)
        oracle.episode_start(task_key(t.pid, t.cpu), t.steps.front().ts);
      emit(t, t.steps[t.next++]);
      if (t.next == t.steps.size() && !full())
        plan(t, t.steps.back().ts + gap(t.steps.size()));
      if (t.next < t.steps.size())
        ready.emplace(t.steps[t.next].ts, i);
      if (expected.size() > kFlushAt) {
        write(expected_file, expected);
        expected.clear();
      }
    }
    if (rng_.percent(50))
      torn_tail();
    oracle.finish();
    write(trace_, buf_);
    write(expected_file, expected);
    std::fprintf(stderr,
                 "gentrace: %s seed %llu, %d cpus, %zu tasks, era %.*s, tracing_thresh %lld ns: "
                 "%llu lines, %llu bytes, %llu episodes, %llu incidents, %llu lines claimed "
                 "(%llu by the 1 us slack), %llu pairs closed, %llu lost, %llu malformed, "
                 "max %zu events per task in 10 s\n",
                 opt_.format == Format::Graph ? "graph" : "events",
                 static_cast<unsigned long long>(opt_.seed), world_.cpus, tasks_.size(),
                 static_cast<int>(world_.era->alloc.size()), world_.era->alloc.data(),
                 static_cast<long long>(world_.kernel_thresh),
                 static_cast<unsigned long long>(lines_), static_cast<unsigned long long>(written_),
                 static_cast<unsigned long long>(episodes_),
                 static_cast<unsigned long long>(oracle.incidents()),
                 static_cast<unsigned long long>(oracle.claimed()),
                 static_cast<unsigned long long>(oracle.claimed_by_slack()),
                 static_cast<unsigned long long>(oracle.pairs_closed()),
                 static_cast<unsigned long long>(lost_lines_),
                 static_cast<unsigned long long>(malformed_), oracle.max_pending());
    if (oracle.max_pending() >= kMaxPendingPerTask)
      std::fprintf(stderr, "gentrace: warning: a task exceeds allocwatch's per-task cap\n");
  }

private:
  static constexpr std::size_t kFlushAt = 1 << 22;

  void make_shrinkers() {
    // %p hashes pointers (8 zeros, then 32 random bits) unless the kernel
    // booted with no_hash_pointers.
    const std::string_view high = rng_.percent(85) ? "00000000" : "ffff8881";
    const auto instance = [&] {
      std::string s(high);
      put_hex(s, rng_.next() & 0xffffffffULL, 8);
      return s;
    };
    const auto add = [&](std::string_view symbol, std::string_view offset, int count) {
      for (int i = 0; i < count; ++i) {
        Shrinker sh;
        sh.symbol = symbol;
        sh.instance = instance();
        sh.text = sh.symbol + std::string(offset) + " " + sh.instance;
        world_.shrinkers.push_back(std::move(sh));
      }
    };
    add("kfree_rcu_shrink_scan", "+0x0/0x120", 1);
    add("super_cache_scan", world_.era->super_offset, static_cast<int>(rng_.range(2, 6)));
    add("scan_shadow_nodes", "+0x0/0x30", 1);
    add("ext4_es_scan", "+0x0/0x3d0", static_cast<int>(rng_.range(1, 2)));
    if (rng_.percent(60))
      add("deferred_split_scan", "+0x0/0x2a0", 1);
    if (rng_.percent(40))
      add("xfs_buftarg_shrink_scan", "+0x0/0x90", 1);
    // Instances are unique; a clash of 32 random bits is possible in theory.
    for (std::size_t i = 0; i < world_.shrinkers.size(); ++i)
      for (std::size_t j = 0; j < i; ++j)
        if (world_.shrinkers[i].instance == world_.shrinkers[j].instance)
          world_.shrinkers[i].instance.back() ^= 1;
    for (Shrinker& sh : world_.shrinkers) {
      const std::size_t space = sh.text.rfind(' ');
      sh.text = sh.text.substr(0, space + 1) + sh.instance;
    }
  }

  void make_tasks() {
    static constexpr std::string_view kUserComms[] = {"dd",
                                                      "memhog",
                                                      "cc1plus",
                                                      "Web Content",
                                                      "kworker/u16:3",
                                                      "gnome-shell",
                                                      "my app-2",
                                                      "java.exe",
                                                      "Chrome_ChildIOT",
                                                      "systemd-journal",
                                                      "a b-c.d/e",
                                                      "python3.11",
                                                      "rs:main Q:Reg",
                                                      "cat",
                                                      "postgres",
                                                      "x",
                                                      "node-v18.2",
                                                      "Isolated Web Co"};
    std::vector<int> used;
    const auto fresh_pid = [&](int lo, int hi) {
      for (;;) {
        const int pid = static_cast<int>(rng_.range(lo, hi));
        if (std::find(used.begin(), used.end(), pid) == used.end()) {
          used.push_back(pid);
          return pid;
        }
      }
    };
    const auto add = [&](Role role, std::string comm, int pid, int cpu) {
      Task t;
      t.pid = pid;
      t.cpu = cpu;
      t.role = role;
      t.comm = std::move(comm);
      t.gcomm = t.comm.substr(0, 7);
      if (pid != 0 && rng_.one_in(15))
        t.gcomm = "<...>"; // the comm was not saved
      tasks_.push_back(std::move(t));
    };
    if (opt_.no_span) {
      add(Role::NoSpan, "memhog", fresh_pid(100, 99999), cpu());
      clock_start_ = static_cast<Nanos>(rng_.pick(kUptimes)) * kSecond + rng_.range(0, kSecond);
      return;
    }
    const int nodes = static_cast<int>(rng_.range(1, 2));
    for (int n = 0; n < nodes; ++n) {
      add(Role::Kswapd, "kswapd" + std::to_string(n), fresh_pid(30, 99), cpu());
      add(Role::Kcompactd, "kcompactd" + std::to_string(n), fresh_pid(30, 99), cpu());
    }
    add(Role::Shell, "bash", fresh_pid(100, 9999), cpu());
    const int users = opt_.tasks > 0 ? opt_.tasks : static_cast<int>(rng_.range(6, 18));
    for (int i = 0; i < users; ++i) {
      const int pid = rng_.percent(20) ? fresh_pid(1000000, 4194304) : fresh_pid(100, 99999);
      add(Role::User, std::string(rng_.pick(kUserComms)), pid, cpu());
    }
    // pid 0 is one idle task per cpu: allocations from interrupts.
    for (int c = 0; c < world_.cpus; ++c)
      if (rng_.percent(60))
        add(Role::Idle, "<idle>", 0, c);
    clock_start_ = static_cast<Nanos>(rng_.pick(kUptimes)) * kSecond + rng_.range(0, kSecond);
  }

  int cpu() { return static_cast<int>(rng_.below(static_cast<std::uint64_t>(world_.cpus))); }

  // Time from one episode of a task to its next: usually long enough that
  // nothing of one is within reach of the next, sometimes a few µs, and now
  // and then within the 1 µs slack on purpose. Long gaps grow with the
  // episode, so that no task comes near allocwatch's per-task cap.
  Nanos gap(std::size_t lines) {
    const std::uint64_t r = rng_.below(100);
    if (opt_.dense || opt_.no_span)
      return r < 6 ? rng_.range(0, 2500) : rng_.range(3 * kMicro, 30 * kMicro);
    if (r < 6)
      return rng_.range(0, 2500);
    if (r < 25)
      return rng_.range(3 * kMicro, 12 * kMicro);
    return static_cast<Nanos>(lines) * rng_.range(2 * kMilli, 8 * kMilli);
  }

  bool calls_left() const { return opt_.calls == 0 || episodes_ < opt_.calls; }

  // The task's next episode that leaves a line in the trace: a fast
  // allocation leaves none (its return is under tracing_thresh, and the nop
  // tracer has no function lines), but it takes time all the same.
  void plan(Task& t, Nanos now) {
    t.steps.clear();
    t.next = 0;
    while (t.steps.empty() && calls_left()) {
      now = plan_episode(t, now);
      now += gap(1);
    }
  }

  Nanos plan_episode(Task& t, Nanos now) {
    Planner p(world_, rng_, t.steps, now);
    const std::uint64_t r = rng_.below(100);
    switch (t.role) {
    case Role::Kswapd:
      p.kswapd();
      break;
    case Role::Kcompactd:
      p.kcompactd();
      break;
    case Role::Shell:
      if (r < 60)
        p.drop_caches();
      else
        p.compact_memory();
      break;
    case Role::Idle:
      p.allocation(r < 20, r >= 50);
      break;
    case Role::NoSpan:
      p.unbounded_events();
      break;
    case Role::User:
      if (r < 30)
        p.allocation(false, false);
      else if (r < 65)
        p.allocation(true, false);
      else if (r < 75)
        p.allocation(false, true);
      else if (r < 82)
        p.allocation(true, true);
      else
        p.memcg_charge();
      break;
    }
    ++episodes_;
    return p.now();
  }

  bool full() const { return opt_.bytes != 0 && written_ >= opt_.bytes; }

  void emit(Task& t, const Step& step) {
    if (step.ts < t.cut)
      return; // before the trace began
    if (t.pid != 0 && rng_.one_in(200))
      t.cpu = cpu(); // the scheduler moved it
    const int c = t.cpu;
    if (lost_run_[static_cast<std::size_t>(c)] == 0 && rng_.one_in(3000))
      lost_run_[static_cast<std::size_t>(c)] = static_cast<int>(rng_.range(1, 6));
    const std::uint64_t key = task_key(t.pid, c);
    const bool stale =
        step.kind == StepKind::Event &&
        oracle_->closes_stale_pair(key, step.ts, static_cast<Ev>(step.id), step.shrinker);
    if (step.lost || stale || lost_run_[static_cast<std::size_t>(c)] > 0) {
      if (lost_run_[static_cast<std::size_t>(c)] > 0)
        --lost_run_[static_cast<std::size_t>(c)];
      ++lost_pending_[static_cast<std::size_t>(c)];
      return;
    }
    const Nanos ts = step.ts / kMicro * kMicro; // what the line shows
    last_ts_ = ts;
    if (lost_pending_[static_cast<std::size_t>(c)] > 0) {
      line_.clear();
      line_.append("CPU:");
      put_uint(line_, static_cast<std::uint64_t>(c));
      line_.append(" [LOST ");
      put_uint(line_, lost_pending_[static_cast<std::size_t>(c)] + rng_.below(40));
      line_.append(" EVENTS]");
      put_line();
      oracle_->lost(line_);
      lost_pending_[static_cast<std::size_t>(c)] = 0;
      ++lost_lines_;
    }
    if (rng_.one_in(4000))
      corrupt_record(ts, c);
    if (world_.format == Format::Graph)
      context_switch(c, t);

    line_.clear();
    if (world_.format == Format::Graph) {
      put_graph_prefix(line_, ts, c, t.gcomm, t.pid);
      if (step.kind == StepKind::Return) {
        const Nanos shown = shown_duration(step.dur);
        line_.push_back(duration_mark(step.dur));
        line_.push_back(' ');
        put_graph_duration(line_, step.dur);
        line_.append("|  ");
        line_.append(static_cast<std::size_t>(step.depth) * 2, ' ');
        line_.append("} /* ");
        line_.append(world_.fn_name(static_cast<Fn>(step.id)));
        line_.append(" */");
        if (torn())
          return;
        put_line();
        oracle_->function_return(key, ts, static_cast<Fn>(step.id), shown, line_);
        return;
      }
      line_.append("              |  ");
      if (step.depth > 0)
        line_.append((static_cast<std::size_t>(step.depth) + 1) * 2, ' ');
      line_.append("/* ");
      line_.append(kEventName[step.id]);
      line_.append(": ");
      put_fields(line_, static_cast<Ev>(step.id), step.shrinker, world_, text_rng_);
      line_.append(" */");
    } else {
      static constexpr std::string_view kFlags[] = {".....", ".....", ".....", ".....",
                                                    "d..1.", ".N...", "..s1.", "dNh2."};
      put_event_prefix(line_, ts, c, t.comm, t.pid, rng_.pick(kFlags));
      line_.append(kEventName[step.id]);
      line_.append(": ");
      put_fields(line_, static_cast<Ev>(step.id), step.shrinker, world_, text_rng_);
    }
    if (torn())
      return;
    put_line();
    oracle_->event(key, ts, static_cast<Ev>(step.id), step.shrinker, line_);
  }

  // function_graph prints a banner when another task's line follows on a cpu.
  void context_switch(int c, const Task& t) {
    LastOnCpu& last = last_on_cpu_[static_cast<std::size_t>(c)];
    if (last.task == &t)
      return;
    const Task* prev = last.task;
    last.task = &t;
    if (prev == nullptr)
      return;
    line_.assign(" ------------------------------------------");
    put_line();
    line_.assign(" ");
    put_uint(line_, static_cast<std::uint64_t>(c));
    line_.append(") ");
    put_graph_proc(line_, prev->gcomm, prev->pid);
    line_.append(" => ");
    put_graph_proc(line_, t.gcomm, t.pid);
    put_line();
    line_.assign(" ------------------------------------------");
    put_line();
    line_.clear();
    put_line();
  }

  // A record the ring buffer corrupted under overrun, as the kernel prints it.
  void corrupt_record(Nanos ts, int c) {
    std::string saved;
    saved.swap(line_);
    line_.clear();
    put_event_prefix(line_, ts, c, "<XXX>", -static_cast<int>(rng_.range(1000000, 99999999)),
                     ".....");
    line_.append("Unknown type ");
    put_uint(line_, rng_.below(3));
    put_line();
    ++malformed_;
    line_.swap(saved);
  }

  // Now and then a line is torn (a reader cut it mid-way): the cut always
  // falls inside the leading columns, so no reader can take it for an event.
  bool torn() {
    if (!rng_.one_in(5000))
      return false;
    line_.resize(rng_.range(1, static_cast<std::int64_t>(header_end(line_)) - 1));
    put_line();
    ++malformed_;
    return true;
  }

  // Where the leading columns end: graph, the third '|'; events, the ": "
  // after the timestamp.
  std::size_t header_end(const std::string& line) const {
    if (world_.format == Format::Graph) {
      std::size_t pos = 0;
      for (int i = 0; i < 3; ++i)
        pos = line.find('|', pos + 1);
      return pos;
    }
    return line.find(": ", line.find("] ")) + 1;
  }

  // The file ends in the middle of a line, without its newline.
  void torn_tail() {
    line_.clear();
    const Task& t = tasks_[rng_.below(tasks_.size())];
    if (world_.format == Format::Graph)
      put_graph_prefix(line_, last_ts_, t.cpu, t.gcomm, t.pid);
    else
      put_event_prefix(line_, last_ts_, t.cpu, t.comm, t.pid, ".....");
    line_.resize(rng_.range(1, static_cast<std::int64_t>(line_.size()) - 4));
    buf_.append(line_);
    written_ += line_.size();
    ++malformed_;
  }

  void header() {
    if (world_.format == Format::Graph) {
      line_ = "# tracer: function_graph\n#\n"
              "#     TIME        CPU  TASK/PID         DURATION                  FUNCTION CALLS\n"
              "#      |          |    |    |           |   |                     |   |   |   |";
    } else {
      line_ = "# tracer: nop\n#\n"
              "# entries-in-buffer/entries-written: 0/0   #P:" +
              std::to_string(world_.cpus) +
              "\n#\n"
              "#                                _-----=> irqs-off/BH-disabled\n"
              "#                               / _----=> need-resched\n"
              "#                              | / _---=> hardirq/softirq\n"
              "#                              || / _--=> preempt-depth\n"
              "#                              ||| / _-=> migrate-disable\n"
              "#                              |||| /     delay\n"
              "#           TASK-PID     CPU#  |||||  TIMESTAMP  FUNCTION\n"
              "#              | |         |   |||||     |         |";
    }
    put_line();
  }

  void put_line() {
    buf_.append(line_);
    buf_.push_back('\n');
    written_ += line_.size() + 1;
    ++lines_;
    if (buf_.size() > kFlushAt) {
      write(trace_, buf_);
      buf_.clear();
    }
  }

  static void write(std::FILE* f, const std::string& data) {
    if (!data.empty() && std::fwrite(data.data(), 1, data.size(), f) != data.size())
      die("write failed");
  }

  static constexpr std::uint32_t kUptimes[] = {7, 13, 224, 4512, 86399, 123456, 3141592};

  struct LastOnCpu {
    const Task* task = nullptr;
  };

  const Options& opt_;
  Rng rng_;
  Rng text_rng_; // field values: formatting changes must not change the plan
  World world_;
  std::vector<Task> tasks_;
  Nanos clock_start_ = 0;
  Nanos last_ts_ = 0;
  Oracle* oracle_ = nullptr;
  std::FILE* trace_ = nullptr;
  std::string buf_;
  std::string line_;
  std::vector<int> lost_run_;
  std::vector<std::uint64_t> lost_pending_;
  std::vector<LastOnCpu> last_on_cpu_;
  std::uint64_t written_ = 0;
  std::uint64_t lines_ = 0;
  std::uint64_t episodes_ = 0;
  std::uint64_t lost_lines_ = 0;
  std::uint64_t malformed_ = 0;
};

// "500M", "100MB", "4k", "1G", "12345": bytes (K = 1024).
std::uint64_t parse_size(std::string_view text) {
  std::uint64_t value = 0;
  std::size_t i = 0;
  for (; i < text.size() && text[i] >= '0' && text[i] <= '9'; ++i)
    value = value * 10 + static_cast<std::uint64_t>(text[i] - '0');
  if (i == 0)
    die("bad size: " + std::string(text));
  std::string_view unit = text.substr(i);
  if (!unit.empty() && (unit.back() == 'B' || unit.back() == 'b'))
    unit.remove_suffix(1);
  if (unit.empty())
    return value;
  if (unit.size() == 1) {
    switch (unit[0]) {
    case 'k':
    case 'K':
      return value << 10;
    case 'm':
    case 'M':
      return value << 20;
    case 'g':
    case 'G':
      return value << 30;
    default:
      break;
    }
  }
  die("bad size unit: " + std::string(text));
}

std::uint64_t parse_count(std::string_view flag, std::string_view text) {
  std::uint64_t value = 0;
  if (text.empty())
    die(std::string(flag) + " needs a number");
  for (char ch : text) {
    if (ch < '0' || ch > '9')
      die(std::string(flag) + " needs a number, not " + std::string(text));
    value = value * 10 + static_cast<std::uint64_t>(ch - '0');
  }
  return value;
}

constexpr const char* kUsage =
    "usage: gentrace --format graph|events --seed N (--bytes SIZE | --calls N)\n"
    "                --threshold-us T --trace FILE --expected FILE\n"
    "                [--tasks N] [--cpus N] [--dense] [--max-span-us N] [--no-span]\n";

Options parse_args(int argc, char** argv) {
  Options opt;
  bool have_format = false;
  for (int i = 1; i < argc; ++i) {
    const std::string_view flag = argv[i];
    if (flag == "-h" || flag == "--help") {
      std::fputs(kUsage, stdout);
      std::exit(0);
    }
    if (flag == "--dense") {
      opt.dense = true;
      continue;
    }
    if (flag == "--no-span") {
      opt.no_span = true;
      continue;
    }
    if (i + 1 >= argc)
      die(std::string(flag) + " needs a value\n" + kUsage);
    const std::string_view value = argv[++i];
    if (flag == "--format") {
      if (value == "graph")
        opt.format = Format::Graph;
      else if (value == "events")
        opt.format = Format::Events;
      else
        die("--format is graph or events, not " + std::string(value));
      have_format = true;
    } else if (flag == "--seed") {
      opt.seed = parse_count(flag, value);
    } else if (flag == "--bytes") {
      opt.bytes = parse_size(value);
    } else if (flag == "--calls") {
      opt.calls = parse_count(flag, value);
    } else if (flag == "--threshold-us") {
      opt.threshold = static_cast<Nanos>(parse_count(flag, value)) * kMicro;
    } else if (flag == "--trace") {
      opt.trace_path = value;
    } else if (flag == "--expected") {
      opt.expected_path = value;
    } else if (flag == "--tasks") {
      opt.tasks = static_cast<int>(std::min<std::uint64_t>(parse_count(flag, value), 100000));
    } else if (flag == "--cpus") {
      opt.cpus = static_cast<int>(std::clamp<std::uint64_t>(parse_count(flag, value), 1, 256));
    } else if (flag == "--max-span-us") {
      opt.max_span = static_cast<Nanos>(parse_count(flag, value)) * kMicro;
      if (opt.max_span < 16 * kMicro)
        die("--max-span-us must be at least 16");
    } else {
      die("unknown option " + std::string(flag) + "\n" + kUsage);
    }
  }
  if (!have_format || opt.trace_path.empty() || opt.expected_path.empty())
    die(std::string("missing option\n") + kUsage);
  if ((opt.bytes == 0) == (opt.calls == 0))
    die(std::string("give one of --bytes and --calls\n") + kUsage);
  if (opt.threshold < kMicro || opt.threshold > 10 * kMilli)
    die("--threshold-us must be 1..10000");
  return opt;
}

std::FILE* open_out(const std::string& path) {
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (f == nullptr)
    die("cannot write " + path + ": " + std::strerror(errno));
  return f;
}

} // namespace

int main(int argc, char** argv) {
  const Options opt = parse_args(argc, argv);
  std::FILE* trace = open_out(opt.trace_path);
  std::FILE* expected = open_out(opt.expected_path);
  Generator(opt).run(trace, expected);
  if (std::fclose(trace) != 0 || std::fclose(expected) != 0)
    die("write failed");
  return 0;
}

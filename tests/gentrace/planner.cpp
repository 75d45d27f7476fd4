#include "planner.h"

#include <algorithm>
#include <cstdint>
#include <vector>

namespace gentrace {
namespace {

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
          if (rng_.percent(20))
            event(kWriteFolio); // pageout() of a dirty page
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
      if (rng_.percent(10))
        event(kThrottled); // reclaim_throttle(): writeback, congestion
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

} // namespace

Nanos plan_episode(const World& world, Rng& rng, Role role, std::vector<Step>& steps, Nanos now) {
  Planner p(world, rng, steps, now);
  const std::uint64_t r = rng.below(100);
  switch (role) {
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
  return p.now();
}

} // namespace gentrace

#include "format.h"

#include "text.h"

#include <algorithm>
#include <cstdint>

namespace gentrace {
namespace {

void put_abstime(std::string& s, Nanos ts) {
  put_uint_right(s, static_cast<std::uint64_t>(ts / kSecond), 5, ' ');
  s.push_back('.');
  put_uint_right(s, static_cast<std::uint64_t>(ts % kSecond / kMicro), 6, '0');
}

constexpr std::string_view kGfp[] = {
    "GFP_KERNEL",
    "GFP_HIGHUSER_MOVABLE|__GFP_COMP|__GFP_ZERO",
    "GFP_NOFS|__GFP_NOWARN|__GFP_NORETRY|__GFP_NOMEMALLOC",
    "GFP_KERNEL_ACCOUNT|__GFP_ZERO",
    "GFP_TRANSHUGE|__GFP_NORETRY|__GFP_THISNODE",
    "GFP_NOIO",
};

} // namespace

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
  case kWriteFolio:
    s.append("page=00000000");
    put_hex(s, rng.below(0xffffffff), 8);
    s.append(" pfn=0x");
    put_hex(s, 0x1000 + rng.below(0x100000), 1);
    s.append(rng.percent(50) ? " flags=RECLAIM_WB_ANON|RECLAIM_WB_ASYNC"
                             : " flags=RECLAIM_WB_FILE|RECLAIM_WB_ASYNC");
    return;
  case kThrottled:
    s.append("nid=0 usec_timeout=100000 usect_delayed=");
    put_uint(s, rng.below(5) * 4000);
    s.append(" reason=VMSCAN_THROTTLE_WRITEBACK");
    return;
  case kMigratePages:
    s.append("nr_migrated=");
    put_uint(s, rng.below(512));
    s.append(" nr_failed=0");
    return;
  case kEvCount:
    break;
  }
}

} // namespace gentrace

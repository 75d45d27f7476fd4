#include "cast.h"

#include "text.h"

#include <algorithm>
#include <cstdint>
#include <string_view>
#include <utility>

namespace gentrace {
namespace {

constexpr std::uint32_t kUptimes[] = {7, 13, 224, 4512, 86399, 123456, 3141592};

} // namespace

void add_shrinkers(World& world, Rng& rng) {
  // %p hashes pointers (8 zeros, then 32 random bits) unless the kernel
  // booted with no_hash_pointers.
  const std::string_view high = rng.percent(85) ? "00000000" : "ffff8881";
  const auto instance = [&] {
    std::string s(high);
    put_hex(s, rng.next() & 0xffffffffULL, 8);
    return s;
  };
  const auto add = [&](std::string_view symbol, std::string_view offset, int count) {
    for (int i = 0; i < count; ++i) {
      Shrinker sh;
      sh.symbol = symbol;
      sh.instance = instance();
      sh.text = sh.symbol + std::string(offset) + " " + sh.instance;
      world.shrinkers.push_back(std::move(sh));
    }
  };
  add("kfree_rcu_shrink_scan", "+0x0/0x120", 1);
  add("super_cache_scan", world.era->super_offset, static_cast<int>(rng.range(2, 6)));
  add("scan_shadow_nodes", "+0x0/0x30", 1);
  add("ext4_es_scan", "+0x0/0x3d0", static_cast<int>(rng.range(1, 2)));
  if (rng.percent(60))
    add("deferred_split_scan", "+0x0/0x2a0", 1);
  if (rng.percent(40))
    add("xfs_buftarg_shrink_scan", "+0x0/0x90", 1);
  // Instances are unique; a clash of 32 random bits is possible in theory.
  for (std::size_t i = 0; i < world.shrinkers.size(); ++i)
    for (std::size_t j = 0; j < i; ++j)
      if (world.shrinkers[i].instance == world.shrinkers[j].instance)
        world.shrinkers[i].instance.back() ^= 1;
  for (Shrinker& sh : world.shrinkers) {
    const std::size_t space = sh.text.rfind(' ');
    sh.text = sh.text.substr(0, space + 1) + sh.instance;
  }
}

Nanos add_tasks(Rng& rng, int cpus, int users, bool no_span, std::vector<Task>& tasks) {
  const auto cpu = [&] { return random_cpu(rng, cpus); };
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
      const int pid = static_cast<int>(rng.range(lo, hi));
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
    if (pid != 0 && rng.one_in(15))
      t.gcomm = "<...>"; // the comm was not saved
    tasks.push_back(std::move(t));
  };
  if (no_span) {
    add(Role::NoSpan, "memhog", fresh_pid(100, 99999), cpu());
    return static_cast<Nanos>(rng.pick(kUptimes)) * kSecond + rng.range(0, kSecond);
  }
  const int nodes = static_cast<int>(rng.range(1, 2));
  for (int n = 0; n < nodes; ++n) {
    add(Role::Kswapd, "kswapd" + std::to_string(n), fresh_pid(30, 99), cpu());
    add(Role::Kcompactd, "kcompactd" + std::to_string(n), fresh_pid(30, 99), cpu());
  }
  add(Role::Shell, "bash", fresh_pid(100, 9999), cpu());
  const int count = users > 0 ? users : static_cast<int>(rng.range(6, 18));
  for (int i = 0; i < count; ++i) {
    const int pid = rng.percent(20) ? fresh_pid(1000000, 4194304) : fresh_pid(100, 99999);
    add(Role::User, std::string(rng.pick(kUserComms)), pid, cpu());
  }
  // pid 0 is one idle task per cpu: allocations from interrupts.
  for (int c = 0; c < cpus; ++c)
    if (rng.percent(60))
      add(Role::Idle, "<idle>", 0, c);
  return static_cast<Nanos>(rng.pick(kUptimes)) * kSecond + rng.range(0, kSecond);
}

} // namespace gentrace

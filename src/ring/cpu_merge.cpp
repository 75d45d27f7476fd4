#include "ring/cpu_merge.h"

#include <algorithm>
#include <limits>

namespace allocwatch {

namespace {
// Buffers kept for reuse once their pages are read: enough for a burst's
// worth of reads without going back to the allocator each time.
constexpr std::size_t kSpareBuffers = 64;
} // namespace

CpuMerge::CpuMerge(int cpus, std::size_t page_size, Options options)
    : page_size_(page_size), options_(options), cpus_(static_cast<std::size_t>(std::max(cpus, 1))),
      reader_(page_size) {}

CpuMerge::Page CpuMerge::take_page() {
  if (spare_.empty()) {
    Page page;
    page.bytes = std::make_unique<std::byte[]>(page_size_ + kPageSlack);
    return page;
  }
  Page page = std::move(spare_.back());
  spare_.pop_back();
  return page;
}

void CpuMerge::recycle(Page page) {
  if (spare_.size() >= kSpareBuffers || !page.bytes)
    return;
  page.first_ts = 0;
  page.missed = 0;
  page.events.clear(); // its capacity is kept
  spare_.push_back(std::move(page));
}

std::byte* CpuMerge::buffer() {
  if (!filling_.bytes)
    filling_ = take_page();
  return filling_.bytes.get();
}

std::size_t CpuMerge::push(int cpu, std::size_t size) {
  if (cpu < 0 || cpu >= cpus() || !filling_.bytes)
    return 0;
  Page page = std::move(filling_);
  filling_ = Page{};
  std::byte* const bytes = page.bytes.get();
  const bool loaded = reader_.load(bytes, std::min(size, page_size_));
  if (reader_.damaged())
    ++damaged_pages_;
  const std::size_t data_size = reader_.data_size();
  std::uint64_t newest = 0;
  if (loaded) {
    page.first_ts = reader_.timestamp();
    page.missed = reader_.missed();
    reader_.take_records(page.events);
    for (const PageRecord& record : page.events)
      newest = std::max(newest, record.ts);
    if (!page.events.empty())
      page.first_ts = page.events.front().ts;
  }
  if (page.events.empty() && page.missed == 0) {
    recycle(std::move(page));
    return data_size;
  }
  newest = std::max(newest, page.first_ts);
  newest_ = std::max(newest_, newest);
  pushed_ = true;
  quiet_ = false;
  Cpu& c = cpus_[static_cast<std::size_t>(cpu)];
  raise_floor(c, newest);
  run_cpu_ = -1; // this CPU may now hold what goes before the run's next
  c.pages.push_back(std::move(page));
  ++queued_pages_;
  return data_size;
}

void CpuMerge::drained(int cpu) {
  if (cpu < 0 || cpu >= cpus() || !pushed_) // nothing read yet: no M to floor it by
    return;
  const std::uint64_t slack = quiet_ ? 0 : std::min(newest_, options_.slack_ns);
  raise_floor(cpus_[static_cast<std::size_t>(cpu)], newest_ - slack);
}

void CpuMerge::raise_floor(Cpu& cpu, std::uint64_t floor) {
  cpu.floor = cpu.floor_known ? std::max(cpu.floor, floor) : floor;
  cpu.floor_known = true;
}

void CpuMerge::waited() {
  quiet_ = true;
}

bool CpuMerge::backlogged(int cpu) const {
  return cpu >= 0 && cpu < cpus() &&
         cpus_[static_cast<std::size_t>(cpu)].pages.size() >= options_.backlog_pages;
}

void CpuMerge::finish() {
  finished_ = true;
}

void CpuMerge::retire_front(Cpu& cpu, bool given) {
  Page page = std::move(cpu.pages.front());
  cpu.pages.pop_front();
  --queued_pages_;
  cpu.loaded = false;
  if (given)
    given_out_ = std::move(page);
  else
    recycle(std::move(page));
}

bool CpuMerge::ready(Cpu& cpu) {
  while (!cpu.loaded) {
    if (cpu.pages.empty())
      return false;
    const Page& page = cpu.pages.front();
    cpu.loaded = true;
    cpu.lost_first = page.missed != 0;
    cpu.next_event = 0;
    if (!cpu.lost_first && page.events.empty())
      retire_front(cpu, false);
  }
  return true;
}

std::uint64_t CpuMerge::key(const Cpu& cpu) const {
  const Page& page = cpu.pages.front();
  return cpu.lost_first ? page.first_ts : page.events[cpu.next_event].ts;
}

bool CpuMerge::next(Item& item) {
  if (given_out_.bytes) {
    recycle(std::move(given_out_));
    given_out_ = Page{};
  }
  if (run_cpu_ >= 0) {
    Cpu& cpu = cpus_[static_cast<std::size_t>(run_cpu_)];
    if (ready(cpu) && !cpu.lost_first && key(cpu) <= run_limit_) {
      give_event(cpu, run_cpu_, item);
      return true;
    }
    run_cpu_ = -1;
  }

  Cpu* best = nullptr;
  int best_index = -1;
  bool floor_known = true;
  std::uint64_t floor = std::numeric_limits<std::uint64_t>::max();
  for (std::size_t i = 0; i < cpus_.size(); ++i) {
    Cpu& cpu = cpus_[i];
    floor_known = floor_known && cpu.floor_known;
    floor = std::min(floor, cpu.floor);
    if (!ready(cpu))
      continue;
    if (best == nullptr || key(cpu) < key(*best)) {
      best = &cpu;
      best_index = static_cast<int>(i);
    }
  }
  if (best == nullptr)
    return false;
  const std::uint64_t ts = key(*best);
  bool go = finished_ || (floor_known && ts <= floor);
  if (!go && queued_pages_ > options_.max_pages) {
    go = true;
    ++forced_;
  } else if (go && !best->lost_first) {
    start_run(best_index, finished_ ? std::numeric_limits<std::uint64_t>::max() : floor);
  }
  if (!go)
    return false;

  Page& page = best->pages.front();
  item.cpu = best_index;
  if (best->lost_first) {
    item.kind = Item::Kind::Lost;
    item.lost = page.missed;
    best->lost_first = false;
    if (page.events.empty())
      retire_front(*best, false);
    return true;
  }
  give_event(*best, best_index, item);
  return true;
}

void CpuMerge::start_run(int index, std::uint64_t floor) {
  // What the slow path would take before `index`'s next records: another
  // CPU's older one, or an equal one of a lower index.
  std::uint64_t limit = floor;
  for (std::size_t i = 0; i < cpus_.size(); ++i) {
    Cpu& cpu = cpus_[i];
    if (static_cast<int>(i) == index || !ready(cpu))
      continue;
    const std::uint64_t other = key(cpu);
    if (static_cast<int>(i) < index) {
      if (other == 0)
        return;
      limit = std::min(limit, other - 1);
    } else {
      limit = std::min(limit, other);
    }
  }
  run_cpu_ = index;
  run_limit_ = limit;
}

void CpuMerge::give_event(Cpu& cpu, int index, Item& item) {
  Page& page = cpu.pages.front();
  const PageRecord& event = page.events[cpu.next_event];
  item.cpu = index;
  item.kind = Item::Kind::Event;
  item.event = RawEvent{index, event.ts, page.bytes.get() + event.offset, event.size};
  item.lost = 0;
  if (event.ts < last_given_)
    ++late_;
  else
    last_given_ = event.ts;
  if (++cpu.next_event == page.events.size())
    retire_front(cpu, true);
}

} // namespace allocwatch

#include "ring/cpu_merge.h"

#include <algorithm>

namespace allocwatch {

namespace {
// Buffers kept for reuse once their pages are read: enough for a burst's
// worth of reads without going back to the allocator each time.
constexpr std::size_t kSpareBuffers = 64;
} // namespace

CpuMerge::CpuMerge(int cpus, std::size_t page_size, Options options)
    : page_size_(page_size), options_(options), cpus_(static_cast<std::size_t>(std::max(cpus, 1))),
      scratch_(page_size) {
  for (Cpu& cpu : cpus_)
    cpu.reader = std::make_unique<PageReader>(page_size);
}

std::unique_ptr<std::byte[]> CpuMerge::take_buffer() {
  if (spare_.empty())
    return std::make_unique<std::byte[]>(page_size_ + kPageSlack);
  std::unique_ptr<std::byte[]> buffer = std::move(spare_.back());
  spare_.pop_back();
  return buffer;
}

std::byte* CpuMerge::buffer() {
  if (!filling_)
    filling_ = take_buffer();
  return filling_.get();
}

void CpuMerge::push(int cpu, std::size_t size) {
  if (cpu < 0 || cpu >= cpus() || !filling_)
    return;
  Page page{std::move(filling_), std::min(size, page_size_), 0};
  const bool loaded = scratch_.load(cpu, page.bytes.get(), page.size);
  if (scratch_.damaged())
    ++damaged_pages_;
  RawEvent event;
  bool any = false;
  std::uint64_t newest = 0;
  if (loaded) {
    page.first_ts = scratch_.timestamp();
    while (scratch_.next(event)) {
      if (!any)
        page.first_ts = event.ts;
      any = true;
      newest = std::max(newest, event.ts);
    }
  }
  if (!any && (!loaded || scratch_.missed() == 0)) {
    spare_.push_back(std::move(page.bytes));
    return;
  }
  newest_ = std::max(newest_, std::max(newest, page.first_ts));
  pushed_ = true;
  quiet_ = false;
  cpus_[static_cast<std::size_t>(cpu)].pages.push_back(std::move(page));
  ++queued_pages_;
}

void CpuMerge::drained(int cpu) {
  if (cpu < 0 || cpu >= cpus())
    return;
  Cpu& c = cpus_[static_cast<std::size_t>(cpu)];
  if (c.drained)
    return;
  c.drained = true;
  if (++drained_in_pass_ < cpus())
    return;
  // The pass is complete: nothing older than what was pushed before it
  // started (less the slack) can still come; after a wait, nothing older
  // than what was pushed at all.
  if (quiet_ && pushed_)
    horizon_ = std::max(horizon_, static_cast<long long>(newest_));
  else if (seen_at_pass_)
    horizon_ = std::max(horizon_, static_cast<long long>(newest_at_pass_) -
                                      static_cast<long long>(options_.slack_ns));
  start_pass();
}

void CpuMerge::start_pass() {
  newest_at_pass_ = newest_;
  seen_at_pass_ = pushed_;
  drained_in_pass_ = 0;
  for (Cpu& each : cpus_)
    each.drained = false;
}

void CpuMerge::waited() {
  start_pass();
  quiet_ = true;
}

void CpuMerge::finish() {
  finished_ = true;
}

void CpuMerge::retire_front(Cpu& cpu, bool given) {
  std::unique_ptr<std::byte[]> bytes = std::move(cpu.pages.front().bytes);
  cpu.pages.pop_front();
  --queued_pages_;
  cpu.loaded = false;
  if (given)
    given_out_ = std::move(bytes);
  else if (spare_.size() < kSpareBuffers)
    spare_.push_back(std::move(bytes));
}

bool CpuMerge::ready(Cpu& cpu, int index) {
  while (!cpu.loaded) {
    if (cpu.pages.empty())
      return false;
    Page& page = cpu.pages.front();
    cpu.loaded = cpu.reader->load(index, page.bytes.get(), page.size);
    cpu.lost_first = cpu.loaded && cpu.reader->missed() != 0;
    cpu.has_event = cpu.loaded && cpu.reader->next(cpu.head);
    if (!cpu.lost_first && !cpu.has_event)
      retire_front(cpu, false);
  }
  return true;
}

std::uint64_t CpuMerge::key(const Cpu& cpu) const {
  return cpu.lost_first ? cpu.pages.front().first_ts : cpu.head.ts;
}

bool CpuMerge::next(Item& item) {
  if (given_out_ && spare_.size() < kSpareBuffers)
    spare_.push_back(std::move(given_out_));
  given_out_.reset();

  Cpu* best = nullptr;
  int best_index = -1;
  bool every_cpu_queued = true;
  for (std::size_t i = 0; i < cpus_.size(); ++i) {
    Cpu& cpu = cpus_[i];
    if (!ready(cpu, static_cast<int>(i))) {
      every_cpu_queued = false;
      continue;
    }
    if (best == nullptr || key(cpu) < key(*best)) {
      best = &cpu;
      best_index = static_cast<int>(i);
    }
  }
  if (best == nullptr)
    return false;
  const std::uint64_t ts = key(*best);
  bool go = finished_ || every_cpu_queued ||
            (horizon_ >= 0 && ts <= static_cast<std::uint64_t>(horizon_));
  if (!go && queued_pages_ > options_.max_pages) {
    go = true;
    ++forced_;
  }
  if (!go)
    return false;

  item.cpu = best_index;
  if (best->lost_first) {
    item.kind = Item::Kind::Lost;
    item.lost = best->reader->missed();
    best->lost_first = false;
    if (!best->has_event)
      retire_front(*best, false);
    return true;
  }
  item.kind = Item::Kind::Event;
  item.event = best->head;
  item.lost = 0;
  if (ts < last_given_)
    ++late_;
  else
    last_given_ = ts;
  best->has_event = best->reader->next(best->head);
  if (!best->has_event)
    retire_front(*best, true);
  return true;
}

} // namespace allocwatch

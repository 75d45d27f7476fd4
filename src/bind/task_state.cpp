#include "bind/task_state.h"

#include <algorithm>

namespace allocwatch {

void TaskState::discard_entries_from(std::size_t depth) {
  for (std::size_t d = depth; d < entries_top_; ++d) {
    if (entries_[d].open) {
      entries_[d].open = false;
      --open_entries_;
    }
  }
  entries_top_ = std::min(entries_top_, depth);
}

void TaskState::open_entry(std::uint16_t depth, Nanos ts, std::string_view name,
                           std::string_view line) {
  if (depth >= kMaxDepth)
    return;
  discard_entries_from(depth);
  if (entries_.size() <= depth)
    entries_.resize(depth + 1u);
  OpenEntry& entry = entries_[depth];
  entry.open = true;
  entry.ts = ts;
  entry.name.assign(name);
  entry.line.assign(line);
  ++open_entries_;
  entries_top_ = depth + 1u;
}

const OpenEntry* TaskState::close_entry(std::uint16_t depth, Nanos cutoff) {
  if (depth >= entries_top_)
    return nullptr;
  const OpenEntry& entry = entries_[depth];
  const bool usable = entry.open && entry.ts >= cutoff;
  discard_entries_from(depth);
  return usable ? &entry : nullptr;
}

void LineCopy::grow(std::size_t size) {
  // With room for a next begin a few bytes longer (its numbers have more
  // digits), and no more: thousands of tasks each keep one per pair.
  capacity_ = (size + 24 + 15) & ~std::size_t{15};
  data_ = std::make_unique_for_overwrite<char[]>(capacity_);
}

void OpenBegin::set_any_instance(std::string_view instance) {
  if (instance.size() <= kShortInstance) {
    long_instance_.reset();
    std::copy(instance.begin(), instance.end(), short_instance_);
    short_size_ = static_cast<std::uint8_t>(instance.size());
    return;
  }
  if (long_instance_ == nullptr)
    long_instance_ = std::make_unique<std::string>();
  long_instance_->assign(instance);
}

bool TaskState::open_begin(OpenBegin& begin, Nanos ts, std::uint64_t seq, ShrinkerKey* shrinker,
                           std::string_view instance, std::string_view line) {
  const bool replaced = begin.open;
  if (!replaced) {
    begin.open = true;
    ++open_begins_;
  }
  begin.emitted = false;
  begin.ts = ts;
  begin.seq = seq;
  begin.shrinker = shrinker;
  begin.set_instance(shrinker != nullptr ? std::string_view{} : instance);
  begin.line.assign(line);
  return replaced;
}

void TaskState::close_begin(OpenBegin& begin) {
  if (begin.open) {
    begin.open = false;
    --open_begins_;
  }
}

void TaskState::note_emitted(std::uint64_t seq) {
  if (open_begins_ == 0)
    return;
  for (OpenBegin& begin : begins_)
    if (begin.open && begin.seq == seq)
      begin.emitted = true;
}

std::size_t TaskState::heap_bytes() const {
  std::size_t bytes =
      entries_.capacity() * sizeof(OpenEntry) + begins_.capacity() * sizeof(OpenBegin);
  for (const OpenEntry& entry : entries_)
    bytes += entry.name.capacity() + entry.line.capacity();
  for (const OpenBegin& begin : begins_)
    bytes += begin.line.capacity() + (begin.long_instance_ != nullptr
                                          ? sizeof(std::string) + begin.long_instance_->capacity()
                                          : 0);
  return bytes;
}

std::size_t TaskState::expire_open(Nanos cutoff) {
  std::size_t dropped = 0;
  for (OpenBegin& begin : begins_) {
    if (begin.open && begin.ts < cutoff) {
      close_begin(begin);
      ++dropped;
    }
  }
  for (std::size_t d = 0; d < entries_top_; ++d) {
    if (entries_[d].open && entries_[d].ts < cutoff) {
      entries_[d].open = false;
      --open_entries_;
    }
  }
  return dropped;
}

} // namespace allocwatch

#include "bind/task_state.h"

#include <algorithm>

namespace allocwatch {

namespace {
constexpr std::size_t kFirstSlots = 8;
}

void HeldLines::grow(std::size_t cap) {
  // Unroll the ring so that it can be extended at the end.
  std::rotate(slots_.begin(), slots_.begin() + static_cast<std::ptrdiff_t>(head_), slots_.end());
  head_ = 0;
  slots_.resize(std::min(std::max(kFirstSlots, 2 * slots_.size()), cap));
}

std::size_t HeldLines::push(Nanos ts, std::uint64_t seq, EventId event, std::string_view line,
                            std::size_t cap) {
  if (cap == 0)
    return 1;
  std::size_t dropped = 0;
  if (size_ >= cap) {
    head_ = slot(1);
    --size_;
    dropped = 1;
  } else if (size_ == slots_.size()) {
    grow(cap);
  }
  HeldLine& held = slots_[slot(size_)];
  held.ts = ts;
  held.seq = seq;
  held.event = event;
  held.claimed = false;
  held.line.assign(line);
  ++size_;
  return dropped;
}

std::size_t HeldLines::expire(Nanos cutoff) {
  std::size_t dropped = 0;
  while (size_ > 0 && slots_[head_].ts < cutoff) {
    head_ = slot(1);
    --size_;
    ++dropped;
  }
  return dropped;
}

void HeldLines::remove_claimed(std::size_t first) {
  std::size_t kept = first;
  for (std::size_t i = first; i < size_; ++i) {
    HeldLine& held = (*this)[i];
    if (held.claimed)
      continue;
    if (kept != i)
      std::swap(held, (*this)[kept]); // a swap keeps both strings' buffers
    ++kept;
  }
  size_ = kept;
}

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

OpenBegin& TaskState::begin(std::size_t pair) {
  if (begins_.size() <= pair)
    begins_.resize(pair + 1);
  return begins_[pair];
}

bool TaskState::open_begin(OpenBegin& begin, Nanos ts, std::uint64_t seq, std::string_view instance,
                           std::string_view line) {
  const bool replaced = begin.open;
  if (!replaced) {
    begin.open = true;
    ++open_begins_;
  }
  begin.emitted = false;
  begin.ts = ts;
  begin.seq = seq;
  begin.instance.assign(instance);
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

std::size_t TaskState::expire(Nanos cutoff) {
  std::size_t dropped = held.expire(cutoff);
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

// TaskTable: the binder's task states by task key, searched on most trace
// lines. With thousands of tasks in reclaim at once, consecutive lines are
// mostly of different tasks and the search misses the cache: here it reads
// one slot of a flat array (open addressing, linear probing, a power-of-two
// size never more than half full), where std::unordered_map reads a bucket,
// then a node, before the state itself.
#pragma once

#include "bind/task_state.h"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

namespace allocwatch {

class TaskTable {
public:
  // The state of `key`, or nullptr.
  TaskState* find(std::uint64_t key) const {
    if (slots_.empty())
      return nullptr;
    return slots_[slot_of(key)].task.get();
  }

  // Adds `task` (not null) under `key`, which the table does not hold yet.
  TaskState& insert(std::uint64_t key, std::unique_ptr<TaskState> task) {
    if ((size_ + 1) * 2 > slots_.size())
      rehash(slots_.empty() ? kMinSlots : slots_.size() * 2);
    Slot& slot = slots_[slot_of(key)];
    slot = Slot{key, std::move(task)};
    ++size_;
    return *slot.task;
  }

  // Calls forget(task) for every state; those for which it returns true are
  // removed (forget may have moved the state out). The table then shrinks
  // to fit what stays, so that a storm of tasks leaves no large array behind.
  template <class Forget> void forget_if(Forget forget) {
    std::vector<Slot> kept;
    for (Slot& slot : slots_)
      if (slot.task != nullptr && !forget(slot.task))
        kept.push_back(std::move(slot));
    std::size_t slots = kMinSlots;
    while (kept.size() * 2 > slots)
      slots *= 2;
    slots_.clear();
    slots_.resize(slots);
    for (Slot& slot : kept)
      slots_[slot_of(slot.key)] = std::move(slot);
    size_ = kept.size();
  }

  std::size_t size() const { return size_; }
  // Slots in the array, for tests: memory in use.
  std::size_t slots() const { return slots_.size(); }

private:
  static constexpr std::size_t kMinSlots = 16;

  struct Slot {
    std::uint64_t key = 0;
    std::unique_ptr<TaskState> task; // null: empty
  };

  // The slot holding `key`, or the empty one where it would go.
  std::size_t slot_of(std::uint64_t key) const {
    const std::size_t mask = slots_.size() - 1;
    // Keys are pids and cpus, small and often consecutive: a multiplicative
    // (Fibonacci) hash spreads them, its high bits the best mixed.
    std::size_t i = static_cast<std::size_t>((key * 0x9E3779B97F4A7C15ULL) >> 32) & mask;
    while (slots_[i].task != nullptr && slots_[i].key != key)
      i = (i + 1) & mask;
    return i;
  }

  void rehash(std::size_t slots) {
    std::vector<Slot> old = std::move(slots_);
    slots_.clear();
    slots_.resize(slots);
    for (Slot& slot : old)
      if (slot.task != nullptr)
        slots_[slot_of(slot.key)] = std::move(slot);
  }

  std::vector<Slot> slots_; // size a power of two, or 0
  std::size_t size_ = 0;
};

} // namespace allocwatch

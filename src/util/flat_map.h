// FlatMap: a map searched once per trace line (an event's name to its role,
// a task key to its state), in a flat array: open addressing, linear
// probing, a power-of-two size never more than half full. A lookup is a
// hash, a mask and usually one comparison in one slot, where
// std::unordered_map divides by a prime and follows a node; with thousands
// of tasks in reclaim at once, that node is a cache miss on most lines.
//
// Values are pointers, raw or owning (T*, std::unique_ptr<T>): a null one
// marks an empty slot, so a slot is no larger than its key and its pointer.
#pragma once

#include "util/string_hash.h"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string_view>
#include <utility>
#include <vector>

namespace allocwatch {

// For integer keys that are small and often consecutive (pids, cpus): a
// multiplicative (Fibonacci) hash spreads them, its high bits the best mixed.
struct IntegerHash {
  std::size_t operator()(std::uint64_t key) const {
    return static_cast<std::size_t>((key * 0x9E3779B97F4A7C15ULL) >> 32);
  }
};

template <class Key, class Value, class Hash> class FlatMap {
public:
  // What `key` maps to, or nullptr.
  auto* find(const Key& key) const {
    return slots_.empty() ? nullptr : std::to_address(slots_[slot_of(key)].value);
  }

  // Maps `key` to `value` (not null), replacing what it mapped to.
  auto& insert(const Key& key, Value value) {
    if ((size_ + 1) * 2 > slots_.size())
      rebuild(slots_.empty() ? kMinSlots : slots_.size() * 2);
    Slot& slot = slots_[slot_of(key)];
    size_ += slot.value == nullptr;
    slot = Slot{key, std::move(value)};
    return *slot.value;
  }

  // Removes `key`'s entry, if any. The entries after it in its run move back
  // where their probe would find them (no tombstones), so that lookups stay
  // short however many keys come and go.
  void erase(const Key& key) {
    if (slots_.empty())
      return;
    const std::size_t mask = slots_.size() - 1;
    std::size_t hole = slot_of(key);
    if (slots_[hole].value == nullptr)
      return;
    for (std::size_t i = (hole + 1) & mask; slots_[i].value != nullptr; i = (i + 1) & mask) {
      const std::size_t home = Hash{}(slots_[i].key) & mask;
      // An entry whose probe starts cyclically in (hole, i] stays.
      const bool stays = hole < i ? (home > hole && home <= i) : (home > hole || home <= i);
      if (!stays) {
        slots_[hole] = std::move(slots_[i]);
        hole = i;
      }
    }
    slots_[hole] = Slot{};
    --size_;
  }

  // Calls visit(value) for every value, in no particular order.
  template <class Visit> void for_each(Visit visit) const {
    for (const Slot& slot : slots_)
      if (slot.value != nullptr)
        visit(slot.value);
  }

  // Calls forget(value) for every value; those for which it returns true are
  // removed (forget may have moved the value out). The array then shrinks to
  // fit what stays, so that a storm of tasks leaves no large array behind.
  template <class Forget> void forget_if(Forget forget) {
    std::size_t kept = 0;
    for (Slot& slot : slots_) {
      if (slot.value != nullptr && forget(slot.value))
        slot = Slot{};
      kept += slot.value != nullptr;
    }
    std::size_t slots = kMinSlots;
    while (kept * 2 > slots)
      slots *= 2;
    rebuild(slots);
  }

  void clear() {
    slots_.clear();
    size_ = 0;
  }

  std::size_t size() const { return size_; }
  // Slots in the array, for tests: memory in use.
  std::size_t slots() const { return slots_.size(); }

private:
  static constexpr std::size_t kMinSlots = 16;

  struct Slot {
    Key key{};
    Value value{}; // null: empty
  };

  // The slot holding `key`, or the empty one where it would go: the array is
  // never more than half full, so there is always one.
  std::size_t slot_of(const Key& key) const {
    const std::size_t mask = slots_.size() - 1;
    std::size_t i = Hash{}(key)&mask;
    while (slots_[i].value != nullptr && !(slots_[i].key == key))
      i = (i + 1) & mask;
    return i;
  }

  // Moves every value into a new array of `slots` slots.
  void rebuild(std::size_t slots) {
    std::vector<Slot> old = std::move(slots_);
    slots_.clear();
    slots_.resize(slots);
    size_ = 0;
    for (Slot& slot : old)
      if (slot.value != nullptr) {
        slots_[slot_of(slot.key)] = std::move(slot);
        ++size_;
      }
  }

  std::vector<Slot> slots_; // size a power of two, or 0
  std::size_t size_ = 0;
};

// Names to what they stand for. The map keeps views: the bytes of each name
// must outlive it (e.g. a key of a node-based map, which never moves).
template <class T> using NameTable = FlatMap<std::string_view, T*, StringHash>;

} // namespace allocwatch

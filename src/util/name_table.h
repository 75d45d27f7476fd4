// NameTable: a small set of names, each to a pointer, searched once per
// trace line (an event's name to its role). Open addressing in a flat array
// of a power-of-two size: a lookup is a hash, a mask and usually one
// comparison, where std::unordered_map divides by a prime and follows a
// node.
#pragma once

#include "util/string_hash.h"

#include <cstddef>
#include <string_view>
#include <vector>

namespace allocwatch {

template <class T> class NameTable {
public:
  // Maps `name` to `value` (not null), replacing what it mapped to. The table
  // keeps a view: the bytes of `name` must outlive it (e.g. a key of a
  // node-based map, which never moves).
  void insert(std::string_view name, T* value) {
    if ((size_ + 1) * 2 > slots_.size())
      grow();
    Slot& slot = slot_of(name);
    size_ += slot.value == nullptr;
    slot = Slot{name, value};
  }

  // What `name` maps to, or nullptr.
  T* find(std::string_view name) const {
    if (slots_.empty())
      return nullptr;
    return slot_of(name).value;
  }

  std::size_t size() const { return size_; }

  void clear() {
    slots_.clear();
    size_ = 0;
  }

private:
  struct Slot {
    std::string_view name;
    T* value = nullptr; // nullptr: empty
  };

  // The slot holding `name`, or the empty one where it would go. The table
  // is never more than half full, so there is always an empty slot.
  const Slot& slot_of(std::string_view name) const {
    const std::size_t mask = slots_.size() - 1;
    for (std::size_t i = StringHash{}(name)&mask;; i = (i + 1) & mask)
      if (slots_[i].value == nullptr || slots_[i].name == name)
        return slots_[i];
  }
  Slot& slot_of(std::string_view name) {
    return const_cast<Slot&>(static_cast<const NameTable&>(*this).slot_of(name));
  }

  void grow() {
    std::vector<Slot> old = std::move(slots_);
    slots_.assign(old.empty() ? 16 : old.size() * 2, Slot{});
    for (const Slot& slot : old)
      if (slot.value != nullptr)
        slot_of(slot.name) = slot;
  }

  std::vector<Slot> slots_; // size a power of two, or 0
  std::size_t size_ = 0;
};

} // namespace allocwatch

// TaskState: what the binder keeps for one task between lines: the list of
// tracepoint lines it holds (in the binder's HeldStore) until a span claims
// them, its open graph entries by depth, and its open pair begins. A task that
// holds nothing and has nothing open owns no buffer. The strings of entries
// and begins are reused from line to line (assign() keeps their capacity).
#pragma once

#include "bind/held_store.h"
#include "bind/shrinker_keys.h"
#include "util/duration.h"

#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace allocwatch {

// A graph entry "f() {" whose return has not been read yet.
struct OpenEntry {
  bool open = false;
  Nanos ts = 0;
  std::string name;
  std::string line;
};

// A copy of one line whose buffer is kept from one line to the next, for the
// begin of a pair (every mm_shrink_slab_start is one): assign() is a plain
// copy into it, where std::string's goes through its general replace.
class LineCopy {
public:
  LineCopy() = default;
  // A moved-from copy is empty with no buffer, so that assign() grows one
  // (the implicit move would leave its capacity without the buffer).
  LineCopy(LineCopy&& other) noexcept
      : data_(std::move(other.data_)), size_(std::exchange(other.size_, 0)),
        capacity_(std::exchange(other.capacity_, 0)) {}
  LineCopy& operator=(LineCopy&& other) noexcept {
    data_ = std::move(other.data_);
    size_ = std::exchange(other.size_, 0);
    capacity_ = std::exchange(other.capacity_, 0);
    return *this;
  }

  void assign(std::string_view line) {
    if (line.size() > capacity_)
      grow(line.size());
    if (!line.empty()) // an empty view may have no data: memcpy(null) is undefined
      std::memcpy(data_.get(), line.data(), line.size());
    size_ = line.size();
  }
  operator std::string_view() const { return {data_.get(), size_}; }
  std::size_t capacity() const { return capacity_; }

private:
  void grow(std::size_t size);
  std::unique_ptr<char[]> data_;
  std::size_t size_ = 0;
  std::size_t capacity_ = 0;
};

// A pair's begin tracepoint whose end has not been read yet.
struct OpenBegin {
  bool open = false;
  // Its line was already printed as a line claimed by another span: the
  // pair's incident must not print it again.
  bool emitted = false;
  Nanos ts = 0;
  std::uint64_t seq = 0;
  LineCopy line;

  // Shrinker pairs: the binder's key for the shrinker the begin names, when
  // it has one; the end is matched against it. Kept when the begin closes:
  // the next begin's shrinker is most often the key's next.
  ShrinkerKey* shrinker = nullptr;

  // Shrinker pairs: the shrinker instance of the begin, which the end's must
  // match: the key's, or when there is no key, kept here.
  std::string_view instance() const {
    if (shrinker != nullptr)
      return shrinker->instance;
    return long_instance_ != nullptr ? std::string_view(*long_instance_)
                                     : std::string_view(short_instance_, short_size_);
  }
  void set_instance(std::string_view instance) {
    if (instance.empty() && long_instance_ == nullptr) { // a shrinker with a key, or none
      short_size_ = 0;
      return;
    }
    set_any_instance(instance);
  }

private:
  // The kernel prints an instance as "%p": 16 hex digits on a 64-bit kernel,
  // one more than a std::string holds without the heap. Kept here, the end's
  // comparison reads nothing but the begin, where with thousands of tasks in
  // reclaim a separate buffer was a cache miss at the begin and at the end.
  // Longer text (no kernel prints it) goes to the heap; the begin is no
  // larger than with a std::string.
  static constexpr std::size_t kShortInstance = 16;
  void set_any_instance(std::string_view instance);
  std::unique_ptr<std::string> long_instance_; // null unless the instance is longer
  std::uint8_t short_size_ = 0;
  char short_instance_[kShortInstance] = {};

  friend class TaskState; // heap_bytes() counts long_instance_
};

class TaskState {
public:
  // Deeper graph entries are not remembered (the kernel's own limit is lower).
  static constexpr std::uint16_t kMaxDepth = 128;

  HeldList held;
  // The newest timestamp of a graph line of this task at depth 0: when it
  // was read, no call the task began before it was still running (see
  // Binder::release).
  Nanos outermost = -1;

  // True when the task holds nothing: it can be forgotten.
  bool idle() const { return held.empty() && open_entries_ == 0 && open_begins_ == 0; }
  // Heap memory the task owns (its entries' and begins' buffers), for tests.
  std::size_t heap_bytes() const;

  // Remembers the entry at `depth`, replacing any there, and discards deeper
  // ones: their returns will never come.
  void open_entry(std::uint16_t depth, Nanos ts, std::string_view name, std::string_view line);
  // Closes the entry at `depth` and discards deeper ones. Returns the entry,
  // valid until the next open_entry() at that depth, or nullptr when none is
  // open there or it began before `cutoff` (too old to keep).
  const OpenEntry* close_entry(std::uint16_t depth, Nanos cutoff);
  bool has_open_entries() const { return open_entries_ != 0; }

  // The begin slot of the binder's active pair number `pair`.
  OpenBegin& begin(std::size_t pair) {
    if (pair >= begins_.size()) [[unlikely]]
      begins_.resize(pair + 1);
    return begins_[pair];
  }
  // Marks the begin open, with the given line and shrinker (its key, or
  // else its instance); returns true when it replaced one that was open
  // already.
  bool open_begin(OpenBegin& begin, Nanos ts, std::uint64_t seq, ShrinkerKey* shrinker,
                  std::string_view instance, std::string_view line);
  void close_begin(OpenBegin& begin);
  // An open begin claimed as a line by another span: mark it printed.
  void note_emitted(std::uint64_t seq);

  // Drops open begins from before `cutoff` (returns how many: they count as
  // dropped held lines) and forgets entries as old.
  std::size_t expire_open(Nanos cutoff);
  // The begin of the binder's active pair number `pair`, or nullptr when it
  // has none open.
  const OpenBegin* open_begin_of(std::size_t pair) const {
    return pair < begins_.size() && begins_[pair].open ? &begins_[pair] : nullptr;
  }

private:
  void discard_entries_from(std::size_t depth);

  std::vector<OpenEntry> entries_; // by depth
  std::size_t entries_top_ = 0;    // no entry is open at this depth or deeper
  std::size_t open_entries_ = 0;
  std::vector<OpenBegin> begins_; // by active pair
  std::size_t open_begins_ = 0;
};

} // namespace allocwatch

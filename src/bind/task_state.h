// TaskState: what the binder keeps for one task between lines: the
// tracepoint lines it holds until a span claims them, its open graph entries
// by depth, and its open pair begins. Every string here is reused from line to
// line (assign() keeps its capacity), so holding a line costs a copy, not an
// allocation, once a task is warm.
#pragma once

#include "util/duration.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace allocwatch {

// A small number per event name the binder knows, assigned when it builds its
// tables, so that held lines and claim sets never compare names.
using EventId = std::uint32_t;

struct HeldLine {
  Nanos ts = 0;
  std::uint64_t seq = 0; // input line number: tells the lines apart
  EventId event = 0;
  bool claimed = false; // marked by a span, removed once its incident is out
  std::string line;
};

// The held lines of one task, oldest first, in a ring whose slots (and their
// strings) are reused. A task's lines arrive in timestamp order: trace_pipe
// merges the per-cpu buffers by time.
class HeldLines {
public:
  std::size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  std::size_t capacity() const { return slots_.size(); }
  HeldLine& operator[](std::size_t i) { return slots_[slot(i)]; }
  const HeldLine& operator[](std::size_t i) const { return slots_[slot(i)]; }

  // Appends a copy of `line`. When `cap` lines are held already, the oldest
  // is dropped to make room. Returns how many lines were dropped (0 or 1; 1
  // when cap is 0, as the new line itself cannot be kept).
  std::size_t push(Nanos ts, std::uint64_t seq, EventId event, std::string_view line,
                   std::size_t cap);
  // Drops the oldest lines while their timestamp is before `cutoff`; returns
  // how many.
  std::size_t expire(Nanos cutoff);
  // Removes the lines marked claimed, none of which is before line `first`;
  // the others keep their order.
  void remove_claimed(std::size_t first);

private:
  std::size_t slot(std::size_t i) const {
    const std::size_t j = head_ + i;
    return j < slots_.size() ? j : j - slots_.size();
  }
  void grow(std::size_t cap);

  std::vector<HeldLine> slots_;
  std::size_t head_ = 0;
  std::size_t size_ = 0;
};

// A graph entry "f() {" whose return has not been read yet.
struct OpenEntry {
  bool open = false;
  Nanos ts = 0;
  std::string name;
  std::string line;
};

// A pair's begin tracepoint whose end has not been read yet.
struct OpenBegin {
  bool open = false;
  // Its line was already printed as a line claimed by another span: the
  // pair's incident must not print it again.
  bool emitted = false;
  Nanos ts = 0;
  std::uint64_t seq = 0;
  std::string instance; // shrinker pairs: the shrinker instance of the begin
  std::string line;
};

class TaskState {
public:
  // Deeper graph entries are not remembered (the kernel's own limit is lower).
  static constexpr std::uint16_t kMaxDepth = 128;

  HeldLines held;

  // True when the task holds nothing: it can be forgotten.
  bool idle() const { return held.empty() && open_entries_ == 0 && open_begins_ == 0; }

  // Remembers the entry at `depth`, replacing any there, and discards deeper
  // ones: their returns will never come.
  void open_entry(std::uint16_t depth, Nanos ts, std::string_view name, std::string_view line);
  // Closes the entry at `depth` and discards deeper ones. Returns the entry,
  // valid until the next open_entry() at that depth, or nullptr when none is
  // open there or it began before `cutoff` (too old to keep).
  const OpenEntry* close_entry(std::uint16_t depth, Nanos cutoff);
  bool has_open_entries() const { return open_entries_ != 0; }

  // The begin slot of the binder's active pair number `pair`.
  OpenBegin& begin(std::size_t pair);
  // Marks the begin open, with the given line; returns true when it replaced
  // one that was open already.
  bool open_begin(OpenBegin& begin, Nanos ts, std::uint64_t seq, std::string_view instance,
                  std::string_view line);
  void close_begin(OpenBegin& begin);
  // An open begin claimed as a line by another span: mark it printed.
  void note_emitted(std::uint64_t seq);

  // Drops held lines and open begins from before `cutoff` (returns how many:
  // both count as dropped pending events) and forgets entries as old.
  std::size_t expire(Nanos cutoff);

private:
  void discard_entries_from(std::size_t depth);

  std::vector<OpenEntry> entries_; // by depth
  std::size_t entries_top_ = 0;    // no entry is open at this depth or deeper
  std::size_t open_entries_ = 0;
  std::vector<OpenBegin> begins_; // by active pair
  std::size_t open_begins_ = 0;
};

} // namespace allocwatch

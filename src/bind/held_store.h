// HeldStore: every tracepoint line the binder holds, of every task, in one
// buffer of a fixed size (the profile's max_held_bytes). Each task's lines are
// a list through the store, oldest to newest. A task that holds nothing owns
// no memory at all: thousands of tasks that appear once cost nothing here.
//
// Lines go in at the tail of a ring, in input order. A line released early
// (claimed, or provably dead) leaves a gap; the ring frees gaps as its oldest
// end passes them, and when it is full of gaps it slides the lines still
// held together (keeping their order), unless they fill more than half of it
// and pages made resident at the start are left: then it grows into them.
// Only when the lines still held fill it are the oldest of them dropped,
// whichever task they belong to.
#pragma once

#include "util/duration.h"

#include <algorithm>
#include <cstdint>
#include <memory>
#include <string_view>

namespace allocwatch {

// A small number per event name the binder knows, assigned when it builds its
// tables, so that held lines and claim sets never compare names.
using EventId = std::uint32_t;

// Where a held line is in the store; valid until it is removed or dropped
// (the store may move lines, and then updates every list that refers to them).
using HeldRef = std::uint32_t;
constexpr HeldRef kNoLine = 0xffffffffu;

// One task's held lines, oldest first, in time order (the order they came).
struct HeldList {
  HeldRef oldest = kNoLine;
  HeldRef newest = kNoLine;
  std::uint32_t count = 0;
  // The oldest line's event and time (meaningless when empty), copied here:
  // whether it can be released is asked on every line of the task, and with
  // thousands of tasks the line's own header is rarely in the cache.
  EventId oldest_event = 0;
  Nanos oldest_ts = 0;
  bool empty() const { return count == 0; }
};

class HeldStore {
public:
  // What one held line costs besides its text.
  static constexpr std::size_t kLineOverhead = 48;
  static constexpr std::size_t kMinCapacity = 1024;
  static constexpr std::size_t kMaxCapacity = std::size_t{1} << 30;
  // The part of the buffer made resident at once. 4 MiB holds what the
  // densest traces of make bench keep at once, so memory stays the same from
  // start to end, whatever the length of the trace.
  static constexpr std::size_t kResident = std::size_t{4} << 20;
  // The part of it the ring uses at first; it doubles, up to the capacity,
  // only when the lines held need it (within the resident part: when they
  // fill more than half of it). While few lines are held the ring laps
  // a part that stays in the cache, and pages the process has not written
  // yet (which a virtual machine may still make fault) are not written.
  static constexpr std::size_t kFirstExtent = std::size_t{256} << 10;

  // `capacity` bytes, clamped to [kMinCapacity, kMaxCapacity]. Only the
  // first `resident` bytes are taken now; the rest is reserved, and its
  // pages cost nothing until the store grows into them.
  explicit HeldStore(std::size_t capacity, std::size_t first_extent = kFirstExtent,
                     std::size_t resident = kResident);
  HeldStore(const HeldStore&) = delete;
  HeldStore& operator=(const HeldStore&) = delete;

  // Appends a copy of `line` to the newest end of `list`. To make room it may
  // drop the oldest lines held by any list; returns how many lines it dropped
  // (the new line itself counts as one when it is larger than the store).
  // `fields`, a part of `line` (its tracepoint's fields as the parser read
  // them) or empty, is remembered for fields(): its place in 16 bits each,
  // which fields after an event's name in a line of at most kMaxLineBytes
  // need. Anything else gives fields() a part of the line, never more.
  std::size_t push(HeldList& list, Nanos ts, std::uint64_t seq, EventId event,
                   std::string_view line, std::string_view fields = {});
  // Removes one line from its list.
  void remove(HeldRef ref);

  HeldRef newer(HeldRef ref) const { return header(ref).next; }
  HeldRef older(HeldRef ref) const { return header(ref).prev; }
  Nanos ts(HeldRef ref) const { return header(ref).ts; }
  std::uint64_t seq(HeldRef ref) const { return header(ref).seq; }
  EventId event(HeldRef ref) const { return header(ref).event; }
  // Valid until the next push (which may move lines).
  std::string_view line(HeldRef ref) const {
    return {buf_.get() + ref + sizeof(Header), header(ref).length};
  }
  // The part of line(ref) given to push() as its fields; empty if none was.
  std::string_view fields(HeldRef ref) const {
    const Header& h = header(ref);
    if (h.fields_size == 0 || h.fields_at > h.length)
      return {};
    return {buf_.get() + ref + sizeof(Header) + h.fields_at,
            std::min<std::size_t>(h.fields_size, h.length - h.fields_at)};
  }

  std::size_t capacity() const { return capacity_; }
  // The part of the buffer in use: the most that held lines (with the gaps
  // between them) ever needed.
  std::size_t extent() const { return extent_; }
  std::size_t lines() const { return live_lines_; }
  // The bytes the held lines take, with their overhead.
  std::size_t held_bytes() const { return live_bytes_; }
  // Times the store slid its lines together, for tests.
  std::uint64_t compactions() const { return compactions_; }

private:
  struct Header {
    HeldList* owner; // nullptr: a gap (a removed line, or padding at the end)
    std::uint64_t seq;
    Nanos ts;
    std::uint32_t size; // of the whole record, header included, a multiple of 8
    std::uint32_t length;
    HeldRef prev;
    HeldRef next;
    EventId event;
    std::uint16_t fields_at; // where the line's fields begin, and their size
    std::uint16_t fields_size;
  };
  static_assert(sizeof(Header) == kLineOverhead);

  Header& header(HeldRef ref) { return *reinterpret_cast<Header*>(buf_.get() + ref); }
  const Header& header(HeldRef ref) const {
    return *reinterpret_cast<const Header*>(buf_.get() + ref);
  }
  // Where a record of `size` bytes fits at the tail now, or kNoLine.
  HeldRef room_at_tail(std::size_t size) const;
  // Frees the oldest record: a gap, or a held line (then dropped).
  void pop_oldest();
  // Makes [tail, end of buffer) a gap, so the next record starts at 0.
  void pad_to_end(std::size_t at);
  void compact();
  void grow();
  void unlink(Header& h);
  // The record now at `to` was moved: points its neighbours (or its list) at it.
  void relink(HeldRef to);

  std::size_t capacity_;
  std::unique_ptr<char[]> buf_;
  std::size_t extent_;   // positions wrap at this end
  std::size_t resident_; // the part made resident at the start
  std::size_t head_ = 0; // the oldest record
  std::size_t tail_ = 0; // where the next one goes
  std::size_t used_ = 0; // bytes from head to tail, gaps included
  std::size_t live_bytes_ = 0;
  std::size_t live_lines_ = 0;
  std::uint64_t compactions_ = 0;
};

} // namespace allocwatch

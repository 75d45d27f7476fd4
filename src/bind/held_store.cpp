#include "bind/held_store.h"

#include "trace/record.h"

#include <algorithm>
#include <cstring>
#include <new>
#include <sys/mman.h>
#include <unistd.h>

namespace allocwatch {

namespace {

constexpr std::size_t round_up8(std::size_t n) {
  return (n + 7) & ~std::size_t{7};
}

// Makes the pages of [at, at + size) resident. The kernel populates the
// whole pages in one call (MADV_POPULATE_WRITE, Linux 5.14): writing them
// from here instead takes a page fault per page, a quarter of the user CPU
// of a whole run of make bench-live (in a virtual machine, whose shadow page
// tables make each fault dear). Older kernels refuse the advice: then they
// are written.
void take_pages(char* at, std::size_t size) {
  const auto page = static_cast<std::uintptr_t>(::sysconf(_SC_PAGESIZE));
  const auto begin = reinterpret_cast<std::uintptr_t>(at);
  const std::uintptr_t first = (begin + page - 1) & ~(page - 1);
  const std::uintptr_t last = (begin + size) & ~(page - 1);
#ifdef MADV_POPULATE_WRITE
  if (last > first &&
      ::madvise(reinterpret_cast<void*>(first), last - first, MADV_POPULATE_WRITE) == 0) {
    std::memset(at, 0, first - begin); // the partial pages at both ends
    std::memset(reinterpret_cast<char*>(last), 0, begin + size - last);
    return;
  }
#endif
  std::memset(at, 0, size);
}

} // namespace

HeldStore::HeldStore(std::size_t capacity, std::size_t first_extent, std::size_t resident)
    : capacity_(std::clamp(capacity, kMinCapacity, kMaxCapacity) & ~std::size_t{7}),
      // Not value-initialised: untouched pages stay out of the resident set.
      buf_(new char[capacity_]),
      extent_(std::clamp(first_extent & ~std::size_t{7}, kMinCapacity, capacity_)),
      resident_(std::clamp(resident, extent_, capacity_)) {
  // The first part is taken now, not in the middle of the reclaim storm
  // allocwatch is watching, where a page fault would itself wait in reclaim
  // (and distort what is measured). It also keeps memory the same from the
  // first line on, however long the run.
  take_pages(buf_.get(), resident_);
}

void HeldStore::grow() {
  const std::size_t old_extent = extent_;
  extent_ = std::min(capacity_, 2 * extent_);
  if (used_ == 0 || tail_ > head_)
    return; // not wrapped: the new room simply follows the tail
  // Wrapped: the older part, [head, old end), moves to the new end, so that
  // the new room lies between the tail and it. A gap that padded the old end
  // stays at the end, as large as it was. Then every link into the moved
  // part, from either part or from a list, is moved with it.
  const std::size_t old_head = head_;
  const std::size_t delta = extent_ - old_extent;
  std::memmove(buf_.get() + head_ + delta, buf_.get() + head_, old_extent - head_);
  head_ += delta;
  const auto moved = [&](HeldRef& ref) {
    if (ref != kNoLine && ref >= old_head && ref < old_extent)
      ref += static_cast<HeldRef>(delta);
  };
  std::size_t at = head_;
  for (std::size_t left = used_; left > 0;) {
    std::size_t size = extent_ - at;
    if (size >= sizeof(Header)) {
      Header& h = header(static_cast<HeldRef>(at));
      size = h.size;
      if (h.owner != nullptr) {
        moved(h.prev);
        moved(h.next);
        if (h.prev == kNoLine)
          h.owner->oldest = static_cast<HeldRef>(at);
        if (h.next == kNoLine)
          h.owner->newest = static_cast<HeldRef>(at);
      }
    }
    at += size;
    if (at == extent_)
      at = 0;
    left -= size;
  }
}

HeldRef HeldStore::room_at_tail(std::size_t size) const {
  if (used_ == extent_)
    return kNoLine;
  if (tail_ >= head_) { // free: [tail, end) and [0, head)
    if (extent_ - tail_ >= size)
      return static_cast<HeldRef>(tail_);
    return head_ >= size ? 0 : kNoLine;
  }
  return head_ - tail_ >= size ? static_cast<HeldRef>(tail_) : kNoLine;
}

void HeldStore::pad_to_end(std::size_t at) {
  // Too little room left for a header: the reader knows such a tail is a gap.
  if (extent_ - at >= sizeof(Header))
    new (buf_.get() + at) Header{
        nullptr, 0, 0, static_cast<std::uint32_t>(extent_ - at), 0, kNoLine, kNoLine, 0, 0, 0};
}

void HeldStore::unlink(Header& h) {
  HeldList& list = *h.owner;
  if (h.prev != kNoLine) {
    header(h.prev).next = h.next;
  } else {
    list.oldest = h.next;
    if (h.next != kNoLine) {
      list.oldest_event = header(h.next).event;
      list.oldest_ts = header(h.next).ts;
    }
  }
  if (h.next != kNoLine)
    header(h.next).prev = h.prev;
  else
    list.newest = h.prev;
  --list.count;
  h.owner = nullptr;
  live_bytes_ -= h.size;
  --live_lines_;
}

void HeldStore::pop_oldest() {
  std::size_t size = extent_ - head_;
  if (size >= sizeof(Header)) {
    Header& h = header(static_cast<HeldRef>(head_));
    size = h.size;
    if (h.owner != nullptr)
      unlink(h);
  }
  head_ += size;
  if (head_ == extent_)
    head_ = 0;
  used_ -= size;
  if (used_ == 0)
    head_ = tail_ = 0;
}

void HeldStore::relink(HeldRef to) {
  Header& h = header(to);
  if (h.prev != kNoLine)
    header(h.prev).next = to;
  else
    h.owner->oldest = to;
  if (h.next != kNoLine)
    header(h.next).prev = to;
  else
    h.owner->newest = to;
}

void HeldStore::compact() {
  ++compactions_;
  // Reads every record from the oldest on and writes the held ones back from
  // the oldest position on, in order. The write position never passes the
  // read position, so nothing unread is overwritten: when a record does not
  // fit before the end of the buffer at the write position, it cannot have
  // fitted at a read position in the same lap either, so the reader is
  // already in the next lap.
  std::size_t read = head_;
  std::size_t write = head_;
  std::size_t left = used_;
  std::size_t used = 0;
  while (left > 0) {
    std::size_t size = extent_ - read;
    bool held = false;
    if (size >= sizeof(Header)) {
      const Header& h = header(static_cast<HeldRef>(read));
      size = h.size;
      held = h.owner != nullptr;
    }
    if (held) {
      if (extent_ - write < size) {
        pad_to_end(write);
        used += extent_ - write;
        write = 0;
      }
      if (write != read) {
        std::memmove(buf_.get() + write, buf_.get() + read, size);
        relink(static_cast<HeldRef>(write));
      }
      used += size;
      write += size;
      if (write == extent_)
        write = 0;
    }
    read += size;
    if (read == extent_)
      read = 0;
    left -= size;
  }
  tail_ = write;
  used_ = used;
  if (used_ == 0)
    head_ = tail_ = 0;
}

std::size_t HeldStore::push(HeldList& list, Nanos ts, std::uint64_t seq, EventId event,
                            std::string_view line, std::string_view fields) {
  const std::size_t size = round_up8(sizeof(Header) + line.size());
  if (size > capacity_)
    return 1;
  std::size_t dropped = 0;
  HeldRef at;
  while ((at = room_at_tail(size)) == kNoLine) {
    if (used_ == 0) { // empty, and the line is larger than the part in use
      grow();
      continue;
    }
    const bool gap_first =
        extent_ - head_ < sizeof(Header) || header(static_cast<HeldRef>(head_)).owner == nullptr;
    // Sliding the held lines together costs a copy of each. While they fill
    // more than half the ring and it has resident room to grow into (which
    // costs no memory), it grows instead: a slide would copy more than it
    // frees, and would soon be needed again.
    if (!gap_first && extent_ < resident_ && live_bytes_ * 2 > extent_) {
      grow();
      continue;
    }
    // Otherwise a slide is worth it only when it frees a good part of the
    // buffer, so that each byte is copied a bounded number of times however
    // the lines are released.
    if (!gap_first && used_ - live_bytes_ >= std::max(size, extent_ / 8)) {
      compact();
      continue;
    }
    // Held lines fill what the store uses so far: it grows (its pages are
    // touched only as it does) before any line is dropped.
    if (!gap_first && extent_ < capacity_) {
      grow();
      continue;
    }
    dropped += gap_first ? 0 : 1;
    pop_oldest();
  }
  if (at == 0 && tail_ != 0 && used_ != 0) {
    pad_to_end(tail_);
    used_ += extent_ - tail_;
  }
  // As addresses: `fields` may be an empty view of nothing. Kept in 16 bits
  // each, unchecked here (every held line pays for this): fields() clamps.
  // Non-empty fields start after an event name, so both fit while a line
  // the parser accepts is at most 64 KiB.
  static_assert(kMaxLineBytes <= std::size_t{UINT16_MAX} + 1,
                "a held line's fields_at and fields_size are 16-bit");
  const auto fields_at =
      static_cast<std::uint16_t>(reinterpret_cast<std::uintptr_t>(fields.data()) -
                                 reinterpret_cast<std::uintptr_t>(line.data()));
  new (buf_.get() + at) Header{&list,
                               seq,
                               ts,
                               static_cast<std::uint32_t>(size),
                               static_cast<std::uint32_t>(line.size()),
                               list.newest,
                               kNoLine,
                               event,
                               fields_at,
                               static_cast<std::uint16_t>(fields.size())};
  std::memcpy(buf_.get() + at + sizeof(Header), line.data(), line.size());
  if (list.newest != kNoLine) {
    header(list.newest).next = at;
  } else {
    list.oldest = at;
    list.oldest_event = event;
    list.oldest_ts = ts;
  }
  list.newest = at;
  ++list.count;
  if (used_ == 0)
    head_ = at;
  tail_ = at + size;
  if (tail_ == extent_)
    tail_ = 0;
  used_ += size;
  live_bytes_ += size;
  ++live_lines_;
  return dropped;
}

void HeldStore::remove(HeldRef ref) {
  unlink(header(ref));
  // Free the gaps at the oldest end now: an empty store starts over at 0,
  // where the lines it holds are warm in the cache.
  while (used_ > 0 &&
         (extent_ - head_ < sizeof(Header) || header(static_cast<HeldRef>(head_)).owner == nullptr))
    pop_oldest();
}

} // namespace allocwatch

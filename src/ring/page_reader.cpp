#include "ring/page_reader.h"

#include <cstring>
#include <new>

extern "C" {
#include <kbuffer.h>
}

namespace allocwatch {

namespace {

// The commit word's fields (the kernel's ring_buffer.c: RB_MISSED_EVENTS,
// RB_MISSED_STORED; the length below them).
constexpr std::uint64_t kCommitMask = (1u << 27) - 1;
constexpr std::uint64_t kMissedEvents = 1u << 31;
constexpr std::uint64_t kMissedStored = 1u << 30;
// An absolute time stamp record lacks the time's top five bits (kbuffer's
// TS_MSB).
constexpr std::uint64_t kTimeStampHigh = std::uint64_t{0xf8} << 56;

std::uint64_t read_word(const std::byte* at, int size) {
  if (size == 8) {
    std::uint64_t word;
    std::memcpy(&word, at, sizeof word);
    return word;
  }
  std::uint32_t word;
  std::memcpy(&word, at, sizeof word);
  return word;
}

void write_word(std::byte* at, int size, std::uint64_t word) {
  if (size == 8) {
    std::memcpy(at, &word, sizeof word);
    return;
  }
  const auto narrow = static_cast<std::uint32_t>(word);
  std::memcpy(at, &narrow, sizeof narrow);
}

} // namespace

PageReader::PageReader(std::size_t page_size, int long_size)
    : page_size_(page_size), header_size_(8 + static_cast<std::size_t>(long_size == 4 ? 4 : 8)),
      kbuf_(kbuffer_alloc(long_size == 4 ? KBUFFER_LSIZE_4 : KBUFFER_LSIZE_8,
                          KBUFFER_ENDIAN_SAME_AS_HOST)) {
  if (kbuf_ == nullptr)
    throw std::bad_alloc();
}

PageReader::~PageReader() {
  kbuffer_free(kbuf_);
}

// Rewrites the commit word so that kbuffer sees `data_length` bytes of data,
// and a stored missed count only if `stored`.
void PageReader::cut_at(std::byte* buffer, std::size_t data_length, bool stored) {
  const int long_size = static_cast<int>(header_size_ - 8);
  std::uint64_t word = read_word(buffer + 8, long_size);
  word = (word & ~kCommitMask) | data_length;
  if (!stored)
    word &= ~kMissedStored;
  write_word(buffer + 8, long_size, word);
  data_end_ = header_size_ + data_length;
}

bool PageReader::load(std::byte* buffer, std::size_t size) {
  records_.clear();
  damaged_ = false;
  missed_ = 0;
  timestamp_ = 0;
  data_end_ = 0;
  if (size > page_size_) {
    size = page_size_;
    damaged_ = true;
  }
  std::memset(buffer + size, 0, page_size_ + kPageSlack - size);
  if (size < header_size_) {
    damaged_ = true;
    return false;
  }

  const int long_size = static_cast<int>(header_size_ - 8);
  const std::uint64_t word = read_word(buffer + 8, long_size);
  const std::size_t room = size - header_size_;
  std::size_t length = word & kCommitMask;
  bool stored = (word & kMissedEvents) != 0 && (word & kMissedStored) != 0;
  if (length > room) {
    length = room;
    damaged_ = true;
  }
  if (stored && room - length < static_cast<std::size_t>(long_size)) {
    stored = false;
    damaged_ = true;
  }
  if ((word & kMissedEvents) != 0)
    missed_ =
        stored ? static_cast<long long>(read_word(buffer + header_size_ + length, long_size)) : -1;
  if (missed_ < -1) // a count with its top bit set is a lie, not a loss
    missed_ = -1;
  cut_at(buffer, length, stored);

  // One walk: each record's header is read by kbuffer_raw_get (kbuffer's
  // translate_data), checked, and its time taken as kbuffer_next_event
  // would take it (update_pointers in kbuffer-parse.c): every record's
  // delta adds to the running time, padding's and time extends' included,
  // and an absolute time stamp replaces it, keeping the running time's top
  // five bits (kbuffer's TS_MSB).
  timestamp_ = kbuffer_subbuf_timestamp(kbuf_, buffer);
  std::uint64_t ts = timestamp_;
  kbuffer_raw_info info{};
  info.next = buffer + header_size_;
  for (;;) {
    auto* at = static_cast<std::byte*>(info.next);
    if (kbuffer_raw_get(kbuf_, buffer, &info) == nullptr)
      break;
    auto* next = static_cast<std::byte*>(info.next);
    if (info.length < 0 || next <= at || next > buffer + data_end_) {
      // A padding record may run to the page's end; any other lies.
      if (info.type != KBUFFER_TYPE_PADDING)
        damaged_ = true;
      cut_at(buffer, static_cast<std::size_t>(at - buffer) - header_size_, stored);
      break;
    }
    switch (info.type) {
    case KBUFFER_TYPE_TIME_STAMP:
      ts = (info.delta & ~kTimeStampHigh) | (ts & kTimeStampHigh);
      break;
    case KBUFFER_TYPE_PADDING:
    case KBUFFER_TYPE_TIME_EXTEND:
      ts += info.delta;
      break;
    default:
      ts += info.delta;
      records_.push_back({ts, static_cast<std::uint32_t>(next - info.length - buffer),
                          static_cast<std::uint32_t>(info.length)});
      break;
    }
  }
  return true;
}

void PageReader::take_records(std::vector<PageRecord>& into) {
  into.swap(records_);
  records_.clear();
}

} // namespace allocwatch

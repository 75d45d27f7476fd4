// PageReader: the records of one sub-buffer page of the kernel's ring buffer
// (what one read of per_cpu/cpuN/trace_pipe_raw returns), through
// libtraceevent's kbuffer.
//
//   PageReader reader(page_size);              // one per CPU or queue; reused
//   reader.load(buffer, bytes_read);           // buffer: page_size + kPageSlack bytes
//   if (reader.missed() != 0) ...              // events lost before this page
//   for (const PageRecord& r : reader.records()) ...  // oldest first; at buffer + r.offset
//   reader.take_records(queue);                // or moved out, for later
//
// The page is the running kernel's: host byte order, a header of a u64
// timestamp and a `long_size` commit word (the committed data's length, with
// bit 31 "events were missed before this page" and bit 30 "their count is
// stored after the data"), then the records.
//
// A page is untrusted bytes, and kbuffer trusts it: it takes the commit
// length as it is (up to 128 MiB), reads the missed count after it, and
// follows every record's length, so that a negative padding length loops for
// ever. load() therefore cuts the commit length to the bytes read and drops a
// stored count that would lie past them, then walks the records once:
// kbuffer_raw_get reads each record's header, and the walk cuts the page at
// the first record that does not move forward or ends past the committed
// data. A page so cut is damaged(); its records before the cut are read. The
// walk also times the records, as kbuffer_next_event does, so that each
// header is read once (the tests, on real and built pages, and the page fuzz
// harness, on any bytes, compare them with kbuffer's own). kbuffer reads a
// record's header words (up to 12 bytes) before it knows its length:
// kPageSlack zeroed bytes after the page keep those reads inside the buffer.
//
// The missed count is taken from the header word load() reads for the
// guard: kbuffer_missed_events() answers 0 when the page's first record
// follows a time extend.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

struct kbuffer;

namespace allocwatch {

// The bytes a page's buffer holds beyond the page itself; load() zeroes them.
constexpr std::size_t kPageSlack = 16;

// A record of a loaded page: its time, and where its payload lies in the
// page's buffer.
struct PageRecord {
  std::uint64_t ts = 0;
  std::uint32_t offset = 0;
  std::uint32_t size = 0;
};

class PageReader {
public:
  // `page_size`: the sub-buffer size (the tep's, or getpagesize());
  // `long_size`: the kernel's long, 4 or 8 bytes (the commit word's size).
  explicit PageReader(std::size_t page_size, int long_size = sizeof(long));
  ~PageReader();
  PageReader(const PageReader&) = delete;
  PageReader& operator=(const PageReader&) = delete;

  std::size_t page_size() const { return page_size_; }

  // Loads the `size` bytes read into `buffer` (at most page_size; the buffer
  // holds page_size + kPageSlack bytes, which load() may rewrite: the bytes
  // after `size` are zeroed and a lying header is cut). False when the
  // bytes cannot hold a page header: the page then has no records and is
  // damaged().
  bool load(std::byte* buffer, std::size_t size);

  // The loaded page's records, oldest first, each inside the committed
  // data; valid until the next load() or take_records().
  std::span<const PageRecord> records() const { return records_; }
  // Moves all the page's records into `into`, in order (what `into` held
  // is dropped, its storage reused by the next load()); records() is then
  // empty.
  void take_records(std::vector<PageRecord>& into);

  // Events the kernel lost before this page: 0 none, -1 lost but not
  // counted, else the count.
  long long missed() const { return missed_; }
  // The page's header timestamp (that of its first record).
  std::uint64_t timestamp() const { return timestamp_; }
  // The header or a record lied; what follows the lie was not read.
  bool damaged() const { return damaged_; }
  // The committed data's length, as cut by the guard (0 if not loaded).
  std::size_t data_size() const { return data_end_ > header_size_ ? data_end_ - header_size_ : 0; }

private:
  void cut_at(std::byte* buffer, std::size_t data_length, bool stored);
  std::size_t page_size_;
  std::size_t header_size_;
  kbuffer* kbuf_;
  std::size_t data_end_ = 0;        // header + committed data, after the guard
  std::vector<PageRecord> records_; // the loaded page's, found by load()
  bool damaged_ = false;
  long long missed_ = 0;
  std::uint64_t timestamp_ = 0;
};

} // namespace allocwatch

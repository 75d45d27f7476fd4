// CpuMerge: the records of every CPU's ring buffer, one stream in timestamp
// order (pure: its reader does the I/O).
//
//   CpuMerge merge(cpus, page_size);
//   n = read(cpu's trace_pipe_raw, merge.buffer(), page_size);
//   n > 0 ? merge.push(cpu, n) : merge.drained(cpu);  // read empty
//   CpuMerge::Item item;
//   while (merge.next(item)) ...                   // in order; valid until the next call
//   merge.finish();                                // at the end: the rest, in order
//
// Each CPU's buffer holds its records in timestamp order; the CPUs' buffers
// are read one after another, so a task that migrates has records in two
// of them that arrive out of step. A record is given out only once no CPU
// can still deliver an older one. Each CPU has a floor, a time no record
// it can still deliver is older than, raised in three ways:
//
// 1. A push. A CPU delivers its records in order: none still to come is
//    older than the newest it delivered.
// 2. A read that finds it empty (drained()). Let M be the newest timestamp
//    pushed before that read. Every record pushed was committed before the
//    read, so M is no later than it; a record the CPU delivers after it was
//    committed after it, stamped no earlier than it less the time a record
//    takes to write and the skew between the CPUs' clocks. So the CPU's
//    floor is M less the slack. An idle CPU holds nothing up: its empty
//    reads keep its floor rising with the others' records.
// 3. The quiet rule. When the reader has slept longer than the slack since
//    its last push (waited()) and then reads a CPU empty, every record
//    committed before the last push was read: the CPU's floor is M itself.
//    Without it the newest records would wait for the next event.
//
// The oldest queued record goes out once it is no newer than every CPU's
// floor; with every CPU queued (1), that is the oldest of all.
//
// A CPU that has backlog_pages pages queued already is backlogged(): its
// reader leaves it until no other CPU can move the merge, so that one busy
// CPU's backlog stays in the kernel's buffer, not here, while the merge
// waits for a quieter CPU's floor.
//
// Pages that a CPU's page reports missed events for give a Lost item first,
// at that page's time. Memory is bounded: at most max_pages pages are
// queued; past that the oldest record goes out anyway (counted in forced()).
// A record older than one already given out (only a clock skew beyond the
// slack, or a forced one, can make it) still goes out, counted in late().
// Pages are checked and cut as PageReader does (damaged_pages()).
#pragma once

#include "ring/page_reader.h"
#include "ring/raw_event.h"

#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <vector>

namespace allocwatch {

class CpuMerge {
public:
  struct Options {
    // Queued pages over all CPUs: 512 pages of 4 KiB are 2 MiB.
    std::size_t max_pages = 512;
    // What a floor from an empty read allows for a record's write and the skew of
    // the CPUs' clocks (the "local" trace clock is per CPU).
    std::uint64_t slack_ns = 1'000'000;
    // Queued pages from which a CPU is backlogged().
    std::size_t backlog_pages = 16;
  };

  struct Item {
    enum class Kind { Event, Lost } kind = Kind::Event;
    RawEvent event; // Event: the record; its data lives until the next call
    int cpu = -1;
    long long lost = 0; // Lost: the count, -1 when the kernel did not count
  };

  CpuMerge(int cpus, std::size_t page_size, Options options);
  CpuMerge(int cpus, std::size_t page_size) : CpuMerge(cpus, page_size, Options{}) {}

  int cpus() const { return static_cast<int>(cpus_.size()); }
  std::size_t page_size() const { return page_size_; }
  std::uint64_t slack_ns() const { return options_.slack_ns; }

  // Where to read the next page: page_size + kPageSlack bytes, valid until
  // push() or the next buffer() call.
  std::byte* buffer();
  // The `size` bytes just read into buffer() from `cpu`'s buffer; returns
  // the page's committed data length (PageReader::data_size). A page the
  // kernel copied out of the page it is still writing holds less than a
  // full one.
  std::size_t push(int cpu, std::size_t size);
  // A read of `cpu`'s buffer found it empty.
  void drained(int cpu);
  // The reader slept longer than the slack since it last pushed (a poll
  // wait): a CPU read empty before the next push holds back nothing queued.
  void waited();
  // Every CPU is read empty for good (tracing is off): next() gives all.
  void finish();

  // The next item that no CPU can precede; false if none can go out yet
  // (or, after finish(), at the end). The item, and the page its data
  // points into, live until the next call.
  bool next(Item& item);

  // `cpu` has backlog_pages queued: read it only when no other CPU's read
  // can move the merge.
  bool backlogged(int cpu) const;
  std::size_t queued_pages() const { return queued_pages_; }
  std::uint64_t forced() const { return forced_; }
  std::uint64_t late() const { return late_; }
  std::uint64_t damaged_pages() const { return damaged_pages_; }

private:
  struct Page {
    std::unique_ptr<std::byte[]> bytes;
    std::uint64_t first_ts = 0;     // its first record's, or the header's
    long long missed = 0;           // events lost before it, as PageReader::missed()
    std::vector<PageRecord> events; // found when it was pushed
  };
  struct Cpu {
    std::deque<Page> pages;
    bool loaded = false;        // the state below is of pages.front()
    bool lost_first = false;    // pages.front()'s missed events go out first
    std::size_t next_event = 0; // pages.front().events' next to give out
    std::uint64_t floor = 0;    // if floor_known, no record still to come is older
    bool floor_known = false;
  };

  // Takes up `cpu`'s first page if needed; false when it has nothing queued.
  bool ready(Cpu& cpu);
  static void raise_floor(Cpu& cpu, std::uint64_t floor);
  std::uint64_t key(const Cpu& cpu) const;
  // Drops `cpu`'s first page; `given`: an item given out points into it,
  // so it lives until the next call.
  void retire_front(Cpu& cpu, bool given);
  Page take_page();
  void recycle(Page page);
  // Gives out `cpu`'s (number `index`) next record, which must be an event.
  void give_event(Cpu& cpu, int index, Item& item);
  // The CPU `index` is about to give out its next event, no newer than
  // `floor`: notes up to which time its following ones go out without
  // another look at the others (until a push).
  void start_run(int index, std::uint64_t floor);

  std::size_t page_size_;
  Options options_;
  std::vector<Cpu> cpus_;
  PageReader reader_; // checks and walks pages as they are pushed
  Page filling_;      // what buffer() gave out, until push()
  std::vector<Page> spare_;
  Page given_out_; // the page of the item last given, if done with
  // A run: while CPU run_cpu_'s next record is an event no newer than
  // run_limit_, it is what the full look at every CPU would give. -1: none.
  int run_cpu_ = -1;
  std::uint64_t run_limit_ = 0;
  std::size_t queued_pages_ = 0;
  std::uint64_t newest_ = 0; // newest timestamp pushed
  bool pushed_ = false;      // anything pushed at all
  bool quiet_ = false;       // nothing pushed since waited()
  bool finished_ = false;
  std::uint64_t last_given_ = 0;
  std::uint64_t forced_ = 0;
  std::uint64_t late_ = 0;
  std::uint64_t damaged_pages_ = 0;
};

} // namespace allocwatch

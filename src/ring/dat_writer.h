// DatWriter: trace-cmd's trace.dat of the pages a raw run read, as read:
// file format version 6, flyrecord, uncompressed (trace-cmd.dat.v6(5)),
// which `trace-cmd report` and KernelShark open. The pages are the file's
// top buffer, whatever instance they came from.
//
//   auto writer = value_or_throw(DatWriter::create(sources, {"run.dat", cpus, events}));
//   writer->add_page(cpu, page, writer->page_size());   // as each page is read
//   throw_on_error(writer->finish());
//
// The file holds, in this order: the magic "\027\010\104tracing", "6", the
// host's byte order and long size, the page size (the sub-buffer size that
// events/header_page gives); header_page and header_event; every format of
// events/ftrace/ (funcgraph_entry and funcgraph_exit among them, so that
// graph traces decode); the format of each traced event, by system;
// /proc/kallsyms (function addresses, vmscan's `%pS`); printk_formats;
// saved_cmdlines; the CPU count; one option, the trace clock (its name,
// "local"); then "flyrecord": each CPU's offset and size, the clock again
// as "[local]", and each CPU's pages, page-aligned.
//
// Memory stays bounded: pages go to one unlinked scratch file per CPU that
// has data (beside the file, see ring/dat_file.h), large sources are
// streamed. Everything but kallsyms and saved_cmdlines is read by create();
// those two by finish(), so that tasks that came late have their comms.
#pragma once

#include "ring/dat_file.h"
#include "ring/dat_sources.h"
#include "ring/header_page.h"
#include "ring/page_sink.h"
#include "util/result.h"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace allocwatch {

struct TracedEvent {
  std::string system; // "vmscan"
  std::string name;   // "mm_vmscan_direct_reclaim_begin"
};

struct DatWriterOptions {
  std::string path;
  // Pages may come for CPUs 0 to cpus - 1 (the machine's possible CPUs).
  int cpus = 0;
  // Each event the run traces; a format that cannot be read is an error.
  // Duplicates are written once.
  std::vector<TracedEvent> events;
};

class DatWriter final : public PageSink {
public:
  // Reads the sources' header files and formats, and opens the file's
  // temporary. An error names what could not be read or created. A path
  // that names something other than a regular file is refused (the file is
  // made beside it and renamed over it). `sources` must outlive the writer.
  static Result<std::unique_ptr<DatWriter>> create(DatSources& sources, DatWriterOptions options);
  ~DatWriter() override;

  // The size of every page: events/header_page's data offset plus size.
  std::size_t page_size() const { return page_size_; }

  // Keeps a copy of one page. A page of another size, one whose commit
  // (its data's length) passes the page's end, a CPU out of range or a
  // failed write is an error that good() shows and finish() returns; pages
  // after it, and pages after finish(), are dropped.
  void add_page(int cpu, const void* page, std::size_t size) override;
  bool good() const override { return !error_.has_value(); }

  // Reads kallsyms and saved_cmdlines, writes the whole file and puts it
  // under the path. Ok, or the first error (add_page()'s included), and
  // then nothing is under the path. Once only. `trailer` ends the file,
  // after the last CPU's pages, where readers of the format, which go by
  // the sections' offsets, do not look (allocwatch's own records of the run).
  Status finish(std::string_view trailer = {});

private:
  struct CpuData {
    Fd scratch;
    std::uint64_t pages = 0;
  };
  // A page header's layout, from events/header_page.
  DatWriter(DatSources& sources, DatWriterOptions options, DatFile file);
  Status read_headers();
  Status check_page(int cpu, const void* page, std::size_t size) const;
  void write_file();
  void write_formats();
  void write_streamed(const std::string& path, std::size_t size_width);
  void write_cpu_data();

  DatSources& sources_;
  DatWriterOptions options_;
  DatFile file_;
  HeaderPageField commit_; // the page's data length and flags
  HeaderPageField data_;   // the records
  std::size_t page_size_ = 0;
  std::string header_page_;
  std::string header_event_;
  std::vector<std::string> ftrace_formats_;
  // Each system in the order its first event came, with its formats.
  std::vector<std::pair<std::string, std::vector<std::string>>> systems_;
  std::string printk_formats_;
  std::string clock_; // "local"
  std::vector<CpuData> cpus_;
  std::optional<Error> error_;
  bool finished_ = false;
};

} // namespace allocwatch

// DatInput: one buffer of a trace-cmd trace.dat, read through libtracecmd,
// its records pulled one at a time in timestamp order across CPUs.
//
//   auto file = DatInput::open(fd, "trace.dat", std::nullopt);  // Result
//   while (const DatEvent* e = (*file)->next()) ...            // e lives until the next next()
//
// Which buffer: `buffer` names an instance (`trace-cmd record -B NAME`,
// `trace-cmd extract -B NAME`); without it, the top-level buffer if it holds
// records, else the one instance that does. Several instances with records
// and no top-level ones is an error that names them, as is a name the file
// lacks. A file with no records at all reads its (empty) top-level buffer.
//
// Everything is checked at open(), before a record is given: the file as
// libtracecmd reads it (its magic, version, sections, compression, and that
// every CPU's data lies inside the file), that the buffer holds ring
// buffer pages (a latency tracer's file holds text instead: libtracecmd's
// readers would follow a null pointer on it), and that libtracecmd and
// libtraceevent come through reading every record: a child process reads
// them all first (the libraries crash on some forged files), so a file's
// records are read twice. A page damaged inside gives what libtracecmd
// makes of it: records the decoder then finds short or of no known event
// (a record whose length runs past its page is given no bytes), or the end
// of that CPU's data.
//
// libtracecmd and libtraceevent are told to print nothing: allocwatch says
// what went wrong. Some of libtracecmd's findings are printf()s to stdout,
// where the trace goes: open() sends them to /dev/null.
#pragma once

#include "ring/raw_event.h"
#include "util/result.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

struct tep_handle;

namespace allocwatch {

// trace-cmd's magic: the first bytes of every trace.dat ("\027\010\104tracing").
inline constexpr char kDatMagic[] = "\027\010\104tracing";
inline constexpr std::size_t kDatMagicSize = sizeof(kDatMagic) - 1;

struct DatEvent {
  RawEvent event;
  // Events the kernel lost on this CPU just before this record: 0 none; -1
  // some, how many is not known.
  long long missed = 0;
};

class DatInput {
public:
  // Reads `fd` from its start (a duplicate of it: the caller keeps `fd`).
  // `name` is the file's name for messages (escaped here); `buffer` an
  // instance to read. Errors name the file and say what is wrong.
  static Result<std::unique_ptr<DatInput>> open(int fd, const std::string& name,
                                                const std::optional<std::string>& buffer);
  ~DatInput();
  DatInput(const DatInput&) = delete;
  DatInput& operator=(const DatInput&) = delete;

  // The event formats, comms and symbols of the file, for an EventDecoder;
  // lives as long as this DatInput.
  tep_handle* tep() const;
  // The buffer read: empty for the top level, else the instance's name.
  const std::string& buffer() const { return buffer_; }
  // What stderr says: which buffer is read, and the others that hold records.
  std::string describe() const;
  // Whether the buffer holds function_graph records (funcgraph_entry or
  // funcgraph_exit): a file has no word for its tracer.
  bool graph() const { return graph_; }

  // The earliest of the CPUs' next records (ties: the lower CPU first), or
  // nullptr at the end: the records in time order where each CPU's are, as
  // the kernel writes them (a forged file's may go back; each CPU's order
  // is kept). It and the bytes it points to live until the next call.
  const DatEvent* next();

private:
  struct Impl;
  DatInput(std::unique_ptr<Impl> impl, std::string buffer, std::vector<std::string> others);
  // open() without the child: what the child and then the parent do.
  static Result<std::unique_ptr<DatInput>> open_here(int fd, const std::string& file,
                                                     const std::optional<std::string>& buffer);
  std::unique_ptr<Impl> impl_;
  std::string buffer_;
  std::vector<std::string> others_; // other buffers with records ("" = top level)
  bool graph_ = false;
};

// Whether `head` (a file's first bytes) starts with trace-cmd's magic.
bool is_dat_magic(std::string_view head);

} // namespace allocwatch

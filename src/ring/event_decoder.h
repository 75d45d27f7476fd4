// EventDecoder: records of the binary ring buffer to the binder's Records,
// through libtraceevent with the event formats of the kernel that wrote them
// (the running one's, or a trace.dat's).
//
//   EventDecoder decoder(tep);                  // tep: formats loaded, outlives it
//   const Record& r = decoder.decode(raw_event);  // valid until the next decode()/lost()
//
// Every field is read by name, through the tep_format_field looked up once
// per event id: layouts differ between kernels (5.10's 8-byte `overrun`
// before `calltime`; `retval` on 6.5+; `args` on 6.15+).
//
// - funcgraph_exit: a GraphReturn whose ts is `rettime` (see ReturnTime)
//   and duration is `rettime - calltime`, exact in ns; its name is the
//   function's symbol (tep_find_function), remembered for 4096 addresses
//   at a time (function_text.h's FunctionNames).
// - funcgraph_entry: a GraphEntry at the record's time.
// - any other event: an Event named as its format names it.
// - common_pid 0 and the comm: as saved_cmdlines (or the trace.dat) gives
//   them, "<...>" when unknown.
//
// Line and fields are not made here: the Record carries its blob and this
// decoder as its formatter, which prints, only when asked, the line the
// kernel's trace_pipe would have printed (function_graph's
// "abstime | cpu) comm-pid | duration | body" with funcgraph-proc,
// -abstime and -cpu, or the nop tracer's "comm-pid [cpu] flags ts: name:
// fields"), the fields as libtraceevent reads the event's print format.
// Where that line cannot equal the kernel's is said in allocwatch(8),
// "The binary ring buffer".
#pragma once

#include "ring/raw_event.h"
#include "trace/record.h"

#include <memory>
#include <string>
#include <string_view>

struct tep_handle;

namespace allocwatch {

class PendingFormats;

// How a tracepoint prints: in the nop tracer's columns, or (function_graph
// is the tracer) as a comment in function_graph's. A graph trace's
// tracepoints are Records of format Graph, as the text parser gives them.
enum class LineStyle : unsigned char { Events, Graph };

// When a function_graph return ended. function_graph times a call with the
// local trace clock (calltime, rettime) whatever the buffer's clock; when
// the buffer's trace_clock is not "local", its tracepoints' times are of
// another clock, and a return is placed at its record's time instead (the
// time it was written, after the call returned), its duration still exact.
enum class ReturnTime : unsigned char { Rettime, Written };

class EventDecoder final : public RecordFormatter {
public:
  // `tep` has the formats of every event that the records can hold, or
  // `pending` has those it lacks, parsed into it as their first records
  // are decoded; both must outlive the decoder.
  explicit EventDecoder(tep_handle* tep, LineStyle style = LineStyle::Events,
                        ReturnTime return_time = ReturnTime::Rettime,
                        PendingFormats* pending = nullptr);
  ~EventDecoder() override;
  EventDecoder(const EventDecoder&) = delete;
  EventDecoder& operator=(const EventDecoder&) = delete;

  // The record, decoded. A record whose id has no format, or whose payload
  // is shorter than its format, is a Malformed record, never read past.
  const Record& decode(const RawEvent& event);
  // "CPU:N [LOST M EVENTS]" (count < 0: "[LOST EVENTS]", no count known) as
  // a Lost record, as the kernel's text prints it.
  const Record& lost(int cpu, long long count);
  // From now on `pid` is named `comm` (a task new to the run, as /proc
  // names it; saved_cmdlines read again), over the tep's table, which never
  // forgets a pid: at most kNamedTasks are kept this way, all forgotten at
  // once when there would be more (then the tep's names, and "<...>").
  static constexpr std::size_t kNamedTasks = 4096;
  void name_task(std::int32_t pid, std::string_view comm);
  // How many times name_task() has forgotten every name it was given.
  std::uint64_t names_forgotten() const;
  // The comm records of `pid` are given: "<idle>" for 0, "<...>" unknown.
  std::string_view comm_of(std::int32_t pid) const;

  void format(std::string_view blob, std::string& out, std::size_t& fields_at,
              std::size_t& fields_size) const override;

private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

} // namespace allocwatch

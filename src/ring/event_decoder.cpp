#include "ring/event_decoder.h"

#include "kernel/vocabulary.h"
#include "ring/event_formats.h"
#include "ring/field_number.h"
#include "ring/function_text.h"
#include "ring/line_columns.h"
#include "ring/print_plan.h"
#include "util/string_hash.h"

#include <algorithm>
#include <array>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>
#include <traceevent/event-parse.h>
#include <traceevent/trace-seq.h>
#include <unordered_map>
#include <vector>

namespace allocwatch {
namespace {

// What a blob holds before the event's payload.
struct BlobHeader {
  std::uint64_t ts;
  std::int32_t cpu;
  std::uint32_t size;
};

// A payload is at most a sub-buffer page; anything larger is not an event.
constexpr std::uint32_t kMaxPayload = 1u << 20;
// Printed fields are remembered by the bytes their print reads, in this
// many slots: the records of a stall repeat them often (the same order and
// flags, the same pages scanned: nine in ten lines of a memcg reclaim's),
// and a print evaluates every argument each time (__print_flags' list of
// gfp flags is dozens of expressions). Records of more bytes, or fields of
// more text, are printed each time, so that the slots stay small.
constexpr std::size_t kPrintedSlots = 512;
constexpr std::size_t kPrintedBytes = 128;
constexpr std::size_t kPrintedText = 1024;
// A dynamic field (__data_loc) is a 16-bit offset and a 16-bit length into
// its payload: libtraceevent follows them unchecked, so payloads are
// formatted from a copy padded with this many zero bytes past its end.
constexpr std::size_t kDynamicReach = std::size_t{1} << 17;

enum class Shape : std::uint8_t { Event, GraphEntry, GraphExit };

struct EventInfo {
  tep_event* event = nullptr; // null: no format for the id
  std::string_view name;      // event->name's
  Shape shape = Shape::Event;
  std::uint32_t min_size = 0; // the end of its last fixed-size field
  tep_format_field* pid = nullptr;
  tep_format_field* func = nullptr;
  tep_format_field* depth = nullptr;
  tep_format_field* calltime = nullptr;
  tep_format_field* rettime = nullptr;
  // mm_shrink_slab_start/end: the scan function and the instance their
  // fields begin with ("%pS %p:", include/trace/events/vmscan.h).
  tep_format_field* shrink = nullptr;
  tep_format_field* shr = nullptr;
  // Its common fields are type, flags, preempt_count and pid at 0, 2, 3
  // and 4, as in every kernel but those with more (PREEMPT_RT's): then the
  // latency column depends on flags and preempt_count alone.
  bool plain_common = false;
  // Its fields printed straight from the record, when its print format
  // has a plan; else libtraceevent prints them.
  std::unique_ptr<PrintPlan> plan;
};

// A record as libtraceevent reads it: over a copy of its payload padded
// with zeros (libtraceevent follows a dynamic field's offset unchecked),
// made when first asked for and zeroed again when done.
class LibraryRecord {
public:
  LibraryRecord(char* scratch, std::string_view payload, std::uint64_t ts, std::int32_t cpu)
      : scratch_(scratch), payload_(payload) {
    record_.ts = ts;
    record_.cpu = cpu;
    record_.size = static_cast<int>(payload.size());
    record_.record_size = static_cast<int>(payload.size());
  }
  ~LibraryRecord() {
    if (record_.data != nullptr)
      std::memset(scratch_, 0, payload_.size());
  }
  LibraryRecord(const LibraryRecord&) = delete;
  LibraryRecord& operator=(const LibraryRecord&) = delete;

  tep_record& get() {
    if (record_.data == nullptr) {
      std::memcpy(scratch_, payload_.data(), payload_.size());
      record_.data = scratch_;
    }
    return record_;
  }

private:
  char* scratch_;
  std::string_view payload_;
  tep_record record_{};
};

} // namespace

struct EventDecoder::Impl {
  tep_handle* tep;
  LineStyle style;
  ReturnTime return_time;
  PendingFormats* pending;      // formats tep lacks, or nullptr
  std::vector<EventInfo> infos; // by event id, filled on first sight
  std::vector<bool> known;      // whether infos[id] was looked up
  FunctionNames functions;      // graph functions' names
  Record record;
  std::string blob;                                    // the record's blob
  std::string comm;                                    // the record's comm
  std::int32_t comm_pid = -1;                          // whose comm `comm` is; -1: none
  std::unordered_map<std::int32_t, std::string> named; // name_task()'s
  std::uint64_t names_forgotten = 0;                   // times `named` was cleared
  std::string name;                                    // record_function()'s
  std::string lost_line;
  mutable ShrinkerNames shrinkers;
  std::string record_shrinker; // the record's: a copy, as format() may name others
  // For format(): the payload copy and the libtraceevent output.
  // Zeroed by calloc, whose pages of this size the kernel gives zeroed and
  // makes resident only where a payload is copied or read.
  struct Free {
    void operator()(char* p) const { std::free(p); }
  };
  std::unique_ptr<char, Free> padded_copy{
      static_cast<char*>(std::calloc(kMaxPayload + kDynamicReach, 1))};
  char* padded_bytes() const {
    if (padded_copy == nullptr)
      throw std::bad_alloc();
    return padded_copy.get();
  }
  mutable trace_seq seq;
  // What a record's name and fields printed, by its event and the bytes its print
  // reads: with a plan, the payload from the plan's first field on (the
  // common fields, which change with the task, are mostly not read); else
  // the whole payload (libtraceevent may read a common field).
  struct Printed {
    std::uint16_t type = 0;
    std::uint16_t size = 0;
    std::array<char, kPrintedBytes> bytes; // in the slot: it is compared on every print
    std::string text;                      // empty: not filled
    bool holds(std::uint16_t of_type, std::string_view of_bytes) const {
      return !text.empty() && type == of_type && size == of_bytes.size() &&
             std::memcmp(bytes.data(), of_bytes.data(), size) == 0;
    }
  };
  mutable std::vector<Printed> printed = std::vector<Printed>(kPrintedSlots);
  mutable EventTaskColumns event_tasks; // the columns before an event's time
  // The latency column, by common_flags and common_preempt_count.
  mutable std::unordered_map<std::uint16_t, std::string> latency;

  // libtraceevent's `what` (TEP_PRINT_INFO, TEP_PRINT_LATENCY) of a record.
  std::string_view print(tep_record& record, const char* what) const {
    trace_seq_reset(&seq);
    tep_print_event(tep, &seq, &record, "%s", what);
    trace_seq_terminate(&seq);
    return {seq.buffer, seq.len};
  }
  // Appends "name: fields" of a record of `info`'s event (`type`) whose
  // payload holds its fixed fields; `library` gives it as libtraceevent
  // reads it. One line: a field's line break prints as a space. Returns
  // where in `out` the fields begin.
  std::size_t append_body(const EventInfo& info, std::uint16_t type, std::string_view payload,
                          LibraryRecord& library, std::string& out) const;
  // The fields as printed without a plan.
  void append_library_fields(tep_record& record, std::string& out) const;
  // An event whose print format libtraceevent could not read (a trace.dat
  // of a kernel newer than it): its fields as "name=value", but a
  // shrinker's, which lead as its print would ("%pS %p:").
  std::string fields_of(tep_event& event, tep_record& record) const;
  // The latency column of a record of an event whose common fields are
  // plain_common, remembered by common_flags and common_preempt_count;
  // `library` gives the record as libtraceevent reads it (get()).
  std::string_view latency_of(const char* data, LibraryRecord& library) const;
  mutable std::uint16_t last_latency_key = 0;
  mutable std::string_view last_latency; // latency's entry for last_latency_key

  // Graph functions named at once: a profile traces tens; a trace of every
  // function some thousands.
  static constexpr std::size_t kFunctionNames = 4096;

  Impl(tep_handle* t, LineStyle s, ReturnTime r, PendingFormats* p)
      : tep(t), style(s), return_time(r), pending(p), functions(t, kFunctionNames), shrinkers(t) {
    trace_seq_init(&seq);
  }
  ~Impl() { trace_seq_destroy(&seq); }

  const EventInfo& info(int id);
  // Valid until the next lookup.
  std::string_view function_name(std::uint64_t address) {
    return functions.text(address, FunctionOffset::Without);
  }
  // The decoded record's function name, kept in `name` until the next
  // decode: a line printed meanwhile may make `functions` forget it.
  std::string_view record_function(std::uint64_t address) {
    name.assign(function_name(address));
    return name;
  }
  // The record's "%pS %p:" of its shrink and shr fields, valid until the
  // next call.
  std::string_view shrinker_of(const EventInfo& info, const void* data) const {
    return shrinkers.text(number(info.shrink, data), number(info.shr, data));
  }
  // tep_read_number_field(): the field's value, 0 if it has no number's
  // size; read here when the records are of this host's byte order.
  std::uint64_t number(tep_format_field* field, const void* data) const {
    if (field == nullptr)
      return 0;
    if (host_order) // the decoder checked that the record holds its fixed fields
      return field_number(data, SIZE_MAX, static_cast<std::size_t>(field->offset),
                          static_cast<std::size_t>(field->size));
    unsigned long long value = 0;
    if (tep_read_number_field(field, data, &value) != 0)
      return 0;
    return value;
  }
  const bool host_order = tep_is_file_bigendian(tep) == tep_is_local_bigendian(tep);
  // comm_of()'s last answers, by pid: records of a few tasks interleave.
  struct CachedComm {
    std::int32_t pid = -1;
    std::string_view comm; // in `named` or the tep's table
  };
  static constexpr std::size_t kCommSlots = 64;
  std::array<CachedComm, kCommSlots> comms{};
  CachedComm& comm_slot(std::int32_t pid) {
    return comms[static_cast<std::uint32_t>(pid) % kCommSlots];
  }
};

const EventInfo& EventDecoder::Impl::info(int id) {
  const auto slot = static_cast<std::size_t>(id);
  if (slot >= infos.size()) {
    infos.resize(slot + 1);
    known.resize(slot + 1);
  }
  if (known[slot])
    return infos[slot];
  known[slot] = true;
  EventInfo& info = infos[slot];
  info.event = tep_find_event(tep, id);
  if (info.event == nullptr && pending != nullptr && pending->parse(tep, id))
    info.event = tep_find_event(tep, id);
  if (info.event == nullptr)
    return info;
  int plain = 0;
  for (tep_format_field* field = info.event->format.common_fields; field != nullptr;
       field = field->next) {
    if ((field->flags & TEP_FIELD_IS_DYNAMIC) == 0)
      info.min_size = std::max<std::uint32_t>(info.min_size, field->offset + field->size);
    const std::string_view name = field->name != nullptr ? field->name : "";
    plain += (name == "common_type" && field->offset == 0) ||
                     (name == "common_flags" && field->offset == 2) ||
                     (name == "common_preempt_count" && field->offset == 3) ||
                     (name == "common_pid" && field->offset == 4)
                 ? 1
                 : 100;
  }
  info.plain_common = plain == 4;
  for (tep_format_field* field = info.event->format.fields; field != nullptr; field = field->next)
    if ((field->flags & TEP_FIELD_IS_DYNAMIC) == 0)
      info.min_size = std::max<std::uint32_t>(info.min_size, field->offset + field->size);
  info.pid = tep_find_common_field(info.event, "common_pid");
  const std::string_view system = info.event->system != nullptr ? info.event->system : "";
  const std::string_view name = info.event->name != nullptr ? info.event->name : "";
  info.name = name;
  const EventRole role = event_role(name);
  if (role == EventRole::ShrinkSlabStart || role == EventRole::ShrinkSlabEnd) {
    info.shrink = tep_find_field(info.event, "shrink");
    info.shr = tep_find_field(info.event, "shr");
  }
  const bool graph = system == "ftrace" && (name == "funcgraph_entry" || name == "funcgraph_exit");
  if (!graph)
    info.plan = PrintPlan::make(*info.event);
  if (graph) {
    info.func = tep_find_field(info.event, "func");
    info.depth = tep_find_field(info.event, "depth");
    if (name == "funcgraph_entry") {
      info.shape = Shape::GraphEntry;
    } else {
      info.calltime = tep_find_field(info.event, "calltime");
      info.rettime = tep_find_field(info.event, "rettime");
      info.shape = Shape::GraphExit;
      if (info.calltime == nullptr || info.rettime == nullptr)
        info.event = nullptr; // not a layout this decoder can time
    }
    if (info.func == nullptr)
      info.event = nullptr;
  }
  return info;
}

std::size_t EventDecoder::Impl::append_body(const EventInfo& info, std::uint16_t type,
                                            std::string_view payload, LibraryRecord& library,
                                            std::string& out) const {
  constexpr std::string_view kAfterName = ": ";
  const std::size_t at = out.size();
  const std::size_t fields_at = at + info.name.size() + kAfterName.size();
  auto print_here = [&] {
    out.append(info.name);
    out.append(kAfterName);
    if (info.plan != nullptr)
      info.plan->append(payload.data(), payload.size(), out);
    else
      append_library_fields(library.get(), out);
    if (info.plan == nullptr || info.plan->may_break_line())
      std::replace(out.begin() + static_cast<std::ptrdiff_t>(at), out.end(), '\n', ' ');
  };
  const std::string_view bytes =
      info.plan != nullptr ? payload.substr(std::min(info.plan->reads_from(), payload.size()))
                           : payload;
  if (bytes.size() > kPrintedBytes) {
    print_here();
    return fields_at;
  }
  Printed& slot = printed[(hash_every_byte(bytes) + type * 0x9E3779B97F4A7C15ULL) % kPrintedSlots];
  if (!slot.holds(type, bytes)) {
    print_here();
    slot.text.clear();
    if (out.size() - at <= kPrintedText) {
      slot.type = type;
      slot.size = static_cast<std::uint16_t>(bytes.size());
      std::memcpy(slot.bytes.data(), bytes.data(), bytes.size());
      slot.text.assign(out, at);
    }
    return fields_at;
  }
  out.append(slot.text);
  return fields_at;
}

void EventDecoder::Impl::append_library_fields(tep_record& record, std::string& out) const {
  if (tep_event* event = tep_find_event_by_record(tep, &record);
      event != nullptr && (event->flags & TEP_EVENT_FL_FAILED) != 0)
    out.append(fields_of(*event, record)); // not "[FAILED TO PARSE] ..."
  else
    out.append(print(record, TEP_PRINT_INFO));
}

std::string_view EventDecoder::Impl::latency_of(const char* data, LibraryRecord& library) const {
  std::uint16_t key = 0; // common_flags and common_preempt_count
  std::memcpy(&key, data + 2, sizeof key);
  if (key == last_latency_key && !last_latency.empty())
    return last_latency;
  auto found = latency.find(key);
  if (found == latency.end())
    found = latency.emplace(key, std::string(print(library.get(), TEP_PRINT_LATENCY))).first;
  last_latency_key = key;
  last_latency = found->second;
  return last_latency;
}

std::string EventDecoder::Impl::fields_of(tep_event& event, tep_record& record) const {
  std::string text;
  const EventInfo* info =
      event.id >= 0 && static_cast<std::size_t>(event.id) < infos.size() && known[event.id]
          ? &infos[static_cast<std::size_t>(event.id)]
          : nullptr;
  if (info != nullptr && info->shrink != nullptr && info->shr != nullptr) {
    text.append(shrinker_of(*info, record.data));
  }
  for (tep_format_field* field = event.format.fields; field != nullptr; field = field->next) {
    if (info != nullptr && (field == info->shrink || field == info->shr))
      continue;
    if (!text.empty())
      text.push_back(' ');
    text.append(field->name).push_back('=');
    unsigned long long value = 0;
    const bool scalar = (field->flags & (TEP_FIELD_IS_ARRAY | TEP_FIELD_IS_STRING |
                                         TEP_FIELD_IS_DYNAMIC | TEP_FIELD_IS_POINTER)) == 0 &&
                        field->size <= 8;
    if (scalar && tep_read_number_field(field, record.data, &value) == 0) {
      // In decimal, as the kernel's formats print counts (libtraceevent
      // prints a long in hex).
      if ((field->flags & TEP_FIELD_IS_SIGNED) != 0 && field->size < 8 &&
          (value >> (field->size * 8 - 1) & 1) != 0)
        value |= ~0ULL << (field->size * 8); // sign-extended
      char number[24];
      std::snprintf(number, sizeof number,
                    (field->flags & TEP_FIELD_IS_SIGNED) != 0 ? "%lld" : "%llu", value);
      text.append(number);
    } else {
      trace_seq_reset(&seq);
      tep_print_field_content(&seq, record.data, record.size, field);
      trace_seq_terminate(&seq);
      text.append(seq.buffer, seq.len);
    }
  }
  return text;
}

EventDecoder::EventDecoder(tep_handle* tep, LineStyle style, ReturnTime return_time,
                           PendingFormats* pending)
    : impl_(std::make_unique<Impl>(tep, style, return_time, pending)) {}
EventDecoder::~EventDecoder() = default;

const Record& EventDecoder::decode(const RawEvent& event) {
  Impl& d = *impl_;
  d.record = Record{};
  Record& r = d.record;
  r.cpu = event.cpu;
  if (event.data == nullptr || event.size < 2 || event.size > kMaxPayload)
    return r; // Malformed
  std::uint16_t type = 0;
  std::memcpy(&type, event.data, sizeof type);
  const EventInfo& info = d.info(type);
  if (info.event == nullptr || event.size < info.min_size)
    return r;
  const auto pid = static_cast<std::int32_t>(d.number(info.pid, event.data));
  r.pid = pid;
  // Consecutive records are mostly of one task: its comm is looked up again
  // only when the pid changes, or the tep's names did.
  if (pid != d.comm_pid) {
    d.comm.assign(comm_of(pid));
    d.comm_pid = pid;
  }
  r.comm = d.comm;
  r.ts = static_cast<Nanos>(event.ts);
  switch (info.shape) {
  case Shape::Event:
    r.kind = LineKind::Event;
    r.format = d.style == LineStyle::Graph ? TraceFormat::Graph : TraceFormat::Events;
    r.name = info.name;
    if (info.shrink != nullptr && info.shr != nullptr) {
      d.record_shrinker.assign(d.shrinker_of(info, event.data));
      r.shrinker = d.record_shrinker;
    }
    break;
  case Shape::GraphEntry:
    r.kind = LineKind::GraphEntry;
    r.format = TraceFormat::Graph;
    r.depth = static_cast<std::uint16_t>(d.number(info.depth, event.data));
    r.name = d.record_function(d.number(info.func, event.data));
    break;
  case Shape::GraphExit: {
    const std::uint64_t calltime = d.number(info.calltime, event.data);
    const std::uint64_t rettime = d.number(info.rettime, event.data);
    if (rettime < calltime)
      return r = Record{}; // Malformed
    r.kind = LineKind::GraphReturn;
    r.format = TraceFormat::Graph;
    r.ts = static_cast<Nanos>(d.return_time == ReturnTime::Rettime ? rettime : event.ts);
    r.duration = static_cast<Nanos>(rettime - calltime);
    r.depth = static_cast<std::uint16_t>(d.number(info.depth, event.data));
    r.name = d.record_function(d.number(info.func, event.data));
    break;
  }
  }
  const BlobHeader header{event.ts, event.cpu, event.size};
  d.blob.resize(sizeof header + event.size);
  std::memcpy(d.blob.data(), &header, sizeof header);
  std::memcpy(d.blob.data() + sizeof header, event.data, event.size);
  r.blob = d.blob;
  r.formatter = this;
  return r;
}

const Record& EventDecoder::lost(int cpu, long long count) {
  Impl& d = *impl_;
  d.lost_line = "CPU:";
  put_uint(d.lost_line, static_cast<std::uint64_t>(std::max(cpu, 0)));
  if (count < 0) {
    d.lost_line.append(" [LOST EVENTS]");
  } else {
    d.lost_line.append(" [LOST ");
    put_uint(d.lost_line, static_cast<std::uint64_t>(count));
    d.lost_line.append(" EVENTS]");
  }
  d.record = Record{};
  d.record.kind = LineKind::Lost;
  d.record.line = d.lost_line;
  d.record.cpu = cpu;
  d.record.lost = count < 0 ? 0 : static_cast<std::uint64_t>(count);
  return d.record;
}

void EventDecoder::name_task(std::int32_t pid, std::string_view comm) {
  Impl& d = *impl_;
  if (d.named.size() >= kNamedTasks && d.named.find(pid) == d.named.end()) {
    d.named.clear();
    d.comms.fill(Impl::CachedComm{});
    ++d.names_forgotten;
  }
  d.named[pid].assign(comm);
  d.comm_slot(pid) = Impl::CachedComm{};
  d.comm_pid = -1;
}

std::uint64_t EventDecoder::names_forgotten() const {
  return impl_->names_forgotten;
}

std::string_view EventDecoder::comm_of(std::int32_t pid) const {
  Impl& d = *impl_;
  if (pid == 0)
    return "<idle>";
  Impl::CachedComm& slot = d.comm_slot(pid);
  if (slot.pid == pid)
    return slot.comm;
  std::string_view comm = "<...>";
  if (const auto found = d.named.find(pid); found != d.named.end())
    comm = found->second;
  else if (const char* saved = tep_data_comm_from_pid(d.tep, pid); saved != nullptr)
    comm = saved;
  slot = {pid, comm};
  return comm;
}

void EventDecoder::format(std::string_view blob, std::string& out, std::size_t& fields_at,
                          std::size_t& fields_size) const {
  Impl& d = *impl_;
  fields_at = 0;
  fields_size = 0;
  BlobHeader header{};
  if (blob.size() < sizeof header) {
    out.append("[allocwatch: a record too short to print]");
    return;
  }
  std::memcpy(&header, blob.data(), sizeof header);
  const std::string_view payload =
      blob.substr(sizeof header, std::min<std::size_t>(blob.size() - sizeof header, kMaxPayload));
  std::uint16_t type = 0;
  if (payload.size() >= sizeof type)
    std::memcpy(&type, payload.data(), sizeof type);
  const EventInfo* info = type < d.infos.size() && d.known[type] ? &d.infos[type] : nullptr;
  if (info == nullptr || info->event == nullptr) {
    out.append("[allocwatch: a record of no known event]");
    return;
  }
  if (payload.size() < info->min_size) {
    out.append("[allocwatch: a record too short to print]");
    return;
  }
  // Its fixed fields are read from the payload; libtraceevent is given the
  // padded copy.
  const char* const data = payload.data();
  LibraryRecord library(d.padded_bytes(), payload, header.ts, header.cpu);
  const auto pid = static_cast<std::int32_t>(d.number(info->pid, data));
  // The last record decoded is mostly of the task whose lines print now.
  const std::string_view comm = pid == d.comm_pid ? std::string_view(d.comm) : comm_of(pid);
  switch (info->shape) {
  case Shape::GraphExit: {
    const std::uint64_t calltime = d.number(info->calltime, data);
    const std::uint64_t rettime = d.number(info->rettime, data);
    put_graph_prefix(out, rettime, header.cpu, comm, pid);
    put_graph_duration(out, rettime >= calltime ? rettime - calltime : 0);
    out.append("|  ");
    out.append(static_cast<std::size_t>(d.number(info->depth, data) & 0xffff) * 2, ' ');
    out.append("} /* ");
    out.append(d.function_name(d.number(info->func, data)));
    out.append(" */");
    break;
  }
  case Shape::GraphEntry:
    put_graph_prefix(out, header.ts, header.cpu, comm, pid);
    out.append("              |  ");
    out.append(static_cast<std::size_t>(d.number(info->depth, data) & 0xffff) * 2, ' ');
    out.append(d.function_name(d.number(info->func, data)));
    out.append("() {");
    break;
  case Shape::Event: {
    if (d.style == LineStyle::Graph) {
      put_graph_prefix(out, header.ts, header.cpu, comm, pid);
      out.append("              |  /* ");
    } else {
      const std::string_view latency = info->plain_common
                                           ? d.latency_of(data, library)
                                           : d.print(library.get(), TEP_PRINT_LATENCY);
      d.event_tasks.append(out, comm, pid, header.cpu, latency);
      put_abstime(out, header.ts, Micros::Rounded);
      out.append(": ");
    }
    fields_at = d.append_body(*info, type, payload, library, out);
    fields_size = out.size() - fields_at;
    if (d.style == LineStyle::Graph)
      out.append(" */");
    break;
  }
  }
}

} // namespace allocwatch

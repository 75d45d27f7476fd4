#include "ring/dat_reader.h"

#include <cstring>
#include <traceevent/event-parse.h>

namespace allocwatch {
namespace {

// The ids of function_graph's two events in the file's formats; -1 where
// the file has no such format.
struct GraphIds {
  int entry = -1;
  int exit = -1;
};

GraphIds graph_ids(tep_handle* tep) {
  GraphIds ids;
  if (tep_event* entry = tep_find_event_by_name(tep, "ftrace", "funcgraph_entry"))
    ids.entry = entry->id;
  if (tep_event* exit = tep_find_event_by_name(tep, "ftrace", "funcgraph_exit"))
    ids.exit = exit->id;
  return ids;
}

// Whether a record of `input` is a function_graph one (read to the first).
bool holds_graph_records(DatInput& input) {
  const GraphIds ids = graph_ids(input.tep());
  if (ids.entry < 0 && ids.exit < 0)
    return false;
  while (const DatEvent* e = input.next()) {
    if (e->event.size < sizeof(std::uint16_t))
      continue;
    std::uint16_t id = 0;
    std::memcpy(&id, e->event.data, sizeof id);
    if (id == ids.entry || id == ids.exit)
      return true;
  }
  return false;
}

} // namespace

Result<std::unique_ptr<DatRecords>> DatRecords::open(int fd, const std::string& name,
                                                     const std::optional<std::string>& buffer) {
  Result<std::unique_ptr<DatInput>> scan = DatInput::open(fd, name, buffer);
  if (!scan)
    return scan.error();
  const bool graph = holds_graph_records(**scan);
  scan->reset();
  Result<std::unique_ptr<DatInput>> input = DatInput::open(fd, name, buffer);
  if (!input)
    return input.error();
  return std::unique_ptr<DatRecords>(new DatRecords(std::move(*input), graph));
}

DatRecords::DatRecords(std::unique_ptr<DatInput> input, bool graph)
    : input_(std::move(input)), graph_(graph),
      decoder_(input_->tep(), graph ? LineStyle::Graph : LineStyle::Events) {}

const Record* DatRecords::next() {
  if (pending_ != nullptr) {
    const DatEvent* e = pending_;
    pending_ = nullptr;
    return &decoder_.decode(e->event);
  }
  const DatEvent* e = input_->next();
  if (e == nullptr)
    return nullptr;
  if (e->missed != 0) {
    pending_ = e;
    return &decoder_.lost(e->event.cpu, e->missed < 0 ? -1 : e->missed);
  }
  return &decoder_.decode(e->event);
}

} // namespace allocwatch

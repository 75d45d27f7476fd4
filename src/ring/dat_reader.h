// DatRecords: the records of one buffer of a trace.dat, decoded, in time
// order: what -i replays when the file is trace-cmd's.
//
//   auto records = DatRecords::open(fd, "trace.dat", std::nullopt);  // Result
//   std::cerr << (*records)->input().describe();
//   while (const Record* r = (*records)->next()) ...  // r lives until the next next()
//
// The buffer, and every check made before a record is read, are
// DatInput's (ring/dat_input.h). The event formats, comms and symbols are
// the file's own: EventDecoder reads each record with them, fields by name.
// Events the kernel lost before a record come first, as the Lost record the
// kernel's text prints ("CPU:N [LOST M EVENTS]").
//
// How tracepoints print (EventDecoder's LineStyle): as function_graph's
// comments when the buffer holds function_graph records (DatInput::graph),
// else in the nop tracer's columns.
#pragma once

#include "ring/dat_input.h"
#include "ring/event_decoder.h"
#include "trace/record_source.h"

#include <memory>
#include <optional>
#include <string>

namespace allocwatch {

class DatRecords final : public RecordSource {
public:
  // As DatInput::open, and its errors.
  static Result<std::unique_ptr<DatRecords>> open(int fd, const std::string& name,
                                                  const std::optional<std::string>& buffer);

  const Record* next() override;
  bool blobs() const override { return true; }

  const DatInput& input() const { return *input_; }
  bool graph() const { return graph_; }

private:
  DatRecords(std::unique_ptr<DatInput> input, bool graph);

  std::unique_ptr<DatInput> input_; // outlives the decoder, which uses its formats
  bool graph_;
  EventDecoder decoder_;
  const DatEvent* pending_ = nullptr; // a record whose lost events went first
};

} // namespace allocwatch

#include "ring/dat_reader.h"

namespace allocwatch {
Result<std::unique_ptr<DatRecords>> DatRecords::open(int fd, const std::string& name,
                                                     const std::optional<std::string>& buffer) {
  Result<std::unique_ptr<DatInput>> input = DatInput::open(fd, name, buffer);
  if (!input)
    return input.error();
  const bool graph = (*input)->graph();
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

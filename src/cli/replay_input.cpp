#include "cli/replay_input.h"

#include "util/escape.h"
#include "util/result.h"

#include <algorithm>
#include <unistd.h>

namespace allocwatch {
namespace {

// Whether `fd` starts with trace-cmd's magic, read without moving its
// offset; false for what cannot be read so (a pipe, a terminal).
bool starts_as_dat(int fd) {
  char head[kDatMagicSize] = {};
  return ::pread(fd, head, sizeof head, 0) == static_cast<ssize_t>(sizeof head) &&
         is_dat_magic(std::string_view(head, sizeof head));
}

} // namespace

std::size_t ReplayInput::FirstBytes::read(char* buf, std::size_t n) {
  const std::size_t got = input_.read(buf, n);
  if (head_.size() < kDatMagicSize)
    head_.append(buf, std::min(got, kDatMagicSize - head_.size()));
  return got;
}

bool ReplayInput::FirstBytes::dat() const {
  return is_dat_magic(head_);
}

ReplayInput::ReplayInput(int fd, const std::string& name, const std::optional<std::string>& buffer,
                         std::function<bool()> stopped, std::ostream* messages)
    : name_(name), stopped_(std::move(stopped)), file_(fd, name, stopped_), first_(file_),
      text_source_(first_, stopped_), reader_(text_source_), text_(reader_) {
  if (starts_as_dat(fd)) {
    dat_ = value_or_throw(DatRecords::open(fd, name, buffer));
    dat_records_.emplace(*dat_, stopped_);
    if (messages != nullptr)
      *messages << "allocwatch: " << dat_->input().describe() << "\n";
  } else if (buffer) {
    throw FatalError("--buffer picks a buffer of a trace.dat; " + escaped(name) + " is not one", 2);
  }
}

RecordSource& ReplayInput::records() {
  return dat_records_ ? static_cast<RecordSource&>(*dat_records_) : text_;
}

void ReplayInput::check_understood(bool found_mode, std::uint64_t not_understood) const {
  if (found_mode)
    return;
  if (first_.dat())
    throw FatalError(escaped(name_) +
                     " is a trace.dat, which libtracecmd reads from a file, not a pipe: give "
                     "its name to -i");
  if (not_understood == 0)
    return;
  if (dat_)
    throw FatalError(escaped(name_) + " holds no record of an event allocwatch reads (" +
                     std::to_string(not_understood) +
                     " records not understood: a damaged file, or formats it lacks)");
  throw FatalError(escaped(name_) + " holds no line of an ftrace trace (" +
                   std::to_string(not_understood) +
                   " lines not understood): replay what trace_pipe printed, or a --save file");
}

} // namespace allocwatch

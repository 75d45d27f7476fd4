// ReplayInput: what -i reads, as records: trace-cmd's trace.dat, told by
// its first bytes where they can be read without taking them (a file,
// stdin redirected from one), else the lines of trace_pipe's or trace's
// text or of a --save file, through the parser.
//
//   ReplayInput input(fd, "trace.dat", options.buffer, stopped, &std::cerr);  // FatalError
//   bind_all(input.records(), ...);
//   input.check_understood(mode.has_value(), stats.lines_malformed);          // FatalError
#pragma once

#include "ring/dat_reader.h"
#include "trace/line_reader.h"
#include "trace/record_source.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <ostream>
#include <string>

namespace allocwatch {

class ReplayInput {
public:
  // A trace.dat is opened and checked whole here (DatRecords::open), before
  // any output, and `messages` (null with -q) is told which buffer is read;
  // `buffer` with a text input is a usage error. Once `stopped` says so
  // (a stop signal), the input ends. `fd` must outlive this; `name` names
  // it in messages ("stdin").
  ReplayInput(int fd, const std::string& name, const std::optional<std::string>& buffer,
              std::function<bool()> stopped, std::ostream* messages);
  ReplayInput(const ReplayInput&) = delete;
  ReplayInput& operator=(const ReplayInput&) = delete;

  bool dat() const { return dat_ != nullptr; }
  RecordSource& records();

  // After the replay, when the binder found no mode (no trace line came):
  // the error that says what the input was instead, if records were read
  // and not one was understood (the wrong file, not a quiet trace).
  void check_understood(bool found_mode, std::uint64_t not_understood) const;

private:
  // Keeps the first bytes read through it: a trace.dat piped to stdin is
  // told by them, to say why it is not read.
  class FirstBytes : public ByteSource {
  public:
    explicit FirstBytes(ByteSource& input) : input_(input) {}
    std::size_t read(char* buf, std::size_t n) override;
    bool dat() const;

  private:
    ByteSource& input_;
    std::string head_;
  };
  class UntilStopped : public ByteSource {
  public:
    UntilStopped(ByteSource& input, const std::function<bool()>& stopped)
        : input_(input), stopped_(stopped) {}
    std::size_t read(char* buf, std::size_t n) override {
      return stopped_() ? 0 : input_.read(buf, n);
    }

  private:
    ByteSource& input_;
    const std::function<bool()>& stopped_;
  };
  class DatUntilStopped : public RecordSource {
  public:
    DatUntilStopped(RecordSource& records, const std::function<bool()>& stopped)
        : records_(records), stopped_(stopped) {}
    const Record* next() override { return stopped_() ? nullptr : records_.next(); }

  private:
    RecordSource& records_;
    const std::function<bool()>& stopped_;
  };

  std::string name_;
  std::function<bool()> stopped_;
  std::unique_ptr<DatRecords> dat_;
  std::optional<DatUntilStopped> dat_records_;
  FdSource file_;
  FirstBytes first_;
  UntilStopped text_source_;
  LineReader reader_;
  TextRecords text_;
};

} // namespace allocwatch

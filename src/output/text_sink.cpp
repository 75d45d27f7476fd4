#include "output/text_sink.h"

#include "bind/shrinker_stats.h"

#include <ostream>

namespace allocwatch {

namespace {
// The lines, each with its '\n', straight into the stream's buffer under one
// sentry (which checks the stream and flushes it after, if unitbuf asks):
// ostream::write and put take one each per call, which cost more than the
// copy on a trace where tens of thousands of spans print.
void write_lines(std::ostream& out, std::span<const std::string_view> lines) {
  const std::ostream::sentry ready(out);
  if (!ready)
    return;
  std::streambuf& buffer = *out.rdbuf();
  for (std::string_view line : lines) {
    const auto size = static_cast<std::streamsize>(line.size());
    if (buffer.sputn(line.data(), size) != size ||
        std::char_traits<char>::eq_int_type(buffer.sputc('\n'), std::char_traits<char>::eof())) {
      out.setstate(std::ios::badbit);
      return;
    }
  }
}
} // namespace

void TextSink::incident(const Incident& incident) {
  write_lines(out_, incident.lines);
}

void TextSink::passthrough(std::string_view line, Nanos) {
  write_lines(out_, {&line, 1});
}

void TextSink::finish(const ShrinkerStats& shrinkers) {
  shrinkers.print(out_);
  out_.flush();
}

} // namespace allocwatch

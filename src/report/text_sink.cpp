#include "report/text_sink.h"

#include "report/shrinker_stats.h"

#include <ostream>

namespace allocwatch {

namespace {
void write_line(std::ostream& out, std::string_view line) {
  out.write(line.data(), static_cast<std::streamsize>(line.size()));
  out.put('\n');
}
} // namespace

void TextSink::incident(const Incident& incident) {
  for (std::string_view line : incident.lines)
    write_line(out_, line);
}

void TextSink::passthrough(std::string_view line, Nanos) {
  write_line(out_, line);
}

void TextSink::finish(const ShrinkerStats& shrinkers) {
  shrinkers.print(out_);
  out_.flush();
}

} // namespace allocwatch

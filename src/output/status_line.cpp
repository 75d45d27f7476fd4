#include "output/status_line.h"

#include "util/escape.h"

#include <cstdio>
#include <ostream>
#include <sys/ioctl.h>

namespace allocwatch {

namespace {

// "\r" to the line's start, "ESC [ K" erases to its end.
constexpr std::string_view kEraseLine = "\r\x1b[K";
constexpr int kDefaultWidth = 80;

// "42s", "4m05s", "1h02m03s".
std::string elapsed_text(std::chrono::seconds elapsed) {
  const long long total = elapsed.count() < 0 ? 0 : elapsed.count();
  char text[48];
  if (total < 60)
    std::snprintf(text, sizeof text, "%llds", total);
  else if (total < 3600)
    std::snprintf(text, sizeof text, "%lldm%02llds", total / 60, total % 60);
  else
    std::snprintf(text, sizeof text, "%lldh%02lldm%02llds", total / 3600, total / 60 % 60,
                  total % 60);
  return text;
}

std::string ms_text(Nanos ns) {
  char text[32];
  std::snprintf(text, sizeof text, "%lld.%03lldms", static_cast<long long>(ns / kMilli),
                static_cast<long long>(ns / kMicro % 1000));
  return text;
}

} // namespace

StatusLine::StatusLine(std::ostream& out, const RunStats& stats, const StallStats& stalls,
                       Options options)
    : out_(out), stats_(stats), stalls_(stalls), options_(std::move(options)) {}

std::string StatusLine::text(Clock::time_point now) const {
  std::string text =
      "allocwatch: " +
      elapsed_text(std::chrono::duration_cast<std::chrono::seconds>(now - options_.started)) +
      ", " + std::to_string(stats_.lines_read) + " lines, " + std::to_string(stalls_.stalls()) +
      " stalls of " + format_duration(options_.threshold) + " or more";
  if (const auto& worst = stalls_.worst())
    text += ", worst " + escaped(worst->comm) + '-' + std::to_string(worst->pid) + ' ' +
            escaped(worst->kind) + ' ' + ms_text(worst->duration);
  text += ", " + std::string(stats_.lost_uncounted ? "at least " : "") +
          std::to_string(stats_.lost_events) + " events lost";
  return text;
}

void StatusLine::update(Clock::time_point now) {
  if (ever_drawn_ && now - last_drawn_ < std::chrono::seconds(1))
    return;
  std::string line = text(now);
  int width = options_.width ? options_.width() : 0;
  if (width <= 0)
    width = kDefaultWidth;
  // One column short of the width: a full line would wrap on some terminals,
  // and a wrapped line cannot be erased in place.
  if (line.size() >= static_cast<std::size_t>(width))
    line.resize(static_cast<std::size_t>(width - 1));
  out_ << kEraseLine << line << std::flush;
  drawn_ = true;
  ever_drawn_ = true;
  last_drawn_ = now;
}

void StatusLine::erase() {
  if (!drawn_)
    return;
  out_ << kEraseLine << std::flush;
  drawn_ = false;
}

void StatusLine::incident(const Incident&) {
  if (options_.erase_before_output)
    erase();
}

void StatusLine::passthrough(std::string_view, Nanos) {
  if (options_.erase_before_output)
    erase();
}

int terminal_width(int fd) {
  winsize size{};
  if (::ioctl(fd, TIOCGWINSZ, &size) != 0)
    return 0;
  return size.ws_col;
}

} // namespace allocwatch

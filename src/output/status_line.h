// StatusLine: one line on a terminal's stderr while a live run traces,
//   allocwatch: 1m05s, 123456 lines, 17 stalls of 1ms or more, worst memhog-171 direct
//   reclaim 49.926ms, 0 events lost
// redrawn in place at most once a second (from the run's Periodic tasks),
// cut to the terminal's width, and erased at the end, and before any trace
// line is printed to the same terminal (it is a Sink for that: added to the
// fan-out before the trace output). Whether to show it at all (stderr a
// terminal, not -q, not a replay) is the caller's choice.
#pragma once

#include "bind/incident.h"
#include "bind/run_stats.h"
#include "output/stall_stats.h"

#include <chrono>
#include <functional>
#include <iosfwd>
#include <string>

namespace allocwatch {

class StatusLine : public Sink {
public:
  using Clock = std::chrono::steady_clock;
  struct Options {
    Nanos threshold = 0;
    Clock::time_point started;
    // The trace lines go to the same terminal: erase before each one.
    bool erase_before_output = false;
    // The terminal's width in columns (0: unknown, taken as 80).
    std::function<int()> width;
  };

  // `out`, `stats` and `stalls` must outlive the status line.
  StatusLine(std::ostream& out, const RunStats& stats, const StallStats& stalls, Options options);

  // Redraws the line if a second has passed since it was last drawn.
  void update(Clock::time_point now);
  // Takes the line off the terminal, if it is on it.
  void erase();
  // The line's text at `now`, uncut.
  std::string text(Clock::time_point now) const;

  void incident(const Incident&) override;
  void passthrough(std::string_view, Nanos) override;
  void finish(const ShrinkerStats&) override { erase(); }

private:
  std::ostream& out_;
  const RunStats& stats_;
  const StallStats& stalls_;
  Options options_;
  bool drawn_ = false;
  bool ever_drawn_ = false;
  Clock::time_point last_drawn_{};
};

// The width of the terminal on `fd`; 0 if it is none or does not say.
int terminal_width(int fd);

} // namespace allocwatch

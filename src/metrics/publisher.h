// MetricsPublisher: where the metrics go, and when. --metrics-file is
// rewritten whole every interval (and once more at the end); --listen's
// clients are served as they come. Both are driven by tick(), which the
// live loop calls between reads (at least every 250 ms): no thread, no
// waiting.
//
// Write errors of the metrics file: at start they are fatal (a mistake in
// the path is found at once); during a watch they are said on `messages`
// (the first failure, each new reason, and the recovery) and counted in
// allocwatch_metrics_file_errors_total, and tracing goes on: a full disk
// for an hour must not end a week-long watch. The file keeps its last good
// content meanwhile, which node_textfile_mtime_seconds shows to be stale.
#pragma once

#include "metrics/metrics_server.h"
#include "util/duration.h"
#include "util/result.h"

#include <chrono>
#include <cstdint>
#include <functional>
#include <iosfwd>
#include <memory>
#include <optional>
#include <string>

namespace allocwatch {

struct PublisherOptions {
  std::optional<std::string> file;   // --metrics-file
  Nanos interval = 15 * kSecond;     // --metrics-interval
  std::optional<std::string> listen; // --listen, as given
};

class MetricsPublisher {
public:
  using Clock = std::chrono::steady_clock;
  // tick() looks for --listen's clients at most this often: while lines
  // flow it is called at every read, and a syscall each time would be waste.
  static constexpr std::chrono::milliseconds kServeInterval{10};
  // The metrics text; given the number of failed file rewrites so far.
  using Render = std::function<std::string(std::uint64_t file_errors)>;

  // Binds --listen and writes the file once: errors here are the caller's
  // to make fatal. Says where the metrics are on `messages` unless `quiet`;
  // later write errors are said there always.
  static Result<std::unique_ptr<MetricsPublisher>>
  start(const PublisherOptions& options, Render render, std::ostream& messages, bool quiet);

  void tick(Clock::time_point now);
  // The last rewrite, with the final numbers. Errors are said, not thrown.
  void finish();

  std::uint64_t file_errors() const { return file_errors_; }
  const MetricsServer* server() const { return server_.get(); }

private:
  MetricsPublisher(const PublisherOptions& options, Render render, std::ostream& messages)
      : options_(options), render_(std::move(render)), messages_(messages) {}
  Status write_file();
  void rewrite_file();

  PublisherOptions options_;
  Render render_;
  std::ostream& messages_;
  std::unique_ptr<MetricsServer> server_;
  Clock::time_point next_serve_;
  Clock::time_point next_write_;
  std::uint64_t file_errors_ = 0;
  std::string last_error_; // empty: the last rewrite worked
};

} // namespace allocwatch

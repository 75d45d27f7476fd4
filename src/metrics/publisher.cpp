#include "metrics/publisher.h"

#include "metrics/textfile.h"

#include <ostream>

namespace allocwatch {

Result<std::unique_ptr<MetricsPublisher>> MetricsPublisher::start(const PublisherOptions& options,
                                                                  Render render,
                                                                  std::ostream& messages,
                                                                  bool quiet) {
  std::unique_ptr<MetricsPublisher> publisher(
      new MetricsPublisher(options, std::move(render), messages));
  if (options.listen) {
    auto address = parse_listen_address(*options.listen);
    if (!address)
      return address.error();
    auto server = MetricsServer::listen(*address);
    if (!server)
      return server.error();
    publisher->server_ = std::move(*server);
    if (!quiet)
      messages << "allocwatch: serving metrics at " << publisher->server_->url() << "\n";
  }
  if (options.file) {
    if (Status written = publisher->write_file(); !written)
      return written.error();
    publisher->next_write_ = Clock::now() + std::chrono::nanoseconds(options.interval);
    if (!quiet)
      messages << "allocwatch: metrics in " << *options.file << ", rewritten every "
               << format_duration(options.interval) << "\n";
  }
  return publisher;
}

void MetricsPublisher::tick(Clock::time_point now) {
  if (server_ && now >= next_serve_) {
    server_->serve([this] { return render_(file_errors_); }, now);
    next_serve_ = now + kServeInterval;
  }
  if (options_.file && now >= next_write_) {
    rewrite_file();
    next_write_ = now + std::chrono::nanoseconds(options_.interval);
  }
}

void MetricsPublisher::finish() {
  if (options_.file)
    rewrite_file();
}

Status MetricsPublisher::write_file() {
  return write_file_atomically(*options_.file, render_(file_errors_));
}

void MetricsPublisher::rewrite_file() {
  Status written = write_file();
  if (written) {
    if (!last_error_.empty())
      messages_ << "allocwatch: " << *options_.file << " is written again\n";
    last_error_.clear();
    return;
  }
  ++file_errors_;
  if (written.error().message != last_error_)
    messages_ << "allocwatch: " << written.error().message
              << " (tracing goes on; the file keeps its last good content)\n";
  last_error_ = written.error().message;
}

} // namespace allocwatch

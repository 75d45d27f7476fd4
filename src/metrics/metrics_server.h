// MetricsServer: the --listen endpoint. It lives in a root process that
// traces, so it is small and bounded:
// - no thread of its own: serve() is called from the live loop (at least
//   every 250 ms, more often while lines flow) and never waits; a scrape is
//   answered within a few of those calls;
// - one client at a time: while one is served, the next waits in the
//   listen backlog;
// - a request's head is at most kMaxRequestBytes (else 431), and a client
//   has kClientTimeout from its connection to the last byte of its answer
//   (else 408 if it can still take it, and the connection is closed);
// - only GET /metrics and GET / (see metrics/http.h).
#pragma once

#include "util/result.h"

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

namespace allocwatch {

struct ListenAddress {
  std::string host; // numeric: "127.0.0.1", "::1", "0.0.0.0"
  std::uint16_t port = 0;
};

// "9466" (loopback), "127.0.0.1:9466", "[::1]:9466", "0.0.0.0:9466",
// "localhost:9466". Port 0 takes any free port (the bound one is in url()).
Result<ListenAddress> parse_listen_address(std::string_view text);

class MetricsServer {
public:
  using Clock = std::chrono::steady_clock;
  static constexpr std::size_t kMaxRequestBytes = 8192;
  static constexpr std::chrono::seconds kClientTimeout{5};
  // Connections served by one call of serve(), at most: a flood of
  // connections delays the trace by that much per call, no more.
  static constexpr int kClientsPerCall = 4;

  static Result<std::unique_ptr<MetricsServer>> listen(const ListenAddress& address);
  ~MetricsServer();
  MetricsServer(const MetricsServer&) = delete;
  MetricsServer& operator=(const MetricsServer&) = delete;

  // "http://127.0.0.1:9466/metrics", with the port actually bound.
  std::string url() const { return url_; }

  // Does what can be done now without waiting: accepts a connection, reads
  // its request, answers. `metrics` gives the body of /metrics.
  void serve(const std::function<std::string()>& metrics, Clock::time_point now);
  // Connections served so far, and those closed unanswered (timeouts, resets).
  std::uint64_t answered() const { return answered_; }
  std::uint64_t dropped() const { return dropped_; }

private:
  MetricsServer(int listen_fd, std::string url) : listen_fd_(listen_fd), url_(std::move(url)) {}
  bool accept_client(Clock::time_point now);
  // Moves the current client on; false while it waits for the network.
  bool progress(const std::function<std::string()>& metrics, Clock::time_point now);
  bool read_request(const std::function<std::string()>& metrics);
  bool write_answer();
  enum class Outcome { Answered, Dropped };
  void close_client(Outcome outcome);

  int listen_fd_;
  std::string url_;
  int client_fd_ = -1;
  Clock::time_point deadline_;
  std::string received_;
  std::string answer_; // empty while the request is read
  std::size_t written_ = 0;
  std::uint64_t answered_ = 0;
  std::uint64_t dropped_ = 0;
};

} // namespace allocwatch

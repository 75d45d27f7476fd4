#include "metrics/metrics_server.h"

#include "metrics/http.h"

#include <algorithm>
#include <arpa/inet.h>
#include <cerrno>
#include <cstring>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

namespace allocwatch {

namespace {

Error listen_error(std::string_view text, const std::string& why) {
  return Error{"--listen " + std::string(text) + ": " + why};
}

bool all_digits(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

} // namespace

Result<ListenAddress> parse_listen_address(std::string_view text) {
  std::string_view host = "127.0.0.1";
  std::string_view port = text;
  if (!all_digits(text)) {
    std::size_t colon;
    if (text.starts_with('[')) {
      const std::size_t close = text.find(']');
      if (close == std::string_view::npos || close + 1 >= text.size() || text[close + 1] != ':')
        return listen_error(text, "expected [IPV6]:PORT, e.g. [::1]:9466");
      host = text.substr(1, close - 1);
      colon = close + 1;
    } else {
      colon = text.rfind(':');
      if (colon == std::string_view::npos)
        return listen_error(text, "expected ADDRESS:PORT or PORT, e.g. 127.0.0.1:9466");
      host = text.substr(0, colon);
      if (host.find(':') != std::string_view::npos)
        return listen_error(text, "an IPv6 address goes in brackets: [::1]:9466");
    }
    port = text.substr(colon + 1);
    if (host.empty())
      return listen_error(text, "say which address: 127.0.0.1:PORT for this machine only (the "
                                "default for a bare PORT), 0.0.0.0:PORT for every interface");
    if (host == "localhost")
      host = "127.0.0.1";
  }
  if (!all_digits(port) || port.size() > 5 || std::stoul(std::string(port)) > 65535)
    return listen_error(text, "the port must be a number from 0 to 65535");
  unsigned char buf[sizeof(in6_addr)];
  const std::string host_text(host);
  if (::inet_pton(AF_INET, host_text.c_str(), buf) != 1 &&
      ::inet_pton(AF_INET6, host_text.c_str(), buf) != 1)
    return listen_error(text, "'" + host_text + "' is not a numeric IPv4 or IPv6 address");
  return ListenAddress{host_text, static_cast<std::uint16_t>(std::stoul(std::string(port)))};
}

Result<std::unique_ptr<MetricsServer>> MetricsServer::listen(const ListenAddress& address) {
  sockaddr_storage storage{};
  socklen_t length = 0;
  const bool v6 = address.host.find(':') != std::string::npos;
  if (v6) {
    auto* sin6 = reinterpret_cast<sockaddr_in6*>(&storage);
    sin6->sin6_family = AF_INET6;
    sin6->sin6_port = htons(address.port);
    ::inet_pton(AF_INET6, address.host.c_str(), &sin6->sin6_addr);
    length = sizeof *sin6;
  } else {
    auto* sin = reinterpret_cast<sockaddr_in*>(&storage);
    sin->sin_family = AF_INET;
    sin->sin_port = htons(address.port);
    ::inet_pton(AF_INET, address.host.c_str(), &sin->sin_addr);
    length = sizeof *sin;
  }
  const std::string where = (v6 ? "[" + address.host + "]" : address.host) + ":";
  const int fd = ::socket(storage.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0)
    return Error{std::string("cannot create the --listen socket: ") + std::strerror(errno)};
  const int on = 1;
  ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, sizeof on);
  if (v6)
    ::setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &on, sizeof on);
  if (::bind(fd, reinterpret_cast<sockaddr*>(&storage), length) != 0 || ::listen(fd, 16) != 0) {
    const int saved = errno;
    ::close(fd);
    return Error{"cannot listen on " + where + std::to_string(address.port) + ": " +
                 std::strerror(saved)};
  }
  // The port bound, when 0 asked for any.
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&storage), &length);
  const std::uint16_t port = ntohs(v6 ? reinterpret_cast<sockaddr_in6*>(&storage)->sin6_port
                                      : reinterpret_cast<sockaddr_in*>(&storage)->sin_port);
  return std::unique_ptr<MetricsServer>(
      new MetricsServer(fd, "http://" + where + std::to_string(port) + "/metrics"));
}

MetricsServer::~MetricsServer() {
  if (client_fd_ >= 0)
    ::close(client_fd_);
  ::close(listen_fd_);
}

void MetricsServer::serve(const std::function<std::string()>& metrics, Clock::time_point now) {
  for (int served = 0; served < kClientsPerCall; ++served) {
    if (client_fd_ < 0 && !accept_client(now))
      return;
    if (!progress(metrics, now))
      return;
  }
}

bool MetricsServer::accept_client(Clock::time_point now) {
  const int fd = ::accept4(listen_fd_, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
  if (fd < 0)
    return false; // EAGAIN: nobody waits; anything else: the next call tries again
  client_fd_ = fd;
  deadline_ = now + kClientTimeout;
  received_.clear();
  answer_.clear();
  written_ = 0;
  return true;
}

bool MetricsServer::progress(const std::function<std::string()>& metrics, Clock::time_point now) {
  if (now >= deadline_) {
    // Too slow: a client that sent part of a request is told so, if it
    // can take it at once; the connection is closed either way.
    if (answer_.empty() && !received_.empty()) {
      answer_ = error_answer(408);
      ::send(client_fd_, answer_.data(), answer_.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
    }
    close_client(Outcome::Dropped);
    return true;
  }
  if (answer_.empty() && !read_request(metrics))
    return false;
  if (client_fd_ < 0)
    return true;
  return write_answer();
}

bool MetricsServer::read_request(const std::function<std::string()>& metrics) {
  char buf[4096];
  for (;;) {
    const std::size_t room = kMaxRequestBytes - received_.size();
    const ssize_t n = ::recv(client_fd_, buf, std::min(sizeof buf, room), MSG_DONTWAIT);
    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
      return false;
    if (n <= 0) {
      close_client(Outcome::Dropped); // gone before its request was complete
      return true;
    }
    received_.append(buf, static_cast<std::size_t>(n));
    if (const std::size_t head = request_head_size(received_); head > 0) {
      answer_ = answer_request(std::string_view(received_).substr(0, head), metrics);
      return true;
    }
    if (received_.size() >= kMaxRequestBytes) {
      answer_ = error_answer(431);
      return true;
    }
  }
}

bool MetricsServer::write_answer() {
  while (written_ < answer_.size()) {
    const ssize_t n = ::send(client_fd_, answer_.data() + written_, answer_.size() - written_,
                             MSG_NOSIGNAL | MSG_DONTWAIT);
    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
      return false;
    if (n < 0) {
      close_client(Outcome::Dropped);
      return true;
    }
    written_ += static_cast<std::size_t>(n);
  }
  close_client(Outcome::Answered);
  return true;
}

void MetricsServer::close_client(Outcome outcome) {
  ::shutdown(client_fd_, SHUT_WR);
  ::close(client_fd_);
  client_fd_ = -1;
  received_.clear();
  received_.shrink_to_fit();
  answer_.clear();
  answer_.shrink_to_fit();
  (outcome == Outcome::Answered ? answered_ : dropped_) += 1;
}

} // namespace allocwatch

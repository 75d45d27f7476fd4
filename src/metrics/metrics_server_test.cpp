#include "metrics/metrics_server.h"

#include <arpa/inet.h>
#include <cerrno>
#include <doctest/doctest.h>
#include <netinet/in.h>
#include <poll.h>
#include <string>
#include <sys/socket.h>
#include <unistd.h>

using namespace allocwatch;
using Clock = MetricsServer::Clock;

namespace {

std::string metrics() {
  return "allocwatch_info 1\n";
}

std::uint16_t port_of(const MetricsServer& server) {
  const std::string url = server.url();
  const std::size_t colon = url.rfind(':');
  return static_cast<std::uint16_t>(std::stoul(url.substr(colon + 1)));
}

// A blocking client on the loopback.
class Client {
public:
  explicit Client(std::uint16_t port) {
    fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in sin{};
    sin.sin_family = AF_INET;
    sin.sin_port = htons(port);
    sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    REQUIRE(::connect(fd_, reinterpret_cast<sockaddr*>(&sin), sizeof sin) == 0);
  }
  ~Client() { ::close(fd_); }
  void send(std::string_view bytes) {
    REQUIRE(::send(fd_, bytes.data(), bytes.size(), MSG_NOSIGNAL) ==
            static_cast<ssize_t>(bytes.size()));
  }
  // Whether the server has written or closed (without waiting).
  bool readable() {
    pollfd p{fd_, POLLIN, 0};
    return ::poll(&p, 1, 0) == 1;
  }
  // Everything until the server closes (waits at most 2 s per read).
  std::string receive_all() {
    std::string all;
    char buf[4096];
    for (;;) {
      pollfd p{fd_, POLLIN, 0};
      if (::poll(&p, 1, 2000) != 1)
        return all + "<timeout>";
      const ssize_t n = ::recv(fd_, buf, sizeof buf, 0);
      if (n <= 0)
        return all;
      all.append(buf, static_cast<std::size_t>(n));
    }
  }

private:
  int fd_ = -1;
};

std::string status_line(const std::string& answer) {
  return answer.substr(0, answer.find("\r\n"));
}

// Calls serve() until the client has something to read (at most 100 calls).
void serve_until_readable(MetricsServer& server, Client& client, Clock::time_point now) {
  for (int i = 0; i < 100 && !client.readable(); ++i) {
    server.serve(metrics, now);
    ::usleep(1000);
  }
}

std::unique_ptr<MetricsServer> loopback_server() {
  auto server = MetricsServer::listen(ListenAddress{"127.0.0.1", 0});
  REQUIRE(server.ok());
  return std::move(*server);
}

} // namespace

TEST_CASE("listen address: a bare port is loopback; addresses are numeric") {
  auto a = parse_listen_address("9466");
  REQUIRE(a.ok());
  CHECK(a->host == "127.0.0.1");
  CHECK(a->port == 9466);
  a = parse_listen_address("0.0.0.0:80");
  REQUIRE(a.ok());
  CHECK(a->host == "0.0.0.0");
  a = parse_listen_address("[::1]:9466");
  REQUIRE(a.ok());
  CHECK(a->host == "::1");
  a = parse_listen_address("localhost:0");
  REQUIRE(a.ok());
  CHECK(a->host == "127.0.0.1");
  CHECK(a->port == 0);
  for (const char* bad : {":9466", "::1:9466", "127.0.0.1", "127.0.0.1:65536", "127.0.0.1:x",
                          "example.org:9466", "[::1]9466", "", "127.0.0.1:-1"}) {
    CAPTURE(bad);
    CHECK(!parse_listen_address(bad).ok());
  }
  CHECK(parse_listen_address(":9466").error().message.find("0.0.0.0:PORT") != std::string::npos);
}

TEST_CASE("metrics server: listens where asked and says its URL") {
  auto server = loopback_server();
  CHECK(server->url().starts_with("http://127.0.0.1:"));
  CHECK(server->url().ends_with("/metrics"));
  CHECK(port_of(*server) != 0);
  auto v6 = MetricsServer::listen(ListenAddress{"::1", 0});
  if (v6.ok()) // a machine without IPv6 on the loopback cannot test this
    CHECK((*v6)->url().starts_with("http://[::1]:"));
  // The same port twice: the second is refused, with the address in the message.
  auto twice = MetricsServer::listen(ListenAddress{"127.0.0.1", port_of(*server)});
  REQUIRE(!twice.ok());
  CHECK(twice.error().message.find("cannot listen on 127.0.0.1:") != std::string::npos);
}

TEST_CASE("metrics server: serve() never waits; a scrape is answered and closed") {
  auto server = loopback_server();
  const auto now = Clock::now();
  server->serve(metrics, now); // nobody there: returns at once
  Client client(port_of(*server));
  server->serve(metrics, now); // connected, nothing sent yet: returns at once
  CHECK(!client.readable());
  client.send("GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n");
  serve_until_readable(*server, client, now);
  const std::string answer = client.receive_all();
  CHECK(status_line(answer) == "HTTP/1.1 200 OK");
  CHECK(answer.ends_with("\r\n\r\nallocwatch_info 1\n"));
  CHECK(server->answered() == 1);
}

TEST_CASE("metrics server: a request sent byte by byte is still answered") {
  auto server = loopback_server();
  const auto now = Clock::now();
  Client client(port_of(*server));
  for (char c : std::string("GET / HTTP/1.0\r\n\r\n")) {
    client.send(std::string_view(&c, 1));
    server->serve(metrics, now);
  }
  serve_until_readable(*server, client, now);
  CHECK(status_line(client.receive_all()) == "HTTP/1.1 200 OK");
}

TEST_CASE("metrics server: an oversized head is 431, and the connection closed") {
  auto server = loopback_server();
  const auto now = Clock::now();
  Client client(port_of(*server));
  client.send("GET /metrics HTTP/1.1\r\n");
  client.send("X-Padding: " + std::string(MetricsServer::kMaxRequestBytes, 'a'));
  serve_until_readable(*server, client, now);
  CHECK(status_line(client.receive_all()) == "HTTP/1.1 431 Request Header Fields Too Large");
}

TEST_CASE("metrics server: a slow client is cut at the deadline; then the next is served") {
  auto server = loopback_server();
  const auto now = Clock::now();
  Client slow(port_of(*server));
  slow.send("GET /metrics HTTP/1.1\r\nHost:");
  server->serve(metrics, now);
  // One client at a time: the next one waits while the slow one has time left.
  Client next(port_of(*server));
  next.send("GET /metrics HTTP/1.1\r\n\r\n");
  for (int i = 0; i < 20; ++i)
    server->serve(metrics, now + std::chrono::seconds(4));
  CHECK(!next.readable());
  CHECK(!slow.readable());
  // Past the deadline: 408 to the slow one, closed; the next is answered.
  server->serve(metrics, now + MetricsServer::kClientTimeout);
  CHECK(status_line(slow.receive_all()) == "HTTP/1.1 408 Request Timeout");
  serve_until_readable(*server, next, now + MetricsServer::kClientTimeout);
  CHECK(status_line(next.receive_all()) == "HTTP/1.1 200 OK");
  CHECK(server->dropped() == 1);
  CHECK(server->answered() == 1);
}

TEST_CASE("metrics server: a client that connects and says nothing is closed at the deadline") {
  auto server = loopback_server();
  const auto now = Clock::now();
  Client silent(port_of(*server));
  server->serve(metrics, now);
  server->serve(metrics, now + MetricsServer::kClientTimeout);
  CHECK(silent.receive_all() == ""); // closed, nothing said
}

TEST_CASE("metrics server: malformed and hostile requests get their status, never the metrics") {
  auto server = loopback_server();
  const auto now = Clock::now();
  const std::pair<const char*, const char*> cases[] = {
      {"BREW /metrics HTTP/1.1\r\n\r\n", "HTTP/1.1 405 Method Not Allowed"},
      {"GET /metrics\r\n\r\n", "HTTP/1.1 400 Bad Request"},
      {"\x16\x03\x01\x02\x01\x01\xfc\x03\x03\r\n\r\n", "HTTP/1.1 400 Bad Request"},
      {"GET /secret HTTP/1.1\r\n\r\n", "HTTP/1.1 404 Not Found"},
  };
  for (const auto& [request, expected] : cases) {
    CAPTURE(request);
    Client client(port_of(*server));
    client.send(request);
    serve_until_readable(*server, client, now);
    const std::string answer = client.receive_all();
    CHECK(status_line(answer) == expected);
    CHECK(answer.find("allocwatch_info") == std::string::npos);
  }
}

TEST_CASE("metrics server: binary bytes with no line end (a TLS hello) end at the deadline") {
  auto server = loopback_server();
  const auto now = Clock::now();
  Client client(port_of(*server));
  const char hello[] = "\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03";
  client.send(std::string_view(hello, sizeof hello - 1));
  for (int i = 0; i < 10; ++i)
    server->serve(metrics, now);
  CHECK(!client.readable());
  server->serve(metrics, now + MetricsServer::kClientTimeout);
  CHECK(status_line(client.receive_all()) == "HTTP/1.1 408 Request Timeout");
}

TEST_CASE("metrics server: a client that leaves mid-request costs nothing") {
  auto server = loopback_server();
  const auto now = Clock::now();
  {
    Client gone(port_of(*server));
    gone.send("GET /met");
    server->serve(metrics, now);
  }
  Client next(port_of(*server));
  next.send("GET /metrics HTTP/1.1\r\n\r\n");
  serve_until_readable(*server, next, now);
  CHECK(status_line(next.receive_all()) == "HTTP/1.1 200 OK");
  CHECK(server->dropped() == 1);
}

#include "metrics/http.h"

#include <doctest/doctest.h>
#include <string>

using namespace allocwatch;

namespace {
int calls = 0;
std::string metrics() {
  ++calls;
  return "m 1\n";
}
std::string status_line(const std::string& answer) {
  return answer.substr(0, answer.find("\r\n"));
}
std::string body(const std::string& answer) {
  return answer.substr(answer.find("\r\n\r\n") + 4);
}
std::string answer(std::string_view head) {
  return answer_request(head, metrics);
}
} // namespace

TEST_CASE("http: the head ends at the first blank line, CRLF or LF") {
  CHECK(request_head_size("GET / HTTP/1.1\r\nHost: x\r\n") == 0);
  CHECK(request_head_size("GET / HTTP/1.1\r\nHost: x\r\n\r\n") == 27);
  CHECK(request_head_size("GET / HTTP/1.1\nHost: x\n\nbody") == 24);
  CHECK(request_head_size("GET / HTTP/1.1\r\n\r\n") == 18);
  CHECK(request_head_size("") == 0);
}

TEST_CASE("http: GET /metrics is the metrics, in the exposition format's type") {
  calls = 0;
  const std::string a = answer("GET /metrics HTTP/1.1\r\nHost: 127.0.0.1:9466\r\n"
                               "Accept: text/plain;version=0.0.4;q=1,*/*;q=0.1\r\n\r\n");
  CHECK(status_line(a) == "HTTP/1.1 200 OK");
  CHECK(a.find("Content-Type: text/plain; version=0.0.4; charset=utf-8\r\n") != std::string::npos);
  CHECK(a.find("Content-Length: 4\r\n") != std::string::npos);
  CHECK(a.find("Connection: close\r\n") != std::string::npos);
  CHECK(body(a) == "m 1\n");
  CHECK(calls == 1);
  // A query string, HTTP/1.0, bare LFs: the same.
  CHECK(body(answer("GET /metrics?name[]=x HTTP/1.0\n\n")) == "m 1\n");
}

TEST_CASE("http: / points to /metrics; other paths are 404") {
  calls = 0;
  const std::string index = answer("GET / HTTP/1.1\r\n\r\n");
  CHECK(status_line(index) == "HTTP/1.1 200 OK");
  CHECK(index.find("text/html") != std::string::npos);
  CHECK(body(index).find("<a href=\"/metrics\">") != std::string::npos);
  CHECK(status_line(answer("GET /metrics/ HTTP/1.1\r\n\r\n")) == "HTTP/1.1 404 Not Found");
  CHECK(status_line(answer("GET /../etc/passwd HTTP/1.1\r\n\r\n")) == "HTTP/1.1 404 Not Found");
  CHECK(status_line(answer("GET /metricsx HTTP/1.1\r\n\r\n")) == "HTTP/1.1 404 Not Found");
  CHECK(calls == 0);
}

TEST_CASE("http: only GET; other methods are 405 with Allow") {
  for (const char* method : {"POST", "HEAD", "PUT", "DELETE", "OPTIONS", "get"}) {
    const std::string a = answer(std::string(method) + " /metrics HTTP/1.1\r\n\r\n");
    CHECK(status_line(a) == "HTTP/1.1 405 Method Not Allowed");
    CHECK(a.find("Allow: GET\r\n") != std::string::npos);
  }
}

TEST_CASE("http: malformed requests are 400, never the metrics") {
  calls = 0;
  for (const char* head : {
           "\r\n",                                      // no request line
           "GET\r\n\r\n",                               // one word
           "GET /metrics\r\n\r\n",                      // HTTP/0.9
           "GET  /metrics HTTP/1.1\r\n\r\n",            // two spaces
           "GET /metrics HTTP/1.1 extra\r\n\r\n",       // three words
           "GET metrics HTTP/1.1\r\n\r\n",              // not origin-form
           "GET http://x/metrics HTTP/1.1\r\n\r\n",     // absolute-form
           "GET /met\x01rics HTTP/1.1\r\n\r\n",         // a control byte
           "GET /metrics FTP/1.1\r\n\r\n",              // not HTTP
           "G(T /metrics HTTP/1.1\r\n\r\n",             // not a token
           "GET /metrics HTTP/1.1\r\nno colon\r\n\r\n", // a header without ':'
           "GET /metrics HTTP/1.1\r\nHost : x\r\n\r\n", // space before ':'
           "GET /metrics HTTP/1.1\r\n folded\r\n\r\n",  // obsolete line folding
       }) {
    CAPTURE(head);
    CHECK(status_line(answer(head)) == "HTTP/1.1 400 Bad Request");
  }
  const char nul_in_value[] = "GET /metrics HTTP/1.1\r\nX: a\0b\r\n\r\n";
  const std::string with_nul(nul_in_value, sizeof nul_in_value - 1);
  CHECK(status_line(answer(with_nul)) == "HTTP/1.1 400 Bad Request");
  CHECK(calls == 0);
}

TEST_CASE("http: other HTTP versions are 505") {
  CHECK(status_line(answer("GET /metrics HTTP/2.0\r\n\r\n")) ==
        "HTTP/1.1 505 HTTP Version Not Supported");
  CHECK(status_line(answer("GET /metrics HTTP/1.2\r\n\r\n")) ==
        "HTTP/1.1 505 HTTP Version Not Supported");
}

TEST_CASE("http: answers without a request: 408 and 431") {
  CHECK(status_line(error_answer(408)) == "HTTP/1.1 408 Request Timeout");
  CHECK(status_line(error_answer(431)) == "HTTP/1.1 431 Request Header Fields Too Large");
  CHECK(error_answer(431).find("Connection: close") != std::string::npos);
}

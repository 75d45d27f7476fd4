#include "metrics/http.h"

#include "util/version.h"

#include <algorithm>
#include <cstring>

namespace allocwatch {

namespace {

constexpr std::string_view kMetricsType = "text/plain; version=0.0.4; charset=utf-8";

const char* reason(int status) {
  switch (status) {
  case 200:
    return "OK";
  case 400:
    return "Bad Request";
  case 404:
    return "Not Found";
  case 405:
    return "Method Not Allowed";
  case 408:
    return "Request Timeout";
  case 431:
    return "Request Header Fields Too Large";
  case 505:
    return "HTTP Version Not Supported";
  }
  return "Error";
}

std::string answer(int status, std::string_view content_type, std::string_view body,
                   std::string_view extra_headers = "") {
  std::string out = "HTTP/1.1 " + std::to_string(status) + " " + reason(status) + "\r\n";
  out += "Content-Type: ";
  out += content_type;
  out += "\r\nContent-Length: " + std::to_string(body.size()) + "\r\n";
  out += extra_headers;
  out += "X-Content-Type-Options: nosniff\r\nConnection: close\r\n\r\n";
  out += body;
  return out;
}

std::string plain(int status, std::string_view text, std::string_view extra_headers = "") {
  return answer(status, "text/plain; charset=utf-8", std::string(text) + "\n", extra_headers);
}

// RFC 9110 tchar: what a method or a header name is made of.
bool is_token(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) {
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
           std::strchr("!#$%&'*+-.^_`|~", c) != nullptr;
  });
}

bool is_visible(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c > 0x20 && c < 0x7f; });
}

// Header field values: visible characters, spaces, tabs and (obs-text) bytes >= 0x80.
bool is_field_value(std::string_view s) {
  return std::all_of(s.begin(), s.end(), [](char c) {
    const auto b = static_cast<unsigned char>(c);
    return b == '\t' || (b >= 0x20 && b != 0x7f);
  });
}

// The next line of `head` (without its CRLF or LF), consumed.
std::string_view next_line(std::string_view& head) {
  const std::size_t lf = head.find('\n');
  std::string_view line = head.substr(0, lf);
  head.remove_prefix(lf == std::string_view::npos ? head.size() : lf + 1);
  if (line.ends_with('\r'))
    line.remove_suffix(1);
  return line;
}

bool headers_well_formed(std::string_view headers) {
  while (!headers.empty()) {
    const std::string_view line = next_line(headers);
    if (line.empty())
      return headers.empty(); // the blank line ends the head
    const std::size_t colon = line.find(':');
    // No obsolete line folding (a line starting with a space), no space
    // before the colon.
    if (colon == std::string_view::npos || !is_token(line.substr(0, colon)) ||
        !is_field_value(line.substr(colon + 1)))
      return false;
  }
  return false; // no blank line
}

std::string index_page() {
  return answer(200, "text/html; charset=utf-8",
                std::string("<!DOCTYPE html>\n<html><head><title>allocwatch</title></head>"
                            "<body><h1>allocwatch ") +
                    kVersion +
                    "</h1><p>Allocation stall metrics for Prometheus: "
                    "<a href=\"/metrics\">/metrics</a></p></body></html>\n");
}

} // namespace

std::size_t request_head_size(std::string_view received) {
  for (std::size_t lf = received.find('\n'); lf != std::string_view::npos;
       lf = received.find('\n', lf + 1)) {
    if (lf + 1 < received.size() && received[lf + 1] == '\n')
      return lf + 2;
    if (lf + 2 < received.size() && received[lf + 1] == '\r' && received[lf + 2] == '\n')
      return lf + 3;
  }
  return 0;
}

std::string answer_request(std::string_view head, const std::function<std::string()>& metrics) {
  std::string_view rest = head;
  const std::string_view request_line = next_line(rest);
  // method SP request-target SP HTTP-version, single spaces.
  const std::size_t first = request_line.find(' ');
  const std::size_t second =
      first == std::string_view::npos ? first : request_line.find(' ', first + 1);
  if (second == std::string_view::npos)
    return plain(400, "400 bad request: expected \"GET /metrics HTTP/1.1\"");
  const std::string_view method = request_line.substr(0, first);
  const std::string_view target = request_line.substr(first + 1, second - first - 1);
  const std::string_view version = request_line.substr(second + 1);
  if (!is_token(method) || !is_visible(target) || !target.starts_with('/') ||
      !is_visible(version) || !version.starts_with("HTTP/") || !headers_well_formed(rest))
    return plain(400, "400 bad request");
  if (version != "HTTP/1.1" && version != "HTTP/1.0")
    return plain(505, "505 only HTTP/1.0 and HTTP/1.1");
  if (method != "GET")
    return plain(405, "405 only GET", "Allow: GET\r\n");
  const std::string_view path = target.substr(0, target.find('?'));
  if (path == "/metrics")
    return answer(200, kMetricsType, metrics());
  if (path == "/")
    return index_page();
  return plain(404, "404 not found: the metrics are at /metrics");
}

std::string error_answer(int status) {
  if (status == 431)
    return plain(431, "431 request head too large");
  return plain(status, std::to_string(status) + " " + reason(status));
}

} // namespace allocwatch

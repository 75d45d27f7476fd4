// The little HTTP that a /metrics endpoint needs, apart from sockets so that
// every request form can be tested: where a request's head ends, and the
// whole answer to it. Only "GET /metrics" is served (and "GET /", a page
// that points there); anything else gets its 4xx/5xx status. Every answer
// closes the connection: one request per connection, as Prometheus scrapes.
#pragma once

#include <functional>
#include <string>
#include <string_view>

namespace allocwatch {

// The size of the request's head (request line and headers, up to and
// including the blank line that ends them; CRLF or bare LF), or 0 while the
// blank line has not come.
std::size_t request_head_size(std::string_view received);

// The full answer (status line, headers, body) to a request whose head is
// `head`. `metrics` is called only for GET /metrics.
std::string answer_request(std::string_view head, const std::function<std::string()>& metrics);

// An answer that needs no request: 408 (too slow), 431 (head too large).
std::string error_answer(int status);

} // namespace allocwatch

// One access-log line per HTTP request, with no patient data: the method,
// the route pattern the request matched (`/v1/runs/{id}`) or, when none did,
// the path with its query string and fragment removed, the status, the bytes
// sent, the duration and the client's address. Never a body, a query string
// (search terms, names), a header or a token.
//
// Line format (one line, fields separated by one space, no newline):
//   client=127.0.0.1 method=GET route=/v1/runs/{id} status=200 bytes=512 ms=12.3
// An unmatched path is logged as `path=/x/y` instead of `route=...`. Every
// field is printable ASCII without spaces: a byte outside '!'..'~', a '"' and
// a '\' are percent-encoded (%0A, %20, %22, %5C), so no request can forge a
// second line or a field; a field longer than its cap once encoded (method
// 16, route/path 200, client 64 bytes) is cut and ends in "...". Stateless
// and thread-safe.
#ifndef MEDREACT_SERVER_ACCESS_LOG_H_
#define MEDREACT_SERVER_ACCESS_LOG_H_

#include <cstdint>
#include <string>

namespace medreact::server {

struct AccessRecord {
  // The request method as received ("GET"). Default: "".
  std::string method;
  // The route pattern the request matched ("/v1/runs/{id}"); "" when none did. Default: "".
  std::string route;
  // The request target as received; only its path is logged, and only when
  // `route` is empty. Default: "".
  std::string target;
  // The response status code. Default: 0.
  int status = 0;
  // Response body bytes sent. Default: 0.
  uint64_t bytes = 0;
  // Time from the request's first byte to the response's last, in
  // milliseconds (negative, not finite or from 10^12 up is logged as "-"). Default: 0.
  double duration_ms = 0;
  // The client's address ("127.0.0.1", "::1"). Default: "".
  std::string client;
};

// The record as one line (see the file comment); empty fields are "-".
std::string AccessLogLine(const AccessRecord& record);

}  // namespace medreact::server

#endif  // MEDREACT_SERVER_ACCESS_LOG_H_

// HttpTransport: the narrow interface between medreact and the network.
//
// One POST (or GET) with timeouts, optional streaming of the body, and
// cancellation. The libcurl implementation is the production one; tests inject
// fakes. Send() never throws. A transport-level failure (DNS, refused
// connection, timeout, reset) is a non-OK Status with code kUnavailable or
// kTimeout; any HTTP status, including 4xx/5xx, is an OK HttpResponse.
// Cancellation (the token, or on_chunk returning false) gives kCancelled.
// MakeCurlTransport() returns an object safe to use from many threads.
#ifndef MEDREACT_HTTP_H_
#define MEDREACT_HTTP_H_

#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "medreact/cancel.h"
#include "medreact/status.h"

namespace medreact {

struct HttpRequest {
  std::string method = "POST";
  std::string url;
  std::vector<std::pair<std::string, std::string>> headers;
  std::string body;
  Millis connect_timeout{10'000};  // TCP+TLS connect. Default: 10 s
  Millis total_timeout{300'000};   // whole exchange; 0 = none. Default: 300 s
  Millis idle_timeout{60'000};     // max silence between body bytes; 0 = none. Default: 60 s
  // Headers plus body, streamed or collected; a larger response is cut and
  // reported as kResourceExhausted (a broken or hostile server cannot exhaust
  // memory). Default: 64 MiB
  size_t max_response_bytes = size_t{64} << 20;
};

struct HttpResponse {
  int status = 0;
  std::vector<std::pair<std::string, std::string>> headers;  // names lower-cased
  std::string body;  // whole body, unless streamed to on_chunk (then only for non-2xx)

  // First header with this (lower-case) name, or "".
  std::string Header(std::string_view lower_name) const;
};

// Receives body bytes of a 2xx response as they arrive. Return false to abort.
using HttpChunkHandler = std::function<bool(std::string_view chunk)>;

class HttpTransport {
 public:
  virtual ~HttpTransport() = default;
  // If on_chunk is set and the status is 2xx, body bytes go to it and
  // response.body stays empty; otherwise the body is collected.
  virtual Result<HttpResponse> Send(const HttpRequest& request, const HttpChunkHandler& on_chunk,
                                    const CancellationToken& cancel) = 0;
};

std::shared_ptr<HttpTransport> MakeCurlTransport();

// `url` fit for messages, logs and traces: user name and password
// ("http://user:pass@host") and the query string ("?key=...") are replaced
// by "***", so a credential given in a URL is never printed.
std::string RedactUrl(std::string_view url);

}  // namespace medreact

#endif  // MEDREACT_HTTP_H_

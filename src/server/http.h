// The server's view of HTTP: plain requests and responses, an exchange a
// handler answers (now or later, from any thread), and event streams (SSE)
// written over time. No Boost here: the engine (http_engine.h) is the one
// file that speaks Beast, so routes compile fast and test without sockets.
//
//   void Handle(std::shared_ptr<Exchange> ex) {
//     if (ex->request().path == "/healthz") return ex->Respond({.body = "{\"ok\":true}"});
//     std::shared_ptr<EventStream> s = ex->Stream({{"cache-control", "no-store"}});
//     s->Send("data: hello\n\n");   // from any thread, until s->closed()
//   }
//
// Thread-safety: Exchange and EventStream may be used from any thread;
// Respond is called once (later calls are ignored), Stream once instead.
#ifndef MEDREACT_SERVER_HTTP_H_
#define MEDREACT_SERVER_HTTP_H_

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace medreact::server {

using HeaderList = std::vector<std::pair<std::string, std::string>>;

struct HttpRequest {
  std::string method;  // "GET", "POST", ...
  std::string path;    // the target's path, percent-decoding left to the routes
  std::string query;   // the raw query string without '?' (never logged: it may name a patient)
  HeaderList headers;  // names in lower case, in arrival order
  std::string body;
  std::string peer;    // the client's address

  // The first header named `name` (lower case), "" when absent.
  std::string Header(std::string_view name) const;
  // The query parameter `key`, percent-decoded ('+' as a space); nullopt when absent.
  std::optional<std::string> Query(std::string_view key) const;
};

struct HttpResponse {
  int status = 200;
  std::string content_type = "application/json";
  std::string body;
  HeaderList headers;  // added as given (e.g. retry-after, location)
};

// A response body written over time: an SSE stream. Send queues bytes for the
// client and returns at once; a client that reads too slowly (more than the
// engine's stream buffer waiting) is disconnected — it reconnects and replays
// what it missed, instead of holding the server's memory.
class EventStream {
 public:
  virtual ~EventStream() = default;
  // Queues `data`; false when the stream is closed (the client left, or fell too far behind).
  virtual bool Send(std::string data) = 0;
  // Ends the response (the last chunk) once what is queued is written.
  virtual void Close() = 0;
  virtual bool closed() const = 0;
  // Called once when the stream closes for any reason (from an I/O thread;
  // at once when it is already closed). Must not block.
  virtual void OnClose(std::function<void()> done) = 0;
};

// One request and its answer.
class Exchange {
 public:
  virtual ~Exchange() = default;
  virtual const HttpRequest& request() const = 0;
  // Sends the response (once).
  virtual void Respond(HttpResponse response) = 0;
  // Starts a streamed response (200, text/event-stream unless `content_type`
  // says otherwise) with `headers`; instead of Respond.
  virtual std::shared_ptr<EventStream> Stream(HeaderList headers,
                                              std::string content_type = "text/event-stream") = 0;
};

using HttpHandler = std::function<void(std::shared_ptr<Exchange>)>;

// Percent-decodes `text` ('+' as a space when `plus_is_space`); nullopt for a
// bad escape.
std::optional<std::string> PercentDecode(std::string_view text, bool plus_is_space);

}  // namespace medreact::server

#endif  // MEDREACT_SERVER_HTTP_H_

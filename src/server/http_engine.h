// HttpEngine: the server's HTTP/1.1 event loop (Boost.Asio and Beast). A few
// I/O threads serve every connection: reads, writes and timers are
// asynchronous, so a thousand open event streams cost memory, not threads.
// Handlers (http.h) are called on an I/O thread and must not block: work is
// handed to a pool and answered later through the Exchange.
//
//   HttpEngine engine({.host = "127.0.0.1", .port = 0}, handler);
//   Status s = engine.Start();          // binds and listens; Unavailable naming the address when taken
//   int port = engine.port();           // the bound port (0 asks the OS for one)
//   ...
//   engine.Stop();                      // closes the listener and every connection, joins the threads
//
// What it enforces for every route: a request's header and body sizes (413
// past the body limit, 431 past the header limit, before the handler runs),
// a read timeout (a client that sends half a request is dropped), keep-alive,
// and the stream buffer (a slow stream reader is disconnected).
//
// Thread-safety: Start and Stop from one thread; handlers from I/O threads.
#ifndef MEDREACT_SERVER_HTTP_ENGINE_H_
#define MEDREACT_SERVER_HTTP_ENGINE_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "medreact/status.h"
#include "server/http.h"

namespace medreact::server {

struct HttpEngineOptions {
  std::string host = "127.0.0.1";  // the address to bind. Default: loopback
  int port = 8080;                 // 0: any free port (see port()). Default: 8080
  int io_threads = 2;              // Default: 2
  size_t max_body_bytes = 64u << 20;    // larger requests get 413. Default: 64 MiB
  size_t max_header_bytes = 16u << 10;  // Default: 16 KiB
  double read_timeout_s = 30;           // a request must arrive within this. Default: 30 s
  double idle_timeout_s = 75;           // a keep-alive connection idle this long is closed. Default: 75 s
  size_t stream_buffer_bytes = 4u << 20;  // a stream's unsent bytes beyond this close it. Default: 4 MiB
  int max_connections = 4096;           // more are accepted and closed at once. Default: 4096
};

// What the engine counts (for /metrics).
struct HttpEngineStats {
  int64_t connections_open = 0;
  int64_t streams_open = 0;
  int64_t requests = 0;
  int64_t refused_too_large = 0;
  int64_t streams_dropped_slow = 0;
};

class HttpEngine {
 public:
  HttpEngine(HttpEngineOptions options, HttpHandler handler);
  ~HttpEngine();  // Stop()
  HttpEngine(const HttpEngine&) = delete;
  HttpEngine& operator=(const HttpEngine&) = delete;

  // Binds, listens and starts the I/O threads. InvalidArgument for an
  // address that is not an IP address; Unavailable when it cannot be bound
  // (in use, not this machine's), naming it.
  Status Start();
  // The bound port, after Start.
  int port() const;
  // Closes the listener and every connection (open streams end), and joins
  // the I/O threads. Idempotent.
  void Stop();
  HttpEngineStats stats() const;

 private:
  struct Impl;
  std::shared_ptr<Impl> impl_;
};

}  // namespace medreact::server

#endif  // MEDREACT_SERVER_HTTP_ENGINE_H_

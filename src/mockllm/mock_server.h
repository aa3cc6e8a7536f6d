// MockLlmServer: a scripted OpenAI-compatible model server on loopback.
//
// Integration tests and the `make run` demos start one for real (port 0 picks
// a free port) and point a client at base_url(). Each POST to
// /v1/chat/completions consumes the next entry of a MockScript (see
// mock_script.h and docs/mock-llm.md): a reply, served as JSON or as SSE
// when the request asked for "stream": true, raw SSE chunks, or an injected
// fault, after an optional delay or hang. Every request is recorded — method,
// path, lower-cased headers and the parsed body — so a test can assert the
// exact follow-up request a client sent. GET /v1/models lists one model,
// GET /_mock/requests returns the record (and is not itself recorded), a
// request to one of the script's routes (any method; the imaging endpoints'
// /classify, /segment, /ground in tests) consumes that route's next entry,
// and any other path answers 404 with an OpenAI-style error body. POST
// /v1/messages is Anthropic's Messages API answered from the same script
// (the same entries, counted and recorded like chat requests, rendered in
// Anthropic's shapes: mock_anthropic.h).
//
// The server only listens on loopback addresses. It runs httplib on its own
// thread with a worker pool, so one hanging response does not block other
// connections; Stop() cuts every delay, hang and streaming pause short and
// returns promptly. All methods are thread-safe. The destructor stops.
#ifndef MEDREACT_MOCKLLM_MOCK_SERVER_H_
#define MEDREACT_MOCKLLM_MOCK_SERVER_H_

#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "medreact/json.h"
#include "medreact/status.h"
#include "mockllm/mock_script.h"

namespace httplib {
class Server;
struct Request;
struct Response;
}  // namespace httplib

namespace medreact::mockllm {

class MockLlmServer {
 public:
  // Called once per recorded request, in order, never concurrently.
  using RequestObserver = std::function<void(const Json& request)>;

  // Validates a script (see ParseMockScript). Errors name the entry index
  // and the field, e.g. "responses[1].status: expected an integer, got string".
  static Result<MockScript> ParseScript(const Json& script);

  // True for 127.0.0.0/8, "localhost" and ::1 (brackets allowed).
  static bool IsLoopbackHost(const std::string& host);

  explicit MockLlmServer(MockScript script);
  ~MockLlmServer();

  MockLlmServer(const MockLlmServer&) = delete;
  MockLlmServer& operator=(const MockLlmServer&) = delete;

  // REQUIRES: called before Start().
  void SetRequestObserver(RequestObserver observer);

  // Binds host:port (port 0 = any free port) and returns once connections are
  // accepted. InvalidArgument for a non-loopback host or a bad port,
  // Unavailable when the address cannot be bound, FailedPrecondition when
  // called twice or after Stop(): a server is started once.
  Status Start(const std::string& host = "127.0.0.1", int port = 0);

  int port() const { return port_.load(); }      // 0 until started
  std::string base_url() const;                   // "http://127.0.0.1:<port>/v1"

  // Every request received so far, in order (GET /_mock/requests excepted):
  // {"method", "path", "headers": {lower-cased name: value}, "body": parsed
  // JSON, or the raw text when it is not JSON ("" when empty)}.
  std::vector<Json> requests() const;

  // Chat requests answered from the script (repeats under "repeat_last"
  // included; exhaustion errors and rejected bodies are not). Requests to
  // routes are not counted here (they are recorded in requests()).
  size_t served() const;

  // Stops listening, interrupts waits and streams, closes every accepted
  // connection (idle keep-alive ones included) and joins the server thread,
  // so it returns promptly whatever clients are doing. Idempotent.
  void Stop();

 private:
  void InstallRoutes();
  // The chat route; `anthropic`: POST /v1/messages, answered in Anthropic's shapes.
  void HandleChat(const httplib::Request& req, httplib::Response& res, bool anthropic);
  void HandleRoute(const std::string& path, const MockRoute& route, const httplib::Request& req,
                   httplib::Response& res);
  void ServeStream(const MockEntry& entry, std::vector<std::string> frames, httplib::Response& res);
  Json Record(const httplib::Request& req);
  // Sleeps up to ms; false (at once) if the server is stopping.
  bool Pause(int ms);
  // What every scripted reply starts with: none left (`entry` null: 500,
  // "<what> exhausted" naming the `scripted` count), the entry's delay and
  // hang (503 when the server stops meanwhile), then its headers. False
  // when `res` is already the whole reply.
  bool BeginEntry(const MockEntry* entry, const std::string& what, size_t scripted, httplib::Response& res);

  const MockScript script_;
  std::unique_ptr<httplib::Server> server_;
  std::thread thread_;
  std::atomic<int> port_{0};
  std::atomic<bool> listen_returned_{false};

  std::mutex lifecycle_mu_;  // serializes Start() and Stop()
  bool started_ = false;

  mutable std::mutex mu_;  // guards everything below
  std::condition_variable stop_cv_;
  bool stopping_ = false;
  std::string host_;
  size_t next_entry_ = 0;
  size_t served_ = 0;
  int64_t chat_requests_ = 0;
  std::map<std::string, size_t> route_next_;  // each route's next entry
  std::vector<Json> requests_;

  std::mutex observer_mu_;
  RequestObserver observer_;
};

}  // namespace medreact::mockllm

#endif  // MEDREACT_MOCKLLM_MOCK_SERVER_H_

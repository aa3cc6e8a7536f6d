// A `medreact serve` in this process (src/server/server.h) over a real run
// store in a temporary folder, on a loopback port, for a test's lifetime;
// with an HTTP client and an SSE reader.
//
//   testing::ServeFixture srv({.token = "0123456789abcdef0123"});
//   auto r = srv.Get("/v1/runs");                 // with the token
//   Json body = srv.JsonOf(r);
//   std::vector<SseMessage> got = srv.ReadEvents("/v1/runs/ID/events", {{"Last-Event-ID", "3"}});
#ifndef MEDREACT_TESTS_TESTING_SERVE_FIXTURE_H_
#define MEDREACT_TESTS_TESTING_SERVE_FIXTURE_H_

#include <gtest/gtest.h>
#include <httplib.h>

#include <memory>
#include <string>
#include <vector>

#include "medreact/json.h"
#include "server/server.h"
#include "store/run_store.h"
#include "testing/subprocess.h"

namespace medreact::testing {

// One SSE message as a client sees it.
struct SseEvent {
  std::string id;
  std::string event;
  std::string data;
};

// Splits an SSE byte stream into its messages (comments and retry lines left out).
std::vector<SseEvent> ParseSse(const std::string& text);

// A run's state at `step` (a system and a user message), for runs a test
// writes into the fixture's store itself.
inline RunState StateAt(const std::string& run_id, int step) {
  RunState s;
  s.messages = {Message::System("sys"), Message::User("hello")};
  s.trace.run_id = run_id;
  s.step = step;
  return s;
}

class ServeFixture {
 public:
  explicit ServeFixture(server::ServeOptions options = {}, std::shared_ptr<RunStore> store = nullptr);
  ~ServeFixture();

  int port() const { return server_->port(); }
  const std::shared_ptr<RunStore>& store() const { return store_; }
  const std::string& store_path() const { return store_path_; }
  TempDir& dir() { return dir_; }
  server::Server& server() { return *server_; }

  // Requests with the token (when the server has one) unless `headers` has
  // an authorization of its own.
  httplib::Result Get(const std::string& path, httplib::Headers headers = {});
  httplib::Result Post(const std::string& path, const std::string& body,
                       const std::string& content_type = "application/json", httplib::Headers headers = {});
  // Reads an SSE route until `until` returns true for the messages so far,
  // the stream ends, or `timeout_s` passes.
  std::vector<SseEvent> ReadEvents(const std::string& path, httplib::Headers headers,
                                   const std::function<bool(const std::vector<SseEvent>&)>& until,
                                   double timeout_s = 20);
  static Json JsonOf(const httplib::Result& r);

 private:
  httplib::Headers WithToken(httplib::Headers headers) const;
  TempDir dir_;
  std::string store_path_;
  std::shared_ptr<RunStore> store_;
  std::string token_;
  std::unique_ptr<server::Server> server_;
};

}  // namespace medreact::testing

#endif  // MEDREACT_TESTS_TESTING_SERVE_FIXTURE_H_

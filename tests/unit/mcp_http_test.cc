// The MCP server's streamable HTTP transport (server/mcp_http.h) without
// sockets: fake exchanges through McpHttpHandler — sessions (their id, their
// end, the least recently used one making room), the door (Host, token,
// rate limit, the protocol version header) and the SSE answer of a call with
// a progress token.
#include "server/mcp_http.h"

#include <gtest/gtest.h>

#include <condition_variable>
#include <mutex>

#include "medreact/tool.h"

namespace medreact::server {
namespace {

class FakeStream : public EventStream {
 public:
  bool Send(std::string data) override {
    std::lock_guard<std::mutex> lock(mu);
    body += data;
    return !closed_;
  }
  void Close() override {
    std::lock_guard<std::mutex> lock(mu);
    closed_ = true;
    cv.notify_all();
  }
  bool closed() const override {
    std::lock_guard<std::mutex> lock(mu);
    return closed_;
  }
  void OnClose(std::function<void()> done) override { done_ = std::move(done); }
  std::string WaitBody() {
    std::unique_lock<std::mutex> lock(mu);
    cv.wait(lock, [&] { return closed_; });
    return body;
  }

 private:
  mutable std::mutex mu;
  std::condition_variable cv;
  std::string body;
  bool closed_ = false;
  std::function<void()> done_;
};

class FakeExchange : public Exchange {
 public:
  explicit FakeExchange(HttpRequest r) : request_(std::move(r)) {}
  const HttpRequest& request() const override { return request_; }
  void Respond(HttpResponse response) override {
    std::lock_guard<std::mutex> lock(mu_);
    response_ = std::move(response);
    answered_ = true;
    cv_.notify_all();
  }
  std::shared_ptr<EventStream> Stream(HeaderList headers, std::string) override {
    stream_headers = std::move(headers);
    stream = std::make_shared<FakeStream>();
    return stream;
  }
  HttpResponse Wait() {
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait(lock, [&] { return answered_; });
    return response_;
  }
  std::string Header(const std::string& name) {
    for (const auto& [k, v] : Wait().headers) {
      if (k == name) return v;
    }
    return "";
  }
  std::shared_ptr<FakeStream> stream;
  HeaderList stream_headers;

 private:
  HttpRequest request_;
  std::mutex mu_;
  std::condition_variable cv_;
  HttpResponse response_;
  bool answered_ = false;
};

std::shared_ptr<const ToolRegistry> Tools() {
  auto tools = std::make_shared<ToolRegistry>();
  ToolSpec spec{.name = "echo", .description = "echo", .parameters = Json{{"type", "object"}}};
  EXPECT_TRUE(tools->Register(MakeFunctionTool(spec, [](const Json& a, const ToolContext&) {
    return ToolResult::OkJson(a);
  })).ok());
  return tools;
}

const char kInit[] =
    R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{}}})";

std::shared_ptr<FakeExchange> Post(McpHttpHandler& h, const std::string& body, HeaderList headers = {},
                                   const std::string& peer = "127.0.0.1") {
  headers.emplace_back("host", "127.0.0.1:8765");
  auto ex = std::make_shared<FakeExchange>(
      HttpRequest{.method = "POST", .path = "/mcp", .headers = headers, .body = body, .peer = peer});
  h.Handle(ex);
  return ex;
}

std::string Open(McpHttpHandler& h) {
  auto ex = Post(h, kInit);
  EXPECT_EQ(ex->Wait().status, 200);
  return ex->Header("mcp-session-id");
}

TEST(McpHttpTest, SessionsAreOpenedNamedAndEnded) {
  McpHttpHandler h(Tools(), {}, {});
  const std::string id = Open(h);
  ASSERT_EQ(id.size(), 32u);
  EXPECT_NE(Open(h), id);
  EXPECT_EQ(h.sessions(), 2u);
  auto ping = Post(h, R"({"jsonrpc":"2.0","id":2,"method":"ping"})", {{"mcp-session-id", id}});
  EXPECT_EQ(ping->Wait().status, 200);
  EXPECT_EQ(ParseJson(ping->Wait().body).value()["result"], Json::object());
  auto note = Post(h, R"({"jsonrpc":"2.0","method":"notifications/initialized"})", {{"mcp-session-id", id}});
  EXPECT_EQ(note->Wait().status, 202);
  auto end = std::make_shared<FakeExchange>(HttpRequest{
      .method = "DELETE", .path = "/mcp", .headers = {{"mcp-session-id", id}, {"host", "localhost"}}, .peer = "p"});
  h.Handle(end);
  EXPECT_EQ(end->Wait().status, 200);
  EXPECT_EQ(Post(h, R"({"jsonrpc":"2.0","id":3,"method":"ping"})", {{"mcp-session-id", id}})->Wait().status, 404);
  EXPECT_EQ(h.sessions(), 1u);
}

TEST(McpHttpTest, AFullServerEndsTheLeastRecentlyUsedSession) {
  McpHttpHandler h(Tools(), {}, {.max_sessions = 2});
  const std::string first = Open(h);
  const std::string second = Open(h);
  // The first is used again, so the second is the least recently used.
  EXPECT_EQ(Post(h, R"({"jsonrpc":"2.0","id":2,"method":"ping"})", {{"mcp-session-id", first}})->Wait().status, 200);
  const std::string third = Open(h);
  EXPECT_EQ(h.sessions(), 2u);
  EXPECT_EQ(Post(h, R"({"jsonrpc":"2.0","id":3,"method":"ping"})", {{"mcp-session-id", second}})->Wait().status, 404);
  EXPECT_EQ(Post(h, R"({"jsonrpc":"2.0","id":4,"method":"ping"})", {{"mcp-session-id", first}})->Wait().status, 200);
  EXPECT_EQ(Post(h, R"({"jsonrpc":"2.0","id":5,"method":"ping"})", {{"mcp-session-id", third}})->Wait().status, 200);
}

TEST(McpHttpTest, TheDoorChecksHostTokenOriginVersionAndRate) {
  McpHttpHandler open(Tools(), {}, {});
  auto rebound = std::make_shared<FakeExchange>(HttpRequest{
      .method = "POST", .path = "/mcp", .headers = {{"host", "evil.example:8765"}}, .body = kInit, .peer = "p"});
  open.Handle(rebound);
  EXPECT_EQ(rebound->Wait().status, 403);
  EXPECT_EQ(Post(open, kInit, {{"origin", "http://evil.example"}})->Wait().status, 403);
  EXPECT_EQ(Post(open, kInit, {{"origin", "http://127.0.0.1:8765"}})->Wait().status, 200);  // its own
  EXPECT_EQ(Post(open, kInit, {{"mcp-protocol-version", "1999-01-01"}})->Wait().status, 400);
  auto other = std::make_shared<FakeExchange>(HttpRequest{.method = "POST", .path = "/v1/runs", .peer = "p"});
  open.Handle(other);
  EXPECT_EQ(other->Wait().status, 404);

  McpHttpHandler locked(Tools(), {}, {.token = "a-token-of-enough-length"});
  EXPECT_EQ(Post(locked, kInit)->Wait().status, 401);
  EXPECT_EQ(Post(locked, kInit, {{"authorization", "Bearer not-the-token-at-all"}})->Wait().status, 401);
  EXPECT_EQ(Post(locked, kInit, {{"authorization", "Bearer a-token-of-enough-length"}})->Wait().status, 200);

  McpHttpHandler limited(Tools(), {}, {.rate = {.per_second = 0.001, .burst = 2}});
  EXPECT_EQ(Post(limited, kInit, {}, "10.0.0.1")->Wait().status, 200);
  EXPECT_EQ(Post(limited, kInit, {}, "10.0.0.1")->Wait().status, 200);
  auto third = Post(limited, kInit, {}, "10.0.0.1");
  EXPECT_EQ(third->Wait().status, 429);
  EXPECT_NE(third->Header("retry-after"), "");
  EXPECT_EQ(Post(limited, kInit, {}, "10.0.0.2")->Wait().status, 200);  // per client
}

TEST(McpHttpTest, ACallWithAProgressTokenIsAnsweredAsAnEventStream) {
  McpHttpHandler h(Tools(), {}, {});
  const std::string id = Open(h);
  auto ex = Post(h,
                 R"({"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"echo","arguments":{"a":1},"_meta":{"progressToken":5}}})",
                 {{"mcp-session-id", id}, {"accept", "application/json, text/event-stream"}});
  ASSERT_NE(ex->stream, nullptr);
  const std::string body = ex->stream->WaitBody();
  const size_t start = body.find("notifications/progress");
  const size_t answer = body.find("\"id\":9");
  ASSERT_NE(start, std::string::npos) << body;
  ASSERT_NE(answer, std::string::npos) << body;
  EXPECT_LT(start, answer);
  EXPECT_EQ(body.rfind("event: message\ndata: ", 0), 0u) << body;
  // Without text/event-stream in Accept, one JSON response.
  auto json = Post(h, R"({"jsonrpc":"2.0","id":10,"method":"tools/call","params":{"name":"echo","arguments":{},"_meta":{"progressToken":6}}})",
                   {{"mcp-session-id", id}, {"accept", "application/json"}});
  EXPECT_EQ(json->stream, nullptr);
  EXPECT_EQ(ParseJson(json->Wait().body).value()["id"], 10);
}

}  // namespace
}  // namespace medreact::server

// The MCP server's protocol core (src/mcp/mcp_server.h) without a transport:
// JSON-RPC errors, initialize, paging, calls with structured content and
// isError, progress, cancellation, approval and the limits. Concurrency is
// proven with barriers (a tool that waits for its cancellation), never timing.
#include "mcp/mcp_server.h"

#include <gtest/gtest.h>

#include <atomic>
#include <condition_variable>
#include <future>
#include <mutex>

#include "medreact/tool.h"

namespace medreact::mcp {
namespace {

using Kind = McpServer::Kind;

// What a server sent, in order; Wait blocks until a request's last message.
class Sink {
 public:
  McpServer::Send send() {
    return [this](const std::string& json, Kind kind) {
      std::lock_guard<std::mutex> lock(mu_);
      messages_.push_back({json.empty() ? Json(nullptr) : ParseJson(json).value(), kind});
      cv_.notify_all();
    };
  }
  // Waits for a kResponse or kNoResponse and returns every message so far.
  std::vector<std::pair<Json, Kind>> Wait() {
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait(lock, [&] { return !messages_.empty() && messages_.back().second != Kind::kNotification; });
    return messages_;
  }
  Json Last() { return Wait().back().first; }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  std::vector<std::pair<Json, Kind>> messages_;
};

ToolSpec Spec(const std::string& name) {
  return ToolSpec{.name = name,
                  .description = "test tool " + name,
                  .parameters = Json{{"type", "object"},
                                     {"properties", {{"x", {{"type", "number"}}}}},
                                     {"required", Json::array({"x"})}}};
}

struct Fixture {
  std::shared_ptr<ToolRegistry> tools = std::make_shared<ToolRegistry>();
  std::promise<void> slow_started;
  std::atomic<bool> slow_saw_cancel{false};
  std::atomic<int> double_runs{0};

  Fixture() {
    EXPECT_TRUE(tools->Register(MakeFunctionTool(Spec("double"), [this](const Json& a, const ToolContext&) {
      ++double_runs;
      return ToolResult::OkJson(Json{{"value", a["x"].get<double>() * 2}});
    })).ok());
    EXPECT_TRUE(tools->Register(MakeFunctionTool(Spec("fail"), [](const Json&, const ToolContext&) {
      return ToolResult::Error("x must be positive");
    })).ok());
    EXPECT_TRUE(tools->Register(MakeFunctionTool(Spec("slow"), [this](const Json&, const ToolContext& ctx) {
      slow_started.set_value();
      slow_saw_cancel = ctx.cancel.WaitFor(std::chrono::minutes(2));
      return ToolResult::Ok("woke");
    })).ok());
  }
  McpServer Server(McpServerOptions options = {}) {
    if (options.output_schemas.empty()) options.output_schemas["double"] = Json{{"type", "object"}};
    return McpServer(tools, std::move(options));
  }
};

std::string Request(int id, const std::string& method, Json params = Json::object()) {
  return DumpJson(Json{{"jsonrpc", "2.0"}, {"id", id}, {"method", method}, {"params", std::move(params)}});
}

int ErrorCode(const Json& m) { return m.contains("error") ? m["error"]["code"].get<int>() : 0; }

TEST(McpServerTest, MalformedMessagesGetPreciseJsonRpcErrors) {
  Fixture f;
  McpServer server = f.Server();
  struct Case {
    std::string text;
    int code;
    Json id;
  } cases[] = {
      {"{not json", -32700, nullptr},
      {"[" + Request(1, "ping") + "]", -32600, nullptr},
      {"42", -32600, nullptr},
      {R"({"id":3,"method":"ping"})", -32600, 3},
      {R"({"jsonrpc":"1.0","id":"a","method":"ping"})", -32600, "a"},
      {R"({"jsonrpc":"2.0","id":4})", -32600, 4},
      {R"({"jsonrpc":"2.0","id":5,"method":7})", -32600, 5},
      {R"({"jsonrpc":"2.0","id":{"x":1},"method":"ping"})", -32600, nullptr},
      {R"({"jsonrpc":"2.0","id":6,"method":"resources/list"})", -32601, 6},
      {R"({"jsonrpc":"2.0","id":7,"method":"ping","params":[1]})", -32602, 7},
  };
  for (const Case& c : cases) {
    Sink sink;
    EXPECT_TRUE(server.Handle(c.text, sink.send())) << c.text;
    const Json m = sink.Last();
    EXPECT_EQ(ErrorCode(m), c.code) << c.text << " → " << DumpJson(m);
    EXPECT_EQ(m["id"], c.id) << c.text;
    EXPECT_EQ(m["jsonrpc"], "2.0");
  }
}

TEST(McpServerTest, TooLargeAMessageIsRefusedUnread) {
  Fixture f;
  McpServer server = f.Server({.max_message_bytes = 64});
  Sink sink;
  server.Handle(Request(1, "tools/call", {{"name", "double"}, {"arguments", {{"x", 1}, {"pad", std::string(100, 'a')}}}}),
                sink.send());
  const Json m = sink.Last();
  EXPECT_EQ(ErrorCode(m), -32600);
  EXPECT_NE(m["error"]["message"].get<std::string>().find("at most 64"), std::string::npos);
  EXPECT_EQ(f.double_runs, 0);
}

TEST(McpServerTest, NotificationsAndClientResponsesAreNeverAnswered) {
  Fixture f;
  McpServer server = f.Server();
  bool sent = false;
  auto send = [&](const std::string&, Kind) { sent = true; };
  EXPECT_FALSE(server.Handle(R"({"jsonrpc":"2.0","method":"notifications/initialized"})", send));
  EXPECT_FALSE(server.Handle(R"({"jsonrpc":"2.0","method":"notifications/whatever","params":{}})", send));
  EXPECT_FALSE(server.Handle(R"({"jsonrpc":"2.0","id":1,"result":{}})", send));
  EXPECT_FALSE(sent);
}

TEST(McpServerTest, InitializeNegotiatesTheVersion) {
  Fixture f;
  McpServer server = f.Server({.name = "medreact", .version = "1.2.3"});
  Sink a;
  server.Handle(Request(1, "initialize", {{"protocolVersion", "2025-06-18"}, {"capabilities", Json::object()}}),
                a.send());
  Json r = a.Last()["result"];
  EXPECT_EQ(r["protocolVersion"], "2025-06-18");
  EXPECT_EQ(r["serverInfo"], (Json{{"name", "medreact"}, {"version", "1.2.3"}}));
  EXPECT_EQ(r["capabilities"], (Json{{"tools", {{"listChanged", false}}}}));
  EXPECT_EQ(server.protocol_version(), "2025-06-18");
  Sink b;  // a version it does not speak: the newest it does
  server.Handle(Request(2, "initialize", {{"protocolVersion", "1999-01-01"}}), b.send());
  EXPECT_EQ(b.Last()["result"]["protocolVersion"], SupportedProtocolVersions()[0]);
  Sink c;
  server.Handle(Request(3, "initialize", {{"protocolVersion", 5}}), c.send());
  EXPECT_EQ(ErrorCode(c.Last()), -32602);
  Sink d;
  server.Handle(Request(4, "ping"), d.send());
  EXPECT_EQ(d.Last()["result"], Json::object());
}

TEST(McpServerTest, ToolsListPagesThroughEveryToolOnce) {
  Fixture f;
  McpServer server = f.Server({.page_size = 2});
  Sink first;
  server.Handle(Request(1, "tools/list"), first.send());
  const Json page1 = first.Last()["result"];
  ASSERT_EQ(page1["tools"].size(), 2u);
  EXPECT_EQ(page1["tools"][0]["name"], "double");
  EXPECT_EQ(page1["tools"][0]["inputSchema"], f.tools->Find("double")->spec().parameters);
  EXPECT_EQ(page1["tools"][0]["outputSchema"], (Json{{"type", "object"}}));
  EXPECT_FALSE(page1["tools"][1].contains("outputSchema"));  // "fail" has none
  ASSERT_TRUE(page1.contains("nextCursor"));
  Sink second;
  server.Handle(Request(2, "tools/list", {{"cursor", page1["nextCursor"]}}), second.send());
  const Json page2 = second.Last()["result"];
  ASSERT_EQ(page2["tools"].size(), 1u);
  EXPECT_EQ(page2["tools"][0]["name"], "slow");
  EXPECT_FALSE(page2.contains("nextCursor"));
  for (const Json& bad : {Json("x"), Json(3), Json("medreact-tools:0"), Json("medreact-tools:3"),
                          Json("medreact-tools:-1"), Json("medreact-tools:99999999999")}) {
    Sink sink;
    server.Handle(Request(3, "tools/list", {{"cursor", bad}}), sink.send());
    EXPECT_EQ(ErrorCode(sink.Last()), -32602) << DumpJson(bad);
  }
}

TEST(McpServerTest, CallsAnswerWithTextStructuredContentOrIsError) {
  Fixture f;
  McpServer server = f.Server();
  Sink ok;
  server.Handle(Request(1, "tools/call", {{"name", "double"}, {"arguments", {{"x", 21}}}}), ok.send());
  Json r = ok.Last()["result"];
  EXPECT_EQ(r["isError"], false);
  EXPECT_EQ(r["structuredContent"], (Json{{"value", 42.0}}));
  EXPECT_EQ(ParseJson(r["content"][0]["text"].get<std::string>()).value(), r["structuredContent"]);

  Sink failed;  // the tool's own failure
  server.Handle(Request(2, "tools/call", {{"name", "fail"}, {"arguments", {{"x", 1}}}}), failed.send());
  r = failed.Last()["result"];
  EXPECT_EQ(r["isError"], true);
  EXPECT_EQ(r["content"][0]["text"], "x must be positive");
  EXPECT_FALSE(r.contains("structuredContent"));

  Sink invalid;  // arguments that fail the schema: the registry's message, as a result
  server.Handle(Request(3, "tools/call", {{"name", "double"}, {"arguments", {{"x", "two"}}}}), invalid.send());
  r = invalid.Last()["result"];
  EXPECT_EQ(r["isError"], true);
  EXPECT_NE(r["content"][0]["text"].get<std::string>().find("/x"), std::string::npos) << DumpJson(r);

  Sink unknown;
  server.Handle(Request(4, "tools/call", {{"name", "nope"}}), unknown.send());
  EXPECT_EQ(ErrorCode(unknown.Last()), -32602);
  Sink unnamed;
  server.Handle(Request(5, "tools/call", {{"arguments", Json::object()}}), unnamed.send());
  EXPECT_EQ(ErrorCode(unnamed.Last()), -32602);
  EXPECT_EQ(f.double_runs, 1);
}

TEST(McpServerTest, ProgressTokenGetsStartAndEndBeforeTheResponse) {
  Fixture f;
  McpServer server = f.Server();
  Sink sink;
  server.Handle(Request(1, "tools/call", {{"name", "double"}, {"arguments", {{"x", 1}}},
                                          {"_meta", {{"progressToken", "tok"}}}}),
                sink.send());
  const auto messages = sink.Wait();
  ASSERT_EQ(messages.size(), 3u);
  EXPECT_EQ(messages[0].second, Kind::kNotification);
  EXPECT_EQ(messages[0].first["method"], "notifications/progress");
  EXPECT_EQ(messages[0].first["params"]["progressToken"], "tok");
  EXPECT_EQ(messages[0].first["params"]["progress"], 0);
  EXPECT_EQ(messages[1].first["params"]["progress"], 1);
  EXPECT_EQ(messages[1].first["params"]["total"], 1);
  EXPECT_EQ(messages[2].second, Kind::kResponse);
  EXPECT_EQ(messages[2].first["id"], 1);
  Sink bad;
  server.Handle(Request(2, "tools/call", {{"name", "double"}, {"arguments", {{"x", 1}}},
                                          {"_meta", {{"progressToken", Json::object()}}}}),
                bad.send());
  EXPECT_EQ(ErrorCode(bad.Last()), -32602);
}

TEST(McpServerTest, CancelledNotificationCancelsTheRunningCall) {
  Fixture f;
  McpServer server = f.Server({.max_concurrent_calls = 1});
  Sink sink;
  server.Handle(Request(7, "tools/call", {{"name", "slow"}, {"arguments", {{"x", 1}}}}), sink.send());
  f.slow_started.get_future().wait();
  EXPECT_EQ(server.running(), 1);
  // The limit: a second call while one runs is refused as a result.
  Sink busy;
  server.Handle(Request(8, "tools/call", {{"name", "double"}, {"arguments", {{"x", 1}}}}), busy.send());
  EXPECT_EQ(busy.Last()["result"]["isError"], true);
  // The same id again while it runs.
  Sink again;
  server.Handle(Request(7, "tools/call", {{"name", "double"}, {"arguments", {{"x", 1}}}}), again.send());
  EXPECT_EQ(ErrorCode(again.Last()), -32600);
  // A cancellation of another id changes nothing; of this one, cancels it.
  EXPECT_FALSE(server.Handle(R"({"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":99}})",
                             [](const std::string&, Kind) {}));
  EXPECT_FALSE(server.Handle(
      R"({"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":7,"reason":"user"}})",
      [](const std::string&, Kind) {}));
  const auto messages = sink.Wait();
  ASSERT_EQ(messages.size(), 1u);
  EXPECT_EQ(messages[0].second, Kind::kNoResponse);
  server.WaitIdle();
  EXPECT_TRUE(f.slow_saw_cancel);
  EXPECT_EQ(server.running(), 0);
  EXPECT_EQ(f.double_runs, 0);
}

TEST(McpServerTest, CallsThatNeedApprovalAreRefusedUnrun) {
  Fixture f;
  McpServerOptions options;
  options.needs_approval = [](const ToolCall& call, const ToolSpec&) { return call.name == "double"; };
  McpServer server = f.Server(std::move(options));
  Sink sink;
  server.Handle(Request(1, "tools/call", {{"name", "double"}, {"arguments", {{"x", 1}}}}), sink.send());
  const Json r = sink.Last()["result"];
  EXPECT_EQ(r["isError"], true);
  EXPECT_NE(r["content"][0]["text"].get<std::string>().find("approval"), std::string::npos);
  EXPECT_EQ(f.double_runs, 0);
  Sink other;
  server.Handle(Request(2, "tools/call", {{"name", "fail"}, {"arguments", {{"x", 1}}}}), other.send());
  EXPECT_EQ(other.Last()["result"]["content"][0]["text"], "x must be positive");
}

}  // namespace
}  // namespace medreact::mcp

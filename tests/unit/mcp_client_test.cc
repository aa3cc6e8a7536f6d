// medreact's MCP client (mcp/mcp_client.h) against hostile servers: over
// stdio tests/node/mcp_hostile_server.mjs (run with node; skipped, saying
// so, when node is missing), over streamable HTTP an in-process httplib
// server on a loopback port. Each misbehaviour must give a precise error and
// no crash: huge results, a server that dies mid-call, deep JSON, a line that
// is not JSON, a tool list that never ends, hostile schemas, a server that
// hangs (timeout → notifications/cancelled), a wrong protocol version.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <httplib.h>

#include <atomic>
#include <filesystem>
#include <optional>
#include <thread>

#include "core/otel.h"
#include "mcp/mcp_attach.h"
#include "mcp/mcp_client.h"
#include "mcp/mcp_http_client.h"
#include "mcp/mcp_server.h"
#include "mcp/mcp_stdio.h"
#include "testing/build_paths.h"
#include "tools/packs.h"

namespace medreact::mcp {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

const char kNode[] = "/usr/bin/node";

std::string HostileCommand(const std::string& mode) {
  return std::string(kNode) + " " + MEDREACT_SOURCE_DIR + "/tests/node/mcp_hostile_server.mjs " + mode;
}

#define SKIP_WITHOUT_NODE() \
  if (!std::filesystem::exists(kNode)) GTEST_SKIP() << "no " << kNode << " on this machine: the stdio server is a node script"

std::shared_ptr<McpClient> ConnectHostile(const std::string& mode, McpClientOptions options = {}) {
  Result<std::shared_ptr<McpClient>> c = McpClient::Connect(MakeStdioChannel(HostileCommand(mode)), std::move(options));
  EXPECT_TRUE(c.ok()) << c.status().ToString();
  return c.ok() ? *c : nullptr;
}

ToolResult Call(const ToolRegistry& registry, const std::string& name, const std::string& args = "{}",
                ToolContext ctx = {}) {
  return registry.Execute(ToolCall{.id = "c1", .name = name, .arguments = args}, ctx);
}

TEST(McpClientCommandLineTest, SplitsLikeAShellQuotes) {
  auto w = SplitCommandLine(R"(node  'a b' "c \"d\"" e\ f)");
  ASSERT_TRUE(w.ok());
  EXPECT_EQ(*w, (std::vector<std::string>{"node", "a b", "c \"d\"", "e f"}));
  EXPECT_THAT(SplitCommandLine("node 'open").status().message(), HasSubstr("not closed"));
  EXPECT_THAT(SplitCommandLine("   ").status().message(), HasSubstr("empty"));
}

TEST(McpClientCommandLineTest, AProgramThatDoesNotExistIsAClearError) {
  auto c = McpClient::Connect(MakeStdioChannel("/no/such/mcp-server --stdio"));
  ASSERT_FALSE(c.ok());
  EXPECT_THAT(c.status().message(), HasSubstr("cannot start the MCP server '/no/such/mcp-server'"));
  EXPECT_THAT(c.status().message(), HasSubstr("No such file"));
}

TEST(McpClientCommandLineTest, AServerThatExitsBeforeTheHandshakeIsNamed) {
  auto c = McpClient::Connect(MakeStdioChannel("/bin/sh -c 'exit 5'"));
  ASSERT_FALSE(c.ok());
  EXPECT_THAT(c.status().message(), HasSubstr("initialize failed"));
  EXPECT_THAT(c.status().message(), HasSubstr("exited with status 5 before the handshake ended"));
}

TEST(McpClientSanitizeTest, ToolNames) {
  EXPECT_EQ(SanitizeToolName("hostile server!"), "hostile_server_");
  EXPECT_EQ(SanitizeToolName(""), "mcp");
  EXPECT_EQ(SanitizeToolName(std::string(100, 'a')).size(), 64u);
}

class McpClientStdioTest : public ::testing::Test {
 protected:
  void SetUp() override {
    SKIP_WITHOUT_NODE();
    ASSERT_TRUE(RegisterPacks(registry_, {"util"}).ok());
    options_.images = images_;
    options_.call_timeout = Millis(20'000);
    options_.max_result_bytes = 100'000;
    client_ = ConnectHostile("normal", options_);
    ASSERT_TRUE(client_);
    ASSERT_TRUE(AttachMcpTools(registry_, client_, [this](const std::string& w) { warnings_.push_back(w); },
                               &packs_)
                    .ok());
  }
  std::string Warnings() const {
    std::string all;
    for (const auto& w : warnings_) all += w + "\n";
    return all;
  }

  ToolRegistry registry_;
  std::shared_ptr<imaging::ImageStore> images_ = std::make_shared<imaging::ImageStore>();
  McpClientOptions options_;
  std::shared_ptr<McpClient> client_;
  std::vector<std::string> warnings_;
  std::map<std::string, std::string> packs_;
};

TEST_F(McpClientStdioTest, HandshakeNamesTheServer) {
  EXPECT_EQ(client_->server_name(), "hostile server!");
  EXPECT_EQ(client_->prefix(), "hostile_server_");
  EXPECT_EQ(client_->protocol_version(), SupportedProtocolVersions()[0]);
}

TEST_F(McpClientStdioTest, HostileSchemasAreRefusedTheOthersAttached) {
  EXPECT_TRUE(registry_.Find("echo"));
  EXPECT_TRUE(registry_.Find("huge"));
  EXPECT_FALSE(registry_.Find("loopref"));
  EXPECT_FALSE(registry_.Find("deepschema"));
  EXPECT_THAT(Warnings(), HasSubstr("MCP tool 'loopref' of server 'hostile server!' refused"));
  EXPECT_THAT(Warnings(), HasSubstr("MCP tool 'deepschema' of server 'hostile server!' refused"));
  EXPECT_EQ(packs_["echo"], "mcp:hostile_server_");
}

TEST_F(McpClientStdioTest, ANameThatClashesWithMedreactsIsPrefixed) {
  // The util pack's calculator stays medreact's; the server's is prefixed.
  const Tool* ours = registry_.Find("calculator");
  ASSERT_TRUE(ours);
  EXPECT_EQ(packs_.count("calculator"), 0u);  // not the server's
  const Tool* theirs = registry_.Find("hostile_server___calculator");
  ASSERT_TRUE(theirs);
  EXPECT_THAT(theirs->spec().description,
              HasSubstr("(MCP tool 'calculator' of server 'hostile server!', renamed 'hostile_server___calculator': "
                        "its name clashes with a tool already attached)"));
  EXPECT_THAT(Warnings(), HasSubstr("MCP tool 'calculator' of server 'hostile server!' attached as "
                                    "'hostile_server___calculator': its name clashes"));
  ToolResult r = Call(registry_, "hostile_server___calculator", R"({"text":"mine"})");
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_EQ(r.content, "echo: mine");  // the server's tool, under the server's own name
}

TEST_F(McpClientStdioTest, ANameThatClashesWithAnotherServersIsPrefixed) {
  // The same server attached twice: every tool of the second copy clashes.
  ASSERT_TRUE(AttachMcpTools(registry_, client_, [this](const std::string& w) { warnings_.push_back(w); }).ok());
  const Tool* second = registry_.Find("hostile_server___echo");
  ASSERT_TRUE(second);
  EXPECT_THAT(second->spec().description, HasSubstr("renamed 'hostile_server___echo'"));
  EXPECT_THAT(Warnings(), HasSubstr("attached as 'hostile_server___echo': its name clashes"));
  ToolResult r = Call(registry_, "hostile_server___echo", R"({"text":"twice"})");
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_EQ(r.content, "echo: twice");
}

TEST_F(McpClientStdioTest, TextImageStructuredAndErrors) {
  ToolResult echo = Call(registry_, "echo", R"({"text":"hi"})");
  ASSERT_TRUE(echo.ok) << echo.error;
  EXPECT_EQ(echo.content, "echo: hi");

  ToolResult bad_args = Call(registry_, "echo", R"({"text":5})");  // the schema is checked before the call
  EXPECT_FALSE(bad_args.ok);

  ToolResult image = Call(registry_, "image");
  ASSERT_TRUE(image.ok) << image.error;
  ASSERT_EQ(images_->All().size(), 1u);
  EXPECT_EQ(images_->All()[0]->raster.width, 2);
  EXPECT_EQ(images_->All()[0]->origin, "image");
  EXPECT_THAT(image.content, HasSubstr("[image " + images_->All()[0]->id + " saved in the run's image store: 2x2 px"));

  ToolResult structured = Call(registry_, "structured");
  ASSERT_TRUE(structured.ok) << structured.error;
  EXPECT_EQ(structured.content, R"({"n":42})");

  ToolResult error = Call(registry_, "error");
  EXPECT_FALSE(error.ok);
  EXPECT_EQ(error.error, "the input was wrong");

  ToolResult rpc = Call(registry_, "rpcerror");
  EXPECT_FALSE(rpc.ok);
  EXPECT_THAT(rpc.error, HasSubstr("error -32000: backend down"));
}

TEST_F(McpClientStdioTest, AHugeResultIsCutWithANote) {
  ToolResult r = Call(registry_, "huge");
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_LT(r.content.size(), 100'000u + 200);
  EXPECT_THAT(r.content, HasSubstr("[truncated: the result of MCP tool 'huge' was 3145728 bytes; the first 100000"));
}

TEST_F(McpClientStdioTest, DeepJsonAndALineThatIsNotJsonFailTheCall) {
  ToolResult deep = Call(registry_, "deep");
  EXPECT_FALSE(deep.ok);
  EXPECT_THAT(deep.error, HasSubstr("sent a message medreact cannot read"));
  EXPECT_THAT(deep.error, HasSubstr("not JSON"));
  ToolResult bad = Call(registry_, "badline");
  EXPECT_FALSE(bad.ok);
  EXPECT_THAT(bad.error, HasSubstr("not JSON"));
  ToolResult echo = Call(registry_, "echo", R"({"text":"still here"})");  // the connection goes on
  EXPECT_TRUE(echo.ok) << echo.error;
}

TEST_F(McpClientStdioTest, AHangingCallTimesOutAndIsCancelled) {
  ToolResult r = Call(registry_, "hang", "{}", ToolContext{.deadline = Deadline::In(Millis(300))});
  EXPECT_FALSE(r.ok);
  EXPECT_THAT(r.error, HasSubstr("did not answer hang within"));
  EXPECT_THAT(r.error, HasSubstr("notifications/cancelled sent"));
  ToolResult cancels = Call(registry_, "cancels");
  ASSERT_TRUE(cancels.ok) << cancels.error;
  Result<Json> ids = ParseJson(cancels.content);
  ASSERT_TRUE(ids.ok());
  EXPECT_EQ(ids->size(), 1u) << cancels.content;
}

TEST_F(McpClientStdioTest, TheRunsCancelTokenCancelsTheCall) {
  CancellationToken cancel;
  std::thread stopper([cancel] {
    std::this_thread::sleep_for(Millis(200));
    cancel.Cancel();
  });
  ToolResult r = Call(registry_, "hang", "{}", ToolContext{.cancel = cancel});
  stopper.join();
  EXPECT_FALSE(r.ok);
  EXPECT_THAT(r.error, HasSubstr("cancel"));
  ToolResult cancels = Call(registry_, "cancels");
  ASSERT_TRUE(cancels.ok) << cancels.error;
  EXPECT_EQ(ParseJson(cancels.content)->size(), 1u) << cancels.content;
}

TEST_F(McpClientStdioTest, AServerThatDiesMidCallFailsThisCallAndTheNextAtOnce) {
  ToolResult r = Call(registry_, "die");
  EXPECT_FALSE(r.ok);
  EXPECT_THAT(r.error, HasSubstr("the MCP server 'hostile server!' exited with status 3"));
  ToolResult next = Call(registry_, "echo", R"({"text":"hi"})");
  EXPECT_FALSE(next.ok);
  EXPECT_THAT(next.error, HasSubstr("exited with status 3; its tools are unavailable for the rest of this run"));
}

TEST_F(McpClientStdioTest, ListChangedIsListedAgain) {
  ToolResult r = Call(registry_, "changed");
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_TRUE(client_->list_changed());
  ToolResult echo = Call(registry_, "echo", R"({"text":"hi"})");  // echo is gone from the new list
  EXPECT_FALSE(echo.ok);
  EXPECT_THAT(echo.error, HasSubstr("no longer offers 'echo'"));
  ToolRegistry next_turn;  // the next registration (the next turn) has the new list
  ASSERT_TRUE(AttachMcpTools(next_turn, client_, nullptr).ok());
  EXPECT_FALSE(next_turn.Find("echo"));
  EXPECT_TRUE(next_turn.Find("huge"));
}

TEST(McpClientStdioListTest, ALineOverTheLimitIsDroppedAndTheCallFails) {
  SKIP_WITHOUT_NODE();
  auto c = McpClient::Connect(MakeStdioChannel(HostileCommand("normal"), {.max_message_bytes = 1u << 20}));
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  ToolRegistry registry;
  ASSERT_TRUE(AttachMcpTools(registry, *c, [](const std::string&) {}).ok());
  ToolResult huge = Call(registry, "huge");  // a 3 MB line
  EXPECT_FALSE(huge.ok);
  EXPECT_THAT(huge.error, HasSubstr("a message longer than 1048576 bytes (the limit); it was dropped"));
  ToolResult echo = Call(registry, "echo", R"({"text":"next"})");  // the next line is read again
  ASSERT_TRUE(echo.ok) << echo.error;
  EXPECT_EQ(echo.content, "echo: next");
}

TEST(McpClientStdioListTest, TheChildGetsNoneOfMedreactsSecrets) {
  SKIP_WITHOUT_NODE();
  setenv("MEDREACT_LLM_API_KEY", "sk-test", 1);
  setenv("MEDREACT_MCP_TOKEN", "tok", 1);
  setenv("MEDREACT_TEST_PLAIN", "1", 1);
  auto c = McpClient::Connect(MakeStdioChannel(HostileCommand("normal")));
  unsetenv("MEDREACT_LLM_API_KEY");
  unsetenv("MEDREACT_MCP_TOKEN");
  unsetenv("MEDREACT_TEST_PLAIN");
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  ToolRegistry registry;
  ASSERT_TRUE(AttachMcpTools(registry, *c, [](const std::string&) {}).ok());
  ToolResult env = Call(registry, "env");
  ASSERT_TRUE(env.ok) << env.error;
  EXPECT_THAT(env.content, HasSubstr("MEDREACT_TEST_PLAIN"));
  EXPECT_THAT(env.content, Not(HasSubstr("MEDREACT_LLM_API_KEY")));
  EXPECT_THAT(env.content, Not(HasSubstr("MEDREACT_MCP_TOKEN")));
}

TEST(McpClientStdioListTest, AListThatNeverEndsIsRefused) {
  SKIP_WITHOUT_NODE();
  auto endless = ConnectHostile("endless", {.max_list_pages = 20});
  ASSERT_TRUE(endless);
  ToolRegistry registry;
  Status s = AttachMcpTools(registry, endless, nullptr);
  EXPECT_EQ(s.code(), StatusCode::kResourceExhausted);
  EXPECT_THAT(s.message(), HasSubstr("tools/list did not end after 20 pages"));
  EXPECT_TRUE(registry.empty());

  auto loop = ConnectHostile("loop");
  ASSERT_TRUE(loop);
  Status l = AttachMcpTools(registry, loop, nullptr);
  EXPECT_THAT(l.message(), HasSubstr("the same nextCursor twice"));
}

TEST(McpClientStdioListTest, AVersionMedreactDoesNotSpeakIsRefused) {
  SKIP_WITHOUT_NODE();
  auto c = McpClient::Connect(MakeStdioChannel(HostileCommand("oldversion")));
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.status().code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(c.status().message(), HasSubstr("speaks MCP protocol version '1999-01-01', which medreact does not"));
}

TEST(McpClientStdioListTest, AServerThatExitsWhileListingIsNamed) {
  SKIP_WITHOUT_NODE();
  auto c = ConnectHostile("exit");
  ASSERT_TRUE(c);
  ToolRegistry registry;
  Status s = AttachMcpTools(registry, c, nullptr);
  EXPECT_FALSE(s.ok());
  EXPECT_THAT(s.message(), HasSubstr("exited with status 7"));
}

TEST(McpClientStdioListTest, ThroughTheAttacherOfPackContext) {
  SKIP_WITHOUT_NODE();
  auto clients = ConnectMcpServers({.commands = {HostileCommand("normal")}}, {});
  ASSERT_TRUE(clients.ok()) << clients.status().ToString();
  PackContext context;
  std::vector<std::string> warnings;
  context.on_warning = [&](const std::string& w) { warnings.push_back(w); };
  context.attach.push_back(McpAttacher(*clients));
  ToolRegistry registry;
  std::map<std::string, std::string> packs;
  ASSERT_TRUE(RegisterPacks(registry, {"util"}, context, &packs).ok());
  EXPECT_EQ(packs["calculator"], "util");
  EXPECT_EQ(packs["echo"], "mcp:hostile_server_");
  EXPECT_EQ(packs["hostile_server___calculator"], "mcp:hostile_server_");
  EXPECT_EQ(warnings.size(), 3u) << "the two hostile schemas, the renamed calculator";
}

// ---- streamable HTTP -----------------------------------------------------------

// A hostile streamable HTTP server: a bearer token, a session id, SSE and
// JSON replies, a call that hangs, a deep one, a huge one.
class HostileHttpServer {
 public:
  HostileHttpServer() {
    server_.Post("/mcp", [this](const httplib::Request& req, httplib::Response& res) { Handle(req, res); });
    port_ = server_.bind_to_any_port("127.0.0.1");
    thread_ = std::thread([this] { server_.listen_after_bind(); });
    while (!server_.is_running()) std::this_thread::sleep_for(Millis(5));
  }
  ~HostileHttpServer() {
    stop_ = true;
    server_.stop();
    thread_.join();
  }
  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_) + "/mcp"; }
  std::vector<std::string> seen() {
    std::lock_guard<std::mutex> lock(mu_);
    return seen_;
  }
  // The last tools/call's traceparent header and its params' _meta.traceparent.
  std::pair<std::string, std::string> call_trace() {
    std::lock_guard<std::mutex> lock(mu_);
    return call_trace_;
  }

 private:
  void Handle(const httplib::Request& req, httplib::Response& res) {
    if (req.get_header_value("Authorization") != "Bearer s3cret") {
      res.status = 401;
      return;
    }
    Json m = Json::parse(req.body);
    const std::string method = m.value("method", "");
    {
      std::lock_guard<std::mutex> lock(mu_);
      seen_.push_back(method + " session=" + req.get_header_value("Mcp-Session-Id") +
                      " version=" + req.get_header_value("MCP-Protocol-Version"));
    }
    if (method != "initialize" && req.get_header_value("Mcp-Session-Id") != "sess-1") {
      res.status = 400;
      return;
    }
    if (!m.contains("id")) {
      res.status = 202;
      return;
    }
    auto reply = [&](Json result) {
      res.set_content(DumpJson(Json{{"jsonrpc", "2.0"}, {"id", m["id"]}, {"result", std::move(result)}}),
                      "application/json");
    };
    if (method == "initialize") {
      res.set_header("Mcp-Session-Id", "sess-1");
      reply({{"protocolVersion", "2025-06-18"}, {"capabilities", Json::object()}, {"serverInfo", {{"name", "web"}}}});
    } else if (method == "tools/list") {
      Json tools = Json::array();
      for (const char* name : {"echo", "hang", "deep", "huge", "nocontent"}) {
        tools.push_back({{"name", name}, {"inputSchema", {{"type", "object"}}}});
      }
      const std::string response =
          DumpJson(Json{{"jsonrpc", "2.0"}, {"id", m["id"]}, {"result", {{"tools", tools}}}});
      // SSE: a notification, then the response.
      res.set_content("event: message\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\"}\n\n"
                      "event: message\ndata: " + response + "\n\n",
                      "text/event-stream");
    } else if (method == "tools/call") {
      const std::string tool = m["params"]["name"];
      {
        std::lock_guard<std::mutex> lock(mu_);
        call_trace_ = {req.get_header_value("traceparent"),
                       m["params"].contains("_meta") ? m["params"]["_meta"].value("traceparent", "") : ""};
      }
      if (tool == "echo") {
        reply({{"content", {{{"type", "text"}, {"text", "web echo"}}}}});
      } else if (tool == "hang") {
        for (int i = 0; i < 100 && !stop_; ++i) std::this_thread::sleep_for(Millis(50));
        reply({{"content", Json::array()}});
      } else if (tool == "deep") {
        res.set_content("{\"jsonrpc\":\"2.0\",\"id\":" + DumpJson(m["id"]) + ",\"result\":" + std::string(3000, '[') +
                            std::string(3000, ']') + "}",
                        "application/json");
      } else if (tool == "huge") {
        res.set_content(std::string(3u << 20, ' '), "application/json");
      } else {
        res.status = 202;  // a request answered without a response
      }
    }
  }

  httplib::Server server_;
  int port_ = 0;
  std::thread thread_;
  std::atomic<bool> stop_{false};
  std::mutex mu_;
  std::vector<std::string> seen_;
  std::pair<std::string, std::string> call_trace_;
};

TEST(McpClientHttpTest, WithoutTheTokenTheServerRefusesClearly) {
  HostileHttpServer server;
  auto c = McpClient::Connect(MakeHttpChannel({.url = server.url()}));
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.status().code(), StatusCode::kPermissionDenied);
  EXPECT_THAT(c.status().message(), HasSubstr("HTTP 401"));
  EXPECT_THAT(c.status().message(), HasSubstr("MEDREACT_MCP_TOKEN"));
}

TEST(McpClientHttpTest, SessionSseTimeoutsAndHostileReplies) {
  HostileHttpServer server;
  auto c = McpClient::Connect(MakeHttpChannel({.url = server.url(), .bearer_token = "s3cret",
                                               .max_response_bytes = 1u << 20}),
                              {.call_timeout = Millis(400)});
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ((*c)->protocol_version(), "2025-06-18");
  ToolRegistry registry;
  ASSERT_TRUE(AttachMcpTools(registry, *c, nullptr).ok());  // the list came as SSE
  ASSERT_EQ(registry.size(), 5u);

  ToolResult echo = Call(registry, "echo");
  ASSERT_TRUE(echo.ok) << echo.error;
  EXPECT_EQ(echo.content, "web echo");

  ToolResult hang = Call(registry, "hang");
  EXPECT_FALSE(hang.ok);
  EXPECT_THAT(hang.error, HasSubstr("did not answer hang within 400 ms"));

  ToolResult deep = Call(registry, "deep");
  EXPECT_FALSE(deep.ok);
  EXPECT_THAT(deep.error, HasSubstr("not JSON"));

  ToolResult huge = Call(registry, "huge");
  EXPECT_FALSE(huge.ok);
  EXPECT_THAT(huge.error, HasSubstr("over 1048576 bytes"));

  ToolResult none = Call(registry, "nocontent");
  EXPECT_FALSE(none.ok);
  EXPECT_THAT(none.error, HasSubstr("without a response to it"));

  const std::vector<std::string> seen = server.seen();
  ASSERT_GE(seen.size(), 4u);
  EXPECT_EQ(seen[0], "initialize session= version=");
  EXPECT_EQ(seen[1], "notifications/initialized session=sess-1 version=2025-06-18");
  EXPECT_EQ(seen[2], "tools/list session=sess-1 version=2025-06-18");
  EXPECT_NE(std::find(seen.begin(), seen.end(), "notifications/cancelled session=sess-1 version=2025-06-18"),
            seen.end());
}

TEST(McpClientHttpTest, ACallCarriesItsTraceContextInMetaAndTheHeader) {
  HostileHttpServer server;
  auto c = McpClient::Connect(MakeHttpChannel({.url = server.url(), .bearer_token = "s3cret"}));
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  ToolRegistry registry;
  ASSERT_TRUE(AttachMcpTools(registry, *c, nullptr).ok());

  ASSERT_TRUE(Call(registry, "echo").ok);  // no trace: neither
  EXPECT_EQ(server.call_trace(), std::make_pair(std::string(), std::string()));

  const std::string parent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
  std::optional<otel::SpanContext> context = otel::ParseTraceparent(parent);
  ASSERT_TRUE(context.has_value());
  {
    otel::ScopedContext scope(*context);  // as a tool's span is on its worker
    ASSERT_TRUE(Call(registry, "echo").ok);
  }
  EXPECT_EQ(server.call_trace(), std::make_pair(parent, parent));
}

TEST(McpClientHttpTest, HeadersAreBuiltInOnePlace) {
  auto h = McpHttpHeaders("s", "2025-06-18", "t");
  ASSERT_EQ(h.size(), 5u);
  EXPECT_EQ(h[1].second, "application/json, text/event-stream");
  EXPECT_EQ(h[4].second, "Bearer t");
  EXPECT_EQ(McpHttpHeaders("", "", "").size(), 2u);
  EXPECT_EQ(McpHttpHeaders("", "", "", "00-a-b-01").back(), std::make_pair(std::string("traceparent"), std::string("00-a-b-01")));
}

}  // namespace
}  // namespace medreact::mcp

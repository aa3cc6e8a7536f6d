// medreact's MCP client against the reference server from npm,
// @modelcontextprotocol/server-everything (pinned in tests/node/package.json),
// over stdio (`node dist/index.js stdio`, spawned by the client) and over
// streamable HTTP (`node dist/index.js streamableHttp` on a free loopback
// port): the handshake, tools/list, echo and get-sum, get-tiny-image (the
// image lands in the image store), get-structured-content, and
// trigger-long-running-operation (completes; with a short timeout, is
// cancelled). Then the CLI: `medreact tools list --mcp` and `medreact chat`
// with the scripted model calling an MCP tool over stdio. Skipped, saying
// why, when node or the npm packages are missing.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <httplib.h>

#include <filesystem>
#include <thread>

#include "mcp/mcp_attach.h"
#include "mcp/mcp_client.h"
#include "mcp/mcp_http_client.h"
#include "mcp/mcp_stdio.h"
#include "testing/build_paths.h"
#include "testing/subprocess.h"

namespace medreact::mcp {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

const char kNode[] = "/usr/bin/node";

std::string EverythingJs() {
  return MEDREACT_SOURCE_DIR + "/tests/node/node_modules/@modelcontextprotocol/server-everything/dist/index.js";
}

std::string Missing() {
  if (!std::filesystem::exists(kNode)) return std::string("no ") + kNode + " on this machine";
  if (!std::filesystem::exists(EverythingJs())) {
    return "tests/node/node_modules has no @modelcontextprotocol/server-everything: run `make node-deps`";
  }
  return "";
}

int FreePort() {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr);
  socklen_t len = sizeof addr;
  getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  close(fd);
  return ntohs(addr.sin_port);
}

ToolResult Call(const ToolRegistry& registry, const std::string& name, const std::string& args = "{}") {
  return registry.Execute(ToolCall{.id = "c1", .name = name, .arguments = args}, {});
}

// The checks both transports pass.
void CheckEverything(std::unique_ptr<McpChannel> channel) {
  auto images = std::make_shared<imaging::ImageStore>();
  auto client = McpClient::Connect(std::move(channel), {.call_timeout = Millis(30'000), .images = images});
  ASSERT_TRUE(client.ok()) << client.status().ToString();
  EXPECT_EQ((*client)->server_name(), "mcp-servers/everything");
  ToolRegistry registry;
  std::vector<std::string> warnings;
  ASSERT_TRUE(AttachMcpTools(registry, *client, [&](const std::string& w) { warnings.push_back(w); }).ok());
  for (const char* name : {"echo", "get-sum", "get-tiny-image", "get-structured-content",
                           "trigger-long-running-operation"}) {
    EXPECT_TRUE(registry.Find(name)) << name;
  }

  ToolResult echo = Call(registry, "echo", R"({"message":"hello MCP"})");
  ASSERT_TRUE(echo.ok) << echo.error;
  EXPECT_EQ(echo.content, "Echo: hello MCP");

  ToolResult sum = Call(registry, "get-sum", R"({"a":2,"b":40})");
  ASSERT_TRUE(sum.ok) << sum.error;
  EXPECT_THAT(sum.content, HasSubstr("42"));

  ToolResult image = Call(registry, "get-tiny-image");
  ASSERT_TRUE(image.ok) << image.error;
  ASSERT_EQ(images->All().size(), 1u);
  EXPECT_EQ(images->All()[0]->original_width, 20);
  EXPECT_THAT(image.content, HasSubstr("[image img1 saved in the run's image store: 20x20 px image/png"));
  EXPECT_THAT(image.content, HasSubstr("The image above is the MCP logo."));

  ToolResult weather = Call(registry, "get-structured-content", R"({"location":"Chicago"})");
  ASSERT_TRUE(weather.ok) << weather.error;
  Result<Json> structured = ParseJson(weather.content);
  ASSERT_TRUE(structured.ok()) << weather.content;
  EXPECT_EQ((*structured)["temperature"], 36);
  EXPECT_EQ((*structured)["conditions"], "Light rain / drizzle");

  ToolResult bad = Call(registry, "get-structured-content", R"({"location":"Paris"})");  // the enum, checked here
  EXPECT_FALSE(bad.ok);

  ToolResult slow = Call(registry, "trigger-long-running-operation", R"({"duration":0.4,"steps":2})");
  ASSERT_TRUE(slow.ok) << slow.error;
  EXPECT_THAT(slow.content, HasSubstr("Long running operation completed"));

  ToolResult timed_out = registry.Execute(
      ToolCall{.id = "c2", .name = "trigger-long-running-operation", .arguments = R"({"duration":20,"steps":4})"},
      ToolContext{.deadline = Deadline::In(Millis(500))});
  EXPECT_FALSE(timed_out.ok);
  EXPECT_THAT(timed_out.error, HasSubstr("did not answer trigger-long-running-operation within"));
  EXPECT_THAT(timed_out.error, HasSubstr("notifications/cancelled sent"));

  ToolResult after = Call(registry, "echo", R"({"message":"after the timeout"})");  // the session goes on
  ASSERT_TRUE(after.ok) << after.error;
  EXPECT_EQ(after.content, "Echo: after the timeout");
  (*client)->Close();
}

TEST(McpClientEverythingTest, OverStdio) {
  if (std::string why = Missing(); !why.empty()) GTEST_SKIP() << why;
  CheckEverything(MakeStdioChannel(std::string(kNode) + " " + EverythingJs() + " stdio"));
}

TEST(McpClientEverythingTest, OverStreamableHttp) {
  if (std::string why = Missing(); !why.empty()) GTEST_SKIP() << why;
  const int port = FreePort();
  testing::BackgroundCommand server({kNode, EverythingJs(), "streamableHttp"}, {{"PORT", std::to_string(port)}});
  for (int i = 0; i < 200 && server.Stderr().find("listening on port") == std::string::npos; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  ASSERT_THAT(server.Stderr(), HasSubstr("listening on port"));
  CheckEverything(MakeHttpChannel({.url = "http://127.0.0.1:" + std::to_string(port) + "/mcp"}));
}

TEST(McpClientCliTest, ToolsListShowsTheAttachedTools) {
  if (std::string why = Missing(); !why.empty()) GTEST_SKIP() << why;
  testing::ProcessResult r = testing::RunCommand(
      {MEDREACT_BINARY, "tools", "list", "--mcp", std::string(kNode) + " " + EverythingJs() + " stdio", "--mcp",
       std::string(kNode) + " " + MEDREACT_SOURCE_DIR + "/tests/node/mcp_hostile_server.mjs"},
      {{"MEDREACT_LOG_LEVEL", "info"}});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  Result<Json> list = ParseJson(r.out);
  ASSERT_TRUE(list.ok()) << r.out;
  std::map<std::string, Json> by_name;
  for (const Json& t : *list) by_name[t["name"].get<std::string>()] = t;
  ASSERT_TRUE(by_name.count("echo"));
  EXPECT_EQ(by_name["echo"]["pack"], "mcp:mcp-servers_everything");
  EXPECT_EQ(by_name["echo"]["parameters"]["properties"]["message"]["type"], "string");
  // The second server's echo clashes with the first's: prefixed with the
  // second server's name.
  ASSERT_TRUE(by_name.count("hostile_server___echo"));
  EXPECT_EQ(by_name["hostile_server___echo"]["mcp_name"], "echo");
  EXPECT_EQ(by_name["hostile_server___echo"]["pack"], "mcp:hostile_server_");
  EXPECT_FALSE(by_name.count("current_time"));  // only the MCP tools
  EXPECT_THAT(r.err, HasSubstr("MCP tool 'loopref' of server 'hostile server!' refused"));
  EXPECT_THAT(r.err, HasSubstr("mcp client: connected to hostile server!"));  // the info log is on
  EXPECT_THAT(r.err, Not(HasSubstr("Jane Roe")));  // the child's stderr is not in it

  testing::ProcessResult bad = testing::RunCommand({MEDREACT_BINARY, "tools", "list", "--mcp", "/no/such/server"});
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_THAT(bad.err, HasSubstr("cannot start the MCP server '/no/such/server'"));
}

// --mcp-url with the token from the variable --mcp-token-env names: a loopback
// server that wants it (401 otherwise); the token is in no output.
TEST(McpClientCliTest, ToolsListOverHttpWithTheTokenFromTheEnvironment) {
  httplib::Server server;
  server.Post("/mcp", [](const httplib::Request& req, httplib::Response& res) {
    if (req.get_header_value("Authorization") != "Bearer tok-123") {
      res.status = 401;
      return;
    }
    Json m = Json::parse(req.body);
    if (!m.contains("id")) {
      res.status = 202;
      return;
    }
    Json result = m["method"] == "initialize"
                      ? Json{{"protocolVersion", "2025-03-26"}, {"capabilities", Json::object()},
                             {"serverInfo", {{"name", "calc web"}}}}
                      : Json{{"tools", {{{"name", "calculator"}, {"description", "clashes with medreact's"},
                                         {"inputSchema", {{"type", "object"}}}}}}};
    res.set_content(DumpJson(Json{{"jsonrpc", "2.0"}, {"id", m["id"]}, {"result", result}}), "application/json");
  });
  const int port = server.bind_to_any_port("127.0.0.1");
  std::thread thread([&] { server.listen_after_bind(); });
  while (!server.is_running()) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  const std::string url = "http://127.0.0.1:" + std::to_string(port) + "/mcp";

  testing::ProcessResult refused = testing::RunCommand({MEDREACT_BINARY, "tools", "list", "--mcp-url", url});
  EXPECT_EQ(refused.exit_code, 2);
  EXPECT_THAT(refused.err, HasSubstr("HTTP 401"));

  testing::ProcessResult r = testing::RunCommand(
      {MEDREACT_BINARY, "tools", "list", "--mcp-url", url, "--mcp-token-env", "MY_MCP_TOKEN"},
      {{"MY_MCP_TOKEN", "tok-123"}, {"MEDREACT_LOG_LEVEL", "debug"}});
  server.stop();
  thread.join();
  ASSERT_EQ(r.exit_code, 0) << r.err;
  Result<Json> list = ParseJson(r.out);
  ASSERT_TRUE(list.ok()) << r.out;
  ASSERT_EQ(list->size(), 1u);
  EXPECT_EQ((*list)[0]["name"], "calc_web__calculator");  // medreact's util pack has a calculator
  EXPECT_EQ((*list)[0]["mcp_name"], "calculator");
  EXPECT_EQ((*list)[0]["pack"], "mcp:calc_web");
  EXPECT_THAT(r.err, HasSubstr("attached as 'calc_web__calculator': its name clashes"));
  EXPECT_THAT(r.out + r.err, Not(HasSubstr("tok-123")));
}

TEST(McpClientCliTest, ChatCallsAnMcpToolOverStdio) {
  if (std::string why = Missing(); !why.empty()) GTEST_SKIP() << why;
  testing::MockLlmProcess model(R"({"responses": [
    {"message": {"content": "", "tool_calls": [{"id": "call_1", "name": "get-sum",
      "arguments": "{\"a\": 17, \"b\": 25}"}]}},
    {"message": {"content": "The sum is 42."}}]})");
  ASSERT_TRUE(model.ok());
  testing::TempDir tmp;
  testing::ProcessResult r = testing::RunCommand(
      {MEDREACT_BINARY, "chat", "--llm-url", model.base_url(), "--no-store", "--mcp",
       std::string(kNode) + " " + EverythingJs() + " stdio", "--mcp",
       std::string(kNode) + " " + MEDREACT_SOURCE_DIR + "/tests/node/mcp_hostile_server.mjs", "--trace",
       tmp.File("trace.json"), "What is 17 + 25?"},
      {}, std::chrono::seconds(120));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("The sum is 42."));
  // The tool's answer reached the model in the second request.
  const std::vector<std::string> requests = model.request_lines();
  ASSERT_EQ(requests.size(), 2u);
  Result<Json> second = ParseJson(requests[1]);
  ASSERT_TRUE(second.ok());
  const std::string sent = DumpJson(*second);
  EXPECT_THAT(sent, HasSubstr("get-sum"));
  EXPECT_THAT(sent, HasSubstr("42"));
  // The first request offered the MCP tools next to the util pack's.
  EXPECT_THAT(requests[0], HasSubstr("\"get-tiny-image\""));
  EXPECT_THAT(requests[0], HasSubstr("\"calculator\""));
  // The hostile server's calculator clashes with medreact's: offered prefixed,
  // said on stderr and named so in the trace's tools; its hostile schemas left out.
  EXPECT_THAT(requests[0], HasSubstr("\"hostile_server___calculator\""));
  EXPECT_THAT(r.err, HasSubstr("attached as 'hostile_server___calculator': its name clashes"));
  EXPECT_THAT(r.err, HasSubstr("MCP tool 'loopref' of server 'hostile server!' refused"));
  EXPECT_THAT(r.err, Not(HasSubstr("Jane Roe")));
  const std::string trace = testing::ReadFileOrEmpty(tmp.File("trace.json"));
  EXPECT_THAT(trace, HasSubstr("get-sum"));
  EXPECT_THAT(trace, HasSubstr("hostile_server___calculator"));
}

}  // namespace
}  // namespace medreact::mcp

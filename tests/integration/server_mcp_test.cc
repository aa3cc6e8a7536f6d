// `medreact serve --mcp-packs`: the MCP endpoint mounted at /mcp in the
// server, behind the server's token, beside its API; and the packs it refuses
// at start (a pack that reads a file, a network pack without network tools).
#include <gtest/gtest.h>

#include "testing/build_paths.h"
#include "testing/serve_fixture.h"
#include "testing/subprocess.h"

namespace medreact::server {
namespace {

constexpr char kToken[] = "serve-mcp-token-0123456789";

TEST(ServerMcpTest, ServesTheCalculatorsAtMcpBehindTheToken) {
  testing::ServeFixture srv({.token = kToken, .mcp_packs = {"calc"}});
  const std::string init =
      R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{}}})";
  httplib::Result refused = srv.Post("/mcp", init, "application/json", {{"authorization", "Bearer wrong-token-0123456"}});
  ASSERT_TRUE(refused);
  EXPECT_EQ(refused->status, 401);
  httplib::Result opened = srv.Post("/mcp", init, "application/json", {{"accept", "application/json, text/event-stream"}});
  ASSERT_TRUE(opened);
  ASSERT_EQ(opened->status, 200) << opened->body;
  const std::string session = opened->get_header_value("mcp-session-id");
  ASSERT_EQ(session.size(), 32u);
  httplib::Result called = srv.Post(
      "/mcp",
      R"({"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"body_mass_index","arguments":{"weight":70,"height":175}}})",
      "application/json", {{"mcp-session-id", session}, {"accept", "application/json, text/event-stream"}});
  ASSERT_TRUE(called);
  ASSERT_EQ(called->status, 200) << called->body;
  const Json result = testing::ServeFixture::JsonOf(called)["result"];
  EXPECT_NEAR(result["structuredContent"]["value"].get<double>(), 22.86, 0.01);
  // The API beside it is unchanged.
  httplib::Result runs = srv.Get("/v1/runs");
  ASSERT_TRUE(runs);
  EXPECT_EQ(runs->status, 200);
}

TEST(ServerMcpTest, WithoutMcpPacksThereIsNoMcpEndpoint) {
  testing::ServeFixture srv({.token = kToken});
  httplib::Result r = srv.Post("/mcp", R"({"jsonrpc":"2.0","id":1,"method":"ping"})");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 404);
}

TEST(ServerMcpTest, RefusesPacksItCannotServeAtStart) {
  testing::TempDir dir;
  struct Case {
    std::string packs;
    std::string says;
  } cases[] = {{"fhir", "--mcp-packs"}, {"calc,literature", "--network-tools"}, {"nope", "unknown tool pack"}};
  for (const Case& c : cases) {
    testing::ProcessResult r = testing::RunCommand({MEDREACT_BINARY, "serve", "--store", dir.File("runs.sqlite"),
                                                    "--port", "0", "--mcp-packs", c.packs, "--no-access-log"},
                                                   {}, std::chrono::seconds(60));
    EXPECT_EQ(r.exit_code, 2) << c.packs << ": " << r.err;
    EXPECT_NE(r.err.find(c.says), std::string::npos) << r.err;
  }
}

}  // namespace
}  // namespace medreact::server

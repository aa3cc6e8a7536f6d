// The official MCP TypeScript SDK (@modelcontextprotocol/sdk, pinned in
// tests/node/package.json) against `medreact mcp`: tests/node/
// mcp_server_stdio.mjs spawns it over stdio, tests/node/mcp_server_http.mjs
// starts it with --http; both run tests/node/lib/mcp_checks.mjs (paging,
// structured results validated by the SDK, isError, -32602, progress,
// cancellation through an AbortSignal). Skipped, saying why, when the npm
// packages are not installed (`make node-deps`).
#include <gtest/gtest.h>

#include <filesystem>

#include "testing/build_paths.h"
#include "testing/subprocess.h"

namespace medreact {
namespace {

void RunScript(const std::string& script) {
  const std::string node_dir = MEDREACT_SOURCE_DIR + "/tests/node";
  if (!std::filesystem::is_directory(node_dir + "/node_modules/@modelcontextprotocol/sdk")) {
    GTEST_SKIP() << "tests/node/node_modules is missing: run `make node-deps` (npm ci) to test the MCP SDK client";
  }
  if (!std::filesystem::exists("/usr/bin/node")) GTEST_SKIP() << "no /usr/bin/node on this machine";
  testing::TempDir tmp;
  testing::ProcessResult r =
      testing::RunCommand({"/usr/bin/node", node_dir + "/" + script},
                          {{"MEDREACT_BINARY", MEDREACT_BINARY}, {"MEDREACT_TMP", tmp.path()}}, std::chrono::seconds(180));
  EXPECT_EQ(r.exit_code, 0) << "stdout:\n" << r.out << "\nstderr:\n" << r.err;
  EXPECT_NE(r.out.find("all checks passed"), std::string::npos) << r.out << r.err;
}

TEST(McpServerNpmTest, TheOfficialSdkClientOverStdio) { RunScript("mcp_server_stdio.mjs"); }

TEST(McpServerNpmTest, TheOfficialSdkClientOverStreamableHttp) { RunScript("mcp_server_http.mjs"); }

}  // namespace
}  // namespace medreact

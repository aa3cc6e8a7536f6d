// `medreact mcp` as a process over stdio, with a raw JSON-RPC session from a
// file (no SDK): the FHIR and growth packs of one record, the approval rules
// of the command line, a line over the message limit, stdout holding only
// protocol messages; and the flags it refuses at start (exit 2, one line).
#include <gtest/gtest.h>

#include <map>
#include <sstream>

#include "medreact/json.h"
#include "testing/build_paths.h"
#include "testing/subprocess.h"

namespace medreact {
namespace {

// Runs `medreact mcp ARGS < lines` and returns the messages on stdout by id.
struct Session {
  testing::ProcessResult process;
  std::map<int, Json> by_id;
  size_t lines = 0;
};

Session RunSession(const std::vector<std::string>& lines, const std::string& args) {
  testing::TempDir dir;
  std::string input;
  for (const std::string& line : lines) input += line + "\n";
  dir.Write("in.jsonl", input);
  Session s;
  s.process = testing::RunCommand({"/bin/sh", "-c", "exec \"$0\" mcp " + args + " < \"$1\"", MEDREACT_BINARY,
                                   dir.File("in.jsonl")});
  std::istringstream out(s.process.out);
  std::string line;
  while (std::getline(out, line)) {
    ++s.lines;
    Result<Json> m = ParseJson(line);
    EXPECT_TRUE(m.ok()) << "stdout holds a line that is not JSON: " << line;
    if (m.ok() && m->contains("id") && (*m)["id"].is_number_integer()) s.by_id[(*m)["id"].get<int>()] = *m;
  }
  return s;
}

std::string Call(int id, const std::string& tool, const Json& arguments) {
  return DumpJson(Json{{"jsonrpc", "2.0"}, {"id", id}, {"method", "tools/call"},
                       {"params", {{"name", tool}, {"arguments", arguments}}}});
}

TEST(McpCliTest, ServesARecordsFhirAndGrowthToolsOverStdio) {
  const std::string bundle = MEDREACT_SOURCE_DIR + "/examples/worklist/08-dvt-on-rivaroxaban/fhir.json";
  Session s = RunSession(
      {R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}})",
       R"({"jsonrpc":"2.0","method":"notifications/initialized"})",
       Call(2, "check_medication_status", {{"medication_name", "anticoag"}}),
       Call(3, "percentile_to_zscore", {{"percentile", 97.5}}),
       Call(4, "check_medication_status", {{"drug_class", "x"}})},
      "--packs fhir,growth --fhir " + bundle);
  ASSERT_EQ(s.process.exit_code, 0) << s.process.err;
  EXPECT_EQ(s.lines, 4u) << s.process.out;  // one answer per request; nothing else on stdout
  EXPECT_EQ(s.by_id[1]["result"]["protocolVersion"], "2025-06-18");
  const std::string meds = s.by_id[2]["result"]["content"][0]["text"].get<std::string>();
  EXPECT_EQ(s.by_id[2]["result"]["isError"], false);
  EXPECT_NE(meds.find("ivaroxaban"), std::string::npos) << meds;
  const Json z = ParseJson(s.by_id[3]["result"]["content"][0]["text"].get<std::string>()).value();
  EXPECT_NEAR(z["z"].get<double>(), 1.96, 0.001);
  EXPECT_EQ(s.by_id[4]["result"]["isError"], true);
  EXPECT_NE(s.by_id[4]["result"]["content"][0]["text"].get<std::string>().find("/medication_name"),
            std::string::npos);
}

TEST(McpCliTest, ApprovalRulesRefuseTheCallsTheyName) {
  Session s = RunSession({Call(1, "body_mass_index", {{"weight", 70}, {"height", 175}}),
                          Call(2, "percentile_to_zscore", {{"percentile", 50}})},
                         "--packs calc,growth --require-approval pack:calc");
  ASSERT_EQ(s.process.exit_code, 0) << s.process.err;
  EXPECT_EQ(s.by_id[1]["result"]["isError"], true);
  EXPECT_NE(s.by_id[1]["result"]["content"][0]["text"].get<std::string>().find("approval"), std::string::npos);
  EXPECT_FALSE(s.by_id[1]["result"].contains("structuredContent"));
  EXPECT_EQ(s.by_id[2]["result"]["isError"], false);
}

TEST(McpCliTest, ALineOverTheLimitIsRefusedAndTheNextOneAnswered) {
  const std::string huge = R"({"jsonrpc":"2.0","id":1,"method":"ping","pad":")" + std::string(1100000, 'a') + "\"}";
  Session s = RunSession({huge, R"({"jsonrpc":"2.0","id":2,"method":"ping"})"}, "--max-message-mb 1");
  ASSERT_EQ(s.process.exit_code, 0) << s.process.err;
  ASSERT_EQ(s.lines, 2u) << s.process.out.substr(0, 500);
  EXPECT_NE(s.process.out.find("-32600"), std::string::npos);
  EXPECT_EQ(s.by_id[2]["result"], Json::object());
}

TEST(McpCliTest, RefusesBadFlagsAtStartWithOneLine) {
  struct Case {
    std::vector<std::string> args;
    std::string says;
  } cases[] = {
      {{"--packs", "nope"}, "unknown tool pack 'nope'"},
      {{"--packs", " , "}, "--packs names no pack"},
      {{"--packs", "fhir"}, "--fhir"},
      {{"--http", "--host", "0.0.0.0"}, "--token-file"},
      {{"--require-approval", "tool:nope"}, "names no tool"},
      {{"--stdio", "--http"}, "excludes"},
      {{"--http", "--token-file", "/nonexistent/token"}, "token"},
  };
  for (const Case& c : cases) {
    std::vector<std::string> argv = {MEDREACT_BINARY, "mcp"};
    argv.insert(argv.end(), c.args.begin(), c.args.end());
    testing::ProcessResult r = testing::RunCommand(argv);
    EXPECT_EQ(r.exit_code, 2) << c.says << ": " << r.err;
    EXPECT_NE(r.err.find(c.says), std::string::npos) << r.err;
    EXPECT_EQ(r.out, "") << c.says;
  }
}

}  // namespace
}  // namespace medreact

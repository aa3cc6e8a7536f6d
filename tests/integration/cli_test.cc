// The medreact binary as a user runs it: exit codes (0 / 1 / 2), stdout and
// stderr, the trace file, configuration from flags and from MEDREACT_LLM_*,
// against medreact-mock-llm started as a real process on loopback.
#include <gtest/gtest.h>

#include "testing/build_paths.h"
#include "medreact/json.h"
#include "testing/fhir_fixture_server.h"
#include "testing/subprocess.h"

namespace medreact {
namespace {

using testing::MockLlmProcess;
using testing::ReadFileOrEmpty;
using testing::RunCommand;
using testing::TempDir;

const char kCalcThenAnswer[] = R"({"responses": [
  {"message": {"content": null, "tool_calls": [{"id": "call_1", "name": "calculator",
                                                "arguments": "{\"expression\": \"17*23\"}"}]}},
  {"message": {"content": "17 * 23 = 391"}}
]})";

TEST(CliTest, ChatRunsToolsAndWritesTheTrace) {
  MockLlmProcess mock(kCalcThenAnswer);
  ASSERT_TRUE(mock.ok());
  TempDir dir;
  auto r = RunCommand({MEDREACT_BINARY, "chat", "--llm-url", mock.base_url(), "--model", "mock", "--trace",
                       dir.File("trace.json"), "What is 17*23?"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "17 * 23 = 391\n");
  auto trace = ParseJson(ReadFileOrEmpty(dir.File("trace.json")));
  ASSERT_TRUE(trace.ok());
  EXPECT_EQ((*trace)["status"], "finished");
  EXPECT_EQ((*trace)["input"]["message"], "What is 17*23?");
  EXPECT_EQ((*trace)["steps"][0]["tool_results"][0]["tool_call_id"], "call_1");
  EXPECT_EQ((*trace)["steps"][0]["tool_results"][0]["ok"], true);
  EXPECT_EQ(mock.request_lines().size(), 2u);
}

TEST(CliTest, StreamingAndEnvironmentConfiguration) {
  MockLlmProcess mock(kCalcThenAnswer);
  ASSERT_TRUE(mock.ok());
  auto r = RunCommand({MEDREACT_BINARY, "chat", "--stream", "--json", "What is 17*23?"},
                      {{"MEDREACT_LLM_URL", mock.base_url()}, {"MEDREACT_LLM_MODEL", "from-env"}});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto out = ParseJson(r.out);
  ASSERT_TRUE(out.ok()) << r.out;
  EXPECT_EQ((*out)["status"], "finished");
  EXPECT_EQ((*out)["tool_calls"], 1);
  EXPECT_NE(r.err.find("391"), std::string::npos);  // streamed text goes to stderr
  auto first = ParseJson(mock.request_lines().at(0));
  ASSERT_TRUE(first.ok());
  EXPECT_EQ((*first)["body"]["model"], "from-env");
  EXPECT_EQ((*first)["body"]["stream"], true);
}

TEST(CliTest, FlagsOverrideEnvironment) {
  MockLlmProcess mock(kCalcThenAnswer);
  ASSERT_TRUE(mock.ok());
  auto r = RunCommand({MEDREACT_BINARY, "chat", "--llm-url", mock.base_url(), "--model", "from-flag", "q"},
                      {{"MEDREACT_LLM_URL", "http://127.0.0.1:1/v1"}, {"MEDREACT_LLM_MODEL", "from-env"}});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(ParseJson(mock.request_lines().at(0)).value()["body"]["model"], "from-flag");
}

TEST(CliTest, RunThatFailsExitsOneAndStillWritesTheTrace) {
  MockLlmProcess mock(R"({"responses": [{"status": 400, "body": {"error": {"message": "bad tools field"}}}]})");
  ASSERT_TRUE(mock.ok());
  TempDir dir;
  auto r = RunCommand({MEDREACT_BINARY, "chat", "--llm-url", mock.base_url(), "--trace", dir.File("t.json"), "q"});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.err.find("bad tools field"), std::string::npos) << r.err;
  auto trace = ParseJson(ReadFileOrEmpty(dir.File("t.json")));
  ASSERT_TRUE(trace.ok());
  EXPECT_EQ((*trace)["status"], "error");
  EXPECT_FALSE((*trace)["answer"].get<std::string>().empty());
}

TEST(CliTest, UnreachableServerIsAnErrorNotACrash) {
  TempDir dir;
  auto r = RunCommand({MEDREACT_BINARY, "chat", "--llm-url", "http://127.0.0.1:1/v1", "--max-retries", "0",
                       "--trace", dir.File("t.json"), "q"});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_EQ(ParseJson(ReadFileOrEmpty(dir.File("t.json"))).value()["status"], "error");
}

TEST(CliTest, BadUsageExitsTwoAndWritesNothing) {
  TempDir dir;
  auto no_model = RunCommand({MEDREACT_BINARY, "chat", "--trace", dir.File("t.json"), "q"});
  EXPECT_EQ(no_model.exit_code, 2);
  EXPECT_NE(no_model.err.find("MEDREACT_LLM_URL"), std::string::npos);
  EXPECT_TRUE(ReadFileOrEmpty(dir.File("t.json")).empty());

  auto bad_pack = RunCommand({MEDREACT_BINARY, "chat", "--llm-url", "http://127.0.0.1:1/v1", "--tools", "nope", "q"});
  EXPECT_EQ(bad_pack.exit_code, 2);
  EXPECT_NE(bad_pack.err.find("unknown tool pack 'nope'"), std::string::npos) << bad_pack.err;

  EXPECT_EQ(RunCommand({MEDREACT_BINARY, "chat", "--llm-url", "http://127.0.0.1:1/v1", "--protocol", "xml", "q"})
                .exit_code,
            2);
  EXPECT_EQ(RunCommand({MEDREACT_BINARY, "chat", "--llm-url", "http://127.0.0.1:1/v1", "  "}).exit_code, 2);
  EXPECT_EQ(RunCommand({MEDREACT_BINARY, "nonsense"}).exit_code, 2);
  EXPECT_EQ(RunCommand({MEDREACT_BINARY, "--help"}).exit_code, 0);
}

TEST(CliTest, TextProtocolThroughTheBinary) {
  MockLlmProcess mock(R"({"responses": [
    {"message": {"content": "THOUGHT: need math\nTOOL_CALL: {\"tool\": \"calculator\", \"arguments\": {\"expression\": \"2**10\"}}"}},
    {"message": {"content": "THOUGHT: done\nFINAL_ANSWER: 1024"}}
  ]})");
  ASSERT_TRUE(mock.ok());
  auto r = RunCommand({MEDREACT_BINARY, "chat", "--llm-url", mock.base_url(), "--protocol", "text", "2^10?"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "1024\n");
  auto second = ParseJson(mock.request_lines().at(1)).value();
  EXPECT_FALSE(second["body"].contains("tools"));
  EXPECT_NE(second["body"]["messages"].back()["content"].get<std::string>().find("1024"), std::string::npos);
}

// A three-step investigation of a real Synthea record (Eura Treutel: atrial
// fibrillation on warfarin) through the fhir pack, the binaries and the wire.
TEST(CliTest, ChatInvestigatesAFhirRecord) {
  MockLlmProcess mock(R"({"responses": [
    {"message": {"content": null, "tool_calls": [{"id": "c1", "name": "get_patient_manifest", "arguments": "{}"}]}},
    {"message": {"content": null, "tool_calls": [{"id": "c2", "name": "check_medication_status",
                                                  "arguments": "{\"medication_name\": \"anticoag\"}"}]}},
    {"message": {"content": null, "tool_calls": [{"id": "c3", "name": "get_recent_labs",
                                                  "arguments": "{\"category\": \"Renal\", \"lookback_days\": 120}"}]}},
    {"message": {"content": "On active warfarin; latest creatinine 0.4831 mg/dL."}}
  ]})");
  ASSERT_TRUE(mock.ok());
  TempDir dir;
  const std::string bundle =
      std::string(MEDREACT_SOURCE_DIR) + "/tests/fixtures/synthea/Eura_Treutel_8a12e2bb-ecc5-43e9-8de2-bfd019911f7f.json";
  auto r = RunCommand({MEDREACT_BINARY, "chat", "--llm-url", mock.base_url(), "--fhir", bundle, "--trace",
                       dir.File("t.json"), "Is this patient anticoagulated?"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto trace = ParseJson(ReadFileOrEmpty(dir.File("t.json"))).value();
  ASSERT_EQ(trace["steps"].size(), 4u);
  auto result = [&](int step) {
    const Json& tr = trace["steps"][step]["tool_results"][0];
    EXPECT_EQ(tr["ok"], true) << tr.dump();
    return ParseJson(tr.value("content", std::string())).value_or(Json::object());
  };
  EXPECT_FALSE(result(0)["patient_id"].get<std::string>().empty());
  Json meds = result(1);
  EXPECT_EQ(meds["is_currently_active"], true) << meds.dump();
  EXPECT_NE(meds.dump().find("arfarin"), std::string::npos);
  Json labs = result(2);
  ASSERT_FALSE(labs["values"].empty()) << labs.dump();
  EXPECT_NE(labs.dump().find("0.4831"), std::string::npos) << labs.dump();
  // The third request carried the medication result back to the model.
  auto third = ParseJson(mock.request_lines().at(2)).value();
  EXPECT_EQ(third["body"]["messages"].back()["tool_call_id"], "c2");
}

// The same investigation with the record on a FHIR server (issue 28):
// `chat --fhir-url --patient`, the server without $everything (searches per
// type), a static token from MEDREACT_FHIR_TOKEN. Every tool result equals
// the file run's.
TEST(CliTest, ChatInvestigatesAFhirRecordOnAFhirServer) {
  const std::string script = R"({"responses": [
    {"message": {"content": null, "tool_calls": [{"id": "c1", "name": "check_medication_status",
                                                  "arguments": "{\"medication_name\": \"anticoag\"}"}]}},
    {"message": {"content": null, "tool_calls": [{"id": "c2", "name": "get_recent_labs",
                                                  "arguments": "{\"category\": \"Renal\", \"lookback_days\": 120}"}]}},
    {"message": {"content": "On active warfarin."}}
  ]})";
  const std::string bundle =
      std::string(MEDREACT_SOURCE_DIR) + "/tests/fixtures/synthea/Eura_Treutel_8a12e2bb-ecc5-43e9-8de2-bfd019911f7f.json";
  const Json record = ParseJson(ReadFileOrEmpty(bundle)).value();
  testing::FhirFixtureServer fhir({.everything = false, .required_token = "tok"});
  fhir.AddBundle(record);
  ASSERT_TRUE(fhir.Start());
  std::string patient;
  for (const Json& e : record["entry"]) {
    if (e["resource"]["resourceType"] == "Patient") patient = e["resource"]["id"];
  }
  std::vector<std::string> results[2];
  for (int rest = 0; rest < 2; ++rest) {
    MockLlmProcess mock(script);
    ASSERT_TRUE(mock.ok());
    TempDir dir;
    std::vector<std::string> argv = {MEDREACT_BINARY, "chat", "--llm-url", mock.base_url(), "--trace", dir.File("t.json")};
    if (rest) {
      argv.insert(argv.end(), {"--fhir-url", fhir.base_url(), "--patient", patient});
    } else {
      argv.insert(argv.end(), {"--fhir", bundle});
    }
    argv.push_back("Is this patient anticoagulated?");
    auto r = RunCommand(argv, {{"MEDREACT_FHIR_TOKEN", "tok"}});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.err.find(patient), std::string::npos);  // the id is never printed
    auto trace = ParseJson(ReadFileOrEmpty(dir.File("t.json"))).value();
    ASSERT_EQ(trace["steps"].size(), 3u);
    for (int step = 0; step < 2; ++step) {
      results[rest].push_back(DumpJson(trace["steps"][step]["tool_results"][0]["content"]));
    }
  }
  EXPECT_EQ(results[0], results[1]);
  EXPECT_NE(results[1][0].find("arfarin"), std::string::npos);
  EXPECT_NE(results[1][1].find("0.4831"), std::string::npos);
  bool searched = false;
  for (const auto& r : fhir.requests()) {
    searched = searched || (r.path == "/fhir/Observation" && r.authorization == "Bearer tok");
  }
  EXPECT_TRUE(searched);
}

TEST(CliTest, BrokenFhirBundleIsBadInput) {
  TempDir dir;
  dir.Write("bundle.json", R"({"resourceType": "Bundle", "entry": [)");
  auto r = RunCommand({MEDREACT_BINARY, "chat", "--llm-url", "http://127.0.0.1:1/v1", "--fhir",
                       dir.File("bundle.json"), "--trace", dir.File("t.json"), "q"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("is not JSON"), std::string::npos) << r.err;
  EXPECT_TRUE(ReadFileOrEmpty(dir.File("t.json")).empty());
}

TEST(CliTest, ToolsListPrintsSpecs) {
  auto r = RunCommand({MEDREACT_BINARY, "tools", "list"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto specs = ParseJson(r.out);
  ASSERT_TRUE(specs.ok());
  bool calculator = false;
  for (const auto& s : *specs) {
    EXPECT_TRUE(s.contains("parameters"));
    if (s["name"] == "calculator") calculator = true;
  }
  EXPECT_TRUE(calculator);
  EXPECT_EQ(RunCommand({MEDREACT_BINARY, "tools", "list", "--pack", "nope"}).exit_code, 2);
}

TEST(CliTest, MockServerRefusesNonLoopbackHosts) {
  TempDir dir;
  dir.Write("s.json", kCalcThenAnswer);
  auto r = RunCommand({MEDREACT_MOCK_LLM_BINARY, "--script", dir.File("s.json"), "--host", "0.0.0.0"});
  EXPECT_EQ(r.exit_code, 2);
}

}  // namespace
}  // namespace medreact

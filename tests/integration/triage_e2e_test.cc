// Triage end to end through real sockets: RunTriage / RunWorklist + the
// OpenAI-compatible client + the scripted model server on 127.0.0.1, over a
// hand-made record with active warfarin and INR 2.3 (seed 001's example).
// Native tool calling and the text protocol each run a three-step
// investigation; the worklist runs several cases concurrently against one
// server (script "select": "by_turn"). Every test runs twice (issue 28): the
// record from a bundle, and the same record served by the loopback FHIR
// fixture server and read over REST; a last test compares the two results.
#include <filesystem>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "apps/triage/triage_app.h"
#include "apps/triage/triage_prompts.h"
#include "apps/triage/worklist.h"
#include "medreact/openai.h"
#include "medreact/text_protocol.h"
#include "mockllm/mock_server.h"
#include "testing/fhir_builders.h"
#include "testing/record_via.h"
#include "testing/subprocess.h"

namespace medreact {
namespace {

using mockllm::MockLlmServer;
using ::testing::HasSubstr;

const char kFindings[] = "Filling defect in right pulmonary artery consistent with acute pulmonary embolism";

Json Call(const std::string& id, const std::string& name, const Json& args) {
  return {{"id", id}, {"name", name}, {"arguments", DumpJson(args)}};
}

Json Turn(Json call) { return {{"message", {{"content", nullptr}, {"tool_calls", Json::array({std::move(call)})}}}}; }

Json Text(const std::string& text) { return {{"message", {{"content", text}}}}; }

// The seed's investigation, natively: manifest → anticoagulants → coag labs → submit.
Json NativeScript() {
  return {{"responses",
           {Turn(Call("call_1", "get_patient_manifest", Json::object())),
            Turn(Call("call_2", "check_medication_status", {{"medication_name", "anticoag"}})),
            Turn(Call("call_3", "get_recent_labs", {{"category", "Coag"}})),
            Turn(Call("call_4", "submit_assessment",
                      {{"final_assessment", "Acute PE despite therapeutic anticoagulation (INR 2.3)."},
                       {"risk_adjustment", "INCREASE"},
                       {"critical_findings", {"Anticoagulation failure", "PE on therapeutic warfarin"}}}))}}};
}

// The same through the text protocol, as a small model writes it: prose,
// a fenced call, a Python-style literal and a decorated final block.
Json TextScript() {
  return {{"responses",
           {Text("THOUGHT: I see an acute PE. Need to check anticoagulation status.\n"
                 "TOOL_CALL: {\"tool\": \"get_patient_manifest\", \"arguments\": {}}"),
            Text("THOUGHT: Patient has medications.\nTOOL_CALL:\n```json\n{\"tool\": \"check_medication_status\", "
                 "\"arguments\": {\"medication_name\": \"anticoag\"}}\n```"),
            Text("THOUGHT: Active warfarin. Checking INR.\nTOOL_CALL: {'tool': 'get_recent_labs', "
                 "'arguments': {'category': 'Coag'}}"),
            Text("THOUGHT: Therapeutic INR but developed PE = anticoagulation failure.\n"
                 "FINAL_ASSESSMENT: Acute PE despite therapeutic anticoagulation (INR 2.3).\n"
                 "RISK_ADJUSTMENT: **INCREASE**\n"
                 "CRITICAL_FINDINGS: [\"Anticoagulation failure\", \"PE on therapeutic warfarin\",]")}}};
}

class TriageE2ETest : public ::testing::TestWithParam<testing::RecordVia> {
 protected:
  std::shared_ptr<const FhirStore> PeStore() { return record_.Store(testing::PeOnWarfarinBundle(), "2025-06-13"); }

  testing::RecordServer record_{GetParam()};
};

std::shared_ptr<ChatModel> Client(const MockLlmServer& server, bool text) {
  OpenAIOptions options;
  options.base_url = server.base_url();
  options.model = "mock";
  options.max_retries = 0;
  std::unique_ptr<ChatModel> model = MakeOpenAIModel(options);
  if (text) return MakeTextProtocolModel(std::move(model));
  return model;
}

void ExpectAnticoagulationFailure(const TriageOutcome& out) {
  ASSERT_EQ(out.status, RunStatus::kFinished) << DumpJson(out.result, 2);
  EXPECT_FALSE(out.fell_back);
  EXPECT_EQ(out.result["planner"], "model");
  EXPECT_EQ(out.result["base_priority"], 2);
  EXPECT_EQ(out.result["priority_level"], 1);
  const auto& reasoning = out.result["agent_reasoning"];
  EXPECT_EQ(reasoning["risk_adjustment"], "INCREASE");
  EXPECT_EQ(reasoning["critical_findings"],
            OrderedJson({"Anticoagulation failure", "PE on therapeutic warfarin"}));
  EXPECT_EQ(reasoning["final_assessment"], "Acute PE despite therapeutic anticoagulation (INR 2.3).");
  EXPECT_EQ(reasoning["iterations"], 4);
  EXPECT_EQ(reasoning["errors"], nullptr);
}

TEST_P(TriageE2ETest, NativeToolCallingThreeStepInvestigation) {
  MockLlmServer server(*MockLlmServer::ParseScript(NativeScript()));
  ASSERT_TRUE(server.Start().ok());
  TriageConfig config;
  config.model = Client(server, /*text=*/false);
  TriageOutcome out = RunTriage(PeStore(), {.findings = kFindings, .base_priority = 2}, config);
  ExpectAnticoagulationFailure(out);
  EXPECT_EQ(out.result["agent_reasoning"]["tools_used"],
            OrderedJson({"get_patient_manifest", "check_medication_status", "get_recent_labs", "submit_assessment"}));

  std::vector<Json> requests = server.requests();
  ASSERT_EQ(requests.size(), 4u);
  const Json& first = requests[0]["body"];
  EXPECT_EQ(first["temperature"], 0.0);
  EXPECT_EQ(first["messages"][1]["content"], kFindings);  // the task is the findings alone
  std::vector<std::string> tools;
  for (const Json& t : first["tools"]) tools.push_back(t["function"]["name"]);
  EXPECT_THAT(tools, ::testing::Contains("submit_assessment"));
  EXPECT_THAT(tools, ::testing::Contains("get_recent_labs"));
  // The medication result went back as a tool message answering call_2 ...
  const Json& third = requests[2]["body"]["messages"];
  EXPECT_EQ(third.back()["role"], "tool");
  EXPECT_EQ(third.back()["tool_call_id"], "call_2");
  EXPECT_THAT(third.back()["content"].get<std::string>(), HasSubstr("Warfarin"));
  // ... and the INR to the last call.
  const Json& fourth = requests[3]["body"]["messages"];
  EXPECT_EQ(fourth.back()["tool_call_id"], "call_3");
  EXPECT_THAT(fourth.back()["content"].get<std::string>(), HasSubstr("2.3"));
}

TEST_P(TriageE2ETest, TextProtocolThreeStepInvestigation) {
  MockLlmServer server(*MockLlmServer::ParseScript(TextScript()));
  ASSERT_TRUE(server.Start().ok());
  TriageConfig config;
  config.model = Client(server, /*text=*/true);
  TriageOutcome out = RunTriage(PeStore(), {.findings = kFindings, .base_priority = 2}, config);
  ExpectAnticoagulationFailure(out);
  // The final block came back as a call of submit_assessment, as a native model's would.
  EXPECT_EQ(out.result["agent_reasoning"]["tools_used"],
            OrderedJson({"get_patient_manifest", "check_medication_status", "get_recent_labs", "submit_assessment"}));

  std::vector<Json> requests = server.requests();
  ASSERT_EQ(requests.size(), 4u);
  const Json& first = requests[0]["body"];
  EXPECT_FALSE(first.contains("tools"));  // the catalogue is in the prompt
  const std::string system = first["messages"][0]["content"];
  EXPECT_THAT(system, HasSubstr("### check_medication_status"));
  EXPECT_THAT(system, HasSubstr("RISK_ADJUSTMENT: <INCREASE, DECREASE or NONE>"));
  EXPECT_THAT(system, HasSubstr("CRITICAL_FINDINGS: [\"Anticoagulation failure\""));  // the one-shot example
  EXPECT_THAT(system, ::testing::Not(HasSubstr("submit_assessment")));
  // Observations come back as user turns.
  const Json& last = requests[3]["body"]["messages"];
  EXPECT_EQ(last.back()["role"], "user");
  EXPECT_THAT(last.back()["content"].get<std::string>(), HasSubstr("OBSERVATION"));
  EXPECT_THAT(last.back()["content"].get<std::string>(), HasSubstr("2.3"));
}

TEST_P(TriageE2ETest, ServerThatRefusesEveryCallFallsBackToRules) {
  Json script = {{"responses", {{{"status", 503}, {"body", "{\"error\": {\"message\": \"overloaded\"}}"}}}},
                 {"on_exhausted", "repeat_last"}};
  MockLlmServer server(*MockLlmServer::ParseScript(script));
  ASSERT_TRUE(server.Start().ok());
  TriageConfig config;
  config.model = Client(server, /*text=*/false);
  TriageOutcome out = RunTriage(PeStore(), {.findings = kFindings, .base_priority = 2}, config);
  EXPECT_TRUE(out.fell_back);
  EXPECT_THAT(out.model_failure, HasSubstr("503"));
  EXPECT_EQ(out.result["planner"], "rules (fallback)");
  EXPECT_EQ(out.result["priority_level"], 1);
}

TEST_P(TriageE2ETest, WorklistRunsCasesConcurrentlyAgainstOneServer) {
  Json script = NativeScript();
  script["select"] = "by_turn";  // each conversation gets its own next turn, whatever the interleaving
  for (Json& entry : script["responses"]) entry["delay_ms"] = 20;
  MockLlmServer server(*MockLlmServer::ParseScript(script));
  ASSERT_TRUE(server.Start().ok());

  testing::TempDir dir;
  const std::string bundle = DumpJson(testing::PeOnWarfarinBundle());
  constexpr int kCases = 6;
  for (int i = 0; i < kCases; ++i) {
    const std::string name = "case-" + std::to_string(i);
    std::filesystem::create_directories(dir.File(name));
    dir.Write(name + "/findings.txt", kFindings);
    if (GetParam() == testing::RecordVia::kFile) {
      dir.Write(name + "/fhir.json", bundle);
      dir.Write(name + "/case.json", R"({"base_priority": 2, "as_of": "2025-06-13"})");
    } else {
      const std::vector<std::string> args = record_.Args(testing::PeOnWarfarinBundle(), dir, name + "/unused.json");
      dir.Write(name + "/case.json", DumpJson(Json{{"base_priority", 2}, {"as_of", "2025-06-13"},
                                                   {"fhir_url", args[1]}, {"patient", args[3]}}));
    }
  }
  WorklistOptions options;
  options.concurrency = 3;
  options.make_model = [&server]() -> Result<std::shared_ptr<ChatModel>> { return Client(server, false); };
  WorklistReport report = RunWorklist(dir.path(), *ListWorklistCases(dir.path()), options);
  EXPECT_EQ(report.failed, 0u);
  EXPECT_EQ(report.not_finished, 0u);
  ASSERT_EQ(report.cases.size(), static_cast<size_t>(kCases));
  for (const WorklistCaseResult& c : report.cases) {
    SCOPED_TRACE(c.name);
    EXPECT_EQ(c.result["priority_level"], 1);
    EXPECT_EQ(c.result["agent_reasoning"]["iterations"], 4);
    EXPECT_FALSE(c.fell_back);
  }
  EXPECT_EQ(server.requests().size(), static_cast<size_t>(4 * kCases));
}

INSTANTIATE_TEST_SUITE_P(Record, TriageE2ETest, testing::kRecordVias, testing::RecordViaName);

// The same triage on the record from the file and over REST: the same result,
// apart from where the record came from.
TEST(TriageE2ERecordTest, FileAndRestGiveTheSameResult) {
  std::vector<Json> results;
  for (testing::RecordVia via : {testing::RecordVia::kFile, testing::RecordVia::kRest}) {
    MockLlmServer server(*MockLlmServer::ParseScript(NativeScript()));
    ASSERT_TRUE(server.Start().ok());
    testing::RecordServer record(via);
    TriageConfig config;
    config.model = Client(server, /*text=*/false);
    TriageOutcome out = RunTriage(record.Store(testing::PeOnWarfarinBundle(), "2025-06-13"),
                                  {.findings = kFindings, .base_priority = 2}, config);
    ASSERT_EQ(out.status, RunStatus::kFinished);
    Json result = ParseJson(DumpJson(out.result)).value();
    EXPECT_TRUE(result["record"].contains("source"));
    result["record"].erase("source");
    for (const char* timing : {"elapsed_ms", "duration_ms", "timestamp", "run_id"}) result.erase(timing);
    result["agent_reasoning"].erase("elapsed_ms");
    // The tool results the model read, in order.
    Json tool_messages = Json::array();
    for (const Json& req : server.requests()) tool_messages.push_back(req["body"]["messages"].back());
    result["model_saw"] = tool_messages;
    results.push_back(result);
  }
  ASSERT_EQ(results.size(), 2u);
  EXPECT_EQ(results[0], results[1]) << DumpJson(results[0], 2) << "\n---\n" << DumpJson(results[1], 2);
  // The file run's record source was the bundle; the other named the server.
}

}  // namespace
}  // namespace medreact

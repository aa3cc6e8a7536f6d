// Tests for the triage app: prompts, the normalised assessment (finishing
// tool, text-protocol markers, prose), RunTriage with a scripted model
// (native submit_assessment, rules fallback when the model never answers,
// --no-agent, limits) and the worklist (case loading, broken cases, order,
// files, table).
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "apps/triage/triage_app.h"
#include "apps/triage/triage_prompts.h"
#include "medreact/text_protocol.h"
#include "apps/triage/worklist.h"
#include "testing/fake_model.h"
#include "testing/fhir_builders.h"
#include "testing/record_via.h"
#include "testing/subprocess.h"

namespace medreact {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::StartsWith;

const char kPeFindings[] = "Filling defect in right pulmonary artery consistent with acute pulmonary embolism";

// RunTriage's tests run twice (issue 28): the record from a bundle, and the
// same record served by the loopback FHIR fixture and read over REST.
class RunTriageTest : public ::testing::TestWithParam<testing::RecordVia> {
 protected:
  std::shared_ptr<const FhirStore> Store(const Json& bundle) { return record_.Store(bundle, "2025-06-13"); }
  testing::RecordServer record_{GetParam()};
};
INSTANTIATE_TEST_SUITE_P(Record, RunTriageTest, testing::kRecordVias, testing::RecordViaName);

std::vector<std::string> KeysInOrder(const OrderedJson& object) {
  std::vector<std::string> keys;
  for (auto it = object.begin(); it != object.end(); ++it) keys.push_back(it.key());
  return keys;
}

// --- prompts and normalisation -------------------------------------------------

TEST(TriagePromptsTest, NativePromptListsToolsAndTeachesSubmitAssessment) {
  std::vector<ToolSpec> tools = {{"get_patient_manifest", "Overview of the record.", Json::object()},
                                 {"get_recent_labs", "Recent labs by category.", Json::object()}};
  const std::string native = TriageSystemPrompt(ToolCalling::kNative, tools);
  EXPECT_THAT(native, HasSubstr("- get_patient_manifest: Overview of the record."));
  EXPECT_THAT(native, HasSubstr("- get_recent_labs: Recent labs by category."));
  EXPECT_THAT(native, HasSubstr("call submit_assessment"));
  EXPECT_THAT(native, HasSubstr("INR 2.3"));  // the one-shot PE example
  const std::string text = TriageSystemPrompt(ToolCalling::kTextProtocol, tools);
  EXPECT_THAT(text, Not(HasSubstr("- get_patient_manifest:")));  // the adapter adds the catalogue
  EXPECT_THAT(text, HasSubstr("RISK_ADJUSTMENT: INCREASE"));
  EXPECT_THAT(text, HasSubstr("TOOL_CALL: {\"tool\": \"check_medication_status\""));
}

ToolSpec SubmitAssessmentSpec() {
  ToolRegistry registry;
  EXPECT_TRUE(RegisterSubmitAssessment(registry).ok());
  return registry.Specs().front();
}

TEST(TriagePromptsTest, TextProtocolTeachesTheFinalBlockFromTheFinishingTool) {
  const ToolSpec submit = SubmitAssessmentSpec();
  const TextProtocolOptions options = FinalBlockOptions(submit);
  const std::string instructions = RenderTextProtocolInstructions({}, options);
  EXPECT_THAT(instructions, HasSubstr("FINAL_ASSESSMENT: <your answer>"));
  EXPECT_THAT(instructions, HasSubstr("RISK_ADJUSTMENT: <INCREASE, DECREASE or NONE>"));
  EXPECT_THAT(instructions, HasSubstr("CRITICAL_FINDINGS: <a JSON list of short phrases, [] when none>"));
  // The planner's optional arguments are read, not taught.
  EXPECT_THAT(instructions, Not(HasSubstr("RULES_MATCHED")));
  EXPECT_THAT(instructions, Not(HasSubstr("SOURCES:")));
  TextReply reply = ParseTextReply(
      "THOUGHT: done\nFINAL_ASSESSMENT: PE despite warfarin.\nRISK_ADJUSTMENT: INCREASE\n"
      "CRITICAL_FINDINGS: [\"Anticoagulation failure\"]",
      options);
  ASSERT_TRUE(reply.is_final) << reply.error;
  const Json args = FinalBlockArguments(reply, submit, options);
  EXPECT_EQ(args, Json({{"final_assessment", "PE despite warfarin."},
                        {"risk_adjustment", "INCREASE"},
                        {"critical_findings", {"Anticoagulation failure"}}}));
  ToolRegistry registry;
  ASSERT_TRUE(RegisterSubmitAssessment(registry).ok());
  EXPECT_TRUE(registry.ValidateArguments(kSubmitAssessmentTool, DumpJson(args)).ok());
}

// The shapes small models write, read by the one reader every protocol uses
// (what NormalizeAssessment used to accept after the fact).
TEST(TriagePromptsTest, TheFinalBlockReaderTakesEveryShapeSmallModelsWrite) {
  const ToolSpec submit = SubmitAssessmentSpec();
  ToolRegistry registry;
  ASSERT_TRUE(RegisterSubmitAssessment(registry).ok());
  auto valid = [&](const Json& args) { return registry.ValidateArguments(kSubmitAssessmentTool, DumpJson(args)).ok(); };
  // Decorated enum words; a list as Python text.
  Json a = ReadFinalBlock("FINAL_ASSESSMENT: B\nRISK_ADJUSTMENT: **decrease** (+1)\nCRITICAL_FINDINGS: ['a', 'b']", submit);
  EXPECT_EQ(a["risk_adjustment"], "DECREASE");
  EXPECT_EQ(a["critical_findings"], Json({"a", "b"}));
  EXPECT_EQ(a["final_assessment"], "B");
  EXPECT_TRUE(valid(a));
  for (const char* word : {"`NONE`.", "\"increase\"", "Increase - anticoagulation failure"}) {
    a = ReadFinalBlock(std::string("FINAL_ASSESSMENT: x\nRISK_ADJUSTMENT: ") + word + "\nCRITICAL_FINDINGS: []", submit);
    EXPECT_TRUE(a["risk_adjustment"] == "NONE" || a["risk_adjustment"] == "INCREASE") << word << " → " << a;
    EXPECT_TRUE(valid(a)) << word;
  }
  // One plain-text finding is a one-item list; "None" an empty one.
  a = ReadFinalBlock("FINAL_ASSESSMENT: x\nRISK_ADJUSTMENT: NONE\nCRITICAL_FINDINGS: Rate-control failure", submit);
  EXPECT_EQ(a["critical_findings"], Json({"Rate-control failure"}));
  a = ReadFinalBlock("FINAL_ASSESSMENT: x\nRISK_ADJUSTMENT: NONE\nCRITICAL_FINDINGS: None", submit);
  EXPECT_EQ(a["critical_findings"], Json::array());
  // FINAL_ANSWER is read as the assessment too; markdown decoration is tolerated.
  a = ReadFinalBlock("**FINAL ANSWER:** Stroke on aspirin.\n**RISK_ADJUSTMENT:** INCREASE\nCRITICAL_FINDINGS: "
                     "[\"Antiplatelet failure\"]", submit);
  EXPECT_EQ(a["final_assessment"], "Stroke on aspirin.");
  EXPECT_EQ(a["risk_adjustment"], "INCREASE");
  EXPECT_TRUE(valid(a));
  // Prose without a block fills the assessment only: validation names what is missing.
  a = ReadFinalBlock("I am not sure.", submit);
  EXPECT_EQ(a, Json({{"final_assessment", "I am not sure."}}));
  Result<Json> missing = registry.ValidateArguments(kSubmitAssessmentTool, DumpJson(a));
  ASSERT_FALSE(missing.ok());
  EXPECT_THAT(missing.status().message(), HasSubstr("risk_adjustment"));
  // A word that is none of the three is kept as written, for validation to refuse.
  a = ReadFinalBlock("FINAL_ASSESSMENT: x\nRISK_ADJUSTMENT: maybe\nCRITICAL_FINDINGS: []", submit);
  EXPECT_EQ(a["risk_adjustment"], "maybe");
  EXPECT_FALSE(valid(a));
  // The planner's optional arguments are read when written.
  a = ReadFinalBlock("FINAL_ASSESSMENT: x\nRISK_ADJUSTMENT: NONE\nCRITICAL_FINDINGS: []\nRULE: vte_anticoagulation", submit);
  EXPECT_EQ(a["rule"], "vte_anticoagulation");
  EXPECT_TRUE(valid(a));
}

// --- RunTriage -------------------------------------------------------------------

TEST_P(RunTriageTest, NativeModelInvestigatesAndSubmits) {
  auto model = std::make_shared<testing::FakeModel>();
  model->PushCalls({{"get_patient_manifest", "{}"}});
  model->PushCalls({{"check_medication_status", R"({"medication_name": "anticoag"})"}});
  model->PushCalls({{"get_recent_labs", R"({"category": "Coag"})"}});
  model->PushCalls({{"submit_assessment", R"({"final_assessment": "Acute PE despite therapeutic warfarin (INR 2.3).",
                      "risk_adjustment": "INCREASE", "critical_findings": ["Anticoagulation failure"]})"}});
  TriageConfig config;
  config.model = model;
  TriageOutcome out = RunTriage(Store(testing::PeOnWarfarinBundle()), {.findings = kPeFindings, .base_priority = 2},
                                config);
  ASSERT_EQ(out.status, RunStatus::kFinished);
  EXPECT_FALSE(out.fell_back);
  EXPECT_THAT(KeysInOrder(out.result),
              ElementsAre("patient_id", "priority_level", "base_priority", "rationale", "visual_findings",
                          "findings_summary", "agent_reasoning", "needs_review", "review_reasons", "planner",
                          "record"));
  EXPECT_EQ(out.result["needs_review"], false);
  EXPECT_THAT(KeysInOrder(out.result["agent_reasoning"]),
              ElementsAre("iterations", "tools_used", "critical_findings", "risk_adjustment", "final_assessment",
                          "errors"));
  EXPECT_EQ(out.result["patient_id"], "pat");
  EXPECT_EQ(out.result["base_priority"], 2);
  EXPECT_EQ(out.result["priority_level"], 1);
  EXPECT_EQ(out.result["planner"], "model");
  EXPECT_EQ(out.result["record"]["as_of"], "2025-06-13");
  const auto& reasoning = out.result["agent_reasoning"];
  EXPECT_EQ(reasoning["iterations"], 4);
  EXPECT_EQ(reasoning["tools_used"], OrderedJson({"get_patient_manifest", "check_medication_status",
                                                  "get_recent_labs", "submit_assessment"}));
  EXPECT_EQ(reasoning["final_assessment"], "Acute PE despite therapeutic warfarin (INR 2.3).");
  EXPECT_EQ(reasoning["critical_findings"], OrderedJson({"Anticoagulation failure"}));
  EXPECT_EQ(reasoning["errors"], nullptr);

  // What the model was given: the findings alone as the task, the triage
  // system prompt, the fhir tools plus submit_assessment, temperature 0.
  std::vector<ModelRequest> requests = model->requests();
  ASSERT_EQ(requests.size(), 4u);
  ASSERT_GE(requests[0].messages.size(), 2u);
  EXPECT_THAT(requests[0].messages[0].content, HasSubstr("silent treatment failures"));
  EXPECT_EQ(requests[0].messages[1].content, kPeFindings);
  std::vector<std::string> tool_names;
  for (const ToolSpec& t : requests[0].tools) tool_names.push_back(t.name);
  EXPECT_THAT(tool_names, ::testing::Contains("submit_assessment"));
  EXPECT_THAT(tool_names, ::testing::Contains("check_medication_status"));
  EXPECT_EQ(requests[0].temperature, 0.0);
  EXPECT_THAT(model->history_errors(), ::testing::IsEmpty());
  // The INR result reached the model.
  EXPECT_THAT(requests[3].messages.back().content, HasSubstr("2.3"));
}

TEST_P(RunTriageTest, UnreachableModelFallsBackToTheRulesPlanner) {
  auto model = std::make_shared<testing::FakeModel>();
  model->SetDefault([](const ModelRequest&, const ModelCallContext&) -> Result<ModelResponse> {
    return Status::Unavailable("connection refused (127.0.0.1:9)");
  });
  TriageConfig config;
  config.model = model;
  TriageOutcome out = RunTriage(Store(testing::PeOnWarfarinBundle()), {.findings = kPeFindings, .base_priority = 2},
                                config);
  EXPECT_TRUE(out.fell_back);
  EXPECT_THAT(out.model_failure, HasSubstr("connection refused"));
  ASSERT_TRUE(out.model_trace.has_value());
  EXPECT_EQ(out.status, RunStatus::kFinished);
  EXPECT_EQ(out.result["planner"], "rules (fallback)");
  EXPECT_EQ(out.result["priority_level"], 1);  // the rules planner found the anticoagulation failure
  EXPECT_EQ(out.result["agent_reasoning"]["risk_adjustment"], "INCREASE");
  ASSERT_TRUE(out.result["agent_reasoning"]["errors"].is_array());
  EXPECT_THAT(out.result["agent_reasoning"]["errors"][0].get<std::string>(),
              StartsWith("the model never answered, the rules planner decided instead"));

  // Without the fallback the failure stands, with no adjustment.
  config.fallback_to_rules = false;
  out = RunTriage(Store(testing::PeOnWarfarinBundle()), {.findings = kPeFindings, .base_priority = 2}, config);
  EXPECT_FALSE(out.fell_back);
  EXPECT_EQ(out.status, RunStatus::kError);
  EXPECT_EQ(out.result["planner"], "model");
  EXPECT_EQ(out.result["priority_level"], 2);
  EXPECT_EQ(out.result["agent_reasoning"]["risk_adjustment"], "NONE");
}

TEST_P(RunTriageTest, AModelThatAnsweredOnceIsNotReplaced) {
  // One good turn, then failures: the model did answer, so its run stands.
  auto model = std::make_shared<testing::FakeModel>();
  model->PushCalls({{"get_patient_manifest", "{}"}});
  model->SetDefault([](const ModelRequest&, const ModelCallContext&) -> Result<ModelResponse> {
    return Status::Unavailable("server went away");
  });
  TriageConfig config;
  config.model = model;
  TriageOutcome out = RunTriage(Store(testing::PeOnWarfarinBundle()), {.findings = kPeFindings}, config);
  EXPECT_FALSE(out.fell_back);
  EXPECT_EQ(out.status, RunStatus::kError);
  EXPECT_EQ(out.result["planner"], "model");
  EXPECT_EQ(out.result["agent_reasoning"]["risk_adjustment"], "NONE");
  EXPECT_FALSE(out.result["agent_reasoning"]["errors"].is_null());
}

TEST_P(RunTriageTest, NoAgentIsTheStaticBaseline) {
  auto model = std::make_shared<testing::FakeModel>();
  TriageConfig config;
  config.model = model;
  config.agent = false;
  TriageOutcome out = RunTriage(Store(testing::PeOnWarfarinBundle()), {.findings = kPeFindings}, config);
  EXPECT_FALSE(out.agent_ran);
  EXPECT_FALSE(out.trace.has_value());
  EXPECT_TRUE(model->requests().empty());
  EXPECT_EQ(out.result["planner"], "none");
  EXPECT_EQ(out.result["base_priority"], 1);  // "pulmonary embolism" by keyword
  EXPECT_EQ(out.result["priority_level"], 1);
  EXPECT_EQ(out.result["agent_reasoning"]["iterations"], 0);
}

TEST_P(RunTriageTest, ALimitKeepsTheBasePriorityAndSaysWhy) {
  auto model = std::make_shared<testing::FakeModel>();
  int n = 0;
  model->SetDefault([&n](const ModelRequest& request, const ModelCallContext&) -> Result<ModelResponse> {
    ModelResponse r;
    // Different labs each turn: never a loop, never an answer.
    r.message = Message::Assistant("", {{"c" + std::to_string(++n), "get_recent_labs",
                                         n % 2 ? R"({"category": "Coag"})" : R"({"category": "Renal"})"}});
    if (request.tools.empty()) r.message = Message::Assistant("Not enough information.");  // fallback synthesis
    return r;
  });
  TriageConfig config;
  config.model = model;
  config.max_steps = 3;
  TriageOutcome out = RunTriage(Store(testing::PeOnWarfarinBundle()), {.findings = kPeFindings, .base_priority = 2},
                                config);
  EXPECT_EQ(out.status, RunStatus::kMaxSteps);
  EXPECT_FALSE(out.fell_back);
  EXPECT_EQ(out.result["priority_level"], 2);
  EXPECT_EQ(out.result["agent_reasoning"]["final_assessment"], "Not enough information.");
  EXPECT_THAT(out.result["agent_reasoning"]["errors"][0].get<std::string>(), HasSubstr("3"));
}

// --- worklist -----------------------------------------------------------------------

void WriteCase(const testing::TempDir& dir, const std::string& name, const std::string& fhir,
               const std::string& findings, const std::string& case_json = "") {
  std::filesystem::create_directories(dir.File(name));
  if (!fhir.empty()) dir.Write(name + "/fhir.json", fhir);
  if (!findings.empty()) dir.Write(name + "/findings.txt", findings);
  if (!case_json.empty()) dir.Write(name + "/case.json", case_json);
}

TEST(WorklistTest, ListingNeedsADirectoryWithCaseFolders) {
  EXPECT_EQ(ListWorklistCases("/nonexistent/worklist").status().code(), StatusCode::kNotFound);
  testing::TempDir empty;
  Result<std::vector<std::string>> none = ListWorklistCases(empty.path());
  ASSERT_FALSE(none.ok());
  EXPECT_THAT(none.status().message(), HasSubstr("no case folders"));
  testing::TempDir dir;
  WriteCase(dir, "b", "{}", "x");
  WriteCase(dir, "a", "{}", "x");
  WriteCase(dir, "out", "", "");
  dir.Write("notes.txt", "not a case");
  EXPECT_THAT(*ListWorklistCases(dir.path()), ElementsAre("a", "b", "out"));
  EXPECT_THAT(*ListWorklistCases(dir.path(), dir.File("out")), ElementsAre("a", "b"));
}

TEST(WorklistTest, BrokenCasesAreReportedAndNeverStopTheOthers) {
  testing::TempDir dir;
  const std::string pe = DumpJson(testing::PeOnWarfarinBundle());
  const std::string plain = DumpJson(testing::PatientBundle({}));
  WriteCase(dir, "pe-on-warfarin", pe, std::string(kPeFindings) + "\n", R"({"base_priority": 2, "as_of": "2025-06-13"})");
  WriteCase(dir, "routine", plain, "Mild degenerative changes of the lumbar spine.");
  WriteCase(dir, "pe-keyword", plain, "Acute pulmonary embolism.");
  WriteCase(dir, "corrupt", R"({"resourceType": "Bundle", "entry": [)", "Stroke.");
  WriteCase(dir, "no-findings", plain, "");
  WriteCase(dir, "blank-findings", plain, "  \n");
  WriteCase(dir, "no-record", "", "Stroke.");
  WriteCase(dir, "typo", plain, "Stroke.", R"({"base_prority": 2})");
  WriteCase(dir, "bad-priority", plain, "Stroke.", R"({"base_priority": 5})");
  WriteCase(dir, "bad-date", plain, "Stroke.", R"({"as_of": "yesterday"})");

  testing::TempDir out;
  WorklistOptions options;
  options.concurrency = 3;
  options.out_dir = out.File("results");
  std::vector<std::string> seen;
  options.on_case_done = [&seen](const WorklistCaseResult& c, size_t done, size_t total) {
    EXPECT_EQ(total, 10u);
    EXPECT_EQ(done, seen.size() + 1);
    seen.push_back(c.name);
  };
  Result<std::vector<std::string>> cases = ListWorklistCases(dir.path());
  ASSERT_TRUE(cases.ok());
  WorklistReport report = RunWorklist(dir.path(), *cases, options);
  EXPECT_EQ(seen.size(), 10u);
  EXPECT_EQ(report.planner, "rules");
  EXPECT_EQ(report.failed, 7u);
  EXPECT_EQ(report.not_finished, 0u);
  EXPECT_EQ(report.write_error, "");
  ASSERT_EQ(report.cases.size(), 10u);
  // Triaged first, by final priority then adjustment; failed ones after, by name.
  std::vector<std::string> order;
  for (const auto& c : report.cases) order.push_back(c.name);
  EXPECT_THAT(order, ElementsAre("pe-on-warfarin", "pe-keyword", "routine", "bad-date", "bad-priority",
                                 "blank-findings", "corrupt", "no-findings", "no-record", "typo"));
  EXPECT_EQ(report.cases[0].result["priority_level"], 1);
  EXPECT_EQ(report.cases[0].result["base_priority"], 2);
  EXPECT_EQ(report.cases[0].result["agent_reasoning"]["risk_adjustment"], "INCREASE");
  EXPECT_EQ(report.cases[1].result["priority_level"], 1);
  EXPECT_EQ(report.cases[1].result["agent_reasoning"]["risk_adjustment"], "NONE");
  EXPECT_EQ(report.cases[2].result["priority_level"], 3);
  auto error_of = [&report](const std::string& name) {
    for (const auto& c : report.cases) {
      if (c.name == name) return c.error;
    }
    return std::string("(missing)");
  };
  EXPECT_THAT(error_of("corrupt"), HasSubstr("corrupt/fhir.json"));
  EXPECT_THAT(error_of("no-findings"), HasSubstr("no findings.txt"));
  EXPECT_THAT(error_of("blank-findings"), HasSubstr("is empty"));
  EXPECT_THAT(error_of("no-record"), HasSubstr("no fhir.json"));
  EXPECT_THAT(error_of("typo"), HasSubstr("unknown key 'base_prority'"));
  EXPECT_THAT(error_of("bad-priority"), HasSubstr("base_priority must be 1, 2 or 3"));
  EXPECT_THAT(error_of("bad-date"), HasSubstr("as_of"));

  // Files: one result and one trace per triaged case, and the sorted worklist.
  EXPECT_TRUE(std::filesystem::exists(out.File("results/pe-on-warfarin.json")));
  EXPECT_TRUE(std::filesystem::exists(out.File("results/pe-on-warfarin.trace.json")));
  EXPECT_FALSE(std::filesystem::exists(out.File("results/corrupt.json")));
  Result<Json> written = ParseJson(testing::ReadFileOrEmpty(out.File("results/worklist.json")));
  ASSERT_TRUE(written.ok());
  EXPECT_EQ((*written)["counts"]["cases"], 10);
  EXPECT_EQ((*written)["counts"]["failed"], 7);
  EXPECT_EQ((*written)["counts"]["by_priority"]["CRITICAL"], 2);
  EXPECT_EQ((*written)["cases"][0]["case"], "pe-on-warfarin");
  EXPECT_EQ((*written)["cases"][0]["result"]["priority_level"], 1);
  EXPECT_EQ((*written)["failed"].size(), 7u);
  Result<Json> one = ParseJson(testing::ReadFileOrEmpty(out.File("results/pe-on-warfarin.json")));
  ASSERT_TRUE(one.ok());
  EXPECT_EQ((*one)["agent_reasoning"]["tools_used"][0], "get_patient_manifest");

  const std::string table = RenderWorklistTable(report);
  EXPECT_THAT(table, HasSubstr("2 HIGH RISK → 1 CRITICAL"));
  EXPECT_THAT(table, HasSubstr("Anticoagulation failure"));
  EXPECT_THAT(table, HasSubstr("Failed cases (7):"));
  EXPECT_THAT(table, HasSubstr("  typo: "));
}

TEST(WorklistTest, AModelFactoryErrorFailsCasesWithTheReason) {
  testing::TempDir dir;
  WriteCase(dir, "a", DumpJson(testing::PatientBundle({})), "Acute pulmonary embolism.");
  WorklistOptions options;
  options.make_model = []() -> Result<std::shared_ptr<ChatModel>> { return Status::InvalidArgument("bad model"); };
  WorklistReport report = RunWorklist(dir.path(), {"a"}, options);
  ASSERT_EQ(report.cases.size(), 1u);
  EXPECT_FALSE(report.cases[0].ok);
  EXPECT_EQ(report.cases[0].error, "model: bad model");
  EXPECT_EQ(report.planner, "model");
}

}  // namespace
}  // namespace medreact

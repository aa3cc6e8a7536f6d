// The safety floor on a model's triage decision (issue 24, item 6), end to
// end: RunTriage / RunWorklist + the OpenAI-compatible client + the scripted
// model server on 127.0.0.1. A model that lowers an acute PE with no tool
// evidence is held at the findings reader's level and flagged for a person;
// with a tool result showing the PE on record before, the decrease stands;
// critical findings naming what no tool returned are flagged; the flag shows
// in the worklist's JSON and table. Every test runs twice (issue 28): the
// record from a bundle, and served by the loopback FHIR fixture server and
// read over REST.
#include <filesystem>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "apps/triage/triage_app.h"
#include "apps/triage/worklist.h"
#include "medreact/openai.h"
#include "mockllm/mock_server.h"
#include "testing/fhir_builders.h"
#include "testing/record_via.h"
#include "testing/subprocess.h"

namespace medreact {
namespace {

using mockllm::MockLlmServer;
using ::testing::HasSubstr;
using ::testing::Not;

const char kAcutePe[] = "CT pulmonary angiogram: acute filling defects in the right lower lobe segmental arteries.";

Json Call(const std::string& id, const std::string& name, const Json& args) {
  return {{"id", id}, {"name", name}, {"arguments", DumpJson(args)}};
}

Json Turn(Json call) { return {{"message", {{"content", nullptr}, {"tool_calls", Json::array({std::move(call)})}}}}; }

Json Submit(const std::string& id, const std::string& adjustment, const Json& critical) {
  return Turn(Call(id, "submit_assessment",
                   {{"final_assessment", "Assessment by the scripted model."},
                    {"risk_adjustment", adjustment},
                    {"critical_findings", critical}}));
}

// Warfarin with a therapeutic INR; with `known_pe`, a pulmonary embolism
// recorded a month before and an earlier CTPA that reported it.
Json Record(bool known_pe) {
  std::vector<Json> resources = {testing::MedicationRequest("w", "Warfarin 5mg", "active"),
                                 testing::Observation("inr", "6301-6", "INR", 2.3, "{INR}", "2025-06-10")};
  if (known_pe) {
    resources.push_back({{"resourceType", "Condition"},
                         {"id", "c1"},
                         {"clinicalStatus", {{"coding", Json::array({{{"code", "active"}}})}}},
                         {"code", {{"text", "Pulmonary embolism, right lower lobe"}}},
                         {"subject", {{"reference", "urn:uuid:pat"}}},
                         {"onsetDateTime", "2025-05-12"}});
  }
  return testing::PatientBundle(std::move(resources));
}


std::shared_ptr<ChatModel> Client(const MockLlmServer& server) {
  OpenAIOptions options;
  options.base_url = server.base_url();
  options.model = "mock";
  options.max_retries = 0;
  return MakeOpenAIModel(options);
}

class TriageSafetyFloorTest : public ::testing::TestWithParam<testing::RecordVia> {
 protected:
  std::shared_ptr<const FhirStore> Store(bool known_pe) { return record_.Store(Record(known_pe), "2025-06-13"); }

  TriageOutcome TriageWith(const Json& script, bool known_pe) {
    MockLlmServer server(*MockLlmServer::ParseScript(script));
    EXPECT_TRUE(server.Start().ok());
    TriageConfig config;
    config.model = Client(server);
    return RunTriage(Store(known_pe), {.findings = kAcutePe}, config);
  }

  testing::RecordServer record_{GetParam()};
};

std::string Reasons(const OrderedJson& result) { return DumpJson(result["review_reasons"]); }

TEST_P(TriageSafetyFloorTest, ADecreaseOnAnAcutePeWithNoEvidenceIsHeldAndFlagged) {
  // The model calls no tool and answers DECREASE.
  const Json script = {{"responses", {Submit("call_1", "DECREASE", Json::array())}}};
  TriageOutcome out = TriageWith(script, /*known_pe=*/false);
  ASSERT_EQ(out.status, RunStatus::kFinished) << DumpJson(out.result, 2);
  EXPECT_EQ(out.result["base_priority"], 1);
  EXPECT_EQ(out.result["agent_reasoning"]["risk_adjustment"], "DECREASE");
  EXPECT_EQ(out.result["priority_level"], 1);  // held at the reader's level
  EXPECT_EQ(out.result["needs_review"], true);
  EXPECT_THAT(Reasons(out.result), HasSubstr("held at CRITICAL"));
  EXPECT_THAT(Reasons(out.result), HasSubstr("Pulmonary embolism"));
  EXPECT_THAT(out.result["rationale"].get<std::string>(), HasSubstr("for a person to review"));
}

TEST_P(TriageSafetyFloorTest, ADecreaseAfterToolsThatShowNothingOldIsStillHeld) {
  // Tools were called, but none shows the PE on record before.
  const Json script = {{"responses",
                        {Turn(Call("call_1", "check_medication_status", {{"medication_name", "anticoag"}})),
                         Turn(Call("call_2", "search_clinical_history", {{"query", "pulmonary embolism"}})),
                         Submit("call_3", "DECREASE", {"Pulmonary embolism on warfarin"})}}};
  TriageOutcome out = TriageWith(script, /*known_pe=*/false);
  ASSERT_EQ(out.status, RunStatus::kFinished) << DumpJson(out.result, 2);
  EXPECT_EQ(out.result["priority_level"], 1);
  EXPECT_EQ(out.result["needs_review"], true);
  EXPECT_THAT(Reasons(out.result), HasSubstr("held at CRITICAL"));
}

TEST_P(TriageSafetyFloorTest, ADecreaseWithTheRecordShowingTheFindingKnownStands) {
  const Json script = {{"responses",
                        {Turn(Call("call_1", "search_clinical_history", {{"query", "embol"}})),
                         Submit("call_2", "DECREASE", {"Known pulmonary embolism, recorded 2025-05-12"})}}};
  TriageOutcome out = TriageWith(script, /*known_pe=*/true);
  ASSERT_EQ(out.status, RunStatus::kFinished) << DumpJson(out.result, 2);
  EXPECT_EQ(out.result["base_priority"], 1);
  EXPECT_EQ(out.result["priority_level"], 2);  // the decrease stands
  EXPECT_EQ(out.result["needs_review"], false) << Reasons(out.result);
  EXPECT_THAT(out.result["rationale"].get<std::string>(),
              HasSubstr("The decrease stands on the record: search_clinical_history"));
}

TEST_P(TriageSafetyFloorTest, AnIncreaseIsNeverHeld) {
  const Json script = {{"responses", {Submit("call_1", "INCREASE", Json::array())}}};
  TriageOutcome out = TriageWith(script, /*known_pe=*/false);
  EXPECT_EQ(out.result["priority_level"], 1);
  EXPECT_EQ(out.result["needs_review"], false) << Reasons(out.result);
}

TEST_P(TriageSafetyFloorTest, InventedCriticalFindingsAreFlagged) {
  const Json script = {
      {"responses",
       {Turn(Call("call_1", "check_medication_status", {{"medication_name", "anticoag"}})),
        Turn(Call("call_2", "get_recent_labs", {{"category", "Coag"}})),
        Submit("call_3", "INCREASE",
               {"Anticoagulation failure", "PE on therapeutic warfarin, INR 2.3",
                "Supratherapeutic INR 5.8 on rivaroxaban", "Heparin-induced thrombocytopenia"})}}};
  TriageOutcome out = TriageWith(script, /*known_pe=*/false);
  ASSERT_EQ(out.status, RunStatus::kFinished) << DumpJson(out.result, 2);
  EXPECT_EQ(out.result["priority_level"], 1);
  EXPECT_EQ(out.result["needs_review"], true);
  const std::string reasons = Reasons(out.result);
  EXPECT_THAT(reasons, HasSubstr("5.8"));
  EXPECT_THAT(reasons, HasSubstr("rivaroxaban"));
  EXPECT_THAT(reasons, HasSubstr("heparin"));
  EXPECT_THAT(reasons, HasSubstr("thrombocytopenia"));
  // What the tools returned (warfarin, INR 2.3) and the findings' own PE are not flagged.
  EXPECT_THAT(reasons, Not(HasSubstr("Anticoagulation failure")));
  EXPECT_THAT(reasons, Not(HasSubstr("therapeutic warfarin")));
  // The critical findings are kept as the model gave them: flagged, not removed.
  EXPECT_EQ(out.result["agent_reasoning"]["critical_findings"].size(), 4u);
}

TEST_P(TriageSafetyFloorTest, TheWorklistShowsTheFlagInItsJsonAndTable) {
  Json script = {{"responses", {Submit("call_1", "DECREASE", Json::array())}}, {"select", "by_turn"}};
  MockLlmServer server(*MockLlmServer::ParseScript(script));
  ASSERT_TRUE(server.Start().ok());
  testing::TempDir dir;
  std::filesystem::create_directories(dir.File("pe-lowered"));
  dir.Write("pe-lowered/findings.txt", kAcutePe);
  if (GetParam() == testing::RecordVia::kFile) {
    dir.Write("pe-lowered/fhir.json", DumpJson(Record(false)));
    dir.Write("pe-lowered/case.json", R"({"as_of": "2025-06-13"})");
  } else {
    testing::TempDir scratch;
    const std::vector<std::string> args = record_.Args(Record(false), scratch);
    dir.Write("pe-lowered/case.json",
              DumpJson(Json{{"as_of", "2025-06-13"}, {"fhir_url", args[1]}, {"patient", args[3]}}));
  }
  testing::TempDir out;
  WorklistOptions options;
  options.concurrency = 1;
  options.out_dir = out.path();
  options.make_model = [&server]() -> Result<std::shared_ptr<ChatModel>> { return Client(server); };
  WorklistReport report = RunWorklist(dir.path(), *ListWorklistCases(dir.path()), options);
  ASSERT_EQ(report.cases.size(), 1u);
  ASSERT_TRUE(report.cases[0].ok) << report.cases[0].error;
  EXPECT_EQ(report.cases[0].result["priority_level"], 1);

  const OrderedJson worklist = WorklistJson(report);
  EXPECT_EQ(worklist["counts"]["needs_review"], 1);
  ASSERT_EQ(worklist["needs_review"].size(), 1u);
  EXPECT_EQ(worklist["needs_review"][0]["case"], "pe-lowered");
  EXPECT_THAT(DumpJson(worklist["needs_review"][0]["reasons"]), HasSubstr("held at CRITICAL"));
  EXPECT_EQ(worklist["cases"][0]["needs_review"], true);

  const std::string table = RenderWorklistTable(report);
  EXPECT_THAT(table, HasSubstr("DECREASE!"));
  EXPECT_THAT(table, HasSubstr("needs review by a person (1)"));
  EXPECT_THAT(table, HasSubstr("pe-lowered: the model lowered"));
}

INSTANTIATE_TEST_SUITE_P(Record, TriageSafetyFloorTest, testing::kRecordVias, testing::RecordViaName);

}  // namespace
}  // namespace medreact

// Tests for the triage policy (keyword base priority, risk adjustment, the
// result contract) and the rules planner driven through the real Agent loop
// and fhir pack over hand-made bundles: the seed's three silent-failure
// patterns, their negatives (no drug, drug stopped), a bleed and a routine
// finding.
#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "testing/fhir_builders.h"
#include "testing/triage_drive.h"
#include "apps/triage/rules_planner.h"
#include "apps/triage/triage_policy.h"
#include "medreact/agent.h"
#include "tools/fhir/fhir_pack.h"

namespace medreact {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Not;

// --- policy -----------------------------------------------------------------

TEST(TriagePolicyTest, BasePriorityByKeyword) {
  std::string why;
  EXPECT_EQ(BasePriorityFromFindings("Filling defect consistent with acute pulmonary embolism.", &why), 1);
  EXPECT_THAT(why, HasSubstr("pulmonary embol"));
  EXPECT_EQ(BasePriorityFromFindings("Saddle PE.", nullptr), 1);
  EXPECT_EQ(BasePriorityFromFindings("Type A aortic dissection", nullptr), 1);
  EXPECT_EQ(BasePriorityFromFindings("Large left intracranial hemorrhage", nullptr), 1);
  EXPECT_EQ(BasePriorityFromFindings("Right tension pneumothorax", nullptr), 1);
  EXPECT_EQ(BasePriorityFromFindings("Left MCA large vessel occlusion", nullptr), 1);
  EXPECT_EQ(BasePriorityFromFindings("Pneumoperitoneum under the diaphragm", nullptr), 1);
  EXPECT_EQ(BasePriorityFromFindings("Occlusive DVT of the left popliteal vein", nullptr), 2);
  EXPECT_EQ(BasePriorityFromFindings("Spiculated mass in the right upper lobe", nullptr), 2);
  EXPECT_EQ(BasePriorityFromFindings("Right lower lobe pneumonia", nullptr), 2);
  EXPECT_EQ(BasePriorityFromFindings("Small apical pneumothorax", nullptr), 2);
  EXPECT_EQ(BasePriorityFromFindings("Nondisplaced rib fracture", nullptr), 2);
  EXPECT_EQ(BasePriorityFromFindings("Mild degenerative changes of the spine.", &why), 3);
  EXPECT_THAT(why, HasSubstr("ROUTINE"));
}

TEST(TriagePolicyTest, NegatedMentionsDoNotCount) {
  EXPECT_EQ(BasePriorityFromFindings("No pulmonary embolism.", nullptr), 3);
  EXPECT_EQ(BasePriorityFromFindings("Study negative for PE. Lungs clear.", nullptr), 3);
  EXPECT_EQ(BasePriorityFromFindings("Without evidence of aortic dissection", nullptr), 3);
  EXPECT_EQ(BasePriorityFromFindings("Pulmonary embolism ruled out.", nullptr), 3);
  EXPECT_EQ(BasePriorityFromFindings("Ruled out DVT.", nullptr), 3);
  // The negation stays in its sentence or clause.
  EXPECT_EQ(BasePriorityFromFindings("No pneumothorax. Acute pulmonary embolism.", nullptr), 1);
  EXPECT_EQ(BasePriorityFromFindings("No effusion, but a segmental PE is seen", nullptr), 1);
  EXPECT_EQ(BasePriorityFromFindings("INR 2.3. Pulmonary embolism", nullptr), 1);
  EXPECT_TRUE(MentionsAffirmed("Emboli in both lower lobes", "embol"));
  EXPECT_FALSE(MentionsAffirmed("Thrombocytopenia", "thrombus"));
  EXPECT_FALSE(MentionsAffirmed("Pericardial thickening", "pe"));
  EXPECT_FALSE(MentionsAffirmed("Non-contrast CT head", "contrast"));
  EXPECT_TRUE(MentionsAffirmed("Small PE cannot be excluded", "pe"));
}

TEST(TriagePolicyTest, RiskAdjustmentClampsToOneThroughThree) {
  EXPECT_EQ(ApplyRiskAdjustment(2, "INCREASE"), 1);
  EXPECT_EQ(ApplyRiskAdjustment(1, "INCREASE"), 1);
  EXPECT_EQ(ApplyRiskAdjustment(2, "DECREASE"), 3);
  EXPECT_EQ(ApplyRiskAdjustment(3, "DECREASE"), 3);
  EXPECT_EQ(ApplyRiskAdjustment(2, "NONE"), 2);
  EXPECT_EQ(ApplyRiskAdjustment(2, "maybe"), 2);
  EXPECT_EQ(ApplyRiskAdjustment(3, " increase "), 2);
  EXPECT_EQ(ApplyRiskAdjustment(7, "NONE"), 3);
  EXPECT_EQ(ApplyRiskAdjustment(0, "DECREASE"), 2);
  EXPECT_EQ(PriorityName(1), "CRITICAL");
  EXPECT_EQ(PriorityName(2), "HIGH RISK");
  EXPECT_EQ(PriorityName(3), "ROUTINE");
}

std::vector<std::string> Keys(const OrderedJson& object) {
  std::vector<std::string> keys;
  for (auto it = object.begin(); it != object.end(); ++it) keys.push_back(it.key());
  std::sort(keys.begin(), keys.end());
  return keys;
}

TEST(TriagePolicyTest, ResultHasExactlyTheContractKeys) {
  RunResult run;
  run.status = RunStatus::kFinished;
  run.answer = "Acute PE despite therapeutic anticoagulation (INR 2.3).";
  run.steps = 4;
  run.final_fields = {{"risk_adjustment", "INCREASE"},
                      {"critical_findings", {"Anticoagulation failure", "PE on therapeutic warfarin"}}};
  StepRecord step;
  step.assistant = Message::Assistant("", {{"rules_1", "get_patient_manifest", "{}"},
                                           {"rules_2", "check_medication_status", "{}"}});
  step.tool_results = {{"rules_1", "get_patient_manifest", true, "{}", "", 0},
                       {"rules_2", "check_medication_status", false, "", "bad arguments", 0}};
  run.trace.steps.push_back(step);
  Json out = BuildTriageResult("p1", "Acute pulmonary embolism. Other text.", 2, "why", &run);
  EXPECT_THAT(Keys(out), ElementsAre("agent_reasoning", "base_priority", "findings_summary", "needs_review",
                                     "patient_id", "priority_level", "rationale", "review_reasons",
                                     "visual_findings"));
  EXPECT_THAT(Keys(out["agent_reasoning"]), ElementsAre("critical_findings", "errors", "final_assessment",
                                                        "iterations", "risk_adjustment", "tools_used"));
  EXPECT_EQ(out["patient_id"], "p1");
  EXPECT_EQ(out["base_priority"], 2);
  EXPECT_EQ(out["priority_level"], 1);
  EXPECT_EQ(out["findings_summary"], "Acute pulmonary embolism");
  EXPECT_EQ(out["agent_reasoning"]["iterations"], 4);
  EXPECT_EQ(out["agent_reasoning"]["risk_adjustment"], "INCREASE");
  EXPECT_EQ(out["agent_reasoning"]["tools_used"], Json({"get_patient_manifest", "check_medication_status"}));
  EXPECT_EQ(out["agent_reasoning"]["critical_findings"][0], "Anticoagulation failure");
  EXPECT_EQ(out["agent_reasoning"]["errors"], Json({"check_medication_status: bad arguments"}));
  EXPECT_THAT(out["rationale"].get<std::string>(), HasSubstr("Agent assessment: Acute PE"));

  run.trace.steps.clear();
  run.final_fields = nullptr;
  out = BuildTriageResult("p1", "x", 2, "", &run);
  EXPECT_EQ(out["agent_reasoning"]["risk_adjustment"], "NONE");
  EXPECT_EQ(out["agent_reasoning"]["errors"], nullptr);
  EXPECT_EQ(out["priority_level"], 2);

  out = BuildTriageResult("p1", "x", 1, "", nullptr);  // --no-agent
  EXPECT_EQ(out["priority_level"], 1);
  EXPECT_EQ(out["agent_reasoning"]["iterations"], 0);
  EXPECT_EQ(out["agent_reasoning"]["risk_adjustment"], nullptr);
  EXPECT_EQ(out["agent_reasoning"]["tools_used"], Json::array());
}

// --- rules planner through the agent ------------------------------------------

using testing::Entry;

Json Bundle(std::vector<Json> resources) { return testing::PatientBundle(std::move(resources)); }

struct Outcome {
  RunResult run;
  std::vector<std::string> calls;  // "name {args}"
};

Outcome Drive(const Json& bundle, const std::string& findings) {
  Result<FhirStore> store = FhirStore::FromJson(bundle, "test bundle");
  EXPECT_TRUE(store.ok()) << store.status().ToString();
  EXPECT_TRUE(store->SetAsOf("2025-06-13").ok());
  auto registry = std::make_shared<ToolRegistry>();
  EXPECT_TRUE(RegisterFhirPack(*registry, std::make_shared<const FhirStore>(std::move(store).value())).ok());
  std::shared_ptr<ChatModel> planner = MakeTriageRulesPlanner();
  AgentOptions options;
  options.max_steps = 8;
  testing::AddTriageFinish(*registry, options);
  Agent agent(planner, registry, options);
  Outcome out{agent.Run({.message = findings}), {}};
  for (const StepRecord& step : out.run.trace.steps) {
    for (const ToolCall& call : step.assistant.tool_calls) {
      if (call.name == kSubmitAssessmentTool) continue;
      Result<Json> args = ParseJson(call.arguments);
      const Json a = args.value_or(Json());
      std::string label = call.name;
      if (a.contains("medication_name")) label += " " + a["medication_name"].get<std::string>();
      if (a.contains("category")) label += " " + a["category"].get<std::string>();
      out.calls.push_back(label);
    }
  }
  return out;
}

TEST(TriageRulesPlannerTest, NameAndProtocol) {
  auto planner = MakeTriageRulesPlanner();
  EXPECT_EQ(planner->name(), "rules-planner");
  EXPECT_EQ(planner->protocol(), "rules");
}

TEST(TriageRulesPlannerTest, PeOnActiveWarfarinWithTherapeuticInrIsAnticoagulationFailure) {
  Json inr = testing::Observation("inr", "6301-6", "INR", 2.3, "{INR}", "2025-06-10");
  const std::string findings = "Filling defect in right pulmonary artery consistent with acute pulmonary embolism";
  Outcome o = Drive(Bundle({testing::MedicationRequest("w", "Warfarin 5mg", "active"), inr}), findings);
  ASSERT_EQ(o.run.status, RunStatus::kFinished) << o.run.error;
  EXPECT_THAT(o.calls, ElementsAre("get_patient_manifest", "check_medication_status anticoag", "get_recent_labs Coag"));
  EXPECT_EQ(o.run.final_fields["risk_adjustment"], "INCREASE");
  EXPECT_EQ(o.run.final_fields["critical_findings"],
            Json({"Anticoagulation failure", "Pulmonary embolism on active Warfarin 5mg"}));
  EXPECT_EQ(o.run.final_fields["rule"], "vte_anticoagulation");
  EXPECT_FALSE(o.run.final_fields["sources"].empty());
  EXPECT_THAT(o.run.answer, HasSubstr("INR 2.3"));
  EXPECT_THAT(o.run.answer, HasSubstr("therapeutic"));
  EXPECT_EQ(o.run.steps, 4);
  Json result = BuildTriageResult("pat", findings, 1, "", &o.run);
  EXPECT_EQ(result["priority_level"], 1);
  result = BuildTriageResult("pat", findings, 2, "", &o.run);
  EXPECT_EQ(result["priority_level"], 1);
  EXPECT_EQ(result["agent_reasoning"]["tools_used"],
            Json({"get_patient_manifest", "check_medication_status", "get_recent_labs", "submit_assessment"}));
  EXPECT_EQ(result["agent_reasoning"]["errors"], nullptr);
}

TEST(TriageRulesPlannerTest, PeOnWarfarinWithLowInrIsUnderAnticoagulation) {
  Json inr = testing::Observation("inr", "6301-6", "INR", 1.4, "{INR}", "2025-06-10");
  Outcome o = Drive(Bundle({testing::MedicationRequest("w", "Warfarin 5mg", "active"), inr}), "Acute PE.");
  ASSERT_EQ(o.run.status, RunStatus::kFinished) << o.run.error;
  EXPECT_EQ(o.run.final_fields["risk_adjustment"], "INCREASE");  // a clot on an active order still escalates
  EXPECT_EQ(o.run.final_fields["critical_findings"][0], "Subtherapeutic anticoagulation");
  EXPECT_THAT(o.run.answer, HasSubstr("subtherapeutic"));
  EXPECT_THAT(o.run.answer, HasSubstr("under-anticoagulation rather than true failure"));
}

TEST(TriageRulesPlannerTest, DoacPatientsAreNotJudgedByInr) {
  Json inr = testing::Observation("inr", "6301-6", "INR", 1.1, "{INR}", "2025-06-10");
  Outcome o = Drive(Bundle({testing::MedicationRequest("r", "rivaroxaban 20 MG Oral Tablet", "active"), inr}),
                    "Occlusive DVT of the left popliteal vein.");
  ASSERT_EQ(o.run.status, RunStatus::kFinished) << o.run.error;
  EXPECT_EQ(o.run.final_fields["risk_adjustment"], "INCREASE");
  EXPECT_EQ(o.run.final_fields["critical_findings"][0], "Anticoagulation failure");
  EXPECT_THAT(o.run.answer, Not(HasSubstr("subtherapeutic")));
  EXPECT_THAT(o.run.answer, Not(HasSubstr("no INR")));
  o = Drive(Bundle({testing::MedicationRequest("r", "rivaroxaban 20 MG Oral Tablet", "active")}), "Acute PE.");
  EXPECT_THAT(o.run.answer, Not(HasSubstr("no INR")));
}

TEST(TriageRulesPlannerTest, HemorrhagicStrokeIsABleedNotATreatmentFailure) {
  Outcome o = Drive(Bundle({testing::MedicationRequest("a", "Aspirin 81 MG Oral Tablet", "active")}),
                    "Hemorrhagic stroke: 3 cm left basal ganglia hemorrhage.");
  ASSERT_EQ(o.run.status, RunStatus::kFinished) << o.run.error;
  EXPECT_EQ(o.run.final_fields["rule"], "bleed_antithrombotic");
  EXPECT_EQ(o.run.final_fields["risk_adjustment"], "INCREASE");
  EXPECT_THAT(o.run.final_fields["rules_matched"], Not(::testing::Contains("stroke_antithrombotic")));
  // An ischemic stroke named as such keeps its rule even with hemorrhagic transformation.
  o = Drive(Bundle({testing::MedicationRequest("a", "Aspirin 81 MG Oral Tablet", "active")}),
            "Acute ischemic stroke in the left MCA territory with hemorrhagic transformation.");
  EXPECT_EQ(o.run.final_fields["rule"], "stroke_antithrombotic");
}

TEST(TriageRulesPlannerTest, PeWithoutAnticoagulantIsNone) {
  Outcome o = Drive(Bundle({testing::MedicationRequest("m", "Metformin 500 MG", "active")}), "Acute PE in the left lower lobe.");
  ASSERT_EQ(o.run.status, RunStatus::kFinished) << o.run.error;
  EXPECT_THAT(o.calls, ElementsAre("get_patient_manifest", "check_medication_status anticoag", "get_recent_labs Coag"));
  EXPECT_EQ(o.run.final_fields["risk_adjustment"], "NONE");
  EXPECT_EQ(o.run.final_fields["critical_findings"], Json::array());
}

TEST(TriageRulesPlannerTest, StrokeOnActiveAspirinIsAntiplateletFailure) {
  Outcome o = Drive(Bundle({testing::MedicationRequest("a", "Aspirin 81 MG Oral Tablet", "active")}),
                    "Acute ischemic stroke in the left MCA territory.");
  ASSERT_EQ(o.run.status, RunStatus::kFinished) << o.run.error;
  EXPECT_THAT(o.calls, ElementsAre("check_medication_status antiplatelet", "check_medication_status anticoag"));
  EXPECT_EQ(o.run.final_fields["risk_adjustment"], "INCREASE");
  EXPECT_EQ(o.run.final_fields["critical_findings"][0], "Antiplatelet failure");
  EXPECT_EQ(o.run.final_fields["rule"], "stroke_antithrombotic");
}

TEST(TriageRulesPlannerTest, StrokeWithAspirinStoppedIsNone) {
  Outcome o = Drive(Bundle({testing::MedicationRequest("a", "Aspirin 81 MG Oral Tablet", "stopped")}),
                    "Acute ischemic stroke in the left MCA territory.");
  ASSERT_EQ(o.run.status, RunStatus::kFinished) << o.run.error;
  EXPECT_THAT(o.calls, ElementsAre("check_medication_status antiplatelet", "check_medication_status anticoag"));
  EXPECT_EQ(o.run.final_fields["risk_adjustment"], "NONE");
  EXPECT_THAT(o.run.answer, HasSubstr("stopped"));
}

TEST(TriageRulesPlannerTest, TachycardicCardiacFindingOnMetoprololIsRateControlFailure) {
  Json hr = testing::Observation("hr", "8867-4", "Heart rate", 124, "/min", "2025-06-12");
  Json trop = testing::Observation("tn", "6598-7", "Troponin T", 0.08, "ng/mL", "2025-06-12");
  Outcome o = Drive(Bundle({testing::MedicationRequest("b", "Metoprolol succinate 50 MG", "active"), hr, trop}),
                    "Cardiomegaly with small pericardial effusion.");
  ASSERT_EQ(o.run.status, RunStatus::kFinished) << o.run.error;
  EXPECT_THAT(o.calls, ElementsAre("get_vital_signs", "check_medication_status beta", "get_recent_labs Cardiac"));
  EXPECT_EQ(o.run.final_fields["risk_adjustment"], "INCREASE");
  EXPECT_EQ(o.run.final_fields["critical_findings"][0], "Rate control failure");
  EXPECT_THAT(o.run.answer, HasSubstr("heart rate 124"));
}

TEST(TriageRulesPlannerTest, CardiacFindingWithNormalRateIsNone) {
  Json hr = testing::Observation("hr", "8867-4", "Heart rate", 72, "/min", "2025-06-12");
  Outcome o = Drive(Bundle({testing::MedicationRequest("b", "Metoprolol succinate 50 MG", "active"), hr}), "Mild cardiomegaly.");
  ASSERT_EQ(o.run.status, RunStatus::kFinished) << o.run.error;
  EXPECT_THAT(o.calls, ElementsAre("get_vital_signs"));
  EXPECT_EQ(o.run.final_fields["risk_adjustment"], "NONE");
}

TEST(TriageRulesPlannerTest, BleedOnApixabanIsIncrease) {
  Outcome o = Drive(Bundle({testing::MedicationRequest("x", "apixaban 5 MG Oral Tablet", "active")}),
                    "Acute subdural hematoma over the left convexity.");
  ASSERT_EQ(o.run.status, RunStatus::kFinished) << o.run.error;
  EXPECT_THAT(o.calls, ElementsAre("check_medication_status anticoag", "check_medication_status antiplatelet"));
  EXPECT_EQ(o.run.final_fields["risk_adjustment"], "INCREASE");
  EXPECT_EQ(o.run.final_fields["critical_findings"][0], "Hemorrhage on anticoagulant/antiplatelet therapy");
}

TEST(TriageRulesPlannerTest, NegatedPeIsNoneAndRoutine) {
  const std::string findings = "CTA chest: no pulmonary embolism. Lungs are clear.";
  Json cr = testing::Observation("cr", "2160-0", "Creatinine", 1.1, "mg/dL", "2025-06-01");
  Outcome o = Drive(Bundle({testing::MedicationRequest("w", "Warfarin 5mg", "active"), cr}), findings);
  ASSERT_EQ(o.run.status, RunStatus::kFinished) << o.run.error;
  EXPECT_THAT(o.calls, ElementsAre("get_recent_labs Renal"));  // the contrast rule only
  EXPECT_EQ(o.run.final_fields["risk_adjustment"], "NONE");
  EXPECT_EQ(o.run.final_fields["rule"], "contrast_renal");
  EXPECT_THAT(o.run.answer, HasSubstr("Creatinine 1.1"));
  EXPECT_EQ(BasePriorityFromFindings(findings, nullptr), 3);
}

TEST(TriageRulesPlannerTest, RoutineFindingIsNoneWithoutToolCalls) {
  Outcome o = Drive(Bundle({testing::MedicationRequest("w", "Warfarin 5mg", "active")}), "Mild degenerative changes of the spine.");
  ASSERT_EQ(o.run.status, RunStatus::kFinished) << o.run.error;
  EXPECT_TRUE(o.calls.empty());
  EXPECT_EQ(o.run.final_fields["risk_adjustment"], "NONE");
  EXPECT_EQ(o.run.final_fields["rule"], "no_rule");
  EXPECT_THAT(o.run.answer, HasSubstr("No planner rule applies"));
}

TEST(TriageRulesPlannerTest, ToolErrorsAreNotedNotFatal) {
  // A registry without the fhir pack: every call fails as an unknown tool.
  auto registry = std::make_shared<ToolRegistry>();
  AgentOptions options;
  testing::AddTriageFinish(*registry, options);
  std::shared_ptr<ChatModel> planner = MakeTriageRulesPlanner();
  Agent agent(planner, registry, options);
  RunResult run = agent.Run({.message = "Acute pulmonary embolism"});
  ASSERT_EQ(run.status, RunStatus::kFinished) << run.error;
  EXPECT_EQ(run.final_fields["risk_adjustment"], "NONE");
  EXPECT_THAT(run.answer, HasSubstr("failed"));
  EXPECT_LE(run.steps, 8);
}

TEST(TriageRulesPlannerTest, ManyRulesFinishWithinEightTurnsWithoutRepeats) {
  Json hr = testing::Observation("hr", "8867-4", "Heart rate", 130, "/min", "2025-06-12");
  Outcome o = Drive(Bundle({testing::MedicationRequest("w", "Warfarin 5mg", "active"), testing::MedicationRequest("b", "Metoprolol 25 MG", "active"), hr}),
                    "CTA: pulmonary embolism, acute stroke, cardiomegaly and a small subdural hematoma.");
  ASSERT_EQ(o.run.status, RunStatus::kFinished) << o.run.error;
  EXPECT_LE(o.run.steps, 8);
  std::vector<std::string> sorted = o.calls;
  std::sort(sorted.begin(), sorted.end());
  EXPECT_EQ(std::adjacent_find(sorted.begin(), sorted.end()), sorted.end());
  EXPECT_EQ(o.run.final_fields["risk_adjustment"], "INCREASE");
  EXPECT_THAT(o.run.final_fields["critical_findings"].get<std::vector<std::string>>(),
              ::testing::IsSupersetOf({"Anticoagulation failure", "Rate control failure"}));
}

}  // namespace
}  // namespace medreact

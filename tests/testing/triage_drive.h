// Drives the triage rules planner through the real Agent loop and fhir pack
// over a FHIR bundle, as tests/unit/triage_rules_test.cc does: the planner's
// final fields (risk_adjustment, rule, critical_findings) and the calls it
// made ("check_medication_status anticoag", "get_recent_labs Coag").
#ifndef MEDREACT_TESTS_TESTING_TRIAGE_DRIVE_H_
#define MEDREACT_TESTS_TESTING_TRIAGE_DRIVE_H_

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "apps/triage/rules_planner.h"
#include "apps/triage/triage_policy.h"
#include "apps/triage/triage_prompts.h"
#include "medreact/agent.h"
#include "testing/fhir_builders.h"
#include "tools/fhir/fhir_pack.h"

namespace medreact::testing {

struct PlannerOutcome {
  RunResult run;
  std::vector<std::string> calls;  // "name [medication_name|category]"
  std::string error;               // why the store could not be built, or ""

  std::string adjustment() const { return StringOr(run.final_fields, "risk_adjustment", "?"); }
  std::string rule() const { return StringOr(run.final_fields, "rule", "?"); }
};

// `as_of` fixes the record's "now" so lab windows do not depend on the date.
// What the triage app adds to a planner's run: the finishing tool every
// protocol ends with (triage_prompts.h). Call lists in tests leave it out.
inline void AddTriageFinish(ToolRegistry& registry, AgentOptions& options) {
  EXPECT_TRUE(RegisterSubmitAssessment(registry).ok());
  options.answer_tool = kSubmitAssessmentTool;
}

inline PlannerOutcome DrivePlanner(const Json& bundle, const std::string& findings,
                                   const std::string& as_of = "2025-06-13") {
  PlannerOutcome out;
  Result<FhirStore> store = FhirStore::FromJson(bundle, "test bundle");
  if (!store.ok()) {
    out.error = store.status().ToString();
    return out;
  }
  if (Status s = store->SetAsOf(as_of); !s.ok()) {
    out.error = s.ToString();
    return out;
  }
  auto registry = std::make_shared<ToolRegistry>();
  if (Status s = RegisterFhirPack(*registry, std::make_shared<const FhirStore>(std::move(store).value())); !s.ok()) {
    out.error = s.ToString();
    return out;
  }
  std::shared_ptr<ChatModel> planner = MakeTriageRulesPlanner();
  AgentOptions options;
  options.max_steps = 8;
  AddTriageFinish(*registry, options);
  Agent agent(planner, registry, options);
  out.run = agent.Run({.message = findings});
  for (const StepRecord& step : out.run.trace.steps) {
    for (const ToolCall& call : step.assistant.tool_calls) {
      if (call.name == kSubmitAssessmentTool) continue;
      const Json args = ParseJson(call.arguments).value_or(Json::object());
      std::string label = call.name;
      if (const std::string m = StringOr(args, "medication_name"); !m.empty()) label += " " + m;
      if (const std::string c = StringOr(args, "category"); !c.empty()) label += " " + c;
      out.calls.push_back(label);
    }
  }
  return out;
}

// A patient on an active anticoagulant (warfarin, therapeutic INR 2.4) and an
// active antiplatelet (aspirin 81 mg), with a normal creatinine: every
// antithrombotic rule can fire.
inline Json OnWarfarinAndAspirinBundle() {
  return PatientBundle({MedicationRequest("w", "Warfarin 5mg", "active"),
                        MedicationRequest("a", "Aspirin 81 MG Oral Tablet", "active"),
                        Observation("inr", "6301-6", "INR", 2.4, "{INR}", "2025-06-10"),
                        Observation("cr", "2160-0", "Creatinine", 0.9, "mg/dL", "2025-06-10")});
}

// A findings text and what the triage rules give it: the base priority
// (BasePriorityFromFindings) and the planner's risk adjustment for a
// patient on warfarin and aspirin (the findings tests' tables).
struct FindingsPhrase {
  const char* findings;
  int base;                // expected BasePriorityFromFindings
  const char* adjustment;  // expected planner risk adjustment on warfarin + aspirin
};

inline void ExpectBasePriorities(const std::vector<FindingsPhrase>& family) {
  for (const FindingsPhrase& p : family) {
    std::string why;
    EXPECT_EQ(BasePriorityFromFindings(p.findings, &why), p.base) << p.findings << "\n  why: " << why;
  }
}

inline void ExpectPlannerAdjustments(const std::vector<FindingsPhrase>& family) {
  for (const FindingsPhrase& p : family) {
    PlannerOutcome o = DrivePlanner(OnWarfarinAndAspirinBundle(), p.findings);
    ASSERT_TRUE(o.error.empty()) << o.error;
    ASSERT_EQ(o.run.status, RunStatus::kFinished) << o.run.error;
    EXPECT_EQ(o.adjustment(), p.adjustment) << p.findings << "\n  assessment: " << o.run.answer;
  }
}

}  // namespace medreact::testing

#endif  // MEDREACT_TESTS_TESTING_TRIAGE_DRIVE_H_

// The findings families of issue 24, item 5: infarct wording in a named
// vascular territory, non-diagnostic segments, size and amount words for
// effusions and bleeds, and contrast studies named by their kind. Each
// family through the reader (FindingMention fields), the keyword base
// priority and the rules planner driven by the real Agent and fhir pack
// (tests/testing/triage_drive.h). Phrasings written for this test, not taken
// from the issue.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "apps/triage/findings_lexicon.h"
#include "apps/triage/findings_reader.h"
#include "apps/triage/safety_floor.h"
#include "apps/triage/triage_policy.h"
#include "testing/triage_drive.h"

namespace medreact {
namespace {

using ::testing::Contains;
using ::testing::HasSubstr;
using ::testing::Not;

// The base priority and the planner's adjustment of every phrase (testing/triage_drive.h).
void ExpectFamily(const std::vector<testing::FindingsPhrase>& family) {
  testing::ExpectBasePriorities(family);
  testing::ExpectPlannerAdjustments(family);
}

// --- Infarct wording ----------------------------------------------------------------

TEST(FindingsFamiliesTest, LowDensityInANamedTerritoryIsAnInfarct) {
  ExpectFamily({
      {"Hypodensity involving the left MCA territory.", 2, "INCREASE"},
      {"Low attenuation in the right PCA territory with mild mass effect.", 2, "INCREASE"},
      {"Acute hypoattenuation of the right ACA territory.", 1, "INCREASE"},
      {"Watershed low-density between the left MCA and ACA territories.", 2, "INCREASE"},
      {"Hypodense region in the left MCA distribution with encephalomalacia.", 3, "NONE"},
      {"Hypodensity in the right ACA territory with volume loss, old.", 3, "NONE"},
      {"Age-indeterminate lacunar infarct in the left internal capsule.", 2, "INCREASE"},
      {"Right cerebellar infarct, age indeterminate.", 2, "INCREASE"},
      {"Loss of grey-white differentiation in the left MCA territory.", 1, "INCREASE"},
      {"Effacement of the gray and white matter junction in the right frontal lobe, right MCA territory.", 1,
       "INCREASE"},
      {"Obscuration of the left lentiform nucleus.", 1, "INCREASE"},
  });
}

TEST(FindingsFamiliesTest, LowDensityOutsideTheBrainIsNoInfarct) {
  ExpectFamily({
      {"Hypodensity in hepatic segment 7, likely a cyst.", 3, "NONE"},
      {"Small hypodensity in the left kidney.", 3, "NONE"},
      {"Preserved grey-white differentiation. No hypodensity in any vascular territory.", 3, "NONE"},
  });
}

TEST(FindingsFamiliesTest, AgeIndeterminateIsReadAsUnspecifiedNotUncertain) {
  const FindingsReader reader("Age-indeterminate infarct in the right corona radiata.");
  const std::vector<FindingMention> m = reader.Read(IschemicStroke());
  ASSERT_EQ(m.size(), 1u);
  EXPECT_TRUE(m[0].affirmed());
  EXPECT_FALSE(m[0].uncertain);
  EXPECT_EQ(m[0].temporality, Temporality::kUnspecified);
  EXPECT_EQ(m[0].temporal_cue, "Age-indeterminate");
}

// --- Non-diagnostic segments --------------------------------------------------------

TEST(FindingsFamiliesTest, ANonDiagnosticSegmentIsNotAClot) {
  ExpectFamily({
      // Negative where the study could see, limited below: routine, no failure.
      {"No filling defect in the main, lobar or segmental pulmonary arteries. Subsegmental emboli cannot be "
       "excluded because of breathing motion.",
       3, "NONE"},
      {"No central or segmental PE; subsegmental PE not excluded, the subsegmental arteries being suboptimally "
       "opacified.",
       3, "NONE"},
      // Nothing assessable: the question stays open, never CRITICAL, no failure.
      {"Poor contrast bolus; pulmonary embolism cannot be ruled out.", 2, "NONE"},
      {"Exam degraded by respiratory motion, so a small pulmonary embolus cannot be excluded.", 2, "NONE"},
      // A defect seen stays a finding even beside an artifact.
      {"Filling defect in a right lower lobe segmental artery despite mild motion artifact.", 1, "INCREASE"},
      // A plain exclusion hedge without a limitation is still acted on.
      {"A small left lower lobe PE cannot be excluded.", 1, "INCREASE"},
  });
}

TEST(FindingsFamiliesTest, ALimitedArterialLevelWithoutAFindingNameLeavesTheQuestionOpen) {
  ExpectFamily({
      // Segmental or lobar arteries not assessable: open, whatever the central arteries show.
      {"Central pulmonary arteries are clear. The segmental arteries of both lower lobes are not assessed owing to "
       "respiratory motion.",
       2, "NONE"},
      {"Non-diagnostic opacification of the lobar pulmonary arteries.", 2, "NONE"},
      // Subsegmental level only: routine.
      {"No PE to the segmental level. Subsegmental arteries limited by motion.", 3, "NONE"},
      // No PE question: coronary arteries, lung bases, a denied limitation.
      {"Motion limits evaluation of the lung bases. No consolidation.", 3, "NONE"},
      {"Coronary arteries are suboptimally opacified.", 3, "NONE"},
      {"Well-opacified pulmonary arteries without motion artifact; no filling defect.", 3, "NONE"},
  });
}

TEST(FindingsFamiliesTest, ThePlannerSaysANonDiagnosticSegmentIsNotAClot) {
  testing::PlannerOutcome o = testing::DrivePlanner(
      testing::OnWarfarinAndAspirinBundle(),
      "Segmental and larger arteries are patent. Subsegmental emboli cannot be excluded because of motion.");
  ASSERT_TRUE(o.error.empty()) << o.error;
  EXPECT_EQ(o.adjustment(), "NONE");
  EXPECT_THAT(o.run.answer, HasSubstr("non-diagnostic segment is not a clot"));
}

TEST(FindingsFamiliesTest, TheReaderNamesTheLimitation) {
  const FindingsReader reader("Evaluation limited by patient motion. Segmental PE cannot be excluded.");
  const std::vector<FindingMention> m = reader.Read(PulmonaryEmbolism());
  ASSERT_EQ(m.size(), 1u);
  EXPECT_TRUE(m[0].nondiagnostic);
  EXPECT_FALSE(m[0].affirmed());
  EXPECT_THAT(DescribeMention(m[0]), HasSubstr("non-diagnostic"));
  std::string why;
  EXPECT_EQ(BasePriorityFromFindings(reader.text(), &why), 2);
  EXPECT_THAT(why, HasSubstr("open"));
}

// --- Size and amount words ----------------------------------------------------------

TEST(FindingsFamiliesTest, SizeWordsGradeEffusions) {
  ExpectFamily({
      {"Trace pericardial effusion.", 3, "NONE"},
      {"Trivial physiologic pericardial effusion.", 3, "NONE"},
      {"Moderate pericardial effusion.", 2, "NONE"},
      {"Pericardial effusion.", 2, "NONE"},
      {"Large pericardial effusion with early diastolic collapse of the right atrium.", 1, "NONE"},
      {"Pericardial effusion with tamponade physiology.", 1, "NONE"},
      {"Moderate pericardial effusion without tamponade.", 2, "NONE"},
      {"Small right pleural effusion.", 3, "NONE"},
      {"Moderate to large left pleural effusion with mediastinal shift.", 2, "NONE"},
      {"Massive right pleural effusion.", 2, "NONE"},
  });
}

TEST(FindingsFamiliesTest, SizeWordsRaiseABigBleedAndNeverLowerOne) {
  ExpectFamily({
      {"Large left hemothorax.", 1, "INCREASE"},
      {"Massive retroperitoneal hematoma.", 1, "INCREASE"},
      {"Small left thigh hematoma.", 2, "INCREASE"},
      {"Trace hemoperitoneum in the pelvis.", 2, "INCREASE"},
      {"Trace intraventricular hemorrhage in the occipital horns.", 1, "INCREASE"},
      {"Small acute subdural hematoma along the right tentorium.", 1, "INCREASE"},
  });
}

TEST(FindingsFamiliesTest, TheReaderReadsTheLargerEndOfARange) {
  const FindingsReader reader("Small to moderate amount of left pleural effusion.");
  const std::vector<FindingMention> m = reader.Read("pleural effusion");
  ASSERT_EQ(m.size(), 1u);
  EXPECT_EQ(m[0].amount, Amount::kModerate);
  EXPECT_EQ(m[0].amount_cue, "moderate");
}

// --- Contrast studies named by their kind -------------------------------------------

Json OnApixabanWithReducedRenalFunction() {
  return testing::PatientBundle({testing::MedicationRequest("x", "Apixaban 5 MG Oral Tablet", "active"),
                        testing::Observation("cr", "2160-0", "Creatinine", 2.1, "mg/dL", "2025-06-12"),
                        testing::Observation("gfr", "62238-1", "eGFR", 24, "mL/min/1.73m2", "2025-06-12")});
}

TEST(FindingsFamiliesTest, AContrastStudyNamedByItsKindReportsRenalFunction) {
  for (const char* findings : {"CT venogram: patent dural venous sinuses.", "Abdominal aortogram: no stenosis.",
                               "CT chest with IV contrast: no acute finding.", "CTV head: no sinus thrombosis.",
                               "Upper extremity venography: patent veins."}) {
    testing::PlannerOutcome o = testing::DrivePlanner(testing::OnWarfarinAndAspirinBundle(), findings);
    ASSERT_TRUE(o.error.empty()) << o.error;
    EXPECT_THAT(o.run.final_fields["rules_matched"], Contains("contrast_renal")) << findings;
    EXPECT_EQ(o.adjustment(), "NONE") << findings;  // normal creatinine, warfarin
  }
  testing::PlannerOutcome o = testing::DrivePlanner(testing::OnWarfarinAndAspirinBundle(), "CT head without contrast: normal.");
  EXPECT_THAT(o.run.final_fields["rules_matched"], Not(Contains("contrast_renal")));
}

TEST(FindingsFamiliesTest, ReducedRenalFunctionOnARenallyClearedAnticoagulantAfterContrastIsRaised) {
  testing::PlannerOutcome o =
      testing::DrivePlanner(OnApixabanWithReducedRenalFunction(), "CT venogram of the left arm: no thrombus.");
  ASSERT_TRUE(o.error.empty()) << o.error;
  EXPECT_EQ(o.adjustment(), "INCREASE") << o.run.answer;
  EXPECT_THAT(o.run.final_fields["rules_matched"], Contains("contrast_renal_anticoagulant"));
  EXPECT_THAT(o.run.answer, HasSubstr("renally cleared anticoagulant"));
  // The same study without contrast: no renal question.
  o = testing::DrivePlanner(OnApixabanWithReducedRenalFunction(), "Non-contrast CT of the left arm: no fracture.");
  EXPECT_EQ(o.adjustment(), "NONE") << o.run.answer;
}

// --- Hostile input ------------------------------------------------------------------

TEST(FindingsFamiliesTest, SizeAndLimitationReadingSurvivesHostileText) {
  std::string text;
  for (int i = 0; i < 2000; ++i) text += "small to moderate large trace ";
  text += "pleural effusion cannot be excluded due to motion ";
  for (int i = 0; i < 2000; ++i) text += "- - , ; ";
  std::string why;
  const int base = BasePriorityFromFindings(text, &why);
  EXPECT_GE(base, 1);
  EXPECT_LE(base, 3);
}

// --- The safety floor's readers (the scripted-model tests are in
// tests/integration/triage_safety_floor_test.cc) -----------------------------------

RunResult RunWithToolResult(const std::string& name, const std::string& content) {
  RunResult run;
  StepRecord step;
  step.tool_results = {{"c1", name, true, content, "", 0}};
  run.trace.steps.push_back(step);
  return run;
}

TEST(SafetyFloorTest, TheFloorIsAnAcuteCriticalFindingOnly) {
  EXPECT_EQ(AcuteCriticalFloor("Acute saddle PE.").priority, 1);
  EXPECT_EQ(AcuteCriticalFloor("Small acute left SDH.").priority, 1);
  EXPECT_EQ(AcuteCriticalFloor("Abrupt occlusion of the left M1 segment.").priority, 1);
  EXPECT_EQ(AcuteCriticalFloor("Acute infarct in the right MCA territory.").priority, 1);
  EXPECT_EQ(AcuteCriticalFloor("Infarct in the right MCA territory.").priority, 3);  // not stated acute
  EXPECT_EQ(AcuteCriticalFloor("Known right lower lobe PE, unchanged.").priority, 3);
  EXPECT_EQ(AcuteCriticalFloor("Chronic organized thrombus in the right pulmonary artery.").priority, 3);
  EXPECT_EQ(AcuteCriticalFloor("No pulmonary embolism.").priority, 3);
  const ReaderFloor limited = AcuteCriticalFloor("Motion limited study; PE cannot be excluded.");
  EXPECT_EQ(limited.priority, 3);
  EXPECT_THAT(limited.open_question, HasSubstr("non-diagnostic"));
}

TEST(SafetyFloorTest, EvidenceIsTheSameFindingInAToolResultNotAnEchoedQuery) {
  const ReaderFloor floor = AcuteCriticalFloor("Acute PE in the right lower lobe.");
  EXPECT_THAT(SupportingEvidence(RunWithToolResult("search_clinical_history",
                                                   R"({"query":"embol","conditions":[{"display":"Pulmonary )"
                                                   R"(embolism","onset_date":"2025-05-01"}]})"),
                                 floor),
              HasSubstr("search_clinical_history"));
  EXPECT_EQ(SupportingEvidence(RunWithToolResult("search_clinical_history",
                                                 R"({"query":"pulmonary embolism","match_count":0,"conditions":[],)"
                                                 R"("note":"No condition matches 'pulmonary embolism'."})"),
                               floor),
            "");
  EXPECT_EQ(SupportingEvidence(RunWithToolResult("get_imaging_history",
                                                 R"({"studies":[{"conclusion":"No pulmonary embolism."}]})"),
                               floor),
            "");
}

TEST(SafetyFloorTest, ManyOrHugeCriticalFindingsAreBoundedAndFlagged) {
  std::vector<std::string> many(500, std::string(100000, 'x'));
  const std::vector<std::string> reasons =
      UnsupportedCriticalFindings("Acute PE.", RunWithToolResult("t", std::string(100000, 'y')), many);
  ASSERT_FALSE(reasons.empty());
  EXPECT_THAT(reasons.front(), HasSubstr("only the first 32"));
}

}  // namespace
}  // namespace medreact

// Triage over the findings reader (issue 10, part 4): for each family — PE,
// DVT, ischaemic stroke, ICH and its subtypes — acute, chronic, negated,
// hedged and historical phrasings through the keyword base priority
// (BasePriorityFromFindings) and through the rules planner driven by the real
// Agent and fhir pack for a patient on an active anticoagulant and an active
// antiplatelet (tests/testing/triage_drive.h).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "apps/triage/triage_policy.h"
#include "testing/triage_drive.h"

namespace medreact {
namespace {

using ::testing::Contains;
using ::testing::HasSubstr;
using ::testing::Not;

using Phrase = testing::FindingsPhrase;

void ExpectBase(const std::vector<Phrase>& family) { testing::ExpectBasePriorities(family); }
void ExpectPlanner(const std::vector<Phrase>& family) { testing::ExpectPlannerAdjustments(family); }

// --- PE ---------------------------------------------------------------------------

const std::vector<Phrase> kPe = {
    {"Filling defects in bilateral segmental pulmonary arteries.", 1, "INCREASE"},
    {"Saddle embolus.", 1, "INCREASE"},
    {"Acute PE in the right lower lobe.", 1, "INCREASE"},
    {"Clot in the left main pulmonary artery.", 1, "INCREASE"},
    {"Acute-on-chronic pulmonary emboli.", 1, "INCREASE"},
    {"Possible small subsegmental PE.", 1, "INCREASE"},
    {"Chronic, organized thrombus in the right lower lobe pulmonary artery. No acute embolus.", 3, "NONE"},
    {"Thrombus in the right lower lobe segmental artery, chronic in appearance.", 3, "NONE"},
    {"Webs in the right lower lobe arteries consistent with chronic thromboembolic disease.", 3, "NONE"},
    {"No pulmonary embolism.", 3, "NONE"},
    {"History of PE. No filling defect in the pulmonary arteries.", 3, "NONE"},
    {"Known right lower lobe PE, unchanged.", 2, "NONE"},
};

TEST(FindingsTriageTest, PulmonaryEmbolismBasePriority) { ExpectBase(kPe); }
TEST(FindingsTriageTest, PulmonaryEmbolismPlannerDecision) { ExpectPlanner(kPe); }

TEST(FindingsTriageTest, ChronicPeOnWarfarinIsNotAnticoagulationFailure) {
  // The reported defect: escalated to CRITICAL as anticoagulation failure.
  const std::string findings =
      "Chronic, organized thrombus in the right lower lobe pulmonary artery. No acute embolus.";
  std::string why;
  EXPECT_EQ(BasePriorityFromFindings(findings, &why), 3);
  testing::PlannerOutcome o = testing::DrivePlanner(testing::OnWarfarinAndAspirinBundle(), findings);
  ASSERT_EQ(o.run.status, RunStatus::kFinished) << o.run.error;
  EXPECT_EQ(o.adjustment(), "NONE");
  EXPECT_EQ(o.run.final_fields["critical_findings"], Json::array());
  EXPECT_THAT(o.run.final_fields["rules_matched"], Not(Contains("vte_anticoagulation")));
  EXPECT_TRUE(o.calls.empty()) << "no medication check is needed for a chronic clot";
  EXPECT_THAT(o.run.answer, HasSubstr("chronic (\"organized\")"));
  EXPECT_THAT(o.run.answer, HasSubstr("not a new event"));
  EXPECT_EQ(BuildTriageResult("p", findings, 3, why, &o.run)["priority_level"], 3);
}

TEST(FindingsTriageTest, HedgedPeEscalatesNamedAsPossible) {
  testing::PlannerOutcome o = testing::DrivePlanner(testing::OnWarfarinAndAspirinBundle(),
                                                    "Small PE in the left lower lobe cannot be excluded.");
  ASSERT_EQ(o.run.status, RunStatus::kFinished) << o.run.error;
  EXPECT_EQ(o.adjustment(), "INCREASE");
  EXPECT_EQ(o.run.final_fields["critical_findings"][1], "Pulmonary embolism (possible) on active Warfarin 5mg");
  std::string why;
  EXPECT_EQ(BasePriorityFromFindings("Small PE in the left lower lobe cannot be excluded.", &why), 1);
  EXPECT_THAT(why, HasSubstr("possible"));
}

// --- DVT --------------------------------------------------------------------------

const std::vector<Phrase> kDvt = {
    {"Occlusive DVT of the left popliteal vein.", 2, "INCREASE"},
    {"Non-occlusive thrombus in the right common femoral vein.", 2, "INCREASE"},
    {"The left popliteal vein is noncompressible.", 2, "INCREASE"},
    {"Bilateral calf DVTs.", 2, "INCREASE"},
    {"Chronic post-thrombotic changes of the left femoral vein; no acute DVT.", 3, "NONE"},
    {"Residual recanalized thrombus in the right popliteal vein.", 3, "NONE"},
    {"No DVT.", 3, "NONE"},
    {"R/O DVT. The deep veins are fully compressible.", 3, "NONE"},
    {"History of left leg DVT.", 3, "NONE"},
};

TEST(FindingsTriageTest, DvtBasePriority) { ExpectBase(kDvt); }
TEST(FindingsTriageTest, DvtPlannerDecision) { ExpectPlanner(kDvt); }

// --- ischaemic stroke ----------------------------------------------------------------

const std::vector<Phrase> kStroke = {
    {"Acute infarct in the left MCA territory.", 1, "INCREASE"},
    {"Restricted diffusion in the left corona radiata.", 1, "INCREASE"},
    {"Hyperdense left MCA sign.", 1, "INCREASE"},
    {"Loss of grey-white differentiation in the right insula.", 1, "INCREASE"},
    {"Left M1 occlusion.", 1, "INCREASE"},
    {"Acute left MCA territory CVA.", 1, "INCREASE"},
    {"Subacute infarct in the right cerebellar hemisphere.", 2, "INCREASE"},
    {"Possible acute infarct in the left pons.", 1, "INCREASE"},
    {"Old lacunar infarct in the left basal ganglia.", 3, "NONE"},
    {"Chronic infarct in the right frontal lobe.", 3, "NONE"},
    {"Encephalomalacia from prior infarct in the right MCA territory.", 3, "NONE"},
    {"Status post left MCA stroke.", 3, "NONE"},
    {"No acute infarct. No large vessel occlusion.", 3, "NONE"},
};

TEST(FindingsTriageTest, StrokeBasePriority) { ExpectBase(kStroke); }
TEST(FindingsTriageTest, StrokePlannerDecision) { ExpectPlanner(kStroke); }

TEST(FindingsTriageTest, OldInfarctOnAspirinIsNotAntiplateletFailure) {
  testing::PlannerOutcome o =
      testing::DrivePlanner(testing::OnWarfarinAndAspirinBundle(), "Old lacunar infarct in the left basal ganglia.");
  ASSERT_EQ(o.run.status, RunStatus::kFinished) << o.run.error;
  EXPECT_EQ(o.adjustment(), "NONE");
  EXPECT_EQ(o.rule(), "no_rule");
  EXPECT_THAT(o.run.answer, HasSubstr("Lacunar infarct read as chronic (\"Old\")"));
  EXPECT_THAT(o.run.answer, HasSubstr("antithrombotic-failure rule does not apply"));
}

// --- intracranial haemorrhage ----------------------------------------------------------

const std::vector<Phrase> kIch = {
    {"Acute intraparenchymal hemorrhage in the right basal ganglia.", 1, "INCREASE"},
    {"Acute left SDH.", 1, "INCREASE"},
    {"Small SAH in the left sylvian fissure.", 1, "INCREASE"},
    {"Right temporal EDH.", 1, "INCREASE"},
    {"Hemorrhagic transformation of the left MCA infarct.", 1, "INCREASE"},
    {"Acute-on-chronic right subdural hematoma.", 1, "INCREASE"},
    {"Chronic left subdural hematoma.", 2, "INCREASE"},
    {"Stable small left SDH.", 2, "INCREASE"},
    {"Old hemorrhage in the right basal ganglia with hemosiderin.", 3, "NONE"},
    {"No intracranial hemorrhage.", 3, "NONE"},
    {"Multiple chronic microhemorrhages.", 3, "NONE"},
    {"History of subarachnoid hemorrhage, coiled.", 3, "NONE"},
};

TEST(FindingsTriageTest, IntracranialHemorrhageBasePriority) { ExpectBase(kIch); }
TEST(FindingsTriageTest, IntracranialHemorrhagePlannerDecision) { ExpectPlanner(kIch); }

TEST(FindingsTriageTest, ChronicSubduralOnAnticoagulantStillGetsReversalReview) {
  testing::PlannerOutcome o =
      testing::DrivePlanner(testing::OnWarfarinAndAspirinBundle(), "Chronic left subdural hematoma, 8 mm.");
  ASSERT_EQ(o.run.status, RunStatus::kFinished) << o.run.error;
  EXPECT_EQ(o.rule(), "bleed_antithrombotic");
  EXPECT_EQ(o.run.final_fields["critical_findings"][1],
            "Subdural hematoma (chronic) on active Warfarin 5mg and Aspirin 81 MG Oral Tablet");
  std::string why;
  EXPECT_EQ(BasePriorityFromFindings("Chronic left subdural hematoma, 8 mm.", &why), 2);
  EXPECT_THAT(why, HasSubstr("Kolias"));
}

// --- mixed and multi-sentence ------------------------------------------------------------

TEST(FindingsTriageTest, FindingsInOtherSentencesDoNotDateEachOther) {
  const std::vector<Phrase> mixed = {
      {"Old right MCA infarct. New filling defect in the left lower lobe segmental artery.", 1, "INCREASE"},
      {"Chronic PE in the right lower lobe. Acute infarct in the left MCA territory.", 1, "INCREASE"},
      {"No pulmonary embolism. Old lacunar infarct. Healed left rib fractures.", 3, "NONE"},
      {"Indication: rule out PE. Findings: pulmonary arteries are patent without filling defect.", 3, "NONE"},
  };
  ExpectBase(mixed);
  ExpectPlanner(mixed);
}

}  // namespace
}  // namespace medreact

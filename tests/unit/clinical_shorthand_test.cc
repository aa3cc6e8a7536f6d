// Issue 24, the extraction half: no reassurance from an incomplete reading,
// dated weights in date order, corrected age for preterm infants, stated
// percentiles kept on their own measurement, and the criteria phrases
// clinicians write (intake as a share of needs, usual or meals; acute and
// chronic disease by name, histology and abbreviation; one-letter sex; L/Ht/
// Wt/HC; "now N months"; a date whose format a neighbour fixes). One test per
// family; the notes are written for these tests.
#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "testing/build_paths.h"
#include "apps/extract/extract_app.h"
#include "apps/extract/note_facts.h"

namespace medreact {
namespace {

using ::testing::HasSubstr;

Json Schema() {
  return Json::parse(R"({"type":"object","properties":{
      "malnutrition_present":{"type":["boolean","null"]},
      "severity":{"type":"string","enum":["none","mild","moderate","severe","indeterminate"]},
      "population":{"type":"string"},
      "rationale":{"type":"string"}},
    "required":["malnutrition_present","severity","population","rationale"]})");
}

ExtractionConfig Offline() {
  ExtractionConfig config;
  auto extras = ExtrasFile::Load(std::string(MEDREACT_SOURCE_DIR) + "/data/guidelines/extras.json");
  EXPECT_TRUE(extras.ok());
  config.extras = std::make_shared<const ExtrasFile>(std::move(*extras));
  return config;
}

struct Answer {
  Json extraction;
  std::string notes;  // the planner's notes, joined
};

Answer Plan(const std::string& note) {
  ExtractionOutcome out = RunExtraction({note, Schema(), ""}, Offline());
  EXPECT_TRUE(out.valid) << note;
  Answer a;
  a.extraction = out.result.contains("extraction") ? Json(out.result["extraction"]) : Json::object();
  if (out.result.contains("notes") && out.result["notes"].is_array()) {
    for (const auto& n : out.result["notes"]) a.notes += n.get<std::string>() + "\n";
  }
  return a;
}

std::string Severity(const std::string& note) { return Plan(note).extraction.value("severity", std::string("?")); }

// ---- 1. negative answers need complete evidence --------------------------------------------

TEST(IncompleteReadingTest, AnUnusableNumberNextToAMeasurementIsNeverReassurance) {
  const char* const notes[] = {
      "6-year-old girl, well child visit. Weight 19.8 kgz, height 116 cm.",   // misspelt unit
      "Boy aged 10 years. Ht 139 cm, Wt 31.",                                  // a weight without a unit
      "9 yo F. Weight: 27,4 kg. Height 133 cm.",                               // a decimal comma
      "Girl, 4 years. Height 101 cm; weight 15.9 klg.",                        // an unknown unit
  };
  for (const char* note : notes) {
    const Answer a = Plan(note);
    EXPECT_EQ(a.extraction["severity"], "indeterminate") << note << "\n" << a.extraction["rationale"];
    EXPECT_TRUE(a.extraction["malnutrition_present"].is_null()) << note;
    EXPECT_THAT(a.extraction["rationale"].get<std::string>(), HasSubstr("re-check")) << note;
  }
  // The same children with readable numbers are graded.
  EXPECT_EQ(Severity("6-year-old girl, well child visit. Weight 19.8 kg, height 116 cm."), "none");
  EXPECT_EQ(Severity("Boy aged 10 years. Ht 139 cm, Wt 31 kg."), "none");
}

TEST(IncompleteReadingTest, NoFacts) {
  NoteFacts f = ReadNoteFacts("Wt 14.2 kgs, Ht 98 cm, HC 49 cm, weight 6 months ago 13 kg, 3rd percentile.");
  EXPECT_TRUE(f.unusable.empty()) << f.unusable[0];
  NoteFacts g = ReadNoteFacts("Weight 21.5 kgg.");
  ASSERT_EQ(g.unusable.size(), 1u);
  EXPECT_THAT(g.unusable[0], HasSubstr("kgg"));
}

TEST(IncompleteReadingTest, GlimPhenotypeWithoutEtiologyIsIndeterminateNeverNotMet) {
  const Answer a = Plan("66-year-old woman, routine review. BMI 18.0. She reports her clothes are looser.");
  EXPECT_EQ(a.extraction["severity"], "indeterminate");
  EXPECT_TRUE(a.extraction["malnutrition_present"].is_null());
  EXPECT_THAT(a.extraction["rationale"].get<std::string>(), HasSubstr("etiologic criterion not established"));
  EXPECT_THAT(a.extraction["rationale"].get<std::string>(), ::testing::Not(HasSubstr("not met")));
  // Weight loss named with no amount is a criterion not evaluated: never "none".
  for (const char* note : {"61-year-old man with COPD, BMI 24.0, has lost weight recently.",
                           "7 yo girl with ongoing weight loss. Wt 21 kg, Ht 121 cm."}) {
    EXPECT_EQ(Severity(note), "indeterminate") << note;
  }
  EXPECT_EQ(Severity("61-year-old man with COPD, BMI 24.0, no weight loss."), "none");
  // No phenotype: GLIM not met stands.
  EXPECT_EQ(Severity("50-year-old man, BMI 26.1, weight stable. Appetite good."), "none");
}

// ---- 2. time-aware measurements -------------------------------------------------------------

TEST(DatedWeightsTest, ATableOldestFirstGivesTheLatestAsCurrent) {
  NoteFacts f = ReadNoteFacts(
      "Patient is a 70 yo man.\nWeight trend:\n2025-12-01 82.0 kg\n2026-02-01 79.5 kg\n2026-05-30 74.9 kg\n");
  EXPECT_DOUBLE_EQ(f.weight_kg.value_or(0), 74.9);
  EXPECT_NEAR(f.weight_loss_percent.value_or(0), 8.66, 0.01);
  EXPECT_NEAR(f.weight_loss_months.value_or(0), 5.95, 0.05);
  // Newest first, and slash dates whose order a day above 12 fixes.
  NoteFacts g = ReadNoteFacts("Weights: 05/28/2026 - 60.2 kg; 03/02/2026 - 63.0 kg; 01/15/2026 - 64.1 kg.");
  EXPECT_DOUBLE_EQ(g.weight_kg.value_or(0), 60.2);
  EXPECT_NEAR(g.weight_loss_percent.value_or(0), 6.08, 0.01);
}

TEST(DatedWeightsTest, MonthNamesAndVisitAgesArePlaced) {
  NoteFacts f = ReadNoteFacts("Girl, 12 years. She weighed 44 kg in March; today (August) 39.1 kg. Height 152 cm.");
  EXPECT_DOUBLE_EQ(f.weight_kg.value_or(0), 39.1);
  EXPECT_NEAR(f.weight_loss_percent.value_or(0), 11.14, 0.01);
  EXPECT_NEAR(f.weight_loss_months.value_or(0), 5, 1e-9);
  NoteFacts g = ReadNoteFacts("20 month old boy. 11.2 kg at the 15-month visit, 10.6 kg today. Length 84 cm.");
  EXPECT_DOUBLE_EQ(g.weight_kg.value_or(0), 10.6);
  ASSERT_EQ(g.weight_history.size(), 1u);
  EXPECT_NEAR(g.weight_history[0].months_ago.value_or(0), 5, 1e-9);
  // A weight of today is the current one even after a dated one, with no visit date to measure from.
  NoteFacts today = ReadNoteFacts("Man, 66. On 2026-01-03 he weighed 71 kg; today 64.5 kg.");
  EXPECT_DOUBLE_EQ(today.weight_kg.value_or(0), 64.5);
  EXPECT_NEAR(today.weight_loss_percent.value_or(0), 9.15, 0.01);
  // A slash date nothing fixes is not placed, and says so.
  NoteFacts h = ReadNoteFacts("8 yo boy. Weights 03/04/2026 25 kg, 04/05/2026 24 kg.");
  EXPECT_FALSE(h.unusable.empty());
}

TEST(DatedWeightsTest, UnderTwoALossBetweenVisitsIsSevereAndAGainIsGradedByZDeceleration) {
  const Answer loss = Plan("19-month-old boy. 11.0 kg at the 15-month visit; today 10.5 kg, length 82 cm.");
  EXPECT_EQ(loss.extraction["severity"], "severe") << loss.extraction["rationale"];
  EXPECT_THAT(loss.extraction["rationale"].get<std::string>(), HasSubstr("velocity"));
  // A gain with weight-for-age z falling by more than 1: mild by deceleration (WHO 2006 weight-for-age).
  const Answer slow = Plan("Girl, 14 months. Weight at the 8-month visit 8.6 kg; weight today 8.7 kg. Length 76 cm.");
  EXPECT_EQ(slow.extraction["severity"], "mild") << slow.extraction["rationale"];
  EXPECT_THAT(slow.extraction["rationale"].get<std::string>(), HasSubstr("velocity tables are not available"));
}

// ---- 3. corrected age and stated percentiles -------------------------------------------------

TEST(CorrectedAgeTest, PretermInfantsAreGradedAtCorrectedAgeAndTheAnswerSaysSo) {
  struct Case {
    const char* note;
    double gestation;
    double corrected;
  };
  const Case cases[] = {
      {"Ex-30 weeker, now 4 months, boy. Wt 5.1 kg, L 58 cm.", 30, 4 - 10 * 7 / 30.4375},
      {"Girl born at 32 weeks; she is now 6 months old. Weight 6.0 kg, length 62 cm.", 32, 6 - 8 * 7 / 30.4375},
      {"7 mo M, GA 29 wks. Wt 6.2 kg, L 63.5 cm.", 29, 7 - 11 * 7 / 30.4375},
      {"10-month-old girl, ex 27+3 wk preemie. Weight 7.0 kg, length 68 cm.", 27 + 3 / 7.0, 10 - (40 - 27 - 3 / 7.0) * 7 / 30.4375},
  };
  for (const Case& c : cases) {
    NoteFacts f = ReadNoteFacts(c.note);
    EXPECT_NEAR(f.gestational_weeks.value_or(0), c.gestation, 0.01) << c.note;
    EXPECT_NEAR(f.age_months.value_or(-1), c.corrected, 0.01) << c.note;
    ASSERT_TRUE(f.chronological_age_months) << c.note;
  }
  // Not corrected: term (37 weeks or more), or 24 months and over.
  EXPECT_FALSE(ReadNoteFacts("Born at 38 weeks, now 5 months, girl.").chronological_age_months);
  EXPECT_FALSE(ReadNoteFacts("Ex-28 weeker, now 30 months, boy.").chronological_age_months);
  // At chronological age this baby's length-for-age is below -3; at corrected age it is normal.
  const Answer a = Plan("Ex-27 weeker, now 6 months (chronological), boy. Wt 5.6 kg, L 59.5 cm.");
  EXPECT_NE(a.extraction["severity"], "severe") << a.extraction["rationale"];
  EXPECT_THAT(a.extraction["rationale"].get<std::string>(), HasSubstr("corrected"));
}

TEST(StatedPercentileTest, EachPercentileStaysOnItsMeasurement) {
  NoteFacts f = ReadNoteFacts("6 yo boy: wt 4th %ile, ht 8th %ile, BMI 35th %ile, HC 20th %ile.");
  ASSERT_EQ(f.percentiles.size(), 4u);
  EXPECT_EQ(f.percentiles[0].indicator, "weight_for_age");
  EXPECT_EQ(f.percentiles[1].indicator, "height_for_age");
  EXPECT_EQ(f.percentiles[2].indicator, "bmi_for_age");
  EXPECT_EQ(f.percentiles[3].indicator, "head_circumference_for_age");
  NoteFacts g = ReadNoteFacts("Girl, 7. BMI 15.0 kg/m2; she is at the 2nd percentile for weight.");
  ASSERT_EQ(g.percentiles.size(), 1u);
  EXPECT_EQ(g.percentiles[0].indicator, "weight_for_age");
  // A low weight percentile with a normal BMI percentile is not malnutrition by BMI.
  EXPECT_EQ(Severity("A 6 yo boy: wt 4th %ile, ht 8th %ile, BMI 35th %ile."), "none");
}

// ---- 4. criteria phrases ----------------------------------------------------------------------

TEST(CriteriaPhraseTest, IntakeAsAShareOfNeedsUsualOrMeals) {
  struct Case {
    const char* note;
    double percent;
  };
  const Case cases[] = {
      {"Taking ~45 % of est. needs by calorie count.", 45},
      {"Eating about half of her usual.", 50},
      {"Pt eating 1/4 of meals.", 25},
      {"Consuming 25-50% of meal trays.", 50},
      {"Only a third of his feeds are taken.", 33},
      {"Intake < 60% of estimated energy requirements.", 60},
  };
  for (const Case& c : cases) EXPECT_DOUBLE_EQ(ReadNoteFacts(c.note).intake_percent.value_or(-1), c.percent) << c.note;
  EXPECT_NEAR(ReadNoteFacts("Eating 30% of meals x 12 days.").intake_weeks.value_or(0), 12 / 7.0, 1e-9);
  EXPECT_NEAR(ReadNoteFacts("NPO for 9 days after the operation.").intake_percent.value_or(-1), 0, 1e-9);
  // A weight loss written as a share of the usual weight is not an intake.
  EXPECT_FALSE(ReadNoteFacts("Lost 8% of usual body weight.").intake_percent);
}

TEST(CriteriaPhraseTest, DiseaseByNameHistologyAndAbbreviation) {
  for (const char* note : {"Admitted with CAP.", "Day 3 of treatment for PNA.", "Septic shock from a UTI.",
                           "POD 4 after colectomy.", "Scald burns to 20% TBSA.", "s/p laparotomy for perforation.",
                           "Known NSCLC on immunotherapy.", "Adenocarcinoma of the pancreas.", "Stage IV colon ca.",
                           "Diffuse large B-cell lymphoma.", "CKD stage 4.", "ESRD on HD.", "Longstanding COPD.",
                           "HFrEF, EF 25%.", "Crohn's ileitis.", "IBD flare.", "Cystic fibrosis with pancreatic insufficiency."}) {
    EXPECT_TRUE(ReadNoteFacts(note).inflammation) << note;
  }
  for (const char* note : {"No pneumonia on CXR.", "Denies cancer history.", "Ca 9.1 mg/dL.", "Saturating well on RA.",
                           "Mother had breast cancer.", "All meals eaten."}) {
    EXPECT_FALSE(ReadNoteFacts(note).inflammation) << note;
  }
  // Through GLIM: an abbreviation and a share of meals are the etiologic criterion.
  EXPECT_EQ(Severity("84 yo M with HAP. BMI 19.5. Eating ~25% of meal trays for 9 days."), "severe");
  EXPECT_EQ(Severity("59-year-old woman with ovarian ca, eating about half of her usual. Wt 57 kg, down from 62 kg."),
            "moderate");
}

TEST(CriteriaPhraseTest, ShorthandForSexLabelsAgesAndDates) {
  NoteFacts a = ReadNoteFacts("11 mo M. Wt 7.9 kg, L 71 cm, HC 44.5 cm.");
  EXPECT_EQ(a.sex, "male");
  EXPECT_NEAR(a.age_months.value_or(0), 11, 1e-9);
  EXPECT_DOUBLE_EQ(a.height_cm.value_or(0), 71);
  EXPECT_EQ(a.stature_measure, "length");
  EXPECT_DOUBLE_EQ(a.head_circumference_cm.value_or(0), 44.5);
  EXPECT_EQ(ReadNoteFacts("20 mo F, poor appetite.").sex, "female");
  EXPECT_NEAR(ReadNoteFacts("Adopted at birth, now 9 months (chronological).").age_months.value_or(0), 9, 1e-9);
  // The date of birth's day (above 12) fixes the visit date's order: m/d/y.
  NoteFacts d = ReadNoteFacts("DOB 11/19/2024. Visit 02/06/2026.");
  EXPECT_NEAR(d.age_months.value_or(0), 444 / 30.4375, 1e-6);
  NoteFacts e = ReadNoteFacts("DOB 19/11/2024. Visit 06/02/2026.");  // d/m/y
  EXPECT_NEAR(e.age_months.value_or(0), 444 / 30.4375, 1e-6);
}

TEST(CriteriaPhraseTest, MoreWaysOfWritingTheSameThings) {
  // Ages: "m/o", "currently N months", "former NN-weeker"; dates with two-digit years (POSIX %y pivot) and "DOS".
  EXPECT_NEAR(ReadNoteFacts("13 m/o boy").age_months.value_or(0), 13, 1e-9);
  NoteFacts former = ReadNoteFacts("Former 30-weeker, currently 7 months, boy");
  EXPECT_NEAR(former.gestational_weeks.value_or(0), 30, 1e-9);
  EXPECT_NEAR(former.age_months.value_or(0), 7 - 70 / 30.4375, 1e-6);
  NoteFacts dos = ReadNoteFacts("DOB: 3/25/24; DOS: 6/4/26. Boy.");
  EXPECT_NEAR(dos.age_months.value_or(0), 801 / 30.4375, 1e-6);  // 2024-03-25 to 2026-06-04
  // A visit named by an age without "at".
  NoteFacts visit = ReadNoteFacts("14 m/o F, 12-month visit: 9.8 kg; today 9.5 kg.");
  EXPECT_DOUBLE_EQ(visit.weight_kg.value_or(0), 9.5);
  ASSERT_EQ(visit.weight_history.size(), 1u);
  EXPECT_NEAR(visit.weight_history[0].months_ago.value_or(0), 2, 1e-9);
  // Intake with two nutrients, with no "of", or as "PO intake N %".
  EXPECT_DOUBLE_EQ(ReadNoteFacts("Meeting 30% of estimated calorie and protein needs.").intake_percent.value_or(-1), 30);
  EXPECT_DOUBLE_EQ(ReadNoteFacts("Consuming less than half her meals.").intake_percent.value_or(-1), 50);
  EXPECT_DOUBLE_EQ(ReadNoteFacts("PO intake ~40% for 10 days.").intake_percent.value_or(-1), 40);
  // A decimal comma is never read as the digits after it, and an unlabelled stature next to a weight is said.
  NoteFacts comma = ReadNoteFacts("Weight 15,2 kg.");
  EXPECT_FALSE(comma.weight_kg);
  EXPECT_FALSE(comma.unusable.empty());
  NoteFacts unlabelled = ReadNoteFacts("3 yo girl. Wt 14 kg, 96 cm.");
  EXPECT_FALSE(unlabelled.height_cm);
  EXPECT_FALSE(unlabelled.unusable.empty());
  EXPECT_EQ(Severity("3 yo girl. Wt 14 kg, 96 cm."), "indeterminate");
  EXPECT_EQ(Severity("60 yo man with COPD. BMI 23.5. Weights (kg): 1/5/26 70.2, 4/5/26 62.0."), "indeterminate");
}

// Found by the held-out part's first score (h04): an adult's age and sex written together, no unit.
TEST(CriteriaPhraseTest, AgeAndSexWrittenTogether) {
  struct Case {
    const char* note;
    double years;
    const char* sex;
  };
  const Case cases[] = {{"71F with HFpEF, here for review.", 71, "female"},
                        {"55 M, admitted overnight with chest pain.", 55, "male"},
                        {"Pt is a 48M w/ Crohn's.", 48, "male"},
                        {"HPI: 82F presents with poor oral intake.", 82, "female"}};
  for (const Case& c : cases) {
    NoteFacts f = ReadNoteFacts(c.note);
    EXPECT_NEAR(f.age_months.value_or(0), c.years * 12, 1e-9) << c.note;
    EXPECT_EQ(f.sex, c.sex) << c.note;
  }
  for (const char* note : {"Walked 50 m with a frame.", "Height 1.62 m, weight 50 kg.", "Room 12 F, bed 3."}) {
    EXPECT_FALSE(ReadNoteFacts(note).age_months) << note;
  }
  EXPECT_EQ(Severity("74F with gastric adenocarcinoma, eating a quarter of her usual. Wt 49 kg, down from 56 kg 2 months ago."),
            "severe");
}

}  // namespace
}  // namespace medreact

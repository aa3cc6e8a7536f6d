// Issue 10: the offline extraction planner on notes written the ways
// clinicians write them. Families (ages written many ways, every indicator's
// field, implausible values for every indicator) and the held-out note set
// (tests/fixtures/clinical/notes_set.json) scored against its expected
// decisions; the score and every miss are printed (docs/clinical-validation.md).
#include <cmath>
#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "testing/build_paths.h"
#include "apps/extract/extract_app.h"
#include "apps/extract/medical_functions.h"
#include "apps/extract/note_facts.h"
#include "apps/extract/schema_fill.h"
#include "testing/subprocess.h"

namespace medreact {
namespace {

using ::testing::HasSubstr;

std::string ReadSource(const std::string& relative) {
  return testing::ReadFileOrEmpty(std::string(MEDREACT_SOURCE_DIR) + "/" + relative);
}

const char* const kIndicators[] = {"weight_for_age", "length_for_age", "height_for_age", "bmi_for_age",
                                   "weight_for_length", "weight_for_height", "head_circumference_for_age"};

// A schema with a field for every indicator, all nullable, and the decision.
Json SetSchema() {
  Json props = {
      {"malnutrition_present", {{"type", {"boolean", "null"}}}},
      {"severity", {{"type", "string"}, {"enum", {"none", "mild", "moderate", "severe", "indeterminate"}}}},
      {"population", {{"type", "string"}}},
      {"implausible_values", {{"type", "array"}, {"items", {{"type", "string"}}}}},
      {"rationale", {{"type", "string"}}}};
  for (const char* indicator : kIndicators) props[std::string(indicator) + "_z"] = {{"type", {"number", "null"}}};
  return {{"type", "object"},
          {"properties", props},
          {"required", {"malnutrition_present", "severity", "population", "rationale"}}};
}

ExtractionConfig OfflineConfig() {
  ExtractionConfig config;
  auto extras = ExtrasFile::Load(std::string(MEDREACT_SOURCE_DIR) + "/data/guidelines/extras.json");
  EXPECT_TRUE(extras.ok());
  config.extras = std::make_shared<const ExtrasFile>(std::move(*extras));
  return config;
}

Json Extract(const std::string& note, const Json& schema = SetSchema()) {
  ExtractionOutcome out = RunExtraction({note, schema, ""}, OfflineConfig());
  EXPECT_TRUE(out.valid) << note << "\n" << DumpJson(out.result, 2);
  return out.result.contains("extraction") ? Json(out.result["extraction"]) : Json::object();
}

// ---- ages written the ways clinicians write them ------------------------------------

struct AgeCase {
  const char* note;
  double months;
};

TEST(NoteAgeFamilyTest, AgesWrittenManyWaysAreReadWhole) {
  const AgeCase cases[] = {
      {"3 year 2 month old girl, weight 11.1 kg", 38},
      {"A 3-year-2-month-old boy", 38},
      {"3y2m F, wt 14 kg", 38},
      {"3 yrs, 2 mos old male", 38},
      {"2 years 6 months, male", 30},
      {"Age: 2 years 6 months. Sex: M.", 30},
      {"girl, 2 years and 6 months", 30},
      {"A 4 yo girl", 48},
      {"4yo F", 48},
      {"70 y/o man", 840},
      {"4 y.o. boy", 48},
      {"Infant, 9 months, female", 9},
      {"9 months, female, seen today", 9},
      {"18-month-old", 18},
      {"a 10-day-old male", 10 / 30.4375},
      {"3 weeks old infant", 3 * 7 / 30.4375},
      {"Child aged 4 years", 48},
      {"aged 70", 840},
      {"DOB 2021-03-14. Date of visit 2024-05-20.", 1163 / 30.4375},
      {"Date of birth: 14 March 2021; seen on May 20, 2024", 1163 / 30.4375},
      {"DOB 25/12/2020, visit date 2024-01-10", 1111 / 30.4375},
      {"Pt is a 2 1/2 year old boy", 30},
      {"This 6\xC2\xBD-year-old girl", 78},
      {"8-yr-old F", 96},
      {"Seen with mum. He is 11 months.", 11},
      {"The patient is 70 and lives alone.", 840},
  };
  for (const AgeCase& c : cases) {
    NoteFacts f = ReadNoteFacts(c.note);
    ASSERT_TRUE(f.age_months) << c.note;
    EXPECT_NEAR(*f.age_months, c.months, 0.01) << c.note;
  }
}

TEST(NoteAgeFamilyTest, DurationsAndPastAgesAreNotTheAge) {
  for (const char* note : {"Symptoms for 2 years 6 months. Weight 60 kg.", "Weight 6 months ago was 12.6 kg.",
                           "Solids were started at 6 months.", "Gestational age 38 weeks at birth.",
                           "Seen in the past 3 months for cough.", "At age 2 years he weighed 12 kg.",
                           "The patient is 5 feet tall.", "He is 12 kg heavier."}) {
    NoteFacts f = ReadNoteFacts(note);
    EXPECT_FALSE(f.age_months) << note << " read as " << f.age_months.value_or(-1);
  }
  // The patient's age comes first; a sibling's later one does not replace it.
  NoteFacts f = ReadNoteFacts("A 4-year-old girl, seen with her 9-year-old brother. Solids at 6 months.");
  EXPECT_NEAR(f.age_months.value_or(0), 48, 1e-9);
}

TEST(NoteAgeFamilyTest, WordsGiveABandNeverAnAge) {
  struct WordCase {
    const char* note;
    Population population;
  };
  const WordCase cases[] = {{"Infant girl, weight 5.2 kg", Population::kPediatric},
                            {"Newborn boy", Population::kPediatric},
                            {"Toddler, weight 10 kg", Population::kPediatric},
                            {"A woman with heart failure", Population::kAdult},
                            {"Mr. J was admitted", Population::kAdult},
                            {"Seen for a weight check", Population::kUnknown},
                            {"Adolescent girl", Population::kUnknown}};  // 10-19 y: child or adult (GLIM from 18)
  for (const WordCase& c : cases) {
    NoteFacts f = ReadNoteFacts(c.note);
    EXPECT_FALSE(f.age_months) << c.note;
    EXPECT_EQ(PopulationName(f.population()), std::string(PopulationName(c.population))) << c.note;
  }
}

TEST(NoteAgeFamilyTest, AgesThatCannotBeReadSafelyAreProblemsNotGuesses) {
  NoteFacts ambiguous = ReadNoteFacts("DOB 03/04/2021, visit 2024-05-01.");
  EXPECT_FALSE(ambiguous.age_months);
  ASSERT_FALSE(ambiguous.problems.empty());
  EXPECT_THAT(ambiguous.problems[0], HasSubstr("YYYY-MM-DD"));
  NoteFacts conflict = ReadNoteFacts("A 4-year-old girl (DOB 2015-01-01, visit date 2024-01-01).");
  EXPECT_FALSE(conflict.age_months);
  ASSERT_FALSE(conflict.problems.empty());
  EXPECT_THAT(conflict.problems[0], HasSubstr("disagree"));
}

TEST(NoteSexFamilyTest, NounsBeforePronounsAndFormFields) {
  EXPECT_EQ(ReadNoteFacts("A 9-month-old boy; her mother reports poor feeding.").sex, "male");
  EXPECT_EQ(ReadNoteFacts("Sex: F. Weight 12 kg.").sex, "female");
  EXPECT_EQ(ReadNoteFacts("4 yo M with cough").sex, "male");
  EXPECT_EQ(ReadNoteFacts("3y2m F").sex, "female");
  EXPECT_EQ(ReadNoteFacts("She eats well.").sex, "female");
  EXPECT_EQ(ReadNoteFacts("Weight 12 kg.").sex, "");
}

// ---- measurements: units, labels, current versus past --------------------------------

TEST(NoteMeasurementFamilyTest, UnitsAndLabels) {
  NoteFacts a = ReadNoteFacts("Wt 12.6 kg, Ht 94.5 cm.");
  EXPECT_DOUBLE_EQ(a.weight_kg.value_or(0), 12.6);
  EXPECT_DOUBLE_EQ(a.height_cm.value_or(0), 94.5);
  EXPECT_EQ(a.stature_measure, "height");
  NoteFacts b = ReadNoteFacts("Weight 7400 g. Length 70.5 cm. Head circumference 44 cm.");
  EXPECT_DOUBLE_EQ(b.weight_kg.value_or(0), 7.4);
  EXPECT_DOUBLE_EQ(b.height_cm.value_or(0), 70.5);
  EXPECT_EQ(b.stature_measure, "length");
  EXPECT_DOUBLE_EQ(b.head_circumference_cm.value_or(0), 44);
  NoteFacts c = ReadNoteFacts("weighs 62 lb, height 4 ft 2 in");
  EXPECT_NEAR(c.weight_kg.value_or(0), 28.12, 0.01);
  EXPECT_NEAR(c.height_cm.value_or(0), 127.0, 0.01);
  NoteFacts d = ReadNoteFacts("Birth weight 7 lb 8 oz. Height 1.70 m, weight 64 kg.");
  EXPECT_DOUBLE_EQ(d.weight_kg.value_or(0), 64);
  EXPECT_NEAR(d.height_cm.value_or(0), 170, 1e-9);
  ASSERT_EQ(d.weight_history.size(), 1u);
  EXPECT_TRUE(d.weight_history[0].at_birth);
  EXPECT_NEAR(d.weight_history[0].kg, 3.40, 0.01);
  // Not body measurements: doses, lab units, BMI units, lesions, unlabelled lengths.
  NoteFacts e = ReadNoteFacts("Amoxicillin 40 mg/kg/day. Albumin 3.1 g/dL. BMI 22 kg/m2. A 3 cm mass. 2 g protein.");
  EXPECT_FALSE(e.weight_kg);
  EXPECT_FALSE(e.height_cm);
  EXPECT_DOUBLE_EQ(e.bmi.value_or(0), 22);
}

TEST(NoteMeasurementFamilyTest, PastWeightsAreHistoryPointsAndGiveTheLoss) {
  NoteFacts a = ReadNoteFacts("Weight 11.8 kg. Weight 6 months ago was 12.6 kg.");
  EXPECT_DOUBLE_EQ(a.weight_kg.value_or(0), 11.8);
  ASSERT_EQ(a.weight_history.size(), 1u);
  EXPECT_DOUBLE_EQ(a.weight_history[0].kg, 12.6);
  EXPECT_DOUBLE_EQ(a.weight_history[0].months_ago.value_or(0), 6);
  EXPECT_NEAR(a.weight_loss_percent.value_or(0), 6.35, 0.01);
  EXPECT_DOUBLE_EQ(a.weight_loss_months.value_or(0), 6);

  NoteFacts b = ReadNoteFacts("He weighed 23 kg at the last visit 4 months ago; weight today 20.5 kg.");
  EXPECT_DOUBLE_EQ(b.weight_kg.value_or(0), 20.5);
  EXPECT_NEAR(b.weight_loss_percent.value_or(0), 10.87, 0.01);

  NoteFacts c = ReadNoteFacts("Previously healthy, weight 30 kg (usual weight 33 kg).");
  EXPECT_DOUBLE_EQ(c.weight_kg.value_or(0), 30);
  EXPECT_DOUBLE_EQ(c.usual_weight_kg.value_or(0), 33);

  NoteFacts birth = ReadNoteFacts("10-day-old, birth weight 3.4 kg, weight today 3.2 kg.");
  EXPECT_DOUBLE_EQ(birth.weight_kg.value_or(0), 3.2);
  EXPECT_FALSE(birth.weight_loss_percent);  // a birth weight is never a baseline for weight loss
}

TEST(NoteMeasurementFamilyTest, HostileNotesEndQuickly) {
  // Long runs of digits, spaces and units: the bounded patterns cannot recurse deep.
  for (const std::string& note : {std::string(1 << 18, '9') + " kg", std::string(1 << 18, ' ') + "weight 12 kg",
                                  std::string(50'000, '1') + "." + std::string(50'000, '2') + " cm",
                                  [] {
                                    std::string s;
                                    for (int i = 0; i < 5'000; ++i) s += "3 year 2 month ";
                                    return s;
                                  }()}) {
    NoteFacts f = ReadNoteFacts(note);
    (void)f;
  }
}

// ---- every indicator's field holds that indicator or nothing --------------------------

TEST(IndicatorFieldFamilyTest, FieldsNameTheirIndicatorExplicitly) {
  const Json number = {{"type", {"number", "null"}}};
  struct FieldCase {
    const char* name;
    const char* indicator;
  };
  const FieldCase cases[] = {
      {"bmi_for_age_z", "bmi_for_age"},        {"bmiZ", "bmi_for_age"},          {"BAZ", "bmi_for_age"},
      {"weight_for_height_z", "weight_for_height"}, {"whz", "weight_for_height"},
      {"weight_for_length_z", "weight_for_length"}, {"WFL z-score", "weight_for_length"},
      {"weight_for_age_z", "weight_for_age"},  {"waz", "weight_for_age"},
      {"length_for_age_z", "length_for_age"},  {"laz", "length_for_age"},
      {"height_for_age_z", "height_for_age"},  {"HAZ", "height_for_age"},
      {"head_circumference_z", "head_circumference_for_age"},
      {"weight_for_length_or_height_z", "weight_for_length_or_height"}, {"wfl/h z", "weight_for_length_or_height"},
      {"z_score", ""},                         {"worst_z", ""}};
  for (const FieldCase& c : cases) EXPECT_EQ(FieldIndicator(c.name, number), c.indicator) << c.name;
  Json annotated = {{"type", "number"}, {"x-medreact-indicator", "weight_for_length"}};
  EXPECT_EQ(FieldIndicator("primary_z", annotated), "weight_for_length");
  Json described = {{"type", "number"}, {"description", "BMI-for-age z-score (CDC 2000)"}};
  EXPECT_EQ(FieldIndicator("primary_z", described), "bmi_for_age");
  Json two = {{"type", "number"}, {"description", "weight-for-length, or BMI-for-age after 2 years"}};
  EXPECT_EQ(FieldIndicator("primary_z", two), "");  // two indicators: not explicit
}

TEST(IndicatorFieldFamilyTest, NoFieldEverHoldsAnotherIndicatorsValue) {
  // Findings with one indicator each time; every other indicator's field must stay null.
  for (const char* have : kIndicators) {
    ExtractionFindings f;
    f.population = "pediatric";
    f.malnutrition = false;
    f.severity = "none";
    f.zscores.push_back({have, -2.5, true, 0.6, "computed", "", ""});
    Json out = FillSchema(SetSchema(), f);
    for (const char* field : kIndicators) {
      const Json& v = out[std::string(field) + "_z"];
      if (std::string(field) == have) {
        EXPECT_DOUBLE_EQ(v.get<double>(), -2.5) << field;
      } else {
        EXPECT_TRUE(v.is_null()) << field << " holds " << have << "'s value";
      }
    }
  }
  // A field naming no indicator is never filled with "the worst" one.
  ExtractionFindings f;
  f.zscores.push_back({"weight_for_length", -3.2, true, std::nullopt, "computed", "", ""});
  Json out = FillSchema(Json::parse(R"({"type":"object","properties":{"z_score":{"type":["number","null"]}},
                                        "required":["z_score"]})"),
                        f);
  EXPECT_TRUE(out["z_score"].is_null());
}

TEST(IndicatorFieldFamilyTest, TheRightReferenceAndMeasureForTheAge) {
  // 9 months, lying: weight-for-length (WHO); the weight_for_height and bmi fields asked of an infant are
  // not filled with weight-for-length's number.
  Json infant = Extract("Infant, 9 months, female. Weight 6.4 kg, length 70 cm.");
  EXPECT_NEAR(infant["weight_for_length_z"].get<double>(), -2.81, 0.011);
  EXPECT_TRUE(infant["weight_for_height_z"].is_null());
  EXPECT_TRUE(infant["height_for_age_z"].is_null());
  EXPECT_NEAR(infant["length_for_age_z"].get<double>(), -0.06, 0.011);
  // 38 months, standing: BMI-for-age, height-for-age and weight-for-height (CDC); no weight-for-length.
  Json child = Extract("3 year 2 month old girl. Wt 11.1 kg, Ht 94.5 cm.");
  EXPECT_NEAR(child["bmi_for_age_z"].get<double>(), -3.83, 0.011);
  EXPECT_NEAR(child["height_for_age_z"].get<double>(), -0.15, 0.011);
  EXPECT_NEAR(child["weight_for_height_z"].get<double>(), -3.66, 0.011);
  EXPECT_TRUE(child["weight_for_length_z"].is_null());
  EXPECT_TRUE(child["length_for_age_z"].is_null());
  EXPECT_EQ(child["population"], "pediatric");
}

// ---- implausible values for every indicator are flagged, never graded ---------------------

TEST(ImplausibleFamilyTest, EveryIndicatorsImplausibleValueIsFlagged) {
  const char* const notes[] = {
      // weight-for-age and weight-for-length far too high (a unit slip: 25 kg for 2.5 kg)
      "Infant, 2 months, girl. Weight 25 kg, length 55 cm.",
      // length-for-age: 95 cm at 3 months
      "3 month old boy, weight 6 kg, length 95 cm.",
      // BMI-for-age: a stated BMI of 10.9 at 7 years (CDC modified z < -4)
      "A 7-year-old boy with BMI 10.9.",
      // height-for-age: 60 cm at 10 years
      "10 yo girl, weight 30 kg, height 60 cm.",
      // head circumference: 60 cm at 6 months
      "6 month old girl, weight 7.3 kg, length 66 cm, head circumference 60 cm.",
      // weight-for-height: 40 kg at 100 cm, 4 years
      "A 4-year-old boy, weight 40 kg, height 100 cm.",
      // impossible: 7,000 kg, 9.5 cm
      "12-month-old boy weighs 7000 kg, length 75 cm.",
      "A 3-year-old boy, weight 14 kg, height 9.5 cm.",
      // stated z-scores beyond the WHO cut-offs
      "5 yo girl. BMI-for-age z-score -7.2.",
      "2 year old boy, WHZ +6.1.",
  };
  for (const char* note : notes) {
    Json e = Extract(note);
    EXPECT_EQ(e["severity"], "indeterminate") << note;
    EXPECT_TRUE(e["malnutrition_present"].is_null()) << note;
    ASSERT_TRUE(e["implausible_values"].is_array()) << note << DumpJson(e, 2);
    EXPECT_FALSE(e["implausible_values"].empty()) << note;
    EXPECT_THAT(e["rationale"].get<std::string>(), ::testing::Not(HasSubstr("within the reference range"))) << note;
  }
}

TEST(ImplausibleFamilyTest, NoAgeDecidesNothingAndNeverAssumesAnAdult) {
  for (const char* note : {"Seen for a weight check. Weight 12 kg, height 90 cm.", "Follow-up. BMI 17. Eating poorly.",
                           "Toddler, weight 10 kg, length 80 cm.", "Woman with heart failure, BMI 21.0."}) {
    Json e = Extract(note);
    EXPECT_EQ(e["severity"], "indeterminate") << note;
    EXPECT_NE(e["rationale"].get<std::string>().find("GLIM criteria not met"), 0u) << note;
  }
}

// ---- the held-out set ------------------------------------------------------------------------

struct Scored {
  int total = 0;
  int right = 0;
  int false_reassurance = 0;  // "no malnutrition" where the reference is positive
  std::vector<std::string> misses;
};

TEST(ClinicalNotesSetTest, ReferenceValuesAreTheGrowthCalculatorsAtTheTrueAge) {
  auto functions = MedicalFunctions::Create();
  ASSERT_TRUE(functions.ok());
  const Json set = Json::parse(ReadSource("tests/fixtures/clinical/notes_set.json"));
  int checked = 0;
  for (const Json& n : set["notes"]) {
    if (n["reference_z"].empty()) continue;
    const Json& truth = n["truth"];
    const bool age_known = truth["age_months"].is_number();
    const double age = age_known ? truth["age_months"].get<double>() : 0;
    const std::string reference = !age_known || age < 24 ? "who" : "cdc";
    for (const auto& [indicator, expected] : n["reference_z"].items()) {
      Json args = {{"reference", reference}, {"indicator", indicator}, {"sex", truth["sex"]}};
      const double w = truth["weight_kg"].get<double>(), h = truth["stature_cm"].get<double>();
      if (indicator == "weight_for_length") args.update({{"length_cm", h}, {"value", w}});
      else if (indicator == "weight_for_height") args.update({{"height_cm", h}, {"value", w}});
      else if (indicator == "weight_for_age") args.update({{"age_months", age}, {"value", w}});
      else if (indicator == "head_circumference_for_age")
        args.update({{"age_months", age}, {"value", truth["head_circumference_cm"].get<double>()}});
      else if (indicator == "bmi_for_age") args.update({{"age_months", age}, {"value", std::round(w / std::pow(h / 100, 2) * 100) / 100}});
      else {
        // length or height for age, as measured
        const bool lying = truth["measure"] == "length";
        args.update({{"indicator", lying ? "length_for_age" : "height_for_age"}, {"age_months", age}, {"value", h}});
      }
      ToolResult r = functions.value()->registry().Execute(ToolCall{"t", "growth_zscore", DumpJson(args)}, ToolContext{});
      ASSERT_TRUE(r.ok) << n["id"] << " " << r.content;
      EXPECT_NEAR(ParseJson(r.content)->at("z").get<double>(), expected.get<double>(), 0.006) << n["id"] << " " << indicator;
      ++checked;
    }
  }
  EXPECT_GT(checked, 60);
}

TEST(ClinicalNotesSetTest, PlannerDecisionsOnTheHeldOutNotes) {
  const Json set = Json::parse(ReadSource("tests/fixtures/clinical/notes_set.json"));
  Scored score;
  int pediatric = 0, adult = 0;
  for (const Json& n : set["notes"]) {
    const std::string id = n["id"];
    const Json& expected = n["expected"];
    const Json e = Extract(n["note"].get<std::string>());
    ++score.total;
    (expected["population"] == "adult" ? adult : pediatric) += 1;
    // Safety properties: these never fail quietly.
    // 1. No child judged by adult criteria (and no adult by children's).
    if (expected["population"] == "pediatric") {
      EXPECT_NE(e["population"], "adult") << id;
    }
    if (expected["population"] == "unknown") {
      EXPECT_EQ(e["population"], "unknown") << id;
    }
    // 2. No field holding another indicator's value: each is the reference value or null.
    for (const char* indicator : kIndicators) {
      const Json& v = e[std::string(indicator) + "_z"];
      if (n["reference_z"].contains(indicator)) {
        ASSERT_TRUE(v.is_number()) << id << " " << indicator << " not filled";
        EXPECT_NEAR(v.get<double>(), n["reference_z"][indicator].get<double>(), 0.011) << id << " " << indicator;
      } else if (expected["population"] == "pediatric" && !expected["flagged"].get<bool>()) {
        EXPECT_TRUE(v.is_null()) << id << " " << indicator << " = " << v;
      }
    }
    // 3. No implausible value called normal.
    if (expected["flagged"].get<bool>()) {
      EXPECT_EQ(e["severity"], "indeterminate") << id;
      EXPECT_TRUE(e.contains("implausible_values") && !e["implausible_values"].empty()) << id;
    }
    // 4. No diagnosis where no decision can be made (a neonate, no age, an implausible value).
    if (expected["decision"] == "indeterminate") {
      EXPECT_TRUE(e["malnutrition_present"].is_null()) << id << " malnutrition_present = " << e["malnutrition_present"];
    }
    const std::string got = e.value("severity", std::string("?"));
    // 5. No false reassurance: never "no malnutrition" where the reference is positive (issue 24).
    const std::string want = expected["decision"];
    if (want == "mild" || want == "moderate" || want == "severe") {
      if (e["malnutrition_present"] == false) ++score.false_reassurance;
      EXPECT_NE(e["malnutrition_present"], false) << id << " false reassurance";
    }
    if (got == expected["decision"]) {
      ++score.right;
    } else {
      score.misses.push_back(id + ": expected " + expected["decision"].get<std::string>() + ", got " + got + " — " +
                             e.value("rationale", std::string()).substr(0, 300));
    }
  }
  const double percent = 100.0 * score.right / score.total;
  std::printf("notes set: %d/%d decisions right (%.1f %%), %d false reassurance, %d pediatric/unknown, %d adult\n",
              score.right, score.total, percent, score.false_reassurance, pediatric, adult);
  for (const std::string& miss : score.misses) std::printf("  miss %s\n", miss.c_str());
  EXPECT_GE(pediatric, 30);
  EXPECT_GE(score.total, 30);
  EXPECT_GE(percent, 95.0);
  EXPECT_EQ(score.false_reassurance, 0);
}

// Issue 24's held-out part (tests/fixtures/clinical/notes_heldout.json): written before the code it tests
// and scored once at the end; its first score is in docs/clinical-validation.md. Decisions only (no
// reference z-scores), the same safety properties for the decision: no false reassurance, no adult
// criteria for a child, no diagnosis where the reference is indeterminate.
TEST(ClinicalNotesHeldOutTest, PlannerDecisionsOnTheHeldOutPart) {
  const Json set = Json::parse(ReadSource("tests/fixtures/clinical/notes_heldout.json"));
  Scored score;
  for (const Json& n : set["notes"]) {
    const std::string id = n["id"];
    const Json& expected = n["expected"];
    const Json e = Extract(n["note"].get<std::string>());
    ++score.total;
    if (expected["population"] == "pediatric") {
      EXPECT_NE(e["population"], "adult") << id;
    }
    const std::string want = expected["decision"];
    if ((want == "mild" || want == "moderate" || want == "severe") && e["malnutrition_present"] == false) {
      ++score.false_reassurance;
    }
    const std::string got = e.value("severity", std::string("?"));
    if (got == want) {
      ++score.right;
    } else {
      score.misses.push_back(id + " (" + n.value("family", std::string()) + "): expected " + want + ", got " + got);
    }
  }
  std::printf("held-out notes: %d/%d decisions right (%.1f %%), %d false reassurance\n", score.right, score.total,
              100.0 * score.right / score.total, score.false_reassurance);
  for (const std::string& miss : score.misses) std::printf("  miss %s\n", miss.c_str());
  EXPECT_GE(score.total, 12);
  EXPECT_EQ(score.false_reassurance, 0);
  // First run 15/16 (docs/clinical-validation.md); since then part of the regression run.
  EXPECT_GE(100.0 * score.right / score.total, 95.0);
}

}  // namespace
}  // namespace medreact

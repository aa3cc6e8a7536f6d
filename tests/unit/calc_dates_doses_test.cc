// Tests for the pregnancy-dating and dose-conversion calculators
// (calc_dates_doses.cc): each against a value worked by hand from the source
// and against MedCalc-Bench rows (inputs transcribed from test_data.csv).
// Rows where the benchmark departs from the published rule are tested
// against the rule, with the benchmark's answer in a comment.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>

#include "testing/calc_helpers.h"
#include "tools/calc/calculator.h"

namespace medreact::calc {
namespace {

using ::testing::HasSubstr;
using namespace ::medreact::calc::test_util;  // RunCalc, Value, Text, Error, Q

TEST(CalcDatesDosesTest, RegisteredWithMedcalcIds) {
  const std::vector<std::pair<std::string, int>> expected = {{"estimated_due_date", 13},
                                                             {"steroid_conversion", 24},
                                                             {"morphine_milligram_equivalents", 49},
                                                             {"estimated_conception_date", 68},
                                                             {"estimated_gestational_age", 69}};
  for (const auto& [name, id] : expected) {
    const Calculator* c = FindCalculatorByMedcalcId(id);
    ASSERT_NE(c, nullptr) << id;
    EXPECT_EQ(c->name, name);
  }
}

TEST(CalcDatesDosesTest, DueDate) {
  // Naegele by hand: 2024-01-01 + 280 days = 2024-10-07 (28-day cycle, the default).
  EXPECT_EQ(Text("estimated_due_date", {{"last_menstrual_period", "2024-01-01"}}), "2024-10-07");
  // MedCalc-Bench rows 933 (28-day cycle) and 939 (30-day cycle: + 2 days), dates as MM/DD/YYYY.
  EXPECT_EQ(Text("estimated_due_date", {{"last_menstrual_period", "02/03/2012"}, {"cycle_length", 28}}), "2012-11-09");
  EXPECT_EQ(Text("estimated_due_date", {{"last_menstrual_period", "06/12/2005"}, {"cycle_length", 30}}), "2006-03-21");
  // A shorter cycle moves the date earlier: row 928 (22-day cycle) → 2014-09-17 - 6 days = 2014-09-11. The
  // benchmark adds the 6 days (answer 2014-09-23) for every cycle shorter than 28; see docs/medcalc.md.
  Result<Json> r = RunCalc("estimated_due_date", {{"last_menstrual_period", "12/11/2013"}, {"cycle_length", 22}});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ((*r)["value"], "2014-09-11");
  EXPECT_EQ((*r)["terms"]["cycle_adjustment_days"], -6);
  EXPECT_THAT(Error("estimated_due_date", {{"cycle_length", 28}}),
              HasSubstr("missing required input: last_menstrual_period"));
  EXPECT_THAT(Error("estimated_due_date", {{"last_menstrual_period", "2024-02-30"}}), HasSubstr("expected a date"));
}

TEST(CalcDatesDosesTest, ConceptionDate) {
  // 28-day cycle: LMP + 14 days.
  EXPECT_EQ(Text("estimated_conception_date", {{"last_menstrual_period", "2024-01-01"}}), "2024-01-15");
  // MedCalc-Bench rows 1008 and 1009 always add 14 days (method lmp_plus_14 reproduces them).
  EXPECT_EQ(Text("estimated_conception_date",
                 {{"last_menstrual_period", "12/17/2009"}, {"cycle_length", 21}, {"method", "lmp_plus_14"}}),
            "2009-12-31");
  EXPECT_EQ(Text("estimated_conception_date",
                 {{"last_menstrual_period", "11/11/2013"}, {"cycle_length", 24}, {"method", "lmp_plus_14"}}),
            "2013-11-25");
  // Default, cycle-adjusted (ovulation 14 days before the next menses): 24-day cycle → LMP + 10 days.
  EXPECT_EQ(Text("estimated_conception_date", {{"last_menstrual_period", "11/11/2013"}, {"cycle_length", 24}}),
            "2013-11-21");
}

TEST(CalcDatesDosesTest, GestationalAge) {
  // By hand: 2024-01-01 → 2024-03-11 is 70 days = 10 weeks 0 days.
  Result<Json> r =
      RunCalc("estimated_gestational_age", {{"last_menstrual_period", "2024-01-01"}, {"current_date", "2024-03-11"}});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ((*r)["value"], "(10 weeks, 0 days)");
  EXPECT_EQ((*r)["terms"]["weeks"], 10);
  EXPECT_EQ((*r)["terms"]["days"], 0);
  // MedCalc-Bench rows 1028 ('0 weeks', '6 days') and 1029 ('14 weeks', '1 days').
  EXPECT_EQ(
      Text("estimated_gestational_age", {{"current_date", "03/29/2020"}, {"last_menstrual_period", "03/23/2020"}}),
      "(0 weeks, 6 days)");
  EXPECT_EQ(
      Text("estimated_gestational_age", {{"current_date", "05/23/2024"}, {"last_menstrual_period", "02/14/2024"}}),
      "(14 weeks, 1 days)");
  EXPECT_THAT(
      Error("estimated_gestational_age", {{"current_date", "2020-01-01"}, {"last_menstrual_period", "2020-02-01"}}),
      HasSubstr("before"));
}

TEST(CalcDatesDosesTest, SteroidConversion) {
  // Equivalence table (prednisone 5 = dexamethasone 0.75 = hydrocortisone 20): prednisone 10 mg → dexamethasone
  // 1.5 mg; hydrocortisone 20 mg → prednisone 5 mg.
  EXPECT_NEAR(
      Value("steroid_conversion", {{"from_steroid", "prednisone"}, {"dose", 10}, {"to_steroid", "dexamethasone"}}), 1.5,
      1e-12);
  EXPECT_NEAR(Value("steroid_conversion",
                    {{"from_steroid", "Hydrocortisone IV"}, {"dose", 20}, {"to_steroid", "prednisone po"}}),
              5, 1e-12);
  // MedCalc-Bench rows 948 (53.093 with the factor rounded to 6.67; 7.96 x 5/0.75 = 53.067) and 949 (6.029; the
  // benchmark truncates 0.0375 to 0.037 — ours 6.110 is inside its limits 5.728-6.330).
  EXPECT_NEAR(Value("steroid_conversion",
                    {{"from_steroid", "Dexamethasone PO"}, {"dose", Q(7.96, "mg")}, {"to_steroid", "PrednisoLONE PO"}}),
              53.093, 0.03);
  EXPECT_NEAR(Value("steroid_conversion",
                    {{"from_steroid", "Hydrocortisone PO"}, {"dose", 162.935}, {"to_steroid", "Dexamethasone PO"}}),
              6.029, 0.1);
  // Units: 4000 µg of dexamethasone = 4 mg → methylprednisolone 21.33 mg.
  EXPECT_NEAR(
      Value("steroid_conversion",
            {{"from_steroid", "dexamethasone"}, {"dose", Q(4000, "mcg")}, {"to_steroid", "methylprednisolone"}}),
      4 * 4 / 0.75, 1e-9);
  EXPECT_THAT(
      Error("steroid_conversion", {{"from_steroid", "fludrocortisone"}, {"dose", 1}, {"to_steroid", "prednisone"}}),
      HasSubstr("from_steroid: expected one of"));
}

TEST(CalcDatesDosesTest, MorphineEquivalents) {
  // CDC 2022 factors by hand: oxycodone 10 mg x 4/day x 1.5 = 60; fentanyl patch 25 µg/h x 2.4 = 60.
  EXPECT_NEAR(Value("morphine_milligram_equivalents", {{"oxycodone_dose", 10}, {"oxycodone_doses_per_day", 4}}), 60,
              1e-9);
  EXPECT_NEAR(Value("morphine_milligram_equivalents", {{"fentanyl_patch_dose", Q(25, "mcg/hr")}}), 60, 1e-9);
  // MedCalc-Bench row 988: tapentadol 50 x 1 x 0.4 + tramadol 50 x 1 x 0.2 + buccal fentanyl 20 µg x 2 x 0.13 = 35.2.
  EXPECT_NEAR(Value("morphine_milligram_equivalents", {{"tapentadol_dose", Q(50, "mg")},
                                                       {"tapentadol_doses_per_day", Q(1, "per day")},
                                                       {"tramadol_dose", Q(50, "mg")},
                                                       {"tramadol_doses_per_day", Q(1, "per day")},
                                                       {"fentanyl_buccal_dose", Q(20, "µg")},
                                                       {"fentanyl_buccal_doses_per_day", Q(2, "per day")}}),
              35.2, 1e-9);
  // Row 989: methadone 30 x 2 x 4.7 + buccal fentanyl 40 µg x 0.13 + hydrocodone 60 x 3 = 467.2.
  EXPECT_NEAR(Value("morphine_milligram_equivalents", {{"methadone_dose", 30},
                                                       {"methadone_doses_per_day", 2},
                                                       {"fentanyl_buccal_dose", Q(40, "µg")},
                                                       {"fentanyl_buccal_doses_per_day", 1},
                                                       {"hydrocodone_dose", 60},
                                                       {"hydrocodone_doses_per_day", 3}}),
              467.2, 1e-9);
  // CDC 2016 option: methadone 30 mg/day is in the 21-40 mg tier (x 8); tramadol x 0.1.
  EXPECT_NEAR(Value("morphine_milligram_equivalents", {{"methadone_dose", 15},
                                                       {"methadone_doses_per_day", 2},
                                                       {"tramadol_dose", 50},
                                                       {"tramadol_doses_per_day", 2},
                                                       {"guideline", "cdc_2016"}}),
              240 + 10, 1e-9);
  // The benchmark writes patch strengths in 'mg'; a patch is labelled in µg/h, so that is refused.
  EXPECT_THAT(Error("morphine_milligram_equivalents", {{"fentanyl_patch_dose", Q(50, "mg")}}),
              HasSubstr("unit 'mg' is not accepted"));
  EXPECT_THAT(Error("morphine_milligram_equivalents", {{"morphine_dose", 10}}),
              HasSubstr("missing required input: morphine_doses_per_day"));
  EXPECT_THAT(Error("morphine_milligram_equivalents", Json::object()), HasSubstr("no opioid given"));
}

}  // namespace
}  // namespace medreact::calc

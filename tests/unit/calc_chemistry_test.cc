// Tests for the chemistry calculators (calc_chemistry.cc): each against a
// value worked by hand from the published formula and against MedCalc-Bench
// rows (inputs transcribed from test_data.csv; expected = the row's Ground
// Truth Answer within its limits). Rows where the benchmark departs from the
// published formula are tested against the formula, with the benchmark's
// value in a comment (see docs/medcalc.md).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>

#include "testing/calc_helpers.h"
#include "tools/calc/calculator.h"

namespace medreact::calc {
namespace {

using ::testing::HasSubstr;
using namespace ::medreact::calc::test_util;  // RunCalc, Value, Text, Error, Q

Json Lytes(double na, double cl, double hco3) { return {{"sodium", na}, {"chloride", cl}, {"bicarbonate", hco3}}; }
Json Lytes(double na, double cl, double hco3, double albumin) {
  Json j = Lytes(na, cl, hco3);
  j["albumin"] = albumin;
  return j;
}

TEST(CalcChemistryTest, RegisteredWithMedcalcIds) {
  const std::vector<std::pair<std::string, int>> expected = {{"calcium_correction_albumin", 7},
                                                             {"fib4_index", 19},
                                                             {"meld_na", 23},
                                                             {"sodium_correction_hyperglycemia", 26},
                                                             {"serum_osmolality", 30},
                                                             {"homa_ir", 31},
                                                             {"free_water_deficit", 38},
                                                             {"anion_gap", 39},
                                                             {"ldl_friedewald", 44},
                                                             {"delta_gap", 63},
                                                             {"delta_ratio", 64},
                                                             {"albumin_corrected_anion_gap", 65},
                                                             {"albumin_corrected_delta_gap", 66},
                                                             {"albumin_corrected_delta_ratio", 67}};
  for (const auto& [name, id] : expected) {
    const Calculator* c = FindCalculatorByMedcalcId(id);
    ASSERT_NE(c, nullptr) << id;
    EXPECT_EQ(c->name, name);
  }
}

TEST(CalcChemistryTest, CalciumCorrection) {
  // Payne 1973: Ca 8.0 mg/dL, albumin 2.0 g/dL → 8.0 + 0.8 x 2 = 9.6 mg/dL.
  EXPECT_NEAR(Value("calcium_correction_albumin", {{"calcium", 8.0}, {"albumin", 2.0}}), 9.6, 1e-9);
  // MedCalc-Bench rows 101 (9.32) and 102 (8.56).
  EXPECT_NEAR(Value("calcium_correction_albumin", {{"calcium", 8.6}, {"albumin", 3.1}}), 9.32, 1e-9);
  EXPECT_NEAR(Value("calcium_correction_albumin", {{"calcium", 7.6}, {"albumin", 2.8}}), 8.56, 1e-9);
  // SI units: 2.0 mmol/L = 8.016 mg/dL; 30 g/L = 3.0 g/dL → 8.816. (Benchmark rows 114 and 117 round the
  // moles to 3 decimals before converting, e.g. 2.26 mmol/L → 8.0 mg/dL, and disagree; see docs/medcalc.md.)
  EXPECT_NEAR(Value("calcium_correction_albumin", {{"calcium", Q(2.0, "mmol/L")}, {"albumin", Q(30, "g/L")}}), 8.816,
              1e-9);
}

TEST(CalcChemistryTest, Fib4) {
  // Sterling 2006 formula by hand: 50 y, AST 40, ALT 25, platelets 200 → 2000 / (200 x 5) = 2.0.
  EXPECT_NEAR(Value("fib4_index", {{"age", 50}, {"ast", 40}, {"alt", 25}, {"platelets", 200}}), 2.0, 1e-12);
  // MedCalc-Bench rows 281 (1.115) and 283 (1.76): platelets as a count per µL.
  EXPECT_NEAR(
      Value("fib4_index",
            {{"age", Q(36, "years")}, {"alt", Q(30, "U/L")}, {"ast", Q(28, "U/L")}, {"platelets", Q(165000, "µL")}}),
      1.115, 0.001);
  EXPECT_NEAR(Value("fib4_index", {{"age", 49}, {"ast", 156}, {"alt", 317}, {"platelets", Q(244000, "µL")}}), 1.76,
              0.001);
  // Row 298: platelets as a count per L (unit 'L') → 147 x 10^9/L: 6.973.
  EXPECT_NEAR(Value("fib4_index", {{"age", 64}, {"ast", 92}, {"alt", 33}, {"platelets", Q(147000000000.0, "L")}}),
              6.973, 0.001);
}

TEST(CalcChemistryTest, MeldNa) {
  // OPTN rules by hand: Cr 2.0, bilirubin 3.0, INR 1.5, Na 130 → MELD(i) 2.1757 → 2.2 → 22;
  // 22 + 1.32 x 7 - 0.033 x 22 x 7 = 26.158 → 26.
  Result<Json> r = RunCalc("meld_na", {{"creatinine", 2.0}, {"bilirubin", 3.0}, {"inr", 1.5}, {"sodium", 130}});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ((*r)["value"].get<double>(), 26);
  EXPECT_NEAR((*r)["terms"]["meld_i"].get<double>(), 22, 1e-9);
  // Lower bounds: everything normal gives the floor, 0.643 → 6.
  EXPECT_EQ(Value("meld_na", {{"creatinine", 0.7}, {"bilirubin", 0.4}, {"inr", 0.9}, {"sodium", 140}}), 6);
  // MedCalc-Bench row 344 (22, limits 20.9-23.1): dialysis sets Cr to 4.0 → MELD(i) 21 → 22.88 → 23.
  EXPECT_EQ(Value("meld_na", {{"creatinine", Q(10.48, "mg/dL")},
                              {"cvvhd_24h_past_week", true},
                              {"dialysis_twice_past_week", true},
                              {"inr", 1.1},
                              {"sodium", Q(134, "mEq/L")},
                              {"bilirubin", Q(1.14, "mg/dL")}}),
            23);
  // MedCalc-Bench row 343: OPTN gives 23 (0.957 ln 3.16 + 0.378 ln 2.11 + 1.120 ln 1.26 + 0.643 = 2.285 → 2.3
  // → 23). The benchmark rounds MELD(i) to an integer before x 10 and answers 20; we follow OPTN.
  EXPECT_EQ(Value("meld_na", {{"creatinine", 3.16}, {"bilirubin", 2.11}, {"inr", 1.26}, {"sodium", 137}}), 23);
  // Row 342 (benchmark 30): dialysis → Cr 4.0, Na capped at 137 → MELD(i) 2.607 → 26.
  EXPECT_EQ(Value("meld_na", {{"creatinine", 4.9},
                              {"cvvhd_24h_past_week", true},
                              {"dialysis_twice_past_week", true},
                              {"inr", 1.71},
                              {"sodium", 172},
                              {"bilirubin", 1.1}}),
            26);
  EXPECT_THAT(Error("meld_na", {{"creatinine", 1.0}}), HasSubstr("missing required inputs: bilirubin, inr, sodium"));
}

TEST(CalcChemistryTest, SodiumCorrection) {
  // Hillier 1999 (2.4 per 100 mg/dL): Na 130, glucose 500 → 139.6; Katz 1973 (1.6): 136.4.
  EXPECT_NEAR(Value("sodium_correction_hyperglycemia", {{"sodium", 130}, {"glucose", 500}}), 139.6, 1e-9);
  EXPECT_NEAR(Value("sodium_correction_hyperglycemia", {{"sodium", 130}, {"glucose", 500}, {"method", "katz"}}), 136.4,
              1e-9);
  // MedCalc-Bench rows 366 (133.28) and 367 (137.84).
  EXPECT_NEAR(Value("sodium_correction_hyperglycemia", {{"sodium", Q(134, "mEq/L")}, {"glucose", Q(70, "mg/dL")}}),
              133.28, 1e-9);
  EXPECT_NEAR(Value("sodium_correction_hyperglycemia", {{"sodium", 116}, {"glucose", 1010}}), 137.84, 1e-9);
  // Glucose in mmol/L: 27.75 mmol/L = 499.94 mg/dL.
  EXPECT_NEAR(Value("sodium_correction_hyperglycemia", {{"sodium", 130}, {"glucose", Q(27.75, "mmol/L")}}), 139.6,
              0.01);
}

TEST(CalcChemistryTest, SerumOsmolality) {
  // Dorwart 1975 by hand: 2 x 140 + 14/2.8 + 90/18 = 290.
  EXPECT_NEAR(Value("serum_osmolality", {{"sodium", 140}, {"bun", 14}, {"glucose", 90}}), 290, 1e-9);
  // MedCalc-Bench rows 406 (332.675) and 409 (all SI: 280.006).
  EXPECT_NEAR(Value("serum_osmolality", {{"sodium", Q(129, "mmol/L")}, {"bun", 40}, {"glucose", 1087}}), 332.675,
              0.001);
  EXPECT_NEAR(Value("serum_osmolality",
                    {{"sodium", Q(131, "mmol/L")}, {"bun", Q(11.4, "mmol/L")}, {"glucose", Q(6.6, "mmol/L")}}),
              280.006, 0.05);
}

TEST(CalcChemistryTest, HomaIr) {
  // Matthews 1985: glucose 5 mmol/L x insulin 4.5 µU/mL / 22.5 = 1.0 (5 mmol/L = 90.08 mg/dL here).
  EXPECT_NEAR(Value("homa_ir", {{"glucose", Q(5, "mmol/L")}, {"insulin", 4.5}}), 1.0, 0.001);
  // MedCalc-Bench row 426 (1.956), the only row of this calculator in the public set.
  EXPECT_NEAR(Value("homa_ir", {{"glucose", 165}, {"insulin", Q(4.8, "µIU/mL")}}), 1.956, 0.001);
  // Insulin in pmol/L: 28.8 pmol/L = 4.8 µIU/mL.
  EXPECT_NEAR(Value("homa_ir", {{"glucose", 165}, {"insulin", Q(28.8, "pmol/L")}}), 1.956, 0.001);
}

TEST(CalcChemistryTest, FreeWaterDeficit) {
  // Adrogue & Madias 2000: 70-kg man, 40 y, Na 160 → 0.6 x 70 x (160/140 - 1) = 6.0 L;
  // 70-y woman, 50 kg, Na 150 → 0.45 x 50 x (150/140 - 1) = 1.607 L.
  EXPECT_NEAR(Value("free_water_deficit", {{"age", 40}, {"sex", "male"}, {"weight", 70}, {"sodium", 160}}), 6.0, 1e-9);
  EXPECT_NEAR(Value("free_water_deficit", {{"age", 70}, {"sex", "female"}, {"weight", 50}, {"sodium", 150}}), 1.6071,
              0.0001);
  // MedCalc-Bench rows 467 (weight in lbs: -0.828), 469 (child: -0.372) and 473 (17 months: -0.0943).
  EXPECT_NEAR(
      Value("free_water_deficit",
            {{"age", Q(23, "years")}, {"weight", Q(142, "lbs")}, {"sex", "Male"}, {"sodium", Q(137, "mmol/L")}}),
      -0.828, 0.002);
  EXPECT_NEAR(Value("free_water_deficit", {{"sex", "Female"}, {"age", 14}, {"weight", 43.4}, {"sodium", 138}}), -0.372,
              0.001);
  EXPECT_NEAR(
      Value("free_water_deficit", {{"age", Q(17, "months")}, {"weight", 2.0}, {"sex", "Female"}, {"sodium", 129}}),
      -0.0943, 0.0001);
}

TEST(CalcChemistryTest, AnionGapFamily) {
  // Hand-computed: 140 - (104 + 24) = 12; delta gap 0.
  EXPECT_NEAR(Value("anion_gap", Lytes(140, 104, 24)), 12, 1e-12);
  // MedCalc-Bench rows 487 (15) and 491 (39.2).
  EXPECT_NEAR(Value("anion_gap",
                    {{"sodium", Q(139, "mmol/L")}, {"chloride", Q(104, "mmol/L")}, {"bicarbonate", Q(20, "mmol/L")}}),
              15, 1e-12);
  EXPECT_NEAR(Value("anion_gap", Lytes(144, 99, 5.8)), 39.2, 1e-9);
  // Delta gap: rows 728 (14.4) and 729 (-6).
  EXPECT_NEAR(Value("delta_gap", Lytes(139, 108, 4.6)), 14.4, 1e-9);
  EXPECT_NEAR(Value("delta_gap", Lytes(141, 106, 29)), -6, 1e-9);
  // Delta ratio: rows 748 (1.238) and 749 (0.881).
  EXPECT_NEAR(Value("delta_ratio", Lytes(139, 104, 28.2)), 1.238, 0.001);
  EXPECT_NEAR(Value("delta_ratio", Lytes(134, 100, 7.2)), 0.881, 0.001);
  EXPECT_THAT(Error("delta_ratio", Lytes(140, 100, 24)), HasSubstr("denominator"));
  // Figge 1998 albumin correction by hand: AG 12 with albumin 2.0 → 12 + 2.5 x 2 = 17.
  EXPECT_NEAR(Value("albumin_corrected_anion_gap", Lytes(140, 104, 24, 2.0)), 17, 1e-12);
  // Rows 768 (19.25) and 771 (24.5).
  EXPECT_NEAR(Value("albumin_corrected_anion_gap", Lytes(174, 135, 18.5, 4.5)), 19.25, 1e-9);
  EXPECT_NEAR(Value("albumin_corrected_anion_gap", Lytes(138, 102, 15, 2.6)), 24.5, 1e-9);
  // Albumin in g/L: 20 g/L = 2.0 g/dL.
  Json si = Lytes(140, 104, 24);
  si["albumin"] = Q(20, "g/L");
  EXPECT_NEAR(Value("albumin_corrected_anion_gap", si), 17, 1e-12);
  // Albumin-corrected delta gap: rows 788 (-1.25) and 789 (2).
  EXPECT_NEAR(Value("albumin_corrected_delta_gap", Lytes(125, 87, 28, 3.7)), -1.25, 1e-9);
  EXPECT_NEAR(Value("albumin_corrected_delta_gap", Lytes(135, 110, 18, 1.2)), 2, 1e-9);
  // Albumin-corrected delta ratio: rows 808 (-0.197) and 811 (1.048).
  EXPECT_NEAR(Value("albumin_corrected_delta_ratio", Lytes(137, 116, 12.1, 3.7)), -0.197, 0.001);
  EXPECT_NEAR(Value("albumin_corrected_delta_ratio", Lytes(130, 92, 45, 5.2)), 1.048, 0.001);
  // Missing inputs are named; an implausible albumin (g/L given as g/dL) is caught.
  EXPECT_THAT(Error("anion_gap", {{"sodium", 140}}), HasSubstr("missing required inputs: chloride, bicarbonate"));
  EXPECT_THAT(Error("albumin_corrected_anion_gap", Lytes(136, 101, 5, 17.1)), HasSubstr("check the unit"));
}

TEST(CalcChemistryTest, LdlFriedewald) {
  // Friedewald 1972 by hand: 200 - 50 - 150/5 = 120 mg/dL.
  EXPECT_NEAR(Value("ldl_friedewald", {{"total_cholesterol", 200}, {"hdl_cholesterol", 50}, {"triglycerides", 150}}),
              120, 1e-9);
  // MedCalc-Bench rows 512 (103.8) and 514 (153.6).
  EXPECT_NEAR(Value("ldl_friedewald", {{"total_cholesterol", 182}, {"hdl_cholesterol", 39}, {"triglycerides", 196}}),
              103.8, 1e-9);
  EXPECT_NEAR(Value("ldl_friedewald", {{"total_cholesterol", 210}, {"hdl_cholesterol", 37}, {"triglycerides", 97}}),
              153.6, 1e-9);
  // SI units: 5.0 - 1.2 - 1.5/2.2 mmol/L (the SI form of Friedewald) = 3.118 mmol/L = 120.6 mg/dL.
  Result<Json> r = RunCalc("ldl_friedewald", {{"total_cholesterol", Q(5.0, "mmol/L")},
                                              {"hdl_cholesterol", Q(1.2, "mmol/L")},
                                              {"triglycerides", Q(1.5, "mmol/L")}});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_NEAR((*r)["value"].get<double>(), 3.8 * 38.67 - 1.5 * 88.57 / 5, 1e-9);
  EXPECT_NEAR((*r)["terms"]["ldl_mmol_l"].get<double>(), 3.8 - 1.5 / 2.2, 0.01);
  // Triglycerides >= 400 mg/dL: flagged as invalid.
  r = RunCalc("ldl_friedewald", {{"total_cholesterol", 300}, {"hdl_cholesterol", 40}, {"triglycerides", 450}});
  ASSERT_TRUE(r.ok());
  EXPECT_THAT((*r)["interpretation"].get<std::string>(), HasSubstr("not valid"));
}

}  // namespace
}  // namespace medreact::calc

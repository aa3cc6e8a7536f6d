// Tests for the severity-score calculators (calc_severity.cc): each against a
// value worked by hand from the published score and against MedCalc-Bench rows
// (inputs transcribed from test_data.csv; the row number is given). Where the
// benchmark's ground truth departs from the published score, the test expects
// the published value and the comment says why (see docs/medcalc.md).
#include <cmath>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "testing/calc_helpers.h"
#include "tools/calc/calculator.h"

namespace medreact::calc {
namespace {

using ::testing::HasSubstr;
using namespace ::medreact::calc::test_util;  // RunCalc, Value, Text, Error, Q

TEST(CalcSeverityTest, AllRegisteredWithMedcalcIds) {
  for (int id : {15, 21, 28, 29, 43}) EXPECT_NE(FindCalculatorByMedcalcId(id), nullptr) << id;
}

TEST(CalcSeverityTest, ChildPugh) {
  // Hand-worked from Pugh 1973: bilirubin 1.5 (1), albumin 3.8 (1), INR 1.2 (1), no ascites (1), no
  // encephalopathy (1) → 5, class A; bilirubin 4, albumin 2.5, INR 2.5, moderate ascites, grade 3-4 → 15, class C.
  Result<Json> r = RunCalc("child_pugh", {{"bilirubin", 1.5}, {"albumin", 3.8}, {"inr", 1.2}, {"ascites", "absent"},
                                      {"encephalopathy", "none"}});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ((*r)["value"].get<double>(), 5);
  EXPECT_THAT((*r)["interpretation"].get<std::string>(), HasSubstr("class A"));
  EXPECT_EQ(Value("child_pugh", {{"bilirubin", 4}, {"albumin", 2.5}, {"inr", 2.5}, {"ascites", "moderate"},
                                 {"encephalopathy", "grade 3-4"}}),
            15);
  // Row 206: bilirubin 3.0 (2), albumin 3.4 (2), INR 1.3 (1), ascites absent (1), encephalopathy not recorded
  // (none, 1) → 7. Row 207: bilirubin 2.1 (2), albumin 3.2 (2), INR 1.7 (2), ascites not recorded (1), grade
  // 3-4 (3) → 10.
  EXPECT_EQ(Value("child_pugh", {{"bilirubin", {3.0, "mg/dL"}}, {"ascites", "absent"}, {"inr", 1.3},
                                 {"albumin", {3.4, "g/dL"}}}),
            7);
  EXPECT_EQ(Value("child_pugh", {{"bilirubin", {2.1, "mg/dL"}}, {"inr", 1.7}, {"albumin", {3.2, "g/dL"}},
                                 {"encephalopathy", "Grade 3-4"}}),
            10);
  // Row 201 by Pugh: INR 2.2 (2), bilirubin 13.3 (3), albumin 3.33 (2), moderate ascites (3), grade 1-2 (2) → 12.
  // The benchmark answers 9: its implementation leaves recorded ascites out of the sum.
  EXPECT_EQ(Value("child_pugh", {{"inr", 2.2}, {"ascites", "moderate"}, {"albumin", {3.33, "g/dL"}},
                                 {"encephalopathy", "Grade 1-2"}, {"bilirubin", {13.3, "mg/dL"}}}),
            12);
  // SI units: 51.3 µmol/L bilirubin = 3.0 mg/dL (2); 28 g/L albumin = 2.8 g/dL (2); INR 1.0, no ascites or
  // encephalopathy (1 each) → 7.
  EXPECT_EQ(Value("child_pugh", {{"bilirubin", {51.3, "µmol/L"}}, {"albumin", {28, "g/L"}}, {"inr", 1.0}}), 7);
  EXPECT_THAT(Error("child_pugh", {{"albumin", 3}}), HasSubstr("missing required inputs: bilirubin, inr"));
}

TEST(CalcSeverityTest, GlasgowComaScore) {
  // Teasdale & Jennett 1974: E4 V5 M6 = 15; E1 V1 M1 = 3.
  EXPECT_EQ(Value("glasgow_coma_score", {{"eye", "eyes open spontaneously"}, {"verbal", "oriented"},
                                         {"motor", "obeys commands"}}),
            15);
  EXPECT_EQ(Value("glasgow_coma_score", {{"eye", "no eye opening"}, {"verbal", "no verbal response"},
                                         {"motor", "no motor response"}}),
            3);
  // Rows 848 and 849 by Teasdale: E2 V3 M4 = 9 and E3 V4 M5 = 12. The benchmark answers 12 and 16: its
  // implementation adds the verbal response twice.
  EXPECT_EQ(Value("glasgow_coma_score", {{"eye", "eye opening to pain"}, {"verbal", "inappropriate words"},
                                         {"motor", "withdrawal from pain"}}),
            9);
  EXPECT_EQ(Value("glasgow_coma_score", {{"eye", "eye opening to verbal command"}, {"verbal", "confused"},
                                         {"motor", "localizes pain"}}),
            12);
  // Not testable: assumed normal and flagged (row 856: E1 VNT M1).
  Result<Json> r = RunCalc("glasgow_coma_score", {{"eye", "no eye opening"}, {"verbal", "not testable"},
                                              {"motor", "no motor response"}});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ((*r)["value"].get<double>(), 7);
  EXPECT_THAT((*r)["explanation"].get<std::string>(), HasSubstr("E1 VNT M1"));
  EXPECT_THAT((*r)["interpretation"].get<std::string>(), HasSubstr("not testable"));
  // A motor response that cannot be tested (e.g. paralysed) is accepted the same way: E4 V5 MNT = 15.
  Result<Json> motor = RunCalc("glasgow_coma_score", {{"eye", "eyes open spontaneously"}, {"verbal", "oriented"},
                                                  {"motor", "not testable"}});
  ASSERT_TRUE(motor.ok()) << motor.status().ToString();
  EXPECT_EQ((*motor)["value"].get<double>(), 15);
  EXPECT_THAT((*motor)["explanation"].get<std::string>(), HasSubstr("E4 V5 MNT"));
  EXPECT_THAT(Error("glasgow_coma_score", {{"eye", "eyes open spontaneously"}}), HasSubstr("verbal, motor"));
}

TEST(CalcSeverityTest, ApacheII) {
  // Hand-worked from the Knaus 1985 table: age 70 (5), 39.5 °C (3), MAP 60 (2), HR 130 (2), RR 30 (1), FiO2
  // 40 % with PaO2 58 (3), pH 7.30 (2), Na 128 (2), K 3.2 (1), creatinine 2.0 without ARF (3), Hct 28 (2),
  // WBC 22 (2), GCS 12 (3), no chronic health → 31.
  const Json base = {{"age", 70}, {"temperature", 39.5}, {"mean_arterial_pressure", 60}, {"heart_rate", 130},
                     {"respiratory_rate", 30}, {"fio2", 40}, {"pao2", 58}, {"ph", 7.30}, {"sodium", 128},
                     {"potassium", 3.2}, {"creatinine", 2.0}, {"hematocrit", 28}, {"wbc", 22}, {"gcs", 12}};
  EXPECT_EQ(Value("apache_ii", base), 31);
  // Acute renal failure doubles the creatinine points (3 → 6); chronic health adds 5 when nonoperative.
  Json arf = base;
  arf["acute_renal_failure"] = true;
  arf["chronic_organ_insufficiency"] = true;
  arf["admission_type"] = "nonoperative";
  EXPECT_EQ(Value("apache_ii", arf), 39);
  arf["admission_type"] = "elective postoperative";
  EXPECT_EQ(Value("apache_ii", arf), 36);
  arf.erase("admission_type");
  EXPECT_THAT(Error("apache_ii", arf), HasSubstr("give admission_type"));
  // Row 868 by Knaus: 34.9 °C 1, HR 120 2, A-a gradient 375 (FiO2 57 %) 3, pH 7.53 1, GCS 12 → 3 = 10 (MAP
  // 94.7, Na, K, creatinine 1.26 with ARF, Hct, WBC 9103/µL all 0). The benchmark answers 26: it reads "degrees
  // celsisus" as °F (4 points), compares the WBC per µL with 40 x10^9/L (4) and adds the GCS (12) instead of
  // 15 - GCS.
  const Json row868 = {{"heart_rate", {120.0, "beats per minute"}}, {"sodium", {137.49, "mmol/L"}},
                       {"creatinine", {1.258, "mg/dL"}}, {"fio2", {57.0, "%"}}, {"systolic_bp", {122.0, "mm Hg"}},
                       {"age", {43.0, "years"}}, {"acute_renal_failure", true}, {"hematocrit", {35.0, "%"}},
                       {"gcs", 12.0}, {"ph", 7.53}, {"wbc", {9103.0, "µL"}}, {"potassium", {5.43, "mmol/L"}},
                       {"temperature", {34.9, "degrees celsisus"}}, {"respiratory_rate", {17.0, "breaths per minute"}},
                       {"chronic_organ_insufficiency", false}, {"aa_gradient", 375.0},
                       {"diastolic_bp", {81.0, "mm Hg"}}};
  EXPECT_EQ(Value("apache_ii", row868), 10);
  // Row 879 by Knaus: only age 63 scores (3). The benchmark answers 26 (GCS 15 added, WBC and temperature as
  // above).
  EXPECT_EQ(Value("apache_ii", {{"heart_rate", {88.0, "beats per minute"}}, {"diastolic_bp", {72.0, "mm Hg"}},
                                {"ph", 7.36}, {"systolic_bp", {118.0, "mm Hg"}}, {"creatinine", {1.1, "mg/dL"}},
                                {"wbc", {6500.0, "µL"}}, {"sodium", {140.0, "mEq/L"}}, {"potassium", {4.4, "mEq/L"}},
                                {"pao2", {74.0, "mm Hg"}}, {"age", {63.0, "years"}},
                                {"respiratory_rate", {17.0, "breaths per minute"}}, {"gcs", 15.0},
                                {"hematocrit", {38.0, "%"}}, {"temperature", {36.6, "degrees celsisus"}},
                                {"fio2", {46, "%"}}}),
              3);
  // FiO2 >= 50 % without an A-a gradient: computed from PaO2 and PaCO2 (0.6 x 713 - 40/0.8 - 80 = 297.8 → 2).
  Json aa = base;
  aa["fio2"] = 0.6;  // a fraction is read as 60 %
  aa["pao2"] = 80;
  aa["paco2"] = 40;
  Result<Json> r = RunCalc("apache_ii", aa);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_NEAR((*r)["terms"]["aa_gradient"].get<double>(), 297.8, 1e-9);
  EXPECT_EQ((*r)["terms"]["oxygenation"].get<double>(), 2);
  aa.erase("paco2");
  EXPECT_THAT(Error("apache_ii", aa), HasSubstr("aa_gradient"));
}

TEST(CalcSeverityTest, PneumoniaSeverityIndex) {
  // Hand-worked from Fine 1997 Table 2: woman 80 (70), nursing home 10, CHF 10, RR 32 20, 36.5 °C, HR 130 10,
  // BUN 35 20, Na 132, glucose 300 10, pleural effusion 10 → 160, class V.
  Result<Json> r = RunCalc("pneumonia_severity_index",
                       {{"age", 80}, {"sex", "female"}, {"nursing_home_resident", true},
                        {"congestive_heart_failure", true}, {"respiratory_rate", 32}, {"systolic_bp", 120},
                        {"temperature", 36.5}, {"heart_rate", 130}, {"bun", 35}, {"sodium", 132}, {"glucose", 300},
                        {"pleural_effusion", true}});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ((*r)["value"].get<double>(), 160);
  EXPECT_THAT((*r)["interpretation"].get<std::string>(), HasSubstr("Class V"));
  EXPECT_EQ((*r)["terms"]["assumed_normal"].size(), 3u);  // ph, hematocrit, pao2 not given
  // Row 828: male 25, altered mental status 20, 34 °C 15, pH 7.17 30, RR 32 20, BUN 33.21 20, Na 123 20, glucose
  // 15 mmol/L (270 mg/dL) 10 → 160.
  EXPECT_EQ(Value("pneumonia_severity_index",
                  {{"hematocrit", {35.0, "%"}}, {"glucose", {15.0, "mmol/L"}}, {"pao2", {67.0, "mm Hg"}}, {"ph", 7.17},
                   {"bun", {33.21, "mg/dL"}}, {"age", {25.0, "years"}}, {"altered_mental_status", true},
                   {"temperature", {34.0, "degrees celsisus"}}, {"sodium", {123.0, "mmol/L"}},
                   {"heart_rate", {101.0, "beats per minute"}}, {"sex", "Male"}, {"systolic_bp", {123.0, "mm Hg"}},
                   {"respiratory_rate", {32.0, "breaths per minute"}}}),
            160);
  // Row 832: female 72 (62), pH 7.2 30, cerebrovascular 10, CHF 10 → 112.
  EXPECT_EQ(Value("pneumonia_severity_index",
                  {{"heart_rate", {85.0, "beats per minute"}}, {"ph", 7.2}, {"systolic_bp", {125.0, "mm Hg"}},
                   {"bun", {22.0, "mg/dL"}}, {"cerebrovascular_disease", true}, {"sodium", {138.0, "mEq/L"}},
                   {"congestive_heart_failure", true}, {"pao2", {75.0, "mm Hg"}}, {"age", {72.0, "years"}},
                   {"respiratory_rate", {20.0, "breaths per minute"}}, {"sex", "Female"}, {"hematocrit", {39.0, "%"}},
                   {"glucose", {122.0, "mg/dL"}}, {"temperature", {37.6, "degrees celsius"}}}),
            112);
  EXPECT_THAT(Error("pneumonia_severity_index", {{"age", 60}, {"sex", "male"}}),
              HasSubstr("respiratory_rate, systolic_bp, temperature, heart_rate"));
}

TEST(CalcSeverityTest, Sofa) {
  // Hand-worked from Vincent 1996: PaO2/FiO2 80/0.8 = 100 ventilated (3), platelets 45 (3), bilirubin 7 (3),
  // norepinephrine 0.2 (4), GCS 5 (4), creatinine 4.0 (3) with urine output 150 mL/day (4) → 21.
  EXPECT_EQ(Value("sofa", {{"pao2", 80}, {"fio2", 80}, {"mechanical_ventilation", true}, {"platelets", 45},
                           {"bilirubin", 7}, {"norepinephrine", {0.2, "mcg/kg/min"}}, {"gcs", 5}, {"creatinine", 4.0},
                           {"urine_output", {150, "mL/day"}}}),
            21);
  // Without respiratory support the respiratory component stops at 2.
  EXPECT_EQ(Value("sofa", {{"pao2", 60}, {"fio2", 100}, {"platelets", 200}, {"bilirubin", 0.5}, {"gcs", 15},
                           {"creatinine", 0.8}}),
            2);
  // Row 889: PaO2/FiO2 90/0.41 = 220 (2), dopamine 6.32 / epinephrine 0.1 / norepinephrine 0.1 (3), GCS 10 (2),
  // bilirubin 1.57 (1), platelets 88,400/µL (2), creatinine 92 µmol/L = 1.04 mg/dL (0) → 10.
  EXPECT_EQ(Value("sofa", {{"norepinephrine", {0.1, "mcg/kg/min"}}, {"fio2", {41.0, "%"}},
                           {"mechanical_ventilation", false}, {"epinephrine", {0.1, "mcg/kg/min"}},
                           {"pao2", {90.0, "mm Hg"}}, {"dopamine", {6.32, "mcg/kg/min"}}, {"hypotension", false},
                           {"gcs", 10.0}, {"creatinine", {92.12, "µmol/L"}}, {"bilirubin", {1.57, "mg/dL"}},
                           {"platelets", {88400.0, "µL"}}, {"cpap", false}}),
            10);
  // Row 888 by Vincent: PaO2/FiO2 76/0.6 = 127 ventilated (3), hypotension (1), GCS 9 (3), bilirubin 88.41
  // µmol/L = 5.2 mg/dL (2), platelets 140,400 (1), creatinine 1.37 mg/dL (1) → 11. The benchmark answers 13: it
  // divides PaO2 by FiO2 in percent (ratio 1.27 → 4) and scores 2 cardiovascular points without any vasopressor.
  EXPECT_EQ(Value("sofa", {{"fio2", {60.0, "%"}}, {"mechanical_ventilation", true}, {"pao2", {76.0, "mm Hg"}},
                           {"hypotension", true}, {"gcs", 9.0}, {"creatinine", {121.32, "µmol/L"}},
                           {"bilirubin", {88.41, "µmol/L"}}, {"platelets", {140400.0, "µL"}}, {"cpap", false}}),
            11);
  // MAP from systolic/diastolic (90/50 → 63.3 < 70 → 1); dobutamine at any dose → 2.
  EXPECT_EQ(Value("sofa", {{"pao2", 100}, {"fio2", 21}, {"platelets", 200}, {"bilirubin", 0.5}, {"gcs", 15},
                           {"creatinine", 0.8}, {"systolic_bp", 90}, {"diastolic_bp", 50}}),
            1);
  EXPECT_EQ(Value("sofa", {{"pao2", 100}, {"fio2", 21}, {"platelets", 200}, {"bilirubin", 0.5}, {"gcs", 15},
                           {"creatinine", 0.8}, {"dobutamine", 2.5}}),
            2);
  EXPECT_THAT(Error("sofa", {{"pao2", 100}, {"fio2", 21}, {"platelets", 200}, {"bilirubin", 0.5}, {"gcs", 15}}),
              HasSubstr("creatinine or urine_output"));
}

}  // namespace
}  // namespace medreact::calc

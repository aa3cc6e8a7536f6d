// Tests for the body calculators (calc_body.cc): MAP, BMI, BSA, ideal /
// adjusted / target weight, maintenance fluids and the QT corrections, each
// against a value worked by hand from the published formula and against
// MedCalc-Bench rows (inputs transcribed from test_data.csv; expected = the
// row's Ground Truth Answer, tolerance inside its Lower/Upper limits).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>

#include "testing/calc_helpers.h"
#include "tools/calc/calculator.h"

namespace medreact::calc {
namespace {

using ::testing::HasSubstr;
using namespace ::medreact::calc::test_util;  // RunCalc, Value, Text, Error, Q

TEST(CalcBodyTest, RegisteredWithMedcalcIds) {
  const std::vector<std::pair<std::string, int>> expected = {
      {"mean_arterial_pressure", 5}, {"body_mass_index", 6},
      {"ideal_body_weight", 10},     {"qtc_bazett", 11},
      {"maintenance_fluids", 22},    {"qtc_fridericia", 56},
      {"qtc_framingham", 57},        {"qtc_hodges", 58},
      {"qtc_rautaharju", 59},        {"body_surface_area", 60},
      {"target_weight", 61},         {"adjusted_body_weight", 62}};
  for (const auto& [name, id] : expected) {
    const Calculator* c = FindCalculatorByMedcalcId(id);
    ASSERT_NE(c, nullptr) << id;
    EXPECT_EQ(c->name, name);
  }
}

TEST(CalcBodyTest, MeanArterialPressure) {
  // Hand-computed: 120/80 → 80 + 40/3 = 93.33 mmHg.
  EXPECT_NEAR(Value("mean_arterial_pressure", {{"systolic_bp", 120}, {"diastolic_bp", 80}}), 93.333, 0.001);
  // MedCalc-Bench rows 61 and 62 (entity units 'mm hg').
  EXPECT_NEAR(Value("mean_arterial_pressure", {{"systolic_bp", Q(140, "mm hg")}, {"diastolic_bp", Q(80, "mm hg")}}),
              100.0, 1e-9);
  EXPECT_NEAR(Value("mean_arterial_pressure", {{"systolic_bp", Q(80, "mm hg")}, {"diastolic_bp", Q(45, "mm hg")}}),
              56.667, 0.001);
  EXPECT_THAT(Error("mean_arterial_pressure", {{"systolic_bp", 120}}),
              HasSubstr("missing required input: diastolic_bp"));
  EXPECT_THAT(Error("mean_arterial_pressure", {{"systolic_bp", 70}, {"diastolic_bp", 110}}), HasSubstr("swapped"));
}

TEST(CalcBodyTest, BodyMassIndex) {
  // Hand-computed: 70 kg / 1.75² = 22.86 (WHO normal).
  Result<Json> r = RunCalc("body_mass_index", {{"weight", 70}, {"height", 175}});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_NEAR((*r)["value"].get<double>(), 22.857, 0.001);
  EXPECT_THAT((*r)["interpretation"].get<std::string>(), HasSubstr("normal"));
  // MedCalc-Bench rows 81 (14.525) and 88 (height in m: 20.094).
  EXPECT_NEAR(Value("body_mass_index", {{"weight", Q(10.2, "kg")}, {"height", Q(83.8, "cm")}}), 14.525, 0.001);
  EXPECT_NEAR(Value("body_mass_index", {{"weight", Q(48.9, "kg")}, {"height", Q(1.56, "m")}}), 20.094, 0.001);
  // Units: 154 lb and 69 in = 69.85 kg and 175.26 cm → 22.74.
  EXPECT_NEAR(Value("body_mass_index", {{"weight", Q(154, "lbs")}, {"height", Q(69, "in")}}),
              154 * 0.45359237 / std::pow(69 * 0.0254, 2), 1e-9);
  EXPECT_THAT(Error("body_mass_index", {{"weight", 70}, {"height", 1.75}}), HasSubstr("check the unit"));
}

TEST(CalcBodyTest, BodySurfaceArea) {
  // Mosteller 1987: sqrt(180 cm x 80 kg / 3600) = 2.0 m².
  EXPECT_NEAR(Value("body_surface_area", {{"weight", 80}, {"height", 180}}), 2.0, 1e-12);
  // MedCalc-Bench rows 683 (1.942) and 688 (1.305).
  EXPECT_NEAR(Value("body_surface_area", {{"weight", 77.1}, {"height", 176.1}}), 1.942, 0.001);
  EXPECT_NEAR(Value("body_surface_area", {{"weight", 42}, {"height", 146}}), 1.305, 0.001);
  // Du Bois 1916: 0.007184 x 70^0.425 x 170^0.725 = 1.8097 m².
  EXPECT_NEAR(Value("body_surface_area", {{"weight", 70}, {"height", 170}, {"formula", "du_bois"}}), 1.8097, 0.0001);
}

TEST(CalcBodyTest, IdealBodyWeight) {
  // Devine 1974: a 6-ft man = 50 + 2.3 x 12 = 77.6 kg; a 5 ft 4 in woman = 45.5 + 2.3 x 4 = 54.7 kg.
  EXPECT_NEAR(Value("ideal_body_weight", {{"sex", "male"}, {"height", Q(72, "in")}}), 77.6, 1e-9);
  EXPECT_NEAR(Value("ideal_body_weight", {{"sex", "female"}, {"height", Q(64, "inches")}}), 54.7, 1e-9);
  // MedCalc-Bench rows 161 (72.276) and 162 (66.843); the benchmark uses 0.393701 in/cm.
  EXPECT_NEAR(Value("ideal_body_weight", {{"sex", "Male"}, {"height", 177}}), 72.276, 0.01);
  EXPECT_NEAR(Value("ideal_body_weight", {{"sex", "Male"}, {"height", 171}}), 66.843, 0.01);
  EXPECT_THAT(Error("ideal_body_weight", {{"height", 170}}), HasSubstr("missing required input: sex"));
}

TEST(CalcBodyTest, AdjustedBodyWeight) {
  // Traynor 1995 with Devine IBW: 6-ft man, 100 kg → 77.6 + 0.4 x 22.4 = 86.56 kg.
  EXPECT_NEAR(Value("adjusted_body_weight", {{"sex", "male"}, {"weight", 100}, {"height", Q(72, "in")}}), 86.56, 1e-9);
  // MedCalc-Bench rows 708 (67.776) and 709 (62.076).
  EXPECT_NEAR(Value("adjusted_body_weight", {{"sex", "Female"}, {"weight", 80}, {"height", 168}}), 67.776, 0.01);
  EXPECT_NEAR(Value("adjusted_body_weight", {{"sex", "Male"}, {"weight", 59}, {"height", 168}}), 62.076, 0.01);
}

TEST(CalcBodyTest, TargetWeight) {
  // Hand-computed: BMI 22 at 1.80 m → 22 x 3.24 = 71.28 kg.
  EXPECT_NEAR(Value("target_weight", {{"target_bmi", 22}, {"height", 180}}), 71.28, 1e-9);
  // MedCalc-Bench rows 968 (73.759) and 971 (height in m: 97.022).
  EXPECT_NEAR(Value("target_weight", {{"target_bmi", Q(19.2, "kg/m^2")}, {"height", Q(196, "cm")}}), 73.759, 0.001);
  EXPECT_NEAR(Value("target_weight", {{"target_bmi", Q(24.5, "kg/m^2")}, {"height", Q(1.99, "m")}}), 97.022, 0.001);
}

TEST(CalcBodyTest, MaintenanceFluids) {
  // Holliday-Segar 4-2-1: 25 kg → 40 + 20 + 5 = 65 mL/h.
  EXPECT_NEAR(Value("maintenance_fluids", {{"weight", 25}}), 65, 1e-9);
  // MedCalc-Bench rows 321 (7.9 kg: 31.6), 323 (20 kg: 60) and 324 (2180 g: 8.72).
  EXPECT_NEAR(Value("maintenance_fluids", {{"weight", 7.9}}), 31.6, 1e-9);
  EXPECT_NEAR(Value("maintenance_fluids", {{"weight", 20}}), 60, 1e-9);
  EXPECT_NEAR(Value("maintenance_fluids", {{"weight", Q(2180, "g")}}), 8.72, 1e-9);
  EXPECT_THAT(Error("maintenance_fluids", Json::object()), HasSubstr("missing required input: weight"));
}

TEST(CalcBodyTest, QtCorrections) {
  // Every published correction leaves the QT unchanged at 60/min (RR = 1 s).
  for (const char* name : {"qtc_bazett", "qtc_fridericia", "qtc_framingham", "qtc_hodges", "qtc_rautaharju"}) {
    EXPECT_NEAR(Value(name, {{"heart_rate", 60}, {"qt_interval", 400}}), 400, 1e-9) << name;
  }
  // Hand-computed at 100/min (RR 0.6 s), QT 360 ms from each paper's formula.
  EXPECT_NEAR(Value("qtc_bazett", {{"heart_rate", 100}, {"qt_interval", 360}}), 360 / std::sqrt(0.6), 1e-9);
  EXPECT_NEAR(Value("qtc_fridericia", {{"heart_rate", 100}, {"qt_interval", 360}}), 360 / std::cbrt(0.6), 1e-9);
  EXPECT_NEAR(Value("qtc_framingham", {{"heart_rate", 100}, {"qt_interval", 360}}), 360 + 154 * 0.4, 1e-9);
  EXPECT_NEAR(Value("qtc_hodges", {{"heart_rate", 100}, {"qt_interval", 360}}), 360 + 1.75 * 40, 1e-9);
  EXPECT_NEAR(Value("qtc_rautaharju", {{"heart_rate", 100}, {"qt_interval", 360}}), 360 * 220.0 / 180, 1e-9);
  // MedCalc-Bench rows (units 'beats per minute', 'msec'), two per formula.
  auto qt = [](double hr) { return Json{{"heart_rate", Q(hr, "beats per minute")}, {"qt_interval", Q(330, "msec")}}; };
  EXPECT_NEAR(Value("qtc_bazett", qt(48)), 295.161, 0.01);        // row 181
  EXPECT_NEAR(Value("qtc_bazett", qt(82)), 385.708, 0.1);         // row 182 (benchmark rounds RR to 0.732)
  EXPECT_NEAR(Value("qtc_fridericia", qt(118)), 413.58, 0.5);     // row 608 (benchmark rounds RR to 0.508)
  EXPECT_NEAR(Value("qtc_fridericia", qt(150)), 447.879, 0.5);    // row 609
  EXPECT_NEAR(Value("qtc_framingham", qt(119)), 406.384, 0.1);    // row 628
  EXPECT_NEAR(Value("qtc_framingham", qt(81)), 369.886, 0.1);     // row 629
  EXPECT_NEAR(Value("qtc_hodges", qt(130)), 452.273, 0.5);        // row 648 (benchmark: 60/0.462 for the rate)
  EXPECT_NEAR(Value("qtc_hodges", qt(76)), 358.08, 0.5);          // row 649
  EXPECT_NEAR(Value("qtc_rautaharju", qt(136)), 469.333, 0.001);  // row 668
  EXPECT_NEAR(Value("qtc_rautaharju", qt(178)), 546.333, 0.001);  // row 669
  // QT in seconds is converted; a long QTc is flagged.
  Result<Json> r = RunCalc("qtc_bazett", {{"heart_rate", 100}, {"qt_interval", Q(0.42, "s")}});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_NEAR((*r)["value"].get<double>(), 420 / std::sqrt(0.6), 1e-9);
  EXPECT_THAT((*r)["interpretation"].get<std::string>(), HasSubstr("> 500 ms"));
  EXPECT_THAT(Error("qtc_hodges", {{"qt_interval", 400}}), HasSubstr("missing required input: heart_rate"));
}

}  // namespace
}  // namespace medreact::calc

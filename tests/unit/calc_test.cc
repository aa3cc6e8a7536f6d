// Tests for the calculator framework (units, argument preparation, schema,
// the pack through a ToolRegistry) and the renal calculators against
// published values and MedCalc-Bench ground truth rows.
#include <cmath>
#include <set>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "tools/calc/calc_pack.h"
#include "tools/calc/calculator.h"
#include "tools/calc/units.h"

namespace medreact::calc {
namespace {

using ::testing::HasSubstr;

double Value(const std::string& name, const Json& args) {
  const Calculator* c = FindCalculator(name);
  EXPECT_NE(c, nullptr) << name;
  if (c == nullptr) return NAN;
  Result<Json> r = RunCalculator(*c, args);
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  return r.ok() ? (*r)["value"].get<double>() : NAN;
}

TEST(CalcUnitsTest, ConvertsCommonUnits) {
  EXPECT_NEAR(*ToCanonical(Dimension::kCreatinine, 88.42, "µmol/L"), 1.0, 1e-9);
  EXPECT_NEAR(*ToCanonical(Dimension::kCreatinine, 88.42, "umol/l"), 1.0, 1e-9);
  EXPECT_NEAR(*ToCanonical(Dimension::kCreatinine, 88.42, "μmol/L"), 1.0, 1e-9);  // Greek mu
  EXPECT_NEAR(*ToCanonical(Dimension::kGlucose, 5.5, "mmol/L"), 99.088, 1e-3);
  EXPECT_NEAR(*ToCanonical(Dimension::kUrea, 10, "mmol/L"), 28.01, 1e-9);
  EXPECT_NEAR(*ToCanonical(Dimension::kMass, 142, "lbs"), 64.41, 0.01);
  EXPECT_NEAR(*ToCanonical(Dimension::kLength, 70, "in"), 177.8, 1e-9);
  EXPECT_NEAR(*ToCanonical(Dimension::kTemperature, 98.6, "°F"), 37.0, 1e-9);
  EXPECT_NEAR(*ToCanonical(Dimension::kTemperature, 38.4, "degrees celsius"), 38.4, 1e-9);
  EXPECT_NEAR(*ToCanonical(Dimension::kTemperature, 38.4, "degrees celsisus"), 38.4, 1e-9);  // MedCalc typo
  EXPECT_NEAR(*ToCanonical(Dimension::kPressure, 140, "mm hg"), 140, 1e-9);
  EXPECT_NEAR(*ToCanonical(Dimension::kRate, 88, "beats per minute"), 88, 1e-9);
  EXPECT_NEAR(*ToCanonical(Dimension::kCellCount, 165000, "µL"), 165, 1e-9);
  EXPECT_NEAR(*ToCanonical(Dimension::kCellCount, 4.2, "10^9/L"), 4.2, 1e-9);
  EXPECT_NEAR(*ToCanonical(Dimension::kAge, 14, "months"), 14.0 / 12, 1e-9);
  EXPECT_NEAR(*ToCanonical(Dimension::kBilirubin, 17.1, "µmol/L"), 1.0, 1e-9);
  EXPECT_NEAR(*ToCanonical(Dimension::kAlbumin, 35, "g/L"), 3.5, 1e-9);
  EXPECT_NEAR(*ToCanonical(Dimension::kDose, 20, "mcg"), 0.02, 1e-12);
  EXPECT_NEAR(*ToCanonical(Dimension::kPercent, 57, "percent"), 57, 1e-12);
  EXPECT_NEAR(*ToCanonical(Dimension::kDuration, 330, "msec"), 330, 1e-12);
  EXPECT_NEAR(*ToCanonical(Dimension::kCreatinine, 1.2, ""), 1.2, 1e-12);  // no unit: canonical
  Result<double> bad = ToCanonical(Dimension::kCreatinine, 1.0, "furlongs");
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(bad.status().message(), HasSubstr("accepted: mg/dL, µmol/L"));
}

TEST(CalcFrameworkTest, EveryCalculatorIsWellFormed) {
  std::set<std::string> names;
  std::set<int> ids;
  for (const Calculator& c : AllCalculators()) {
    SCOPED_TRACE(c.name);
    EXPECT_TRUE(names.insert(c.name).second) << "duplicate name";
    if (c.medcalc_id != 0) {
      EXPECT_TRUE(ids.insert(c.medcalc_id).second) << "duplicate MedCalc id";
    }
    EXPECT_FALSE(c.title.empty());
    EXPECT_FALSE(c.description.empty());
    EXPECT_GT(c.citation.size(), 20u) << "every calculator cites its published formula";
    EXPECT_TRUE(static_cast<bool>(c.compute));
    for (const CalcInput& in : c.inputs) {
      EXPECT_FALSE(in.description.empty()) << in.name;
      if (in.type == InputType::kChoice) {
        EXPECT_FALSE(in.choices.empty()) << in.name;
      }
    }
  }
}

TEST(CalcFrameworkTest, MissingInputsAreNamedTogether) {
  const Calculator* c = FindCalculator("egfr_mdrd");
  ASSERT_NE(c, nullptr);
  Result<Json> r = RunCalculator(*c, {{"age", 60}});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(r.status().message(), HasSubstr("missing required inputs: sex, creatinine"));
}

TEST(CalcFrameworkTest, BadValuesAreExplained) {
  const Calculator* c = FindCalculator("egfr_ckd_epi_2021");
  ASSERT_NE(c, nullptr);
  auto error = [c](const Json& args) {
    Result<Json> r = RunCalculator(*c, args);
    return r.ok() ? std::string("(ok)") : r.status().message();
  };
  EXPECT_THAT(error({{"age", 50}, {"sex", "other"}, {"creatinine", 1}}), HasSubstr("sex: expected \"male\" or \"female\""));
  EXPECT_THAT(error({{"age", 50}, {"sex", "F"}, {"creatinine", {{"value", 1}, {"unit", "mg/L/s"}}}}),
              HasSubstr("creatinine: unit 'mg/L/s' is not accepted"));
  // 88 mg/dL is an implausible creatinine: almost surely µmol/L given without a unit.
  EXPECT_THAT(error({{"age", 50}, {"sex", "female"}, {"creatinine", 88}}), HasSubstr("check the unit"));
  EXPECT_THAT(error({{"age", "fifty"}, {"sex", "female"}, {"creatinine", 1}}), HasSubstr("age: expected a number"));
  EXPECT_EQ(error({{"age", 50}, {"sex", "M"}, {"creatinine", {10, "mg/dL"}}}), "(ok)");  // [value, unit] accepted
}

TEST(CalcFrameworkTest, ThePackValidatesThroughTheRegistry) {
  ToolRegistry registry;
  ASSERT_TRUE(RegisterCalcPack(registry).ok());
  EXPECT_EQ(registry.Specs().size(), AllCalculators().size());
  ToolResult ok = registry.Execute(
      {"c1", "egfr_ckd_epi_2021", R"({"age": 60, "sex": "male", "creatinine": {"value": 88.42, "unit": "µmol/L"}})"},
      ToolContext{});
  ASSERT_TRUE(ok.ok) << ok.error;
  Json result = Json::parse(ok.content);
  EXPECT_NEAR(result["value"].get<double>(), 86.2, 0.1);
  EXPECT_THAT(result["interpretation"].get<std::string>(), HasSubstr("G2"));
  EXPECT_THAT(result["citation"].get<std::string>(), HasSubstr("N Engl J Med 2021"));
  // The schema rejects a wrong type before the calculator runs.
  ToolResult bad = registry.Execute({"c2", "egfr_ckd_epi_2021", R"({"age": 60, "sex": "yes", "creatinine": 1})"},
                                    ToolContext{});
  EXPECT_FALSE(bad.ok);
  EXPECT_THAT(bad.error, HasSubstr("sex"));
  // A missing input reaches the calculator's own message.
  ToolResult missing = registry.Execute({"c3", "egfr_mdrd", R"({"age": 60})"}, ToolContext{});
  EXPECT_FALSE(missing.ok);
  EXPECT_THAT(missing.error, HasSubstr("sex"));
}

// --- renal --------------------------------------------------------------------

TEST(CalcRenalTest, CockcroftGault) {
  // MedCalc-Bench row (id 2): male, 87 y, 48 kg, 163 cm, Scr 1.4 mg/dL → underweight, actual weight: 25.238.
  EXPECT_NEAR(Value("creatinine_clearance_cockcroft_gault",
                    {{"sex", "male"}, {"age", 87}, {"weight", 48}, {"height", 163}, {"creatinine", 1.4}}),
              25.238, 0.001);
  // Cockcroft & Gault 1976 form with actual weight: female 60 y, 70 kg, Scr 1.0 → 80 x 70 x 0.85 / 72 = 66.1.
  EXPECT_NEAR(Value("creatinine_clearance_cockcroft_gault",
                    {{"sex", "female"}, {"age", 60}, {"weight", 70}, {"creatinine", 1.0}}),
              66.11, 0.01);
  // Obese (BMI 35): adjusted weight = IBW + 0.4 (actual - IBW).
  const double ibw = 50 + 2.3 * (175 / 2.54 - 60);
  const double abw = ibw + 0.4 * (107.2 - ibw);
  EXPECT_NEAR(Value("creatinine_clearance_cockcroft_gault",
                    {{"sex", "male"}, {"age", 40}, {"weight", 107.2}, {"height", 175}, {"creatinine", 1.0}}),
              100 * abw / 72, 1e-6);
}

TEST(CalcRenalTest, CkdEpi2021) {
  // Worked by hand from Inker 2021's equation: male 60 y, Scr 1.0 → 142 x (1/0.9)^-1.2 x 0.9938^60 = 86.2;
  // female 50 y, Scr 0.8 → 142 x (0.8/0.7)^-1.2 x 0.9938^50 x 1.012 = 89.7.
  EXPECT_NEAR(Value("egfr_ckd_epi_2021", {{"sex", "male"}, {"age", 60}, {"creatinine", 1.0}}), 86.2, 0.05);
  EXPECT_NEAR(Value("egfr_ckd_epi_2021", {{"sex", "female"}, {"age", 50}, {"creatinine", 0.8}}), 89.7, 0.05);
  // Below kappa the alpha exponent applies: female 32 y, 42 µmol/L (MedCalc-Bench row, id 3).
  EXPECT_NEAR(Value("egfr_ckd_epi_2021",
                    {{"sex", "female"}, {"age", 32}, {"creatinine", {{"value", 42}, {"unit", "µmol/L"}}}}),
              142 * std::pow(42 / 88.42 / 0.7, -0.241) * std::pow(0.9938, 32) * 1.012, 1e-9);
}

TEST(CalcRenalTest, MdrdAndFena) {
  // MedCalc-Bench row (id 9): male 60 y, Scr 1.9 → 36.341.
  EXPECT_NEAR(Value("egfr_mdrd", {{"sex", "male"}, {"age", 60}, {"creatinine", 1.9}}), 36.341, 0.001);
  // FENa = (UNa x PCr) / (PNa x UCr) x 100: (32 x 0.6) / (129 x 60.3) x 100 = 0.2468 %.
  EXPECT_NEAR(Value("fractional_excretion_sodium",
                    {{"sodium", 129}, {"creatinine", 0.6}, {"urine_sodium", 32}, {"urine_creatinine", 60.3}}),
              0.2468, 0.0001);
}

}  // namespace
}  // namespace medreact::calc

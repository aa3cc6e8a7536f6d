// Tests for the growth pack's tools through a ToolRegistry (so the JSON
// Schemas are exercised by valijson): published values through the tool,
// plausibility (impossible measurements, biologically implausible z-scores),
// every argument error, the percentile conversions, and the malnutrition
// bands at their boundaries, with seed 002's parameter names. The tables and
// the arithmetic underneath are in growth_test.cc.
#include "tools/growth/growth_pack.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "tools/growth/growth_tables.h"

namespace medreact {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::Not;

// ---- The tools through a registry ----------------------------------------------------

class GrowthPackTest : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_TRUE(RegisterGrowthPack(registry_).ok()); }

  Json Call(const std::string& tool, const Json& arguments) {
    ToolResult result = registry_.Execute({"call_1", tool, arguments.dump()}, {});
    EXPECT_TRUE(result.ok) << arguments.dump() << " -> " << result.error;
    return result.ok ? Json::parse(result.content) : Json();
  }

  std::string CallError(const std::string& tool, const Json& arguments) {
    ToolResult result = registry_.Execute({"call_1", tool, arguments.dump()}, {});
    EXPECT_FALSE(result.ok) << arguments.dump() << " -> " << result.content;
    return result.error;
  }

  Json Zscore(Json arguments) { return Call("growth_zscore", arguments); }

  ToolRegistry registry_;
};

TEST_F(GrowthPackTest, RegistersFourTools) {
  EXPECT_EQ(registry_.Names(), GrowthPackToolNames());
  EXPECT_EQ(GrowthPackToolNames(), (std::vector<std::string>{"growth_zscore", "percentile_to_zscore",
                                                             "zscore_to_percentile", "interpret_zscore_malnutrition"}));
  for (const ToolSpec& spec : registry_.Specs()) EXPECT_GT(spec.description.size(), 150u) << spec.name;
  Status again = RegisterGrowthPack(registry_);
  EXPECT_FALSE(again.ok());
  EXPECT_THAT(again.message(), HasSubstr("already registered"));
}

TEST_F(GrowthPackTest, ReproducesPublishedValuesThroughTheTool) {
  // CDC wtage, boys, 120.5 months: P5 = the published value.
  auto cdc = LoadGrowthFile("growth/cdc/wtage.csv");
  ASSERT_TRUE(cdc.ok());
  const GrowthRow* row = nullptr;
  for (const GrowthRow& r : (**cdc)[0].rows) {
    if (r.x == 120.5) row = &r;
  }
  ASSERT_NE(row, nullptr);
  Json result = Zscore({{"reference", "cdc"}, {"indicator", "weight_for_age"}, {"sex", "male"},
                        {"age_months", 120.5}, {"value", row->published[1]}});  // P5
  EXPECT_NEAR(result["z"].get<double>(), NormalQuantile(0.05), 1e-6);
  EXPECT_NEAR(result["percentile"].get<double>(), 5, 1e-4);
  EXPECT_EQ(result["table"], "wtage.csv");
  EXPECT_EQ(result["method"], "LMS");
  EXPECT_EQ(result["L"], row->lms.l);
  EXPECT_EQ(result["M"], row->lms.m);
  EXPECT_EQ(result["S"], row->lms.s);
  EXPECT_EQ(result["unit"], "kg");
  EXPECT_NEAR(result["age_days"].get<double>(), 120.5 * 30.4375, 1e-9);
  EXPECT_THAT(result["citation"].get<std::string>(), HasSubstr("CDC 2000"));
  EXPECT_THAT(result["summary"].get<std::string>(), HasSubstr("z = -1.64, percentile 5.0"));

  // WHO weight-for-height, girls, 100 cm: SD4neg and SD3 (restricted tails).
  Json low = Zscore({{"reference", "who"}, {"indicator", "weight_for_height"}, {"sex", "female"},
                     {"height_cm", 100}, {"value", 11.0}});
  EXPECT_EQ(low["table"], "who2006_wfh_girls_65-120cm.csv");
  EXPECT_EQ(low["method"], "LMS with WHO restricted tails");
  EXPECT_EQ(low["height_cm"], 100);
  EXPECT_FALSE(low.contains("age_months"));
  EXPECT_LT(low["z"].get<double>(), -3);
  EXPECT_THAT(low["citation"].get<std::string>(), HasSubstr("WHO Child Growth Standards"));
}

TEST_F(GrowthPackTest, WhoExampleFromTheDescription) {
  Json result = Zscore({{"reference", "who"}, {"indicator", "weight_for_age"}, {"sex", "female"},
                        {"age_months", 12}, {"value", 7.0}});
  EXPECT_NEAR(result["z"].get<double>(), -2.052, 0.001);
  EXPECT_NEAR(result["percentile"].get<double>(), 2.0, 0.05);
  EXPECT_EQ(result["age_days"], 365.25);
  EXPECT_EQ(result["sex"], "female");
  EXPECT_EQ(result["reference"], "who");
  EXPECT_EQ(result["indicator"], "weight_for_age");
  // The same child by days gives the same z.
  Json by_days = Zscore({{"reference", "who"}, {"indicator", "weight_for_age"}, {"sex", "female"},
                         {"age_days", 365.25}, {"value", 7.0}});
  EXPECT_EQ(by_days["z"], result["z"]);
}

TEST_F(GrowthPackTest, WhoLengthHeightPositionCorrection) {
  // 30 months, measured lying: 0.7 cm less is compared with the height standard.
  Json lying = Zscore({{"reference", "who"}, {"indicator", "length_for_age"}, {"sex", "male"},
                       {"age_months", 30}, {"value", 92.0}});
  Json standing = Zscore({{"reference", "who"}, {"indicator", "height_for_age"}, {"sex", "male"},
                          {"age_months", 30}, {"value", 91.3}});
  EXPECT_NEAR(lying["z"].get<double>(), standing["z"].get<double>(), 1e-12);
  EXPECT_NEAR(lying["value_used"].get<double>(), 91.3, 1e-12);
  EXPECT_THAT(lying["adjustment"].get<std::string>(), HasSubstr("0.7 cm subtracted"));
  EXPECT_FALSE(standing.contains("adjustment"));
  // 12 months, measured standing: 0.7 cm added.
  Json young = Zscore({{"reference", "who"}, {"indicator", "height_for_age"}, {"sex", "female"},
                       {"age_months", 12}, {"value", 73.0}});
  EXPECT_NEAR(young["value_used"].get<double>(), 73.7, 1e-12);
  // CDC: the indicator picks the file, nothing is converted.
  Json cdc = Zscore({{"reference", "cdc"}, {"indicator", "length_for_age"}, {"sex", "male"},
                     {"age_months", 30}, {"value", 92.0}});
  EXPECT_EQ(cdc["table"], "lenageinf.csv");
  EXPECT_FALSE(cdc.contains("adjustment"));
}

// ---- Plausibility ------------------------------------------------------------------

// One measurement: reference, indicator, sex, where the child is ({"age_months": ..}
// or {"length_cm"/"height_cm": ..}) and the value.
struct Measurement {
  const char* reference;
  const char* indicator;
  Json position;
  double value;
};

Json ZscoreArgs(const Measurement& m) {
  Json args = {{"reference", m.reference}, {"indicator", m.indicator}, {"sex", "male"}, {"value", m.value}};
  for (auto& [key, v] : m.position.items()) args[key] = v;
  return args;
}

TEST_F(GrowthPackTest, PhysicallyImpossibleMeasurementsAreErrorsNamingTheUnitMistake) {
  struct Case {
    Measurement m;
    std::vector<std::string> expected;
  };
  const Json at12 = {{"age_months", 12}};
  const Json at60 = {{"age_months", 60}};
  const std::vector<Case> cases = {
      // The hostile tester's 7,000 kg one-year-old: grams given as kilograms.
      {{"who", "weight_for_age", at12, 7000}, {"/value 7000 kg is not a possible weight", "7000 g = 7 kg", "pounds"}},
      {{"cdc", "weight_for_age", at12, 0.05}, {"/value 0.05 kg is not a possible weight", "0.1 to 700 kg"}},
      {{"who", "length_for_age", at12, 750}, {"750 cm is not a possible length or height", "750 mm = 75 cm"}},
      {{"cdc", "length_for_age", at12, 0.75}, {"0.75 cm", "0.75 m = 75 cm"}},
      {{"who", "height_for_age", at60, 1100}, {"1100 cm", "millimetres"}},
      {{"cdc", "height_for_age", at60, 1.1}, {"1.1 cm", "1.1 m = 110 cm"}},
      {{"who", "head_circumference_for_age", at12, 450}, {"450 cm is not a possible head circumference", "450 mm = 45 cm"}},
      {{"cdc", "head_circumference_for_age", at12, 0.45}, {"0.45 m = 45 cm"}},
      {{"who", "bmi_for_age", at60, 16000}, {"16000 kg/m2 is not a possible BMI", "weight was in kg"}},
      {{"cdc", "bmi_for_age", at60, 0.0016}, {"0.0016 kg/m2", "height in cm gives a BMI 10,000 times too small"}},
      {{"who", "weight_for_length", {{"length_cm", 75}}, 9000}, {"9000 kg", "9000 g = 9 kg"}},
      {{"cdc", "weight_for_length", {{"length_cm", 750}}, 9}, {"/length_cm 750 cm", "750 mm = 75 cm"}},
      {{"who", "weight_for_height", {{"height_cm", 100}}, 16000}, {"16000 kg", "16000 g = 16 kg"}},
      {{"cdc", "weight_for_height", {{"height_cm", 1.0}}, 16}, {"/height_cm 1 cm", "1 m = 100 cm"}},
  };
  for (const Case& c : cases) {
    const std::string error = CallError("growth_zscore", ZscoreArgs(c.m));
    for (const std::string& part : c.expected) EXPECT_THAT(error, HasSubstr(part)) << ZscoreArgs(c.m).dump();
  }
}

TEST_F(GrowthPackTest, BiologicallyImplausibleZscoresAreFlaggedNeverSummarisedAsARank) {
  struct Case {
    Measurement m;
    const char* flag;
  };
  const Json at12 = {{"age_months", 12}};
  const Json at24 = {{"age_months", 24}};
  const Json at60 = {{"age_months", 60}};
  const Json at120 = {{"age_months", 120}};
  const Json len75 = {{"length_cm", 75}};
  const Json ht100 = {{"height_cm", 100}};
  // Every indicator of both references, too high and too low, each a number a
  // child could physically measure but far beyond the reference's BIV cut-off.
  const std::vector<Case> cases = {
      {{"who", "weight_for_age", at12, 25}, "implausibly_high"},   // 25 kg at 1 year: pounds?
      {{"who", "weight_for_age", at12, 3}, "implausibly_low"},
      {{"who", "length_for_age", at12, 100}, "implausibly_high"},
      {{"who", "length_for_age", at12, 50}, "implausibly_low"},
      {{"who", "height_for_age", at60, 150}, "implausibly_high"},
      {{"who", "height_for_age", at60, 70}, "implausibly_low"},
      {{"who", "bmi_for_age", at24, 40}, "implausibly_high"},
      {{"who", "bmi_for_age", at24, 8}, "implausibly_low"},
      {{"who", "head_circumference_for_age", at12, 60}, "implausibly_high"},
      {{"who", "head_circumference_for_age", at12, 30}, "implausibly_low"},
      {{"who", "weight_for_length", len75, 20}, "implausibly_high"},
      {{"who", "weight_for_length", len75, 4}, "implausibly_low"},
      {{"who", "weight_for_height", ht100, 40}, "implausibly_high"},
      {{"who", "weight_for_height", ht100, 7}, "implausibly_low"},
      {{"cdc", "weight_for_age", at120, 150}, "implausibly_high"},
      {{"cdc", "weight_for_age", at120, 8}, "implausibly_low"},
      {{"cdc", "length_for_age", at12, 100}, "implausibly_high"},
      {{"cdc", "length_for_age", at12, 50}, "implausibly_low"},
      {{"cdc", "height_for_age", at120, 200}, "implausibly_high"},
      {{"cdc", "height_for_age", at120, 90}, "implausibly_low"},
      {{"cdc", "bmi_for_age", at120, 60}, "implausibly_high"},
      {{"cdc", "bmi_for_age", at120, 8}, "implausibly_low"},
      {{"cdc", "head_circumference_for_age", at12, 60}, "implausibly_high"},
      {{"cdc", "head_circumference_for_age", at12, 30}, "implausibly_low"},
      {{"cdc", "weight_for_length", len75, 25}, "implausibly_high"},
      {{"cdc", "weight_for_length", len75, 4}, "implausibly_low"},
      {{"cdc", "weight_for_height", ht100, 40}, "implausibly_high"},
      {{"cdc", "weight_for_height", ht100, 7}, "implausibly_low"},
  };
  for (const Case& c : cases) {
    const Json args = ZscoreArgs(c.m);
    const Json result = Zscore(args);
    ASSERT_TRUE(result.is_object()) << args.dump();
    EXPECT_EQ(result["biologically_implausible"], true) << args.dump() << " -> " << result.dump();
    const Json& p = result["plausibility"];
    EXPECT_EQ(p["flag"], c.flag) << args.dump();
    const bool who = std::string(c.m.reference) == "who";
    EXPECT_EQ(p["statistic"], who ? "z" : "modified z");
    const double limit = p["limits"][std::string(c.flag) == "implausibly_low" ? 0 : 1].get<double>();
    if (std::string(c.flag) == "implausibly_low") {
      EXPECT_LT(p["value"].get<double>(), limit) << args.dump();
    } else {
      EXPECT_GT(p["value"].get<double>(), limit) << args.dump();
    }
    EXPECT_THAT(p["source"].get<std::string>(), HasSubstr(who ? "WHO Anthro" : "SAS Program for the 2000 CDC"));
    const std::string summary = result["summary"].get<std::string>();
    EXPECT_THAT(summary, AllOf(HasSubstr("BIOLOGICALLY IMPLAUSIBLE"), HasSubstr("re-check the measurement")));
    EXPECT_THAT(summary, Not(HasSubstr("percentile"))) << summary;
    EXPECT_THAT(result["warning"].get<std::string>(), AllOf(HasSubstr("g vs kg, lb vs kg, mm vs cm, m vs cm"),
                                                            HasSubstr("Do not grade")));
    // And grading it is refused.
    Json grade = {{"z", result["z"]}, {"indicator", c.m.indicator}, {"biologically_implausible", true}};
    EXPECT_THAT(CallError("interpret_zscore_malnutrition", grade), HasSubstr("not graded"));
  }
}

TEST_F(GrowthPackTest, CdcFlagsOnTheModifiedZscore) {
  // 150 kg at 10 years: the LMS z is compressed by the skewed tail, the
  // modified z (half the distance to +2 SD as the unit) is far beyond +8.
  Json result = Zscore({{"reference", "cdc"}, {"indicator", "weight_for_age"}, {"sex", "male"},
                        {"age_months", 120}, {"value", 150}});
  EXPECT_LT(result["z"].get<double>(), 8);
  EXPECT_GT(result["modified_z"].get<double>(), 8);
  EXPECT_EQ(result["biologically_implausible"], true);
  // The modified z by hand: (X - M) / ((P(z=2) - M) / 2).
  const Lms lms{result["L"].get<double>(), result["M"].get<double>(), result["S"].get<double>()};
  EXPECT_NEAR(result["modified_z"].get<double>(), (150 - lms.m) / ((LmsValue(2, lms) - lms.m) / 2), 1e-9);
  EXPECT_NEAR(CdcModifiedZ(LmsValue(-2, lms), lms), -2, 1e-12);
  EXPECT_NEAR(CdcModifiedZ(LmsValue(2, lms), lms), 2, 1e-12);
}

TEST_F(GrowthPackTest, OrdinaryAndMerelyExtremeValuesAreNotFlagged) {
  Json normal = Zscore({{"reference", "who"}, {"indicator", "weight_for_age"}, {"sex", "male"},
                        {"age_months", 12}, {"value", 9.6}});
  EXPECT_EQ(normal["biologically_implausible"], false);
  EXPECT_FALSE(normal.contains("plausibility"));
  EXPECT_FALSE(normal.contains("warning"));
  EXPECT_THAT(normal["summary"].get<std::string>(), HasSubstr("percentile"));
  // Severe wasting is rare but real: z -4.5 weight-for-height is graded, not flagged.
  Json wasted = Zscore({{"reference", "who"}, {"indicator", "weight_for_height"}, {"sex", "male"},
                        {"height_cm", 100}, {"value", 11.0}});
  EXPECT_LT(wasted["z"].get<double>(), -3);
  EXPECT_GT(wasted["z"].get<double>(), -5);
  EXPECT_EQ(wasted["biologically_implausible"], false);
  Json cdc = Zscore({{"reference", "cdc"}, {"indicator", "bmi_for_age"}, {"sex", "female"},
                     {"age_months", 120}, {"value", 30}});  // severe obesity, within CDC's limits
  EXPECT_EQ(cdc["biologically_implausible"], false);
  EXPECT_TRUE(cdc.contains("modified_z"));
}

TEST_F(GrowthPackTest, NegativeAgesAndNonNumbersAreErrors) {
  const Json base = {{"reference", "who"}, {"indicator", "weight_for_age"}, {"sex", "male"}, {"value", 9.6}};
  Json months = base;
  months["age_months"] = -1;
  EXPECT_THAT(CallError("growth_zscore", months), HasSubstr("/age_months"));
  Json days = base;
  days["age_days"] = -30;
  EXPECT_THAT(CallError("growth_zscore", days), HasSubstr("/age_days"));
  EXPECT_THAT(CallError("interpret_zscore_malnutrition", {{"z", -2}, {"indicator", "bmi_for_age"}, {"age_months", -5}}),
              HasSubstr("/age_months"));
  // JSON has no NaN or infinity; a number too large for a double is refused before the tool runs.
  for (const char* args :
       {R"({"reference": "who", "indicator": "weight_for_age", "sex": "male", "age_months": 12, "value": 1e400})",
        R"({"reference": "who", "indicator": "weight_for_age", "sex": "male", "age_months": 1e400, "value": 9})",
        R"({"z": 1e400, "indicator": "bmi_for_age"})"}) {
    const std::string tool = std::string(args).find("\"z\"") != std::string::npos ? "interpret_zscore_malnutrition"
                                                                                     : "growth_zscore";
    ToolResult result = registry_.Execute({"call_1", tool, args}, {});
    EXPECT_FALSE(result.ok) << args << " -> " << result.content;
  }
}

TEST_F(GrowthPackTest, ArgumentErrors) {
  const Json base = {{"reference", "cdc"}, {"indicator", "weight_for_age"}, {"sex", "male"},
                     {"age_months", 60}, {"value", 18}};
  auto with = [&](const Json& patch) {
    Json args = base;
    for (auto& [key, value] : patch.items()) {
      if (value.is_null()) {
        args.erase(key);
      } else {
        args[key] = value;
      }
    }
    return CallError("growth_zscore", args);
  };
  EXPECT_THAT(with({{"sex", "boy"}}), AllOf(HasSubstr("/sex"), HasSubstr("male")));
  EXPECT_THAT(with({{"reference", "nchs"}}), HasSubstr("/reference"));
  EXPECT_THAT(with({{"indicator", "muac_for_age"}}), HasSubstr("/indicator"));
  EXPECT_THAT(with({{"value", 0}}), HasSubstr("/value"));
  EXPECT_THAT(with({{"value", -3}}), HasSubstr("/value"));
  EXPECT_THAT(with({{"age_months", nullptr}}), AllOf(HasSubstr("needs the child's age"), HasSubstr("age_days")));
  EXPECT_THAT(with({{"age_days", 1800}}), HasSubstr("exactly one of age_months or age_days"));
  EXPECT_THAT(with({{"age_months", -1}}), HasSubstr("/age_months"));
  // Out of range, naming the ranges that exist.
  EXPECT_THAT(with({{"age_months", 250}}),
              AllOf(HasSubstr("250 months"), HasSubstr("wtage.csv (24-240 months)"), HasSubstr("wtageinf.csv")));
  EXPECT_THAT(with({{"indicator", "bmi_for_age"}, {"age_months", 12}}),
              AllOf(HasSubstr("outside bmiagerev.csv (24-240.5 months)"), HasSubstr("WHO bmi_for_age")));
  EXPECT_THAT(with({{"indicator", "height_for_age"}, {"age_months", 12}, {"value", 75}}),
              AllOf(HasSubstr("statage.csv"), HasSubstr("CDC length_for_age: lenageinf.csv 0-35.5 months")));
  // An indicator without a table at that age.
  const Json who_head = {{"reference", "who"}, {"indicator", "head_circumference_for_age"}, {"sex", "female"},
                         {"age_months", 72}, {"value", 50}};
  EXPECT_THAT(CallError("growth_zscore", who_head),
              AllOf(HasSubstr("no WHO head_circumference_for_age table covers age 72 months"),
                    HasSubstr("who2006_hcfa_girls_0-5y_daily.csv 0-1856 days"),
                    HasSubstr("CDC head_circumference_for_age: hcageinf.csv 0-36 months")));
  const Json who_weight = {{"reference", "who"}, {"indicator", "weight_for_age"}, {"sex", "male"},
                           {"age_months", 130}, {"value", 30}};
  EXPECT_THAT(CallError("growth_zscore", who_weight),
              AllOf(HasSubstr("outside who2007_wfa_boys_5-10y_monthly.csv (61-120 months)")));
  const Json who_length_old = {{"reference", "who"}, {"indicator", "length_for_age"}, {"sex", "male"},
                               {"age_months", 100}, {"value", 130}};
  EXPECT_THAT(CallError("growth_zscore", who_length_old),
              AllOf(HasSubstr("no WHO length_for_age table"), HasSubstr("WHO height_for_age")));
  // Length-based indicators.
  const Json wfl = {{"reference", "who"}, {"indicator", "weight_for_length"}, {"sex", "male"}, {"value", 3}};
  EXPECT_THAT(CallError("growth_zscore", wfl), HasSubstr("needs length_cm"));
  Json wfl_height = wfl;
  wfl_height["height_cm"] = 50;
  EXPECT_THAT(CallError("growth_zscore", wfl_height),
              AllOf(HasSubstr("takes length_cm, not height_cm"), HasSubstr("weight_for_height")));
  Json wfl_short = wfl;
  wfl_short["length_cm"] = 40;
  EXPECT_THAT(CallError("growth_zscore", wfl_short),
              AllOf(HasSubstr("40 cm is outside who2006_wfl_boys_45-110cm.csv (45-110 cm)"),
                    HasSubstr("WHO weight_for_height: who2006_wfh_boys_65-120cm.csv 65-120 cm")));
  Json extra = base;
  extra["weight_kg"] = 18;
  EXPECT_THAT(CallError("growth_zscore", extra), HasSubstr("weight_kg"));
}

TEST_F(GrowthPackTest, PercentileAndZscoreConversions) {
  Json z = Call("percentile_to_zscore", {{"percentile", 97.5}});
  EXPECT_NEAR(z["z"].get<double>(), 1.959963984540054, 1e-12);
  EXPECT_EQ(Call("percentile_to_zscore", {{"percentile", 50}})["z"], 0.0);
  EXPECT_NEAR(Call("percentile_to_zscore", {{"percentile", 1e-8}})["z"].get<double>(), -6.361340902404056, 1e-9);
  Json p = Call("zscore_to_percentile", {{"z", -2}});
  EXPECT_NEAR(p["percentile"].get<double>(), 2.275013194817921, 1e-12);
  EXPECT_EQ(p["z"], -2);
  for (double percentile : {0.1, 3.0, 15.0, 85.0, 99.9}) {
    const double back = Call("zscore_to_percentile", Json{{"z", Call("percentile_to_zscore",
                                                                     {{"percentile", percentile}})["z"]}})["percentile"];
    EXPECT_NEAR(back, percentile, 1e-10 * percentile);
  }
  EXPECT_THAT(CallError("percentile_to_zscore", {{"percentile", 0}}), HasSubstr("/percentile"));
  EXPECT_THAT(CallError("percentile_to_zscore", {{"percentile", 100}}), HasSubstr("/percentile"));
  EXPECT_THAT(CallError("percentile_to_zscore", Json::object()), HasSubstr("percentile"));
  EXPECT_THAT(CallError("zscore_to_percentile", {{"z", "high"}}), HasSubstr("/z"));
}

// ---- Malnutrition bands -----------------------------------------------------------

class GrowthInterpretTest : public GrowthPackTest {
 protected:
  // system name prefix → band label.
  std::map<std::string, std::string> Bands(double z, const std::string& indicator, std::optional<double> age = {}) {
    Json args = {{"z", z}, {"indicator", indicator}};
    if (age) args["age_months"] = *age;
    Json result = Call("interpret_zscore_malnutrition", args);
    std::map<std::string, std::string> out;
    for (const Json& c : result["classifications"]) {
      const std::string system = c["system"];
      out[system.substr(0, system.find(' ')) + (system.find("2007") != std::string::npos ? "2007" : "")] =
          c["band"].get<std::string>();
    }
    return out;
  }
};

TEST_F(GrowthInterpretTest, AspenAndWhoWastingBoundaries) {
  using Map = std::map<std::string, std::string>;
  const std::string none = "none (outside this system's bands)";
  EXPECT_EQ(Bands(-0.99, "weight_for_height", 24), (Map{{"ASPEN/AND", none}, {"WHO", none}}));
  EXPECT_EQ(Bands(-1, "weight_for_height", 24), (Map{{"ASPEN/AND", "mild malnutrition"}, {"WHO", none}}));
  EXPECT_EQ(Bands(-1.99, "weight_for_length", 6), (Map{{"ASPEN/AND", "mild malnutrition"}, {"WHO", none}}));
  EXPECT_EQ(Bands(-2, "weight_for_height", 24), (Map{{"ASPEN/AND", "moderate malnutrition"}, {"WHO", none}}));
  EXPECT_EQ(Bands(-2.01, "weight_for_height", 24),
            (Map{{"ASPEN/AND", "moderate malnutrition"}, {"WHO", "wasting (moderate)"}}));
  EXPECT_EQ(Bands(-3, "weight_for_height", 24),
            (Map{{"ASPEN/AND", "severe malnutrition"}, {"WHO", "wasting (moderate)"}}));
  EXPECT_EQ(Bands(-3.01, "bmi_for_age", 24), (Map{{"ASPEN/AND", "severe malnutrition"}, {"WHO", "severe wasting"}}));
  EXPECT_EQ(Bands(2, "weight_for_height", 24), (Map{{"ASPEN/AND", none}, {"WHO", none}}));
  EXPECT_EQ(Bands(2.01, "weight_for_height", 24), (Map{{"ASPEN/AND", none}, {"WHO", "overweight"}}));
  EXPECT_EQ(Bands(3, "weight_for_height", 24), (Map{{"ASPEN/AND", none}, {"WHO", "overweight"}}));
  EXPECT_EQ(Bands(3.01, "weight_for_height", 24), (Map{{"ASPEN/AND", none}, {"WHO", "obesity"}}));
}

TEST_F(GrowthInterpretTest, SchoolAgeBmiStuntingAndUnderweight) {
  using Map = std::map<std::string, std::string>;
  const std::string none = "none (outside this system's bands)";
  EXPECT_EQ(Bands(1, "bmi_for_age", 120), (Map{{"ASPEN/AND", none}, {"WHO2007", none}}));
  EXPECT_EQ(Bands(1.01, "bmi_for_age", 120), (Map{{"ASPEN/AND", none}, {"WHO2007", "overweight"}}));
  EXPECT_EQ(Bands(2, "bmi_for_age", 120), (Map{{"ASPEN/AND", none}, {"WHO2007", "overweight"}}));
  EXPECT_EQ(Bands(2.01, "bmi_for_age", 120), (Map{{"ASPEN/AND", none}, {"WHO2007", "obesity"}}));
  EXPECT_EQ(Bands(-2.5, "bmi_for_age", 120), (Map{{"ASPEN/AND", "moderate malnutrition"}, {"WHO2007", "thinness"}}));
  EXPECT_EQ(Bands(-3.5, "bmi_for_age", 200),
            (Map{{"ASPEN/AND", "severe malnutrition"}, {"WHO2007", "severe thinness"}}));
  // Length/height-for-age: ASPEN grades only <= -3.
  EXPECT_EQ(Bands(-2.5, "height_for_age", 36), (Map{{"ASPEN/AND", none}, {"WHO", "stunted (moderate)"}}));
  EXPECT_EQ(Bands(-3, "length_for_age", 12),
            (Map{{"ASPEN/AND", "severe malnutrition (severe stunting)"}, {"WHO", "stunted (moderate)"}}));
  EXPECT_EQ(Bands(-3.2, "height_for_age", 150),
            (Map{{"ASPEN/AND", "severe malnutrition (severe stunting)"}, {"WHO2007", "severely stunted"}}));
  // Weight-for-age: WHO only.
  EXPECT_EQ(Bands(-2.5, "weight_for_age", 30), (Map{{"WHO", "underweight (moderate)"}}));
  EXPECT_EQ(Bands(-3.5, "weight_for_age", 100), (Map{{"WHO2007", "severely underweight"}}));
  // Under 1 month: no ASPEN; over 18 years: no ASPEN.
  EXPECT_EQ(Bands(-2.5, "weight_for_length", 0.5), (Map{{"WHO", "wasting (moderate)"}}));
  EXPECT_EQ(Bands(-2.5, "bmi_for_age", 220), (Map{{"WHO2007", "thinness"}}));
}

TEST_F(GrowthInterpretTest, RefusesToGradeBiologicallyImplausibleZscores) {
  // WHO cut-offs (WHO Anthro / AnthroPlus): weight-for-age < -6 or > +5,
  // length/height-for-age < -6 or > +6, the others < -5 or > +5.
  const std::vector<std::pair<double, std::string>> refused = {
      {5.01, "weight_for_age"},    {-6.01, "weight_for_age"},           {6.01, "length_for_age"},
      {-6.5, "height_for_age"},    {5.01, "weight_for_length"},         {-5.01, "weight_for_height"},
      {-5.01, "bmi_for_age"},      {5.5, "head_circumference_for_age"}, {4347, "weight_for_age"}};
  for (const auto& [z, indicator] : refused) {
    const std::string error = CallError("interpret_zscore_malnutrition", {{"z", z}, {"indicator", indicator}});
    EXPECT_THAT(error, AllOf(HasSubstr("is not graded"), HasSubstr("biologically implausible"),
                             HasSubstr("re-check the measurement"), HasSubstr(indicator)))
        << z << " " << indicator;
  }
  // At the cut-offs themselves the value is graded.
  using Map = std::map<std::string, std::string>;
  EXPECT_EQ(Bands(-6, "weight_for_age", 30), (Map{{"WHO", "severely underweight"}}));
  EXPECT_EQ(Bands(-5, "bmi_for_age", 30), (Map{{"ASPEN/AND", "severe malnutrition"}, {"WHO", "severe wasting"}}));
  EXPECT_EQ(Bands(5, "weight_for_height", 30),
            (Map{{"ASPEN/AND", "none (outside this system's bands)"}, {"WHO", "obesity"}}));
  // A z growth_zscore flagged (e.g. CDC's modified z) is refused whatever its value.
  EXPECT_THAT(CallError("interpret_zscore_malnutrition",
                        {{"z", -2.5}, {"indicator", "bmi_for_age"}, {"biologically_implausible", true}}),
              HasSubstr("growth_zscore flagged it as biologically implausible"));
  EXPECT_EQ(Call("interpret_zscore_malnutrition",
                 {{"z", -2.5}, {"indicator", "bmi_for_age"}, {"biologically_implausible", false}})["z"],
            -2.5);
}

TEST_F(GrowthInterpretTest, SaysWhichIndicatorAndThatOneIsNotADiagnosis) {
  Json result = Call("interpret_zscore_malnutrition", {{"z", -2.4}, {"indicator", "weight_for_height"}});
  EXPECT_EQ(result["indicator"], "weight_for_height");
  EXPECT_EQ(result["z"], -2.4);
  EXPECT_THAT(result["caution"].get<std::string>(),
              AllOf(HasSubstr("more than one indicator"), HasSubstr("clinical assessment")));
  // Without an age every system is listed, each with its source.
  ASSERT_EQ(result["classifications"].size(), 2u);  // ASPEN, WHO under 5 (WHO 2007 has no weight-for-height)
  for (const Json& c : result["classifications"]) EXPECT_FALSE(c["source"].get<std::string>().empty());
  EXPECT_THAT(result["classifications"][0]["source"].get<std::string>(), HasSubstr("J Acad Nutr Diet 2014"));
  EXPECT_THAT(result["notes"].dump(), AllOf(HasSubstr("No age_months"), HasSubstr("WHO Growth Reference 2007")));
  Json head = Call("interpret_zscore_malnutrition", {{"z", -2.4}, {"indicator", "head_circumference_for_age"}});
  EXPECT_TRUE(head["classifications"].empty());
  EXPECT_THAT(head["notes"].dump(), HasSubstr("not a malnutrition indicator"));
  EXPECT_THAT(CallError("interpret_zscore_malnutrition", {{"z", -2}, {"indicator", "muac"}}), HasSubstr("/indicator"));
}

// Seed 002 calls interpret_zscore_malnutrition({"zscore": -1.88, "measurement_type":
// "weight-for-height"}): the seed's names grade exactly as the tool's own.
TEST_F(GrowthInterpretTest, SeedTwoParameterNamesAreAccepted) {
  Json own = Call("interpret_zscore_malnutrition", {{"z", -1.88}, {"indicator", "weight_for_height"}});
  Json seed = Call("interpret_zscore_malnutrition", {{"zscore", -1.88}, {"measurement_type", "weight-for-height"}});
  EXPECT_EQ(seed, own);
  EXPECT_EQ(seed["classifications"][0]["band"], "mild malnutrition");
  EXPECT_EQ(Call("interpret_zscore_malnutrition", {{"zscore", -2.5}, {"measurement_type", "BMI for age"}})["indicator"],
            "bmi_for_age");
  EXPECT_THAT(CallError("interpret_zscore_malnutrition", {{"z", -1}, {"zscore", -2}, {"indicator", "bmi_for_age"}}),
              HasSubstr("z and zscore differ"));
  EXPECT_THAT(CallError("interpret_zscore_malnutrition",
                        {{"z", -1}, {"indicator", "bmi_for_age"}, {"measurement_type", "weight-for-height"}}),
              HasSubstr("indicator and measurement_type differ"));
  EXPECT_THAT(CallError("interpret_zscore_malnutrition", {{"measurement_type", "weight-for-height"}}), HasSubstr("z"));
}

}  // namespace
}  // namespace medreact

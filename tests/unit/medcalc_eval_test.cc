// Tests for the MedCalc-Bench harness (src/eval): the RFC 4180 reader, the
// Python-literal parser, entity-key and unit normalisation, the mapping of
// entities to calculator arguments, the scoring rules, and a regression
// guard that runs the whole visible test set (MEDCALC_BENCH_CSV, else the
// team's data folder beside the checkout, ../shared/data; skipped when absent).
#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <iterator>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "testing/build_paths.h"
#include "eval/csv.h"
#include "eval/medcalc_eval.h"
#include "eval/medcalc_mapping.h"
#include "eval/py_literal.h"
#include "tools/calc/calculator.h"
#include "tools/calc/units.h"

namespace medreact::eval {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

// ---- CSV -------------------------------------------------------------------------

TEST(MedcalcCsvTest, QuotedFieldsEscapesAndEmbeddedNewlines) {
  auto t = ParseCsv("a,b,c\n1,\"x, y\",\"say \"\"hi\"\"\"\n2,\"line1\nline2\",\n");
  ASSERT_TRUE(t.ok()) << t.status().ToString();
  EXPECT_THAT(t->header, ElementsAre("a", "b", "c"));
  ASSERT_EQ(t->rows.size(), 2u);
  EXPECT_THAT(t->rows[0].fields, ElementsAre("1", "x, y", "say \"hi\""));
  EXPECT_THAT(t->rows[1].fields, ElementsAre("2", "line1\nline2", ""));
  EXPECT_EQ(t->rows[0].line, 2);
  EXPECT_EQ(t->rows[1].line, 3);
  EXPECT_EQ(*t->Field(t->rows[1], "b"), "line1\nline2");
  EXPECT_EQ(t->Field(t->rows[1], "nope"), nullptr);
}

TEST(MedcalcCsvTest, CrlfBomEmptyFieldsAndNoTrailingNewline) {
  auto t = ParseCsv("\xEF\xBB\xBFid,v\r\n1,\r\n\r\n2,\"a\r\nb\"\r\n3,x");
  ASSERT_TRUE(t.ok()) << t.status().ToString();
  EXPECT_THAT(t->header, ElementsAre("id", "v"));
  ASSERT_EQ(t->rows.size(), 3u);
  EXPECT_THAT(t->rows[0].fields, ElementsAre("1", ""));
  EXPECT_THAT(t->rows[1].fields, ElementsAre("2", "a\r\nb"));
  EXPECT_EQ(t->rows[1].line, 4);  // the blank line 3 is skipped
  EXPECT_EQ(t->rows[2].line, 6);
  EXPECT_THAT(t->rows[2].fields, ElementsAre("3", "x"));
}

TEST(MedcalcCsvTest, ErrorsNameTheLine) {
  auto unclosed = ParseCsv("a,b\n1,2\n3,\"never\nclosed\n");
  ASSERT_FALSE(unclosed.ok());
  EXPECT_THAT(unclosed.status().message(), HasSubstr("line 3"));
  EXPECT_THAT(unclosed.status().message(), HasSubstr("never closed"));

  auto stray = ParseCsv("a,b\n1,\"x\"y\n");
  ASSERT_FALSE(stray.ok());
  EXPECT_THAT(stray.status().message(), HasSubstr("line 2"));

  auto inner = ParseCsv("a,b\n1,2\n1,x\"y\n");
  ASSERT_FALSE(inner.ok());
  EXPECT_THAT(inner.status().message(), HasSubstr("line 3: quote inside an unquoted field"));

  auto count = ParseCsv("a,b\n1,\"multi\nline\"\n1,2,3\n");
  ASSERT_FALSE(count.ok());
  EXPECT_THAT(count.status().message(), HasSubstr("line 4: 3 fields, the header has 2"));

  EXPECT_FALSE(ParseCsv("").ok());
}

// ---- Python literals -------------------------------------------------------------------

TEST(PyLiteralTest, MedcalcEntities) {
  auto v = ParsePyLiteral(
      "{'age': [45, 'years'], 'sex': 'Female', 'Hypertension history': True, 'Stroke': False, "
      "'input steroid': ['Dexamethasone PO', 7.96, 'mg'], 'FiO₂': [0.5e2, '%'], 'x': None}");
  ASSERT_TRUE(v.ok()) << v.status().ToString();
  EXPECT_EQ((*v)["age"], Json::array({45, "years"}));
  EXPECT_EQ((*v)["sex"], "Female");
  EXPECT_EQ((*v)["Hypertension history"], true);
  EXPECT_EQ((*v)["Stroke"], false);
  EXPECT_EQ((*v)["input steroid"][1], 7.96);
  EXPECT_EQ((*v)["FiO₂"][0], 50.0);
  EXPECT_TRUE((*v)["x"].is_null());
}

TEST(PyLiteralTest, NestingTuplesAndNumbers) {
  auto v = ParsePyLiteral("{'a': {'b': [1, (2, 3), (4,), ()]}, 1: -2.5E-3, 'c': +7, 'd': 1_000, 'e': 0x1F, "
                          "'f': .5, 'g': 5., 'h': (1), 'i': [1, 2,], 'j': {1, 2}, 'k': 99999999999999999999}");
  ASSERT_TRUE(v.ok()) << v.status().ToString();
  EXPECT_EQ((*v)["a"]["b"], Json::parse("[1, [2, 3], [4], []]"));
  EXPECT_DOUBLE_EQ((*v)["1"].get<double>(), -2.5e-3);
  EXPECT_EQ((*v)["c"], 7);
  EXPECT_TRUE((*v)["c"].is_number_integer());
  EXPECT_EQ((*v)["d"], 1000);
  EXPECT_EQ((*v)["e"], 31);
  EXPECT_DOUBLE_EQ((*v)["f"].get<double>(), 0.5);
  EXPECT_DOUBLE_EQ((*v)["g"].get<double>(), 5.0);
  EXPECT_EQ((*v)["h"], 1);  // parentheses without a comma only group
  EXPECT_EQ((*v)["i"], Json::parse("[1, 2]"));
  EXPECT_EQ((*v)["j"], Json::parse("[1, 2]"));
  EXPECT_TRUE((*v)["k"].is_number_float());
}

TEST(PyLiteralTest, StringsAndEscapes) {
  auto v = ParsePyLiteral(R"(['it\'s', "say \"x\"", 'tab\tnew\nline', '\\', '\x41\u00b5\U0001F600', 'a' "b",
                              r'C:\path', u'uni', '''tri'ple''', '\101', 'dunno\q', "≤3 days"])");
  ASSERT_TRUE(v.ok()) << v.status().ToString();
  EXPECT_EQ((*v)[0], "it's");
  EXPECT_EQ((*v)[1], "say \"x\"");
  EXPECT_EQ((*v)[2], "tab\tnew\nline");
  EXPECT_EQ((*v)[3], "\\");
  EXPECT_EQ((*v)[4], "A\xC2\xB5\xF0\x9F\x98\x80");
  EXPECT_EQ((*v)[5], "ab");
  EXPECT_EQ((*v)[6], "C:\\path");
  EXPECT_EQ((*v)[7], "uni");
  EXPECT_EQ((*v)[8], "tri'ple");
  EXPECT_EQ((*v)[9], "A");
  EXPECT_EQ((*v)[10], "dunno\\q");
  EXPECT_EQ((*v)[11], "≤3 days");
}

TEST(PyLiteralTest, ErrorsGiveTheOffset) {
  auto missing_colon = ParsePyLiteral("{'a' 1}");
  ASSERT_FALSE(missing_colon.ok());
  EXPECT_THAT(missing_colon.status().message(), HasSubstr("offset 5: expected ':' after a dict key, found '1'"));

  auto unclosed = ParsePyLiteral("{'a': 'b}");
  ASSERT_FALSE(unclosed.ok());
  EXPECT_THAT(unclosed.status().message(), HasSubstr("offset 6: string never closed"));

  auto name = ParsePyLiteral("{'a': true}");
  ASSERT_FALSE(name.ok());
  EXPECT_THAT(name.status().message(), HasSubstr("'true' is not a literal"));

  auto trailing = ParsePyLiteral("[1, 2] x");
  ASSERT_FALSE(trailing.ok());
  EXPECT_THAT(trailing.status().message(), HasSubstr("offset 7: unexpected text after the literal"));

  auto list = ParsePyLiteral("[1 2]");
  ASSERT_FALSE(list.ok());
  EXPECT_THAT(list.status().message(), HasSubstr("expected ',' or ']' in a list"));

  EXPECT_FALSE(ParsePyLiteral("").ok());
  EXPECT_FALSE(ParsePyLiteral("1e").ok());
  EXPECT_FALSE(ParsePyLiteral("'\\x4'").ok());
  EXPECT_FALSE(ParsePyLiteral("{[1]: 2, {}: 3}").ok());  // a dict key must be hashable
  EXPECT_FALSE(ParsePyLiteral(std::string(300, '[') + std::string(300, ']')).ok());  // too deep
}

// ---- keys, units, values ---------------------------------------------------------------------

TEST(MedcalcMappingTest, NormalizesKeys) {
  EXPECT_EQ(NormalizeEntityKey("Partial pressure of oxygen (PaO₂) for Apache II"),
            "partial pressure of oxygen pao2 for apache ii");
  EXPECT_EQ(NormalizeEntityKey("  FiO₂ "), "fio2");
  EXPECT_EQ(NormalizeEntityKey("Symptom onset ≤3 days"), "symptom onset le 3 days");
  EXPECT_EQ(NormalizeEntityKey("Bedridden recently >3 days"), NormalizeEntityKey("bedridden recently > 3 days"));
  EXPECT_EQ(NormalizeEntityKey("Continuous veno-venous hemodialysis for ≥24 hours"),
            "continuous veno venous hemodialysis for ge 24 hours");
  EXPECT_EQ(NormalizeEntityKey("Tender/swollen anterior cervical lymph nodes"),
            "tender swollen anterior cervical lymph nodes");
  EXPECT_EQ(NormalizeEntityKey("kg/m²"), "kg m2");
}

TEST(MedcalcMappingTest, EditDistanceCountsASwapOnce) {
  EXPECT_EQ(EditDistance("faliure", "failure"), 1);
  EXPECT_EQ(EditDistance("hypertension", "hypotension"), 2);
  EXPECT_EQ(EditDistance("", "abc"), 3);
  EXPECT_EQ(AllowedKeyDistance(3), 0);
  EXPECT_EQ(AllowedKeyDistance(12), 1);
  EXPECT_EQ(AllowedKeyDistance(24), 2);
}

TEST(MedcalcMappingTest, BenchmarkUnitSpellings) {
  using calc::Dimension;
  using calc::ToCanonical;
  EXPECT_NEAR(*ToCanonical(Dimension::kPressure, 120, "mm Hg"), 120, 1e-9);
  EXPECT_NEAR(*ToCanonical(Dimension::kPressure, 120, "mmhg"), 120, 1e-9);
  EXPECT_NEAR(*ToCanonical(Dimension::kTemperature, 38, "degrees celsisus"), 38, 1e-9);
  EXPECT_NEAR(*ToCanonical(Dimension::kTemperature, 100.4, "degrees fahreinheit"), 38, 1e-9);
  EXPECT_NEAR(*ToCanonical(Dimension::kCreatinine, 88.42, "µmol/L"), 1, 1e-9);
  EXPECT_NEAR(*ToCanonical(Dimension::kElectrolyte, 140, "mEq/L"), 140, 1e-9);
  EXPECT_NEAR(*ToCanonical(Dimension::kAlbumin, 35, "g/L"), 3.5, 1e-9);
  EXPECT_NEAR(*ToCanonical(Dimension::kPercent, 40, "%"), 40, 1e-9);
  EXPECT_NEAR(*ToCanonical(Dimension::kMass, 150, "lbs"), 68.04, 0.01);
  EXPECT_NEAR(*ToCanonical(Dimension::kLength, 70, "in"), 177.8, 1e-9);
  EXPECT_NEAR(*ToCanonical(Dimension::kLength, 5.5, "ft"), 167.64, 1e-9);
  EXPECT_NEAR(*ToCanonical(Dimension::kRate, 88, "beats per minute"), 88, 1e-9);
  EXPECT_NEAR(*ToCanonical(Dimension::kRate, 18, "breaths per minute"), 18, 1e-9);
  EXPECT_NEAR(*ToCanonical(Dimension::kDose, 500, "µg"), 0.5, 1e-9);
  EXPECT_NEAR(*ToCanonical(Dimension::kDoseRate, 25, "µg/hr"), 25, 1e-9);
  EXPECT_NEAR(*ToCanonical(Dimension::kCellCount, 9400, "µL"), 9.4, 1e-9);
  EXPECT_NEAR(*ToCanonical(Dimension::kCellCount, 9.4e6, "count/mL"), 9.4, 1e-9);
  EXPECT_NEAR(*ToCanonical(Dimension::kCellCount, 9.4e9, "L"), 9.4, 1e-9);
  EXPECT_NEAR(*ToCanonical(Dimension::kInfusionRate, 0.1, "mcg/kg/min"), 0.1, 1e-9);
}

TEST(MedcalcMappingTest, ReadsValuesByInputType) {
  std::string why;
  const calc::CalcInput number{.name = "x", .dimension = calc::Dimension::kCreatinine};
  EXPECT_EQ(ReadValueForInput(number, Json::parse(R"([1.2, "mg/dL"])"), &why),
            Json::parse(R"({"value": 1.2, "unit": "mg/dL"})"));
  EXPECT_EQ(ReadValueForInput(number, 3, &why), 3);
  EXPECT_EQ(ReadValueForInput(number, Json::parse(R"(["Drug", 7.5, "mg"])"), &why),
            Json::parse(R"({"value": 7.5, "unit": "mg"})"));
  EXPECT_EQ(ReadValueForInput(number, "88 µmol/L", &why), Json::parse(R"({"value": 88, "unit": "µmol/L"})"));
  EXPECT_TRUE(ReadValueForInput(number, true, &why).is_null());

  const calc::CalcInput flag{.name = "f", .type = calc::InputType::kBoolean};
  EXPECT_EQ(ReadValueForInput(flag, true, &why), true);
  EXPECT_EQ(ReadValueForInput(flag, 0, &why), false);
  EXPECT_EQ(ReadValueForInput(flag, "Not mentinoed", &why), false);
  EXPECT_EQ(ReadValueForInput(flag, "None or diet-controlled", &why), false);
  EXPECT_EQ(ReadValueForInput(flag, "Moderate to Severe", &why), true);
  EXPECT_EQ(ReadValueForInput(flag, Json::parse(R"([0, "episodes"])"), &why), false);

  const calc::CalcInput choice{.name = "c",
                               .type = calc::InputType::kChoice,
                               .choices = {"absent", "slight", "moderate"}};
  EXPECT_EQ(ReadValueForInput(choice, "Slight", &why), "slight");
  EXPECT_EQ(ReadValueForInput(choice, "mild", &why), "slight");  // synonym
  EXPECT_EQ(ReadValueForInput(choice, "moderate ascites", &why), "moderate");  // contains
  EXPECT_EQ(ReadValueForInput(choice, "moderatte", &why), "moderate");  // typo
  EXPECT_TRUE(ReadValueForInput(choice, "tense", &why).is_null());
  const calc::CalcInput grades{.name = "g",
                               .type = calc::InputType::kChoice,
                               .choices = {"none", "grade 1-2", "grade 3-4"}};
  EXPECT_EQ(ReadValueForInput(grades, "Grade 1-2", &why), "grade 1-2");
  EXPECT_EQ(ReadValueForInput(grades, "grade 1 - 2", &why), "grade 1-2");
  EXPECT_EQ(ReadValueForInput(grades, false, &why), "none");
}

TEST(MedcalcMappingTest, MapsKeysByNameAliasAndTypo) {
  const calc::Calculator* cha = calc::FindCalculatorByMedcalcId(4);
  ASSERT_NE(cha, nullptr);
  MappedArgs m = MapEntities(*cha, Json::parse(R"({"age": [76, "years"], "sex": "Female",
      "Congestive Heart Failure!": true, "Hypertension History": false, "Unknown thing": true,
      "diabetes  history": true})"));
  EXPECT_EQ(m.args["age"], Json::parse(R"({"value": 76, "unit": "years"})"));
  EXPECT_EQ(m.args["sex"], "Female");
  EXPECT_EQ(m.args["congestive_heart_failure"], true);
  EXPECT_EQ(m.args["hypertension"], false);
  EXPECT_EQ(m.args["diabetes"], true);
  EXPECT_THAT(m.ignored, ElementsAre("Unknown thing"));

  // A typo (a swapped pair of letters) in a long key is matched by edit distance, and noted.
  const calc::Calculator* custom_typo = calc::FindCalculatorByMedcalcId(32);
  ASSERT_NE(custom_typo, nullptr);
  MappedArgs typo = MapEntities(*custom_typo, Json::parse(R"({"age": [60, "years"], "Peptic ulcre disease": true})"));
  EXPECT_EQ(typo.args["peptic_ulcer_disease"], true);
  EXPECT_THAT(typo.notes.at(0), HasSubstr("edit distance 1"));

  // One entity feeds two inputs: the steroid's name and its dose.
  const calc::Calculator* steroid = calc::FindCalculatorByMedcalcId(24);
  ASSERT_NE(steroid, nullptr);
  MappedArgs s = MapEntities(*steroid, Json::parse(R"({"input steroid": ["PredniSONE PO", 40, "mg"],
                                                        "target steroid": "Dexamethasone IV"})"));
  EXPECT_EQ(s.args["from_steroid"], "prednisone po");
  EXPECT_EQ(s.args["dose"], Json::parse(R"({"value": 40, "unit": "mg"})"));
  EXPECT_EQ(s.args["to_steroid"], "dexamethasone iv");
}

TEST(MedcalcMappingTest, CompoundMeasurementsAndCategories) {
  std::string why;
  const calc::CalcInput height{.name = "height", .dimension = calc::Dimension::kLength};
  EXPECT_NEAR(ReadValueForInput(height, Json::parse(R"([5, "ft", 7, "in"])"), &why).get<double>(), 170.18, 1e-9);
  EXPECT_TRUE(ReadValueForInput(height, Json::parse(R"([5, "ft", 7, "parsecs"])"), &why).is_null());
  EXPECT_THAT(why, HasSubstr("parsecs"));
  const calc::CalcInput age{.name = "age", .dimension = calc::Dimension::kAge};
  EXPECT_NEAR(ReadValueForInput(age, Json::parse(R"([1, "years", 6, "months"])"), &why).get<double>(), 1.5, 1e-9);

  // 'Race' names a category: black_race is true only for 'Black'.
  const calc::Calculator* mdrd = calc::FindCalculatorByMedcalcId(9);
  ASSERT_NE(mdrd, nullptr);
  EXPECT_EQ(MapEntities(*mdrd, Json::parse(R"({"Race": "Black"})")).args["black_race"], true);
  EXPECT_EQ(MapEntities(*mdrd, Json::parse(R"({"Race": "White"})")).args["black_race"], false);
  EXPECT_EQ(MapEntities(*mdrd, Json::parse(R"({"black race": true})")).args["black_race"], true);
}

// Within one calculator no two inputs may be within the fuzzy-match distance
// of each other, or a typo could be routed to the wrong input.
TEST(MedcalcMappingTest, InputNamesAreFarApartWithinEachCalculator) {
  for (const calc::Calculator& c : calc::AllCalculators()) {
    std::vector<std::pair<std::string, std::string>> names;  // (input, normalised name or alias)
    for (const calc::CalcInput& in : c.inputs) {
      std::string plain = in.name;
      std::replace(plain.begin(), plain.end(), '_', ' ');
      names.emplace_back(in.name, NormalizeEntityKey(plain));
      for (const std::string& alias : in.aliases) names.emplace_back(in.name, NormalizeEntityKey(alias));
    }
    for (size_t i = 0; i < names.size(); ++i) {
      for (size_t j = i + 1; j < names.size(); ++j) {
        if (names[i].first == names[j].first || names[i].second == names[j].second) continue;
        const int d = EditDistance(names[i].second, names[j].second);
        EXPECT_GT(d, AllowedKeyDistance(std::min(names[i].second.size(), names[j].second.size())))
            << c.name << ": '" << names[i].second << "' (" << names[i].first << ") vs '" << names[j].second << "' ("
            << names[j].first << ")";
      }
    }
  }
}

// ---- scoring -----------------------------------------------------------------------------

MedcalcRow Row(std::string type, std::string truth, std::string lower = "", std::string upper = "") {
  MedcalcRow r;
  r.output_type = std::move(type);
  r.ground_truth = truth;
  r.lower_limit = lower.empty() ? truth : lower;
  r.upper_limit = upper.empty() ? truth : upper;
  return r;
}

TEST(MedcalcScoreTest, DecimalWithinTheLimits) {
  std::string f;
  const MedcalcRow r = Row("decimal", "25.238", "23.9761", "26.4999");
  EXPECT_TRUE(*ScoreAnswer(r, 23.9761, &f));
  EXPECT_TRUE(*ScoreAnswer(r, 26.4999, &f));
  EXPECT_FALSE(*ScoreAnswer(r, 23.97, &f));
  EXPECT_FALSE(*ScoreAnswer(r, 26.51, &f));
  EXPECT_EQ(f, "26.51");
  EXPECT_TRUE(*ScoreAnswer(Row("decimal", "-0.828", "-0.8694", "-0.7866"), -0.8, &f));  // negative band
  EXPECT_FALSE(ScoreAnswer(r, "12/01/2020", &f).ok());
}

TEST(MedcalcScoreTest, IntegersExactlyAfterRounding) {
  std::string f;
  EXPECT_TRUE(*ScoreAnswer(Row("integer", "4"), 4.0, &f));
  EXPECT_TRUE(*ScoreAnswer(Row("integer", "-2"), -2.0, &f));
  EXPECT_FALSE(*ScoreAnswer(Row("integer", "4"), 5.0, &f));
  EXPECT_FALSE(ScoreAnswer(Row("integer", "four"), 4.0, &f).ok());
}

TEST(MedcalcScoreTest, DatesAndWeeksDays) {
  std::string f;
  EXPECT_TRUE(*ScoreAnswer(Row("date", "09/23/2014"), "2014-09-23", &f));
  EXPECT_EQ(f, "09/23/2014");
  EXPECT_FALSE(*ScoreAnswer(Row("date", "09/23/2014"), "2014-09-24", &f));
  EXPECT_FALSE(ScoreAnswer(Row("date", "09/23/2014"), 3.0, &f).ok());
  const MedcalcRow ga = Row("integer", "('14 weeks', '1 days')");
  EXPECT_TRUE(*ScoreAnswer(ga, "(14 weeks, 1 days)", &f));
  EXPECT_FALSE(*ScoreAnswer(ga, "(14 weeks, 2 days)", &f));
  EXPECT_FALSE(*ScoreAnswer(ga, "(1 weeks, 14 days)", &f));
}

TEST(MedcalcEvalTest, ReadsRowsAndReportsBadOnes) {
  const std::string header =
      "Row Number,Calculator ID,Calculator Name,Category,Output Type,Note ID,Note Type,Patient Note,Question,"
      "Relevant Entities,Ground Truth Answer,Lower Limit,Upper Limit,Ground Truth Explanation\n";
  auto rows = ReadMedcalcRows(header +
                              "1,6,BMI,physical,decimal,n1,Extracted,\"note,\nwith lines\",q,"
                              "\"{'weight': [80.0, 'kg'], 'height': [2.0, 'm']}\",20,19,21,e\n"
                              "2,6,BMI,physical,decimal,n2,Extracted,note,q,\"{'weight': [80.0, 'kg']\",20,19,21,e\n"
                              "3,999,X,physical,decimal,n3,Extracted,note,q,{},1,1,1,e\n");
  ASSERT_TRUE(rows.ok()) << rows.status().ToString();
  ASSERT_EQ(rows->size(), 3u);
  EXPECT_EQ((*rows)[1].line, 4);
  EvalReport report = EvaluateRows(*rows);
  EXPECT_EQ(report.total, 3);
  EXPECT_EQ(report.correct, 1);
  EXPECT_TRUE(report.rows[0].correct) << report.rows[0].error;
  EXPECT_THAT(report.rows[1].error, HasSubstr("Relevant Entities (line 4): offset"));
  EXPECT_THAT(report.rows[2].error, HasSubstr("no calculator with MedCalc-Bench id 999"));
  EXPECT_THAT(report.Table(), HasSubstr("overall: 1/3 = 33.3%"));
  EXPECT_EQ(report.ToJson()["rows"][0]["arguments"]["weight"], Json::parse(R"({"value": 80.0, "unit": "kg"})"));

  EXPECT_THAT(ReadMedcalcRows("a,b\n1,2\n").status().message(), HasSubstr("no 'Row Number' column"));
  auto bad_id = ReadMedcalcRows(header + "1,six,BMI,p,decimal,n,E,note,q,{},1,1,1,e\n");
  ASSERT_FALSE(bad_id.ok());
  EXPECT_THAT(bad_id.status().message(), HasSubstr("line 2: Calculator ID 'six' is not an integer"));
}

// ---- the visible test set ------------------------------------------------------------------

// Measured 686/838 = 81.9 % (docs/medcalc.md); the guard allows a few rows.
constexpr double kMinimumAccuracy = 0.815;

std::string BenchCsvPath() {
  if (const char* env = std::getenv("MEDCALC_BENCH_CSV")) return env;
  return std::string(MEDREACT_SOURCE_DIR) + "/../shared/data/medcalc-bench/test_data.csv";
}

// A regression guard, not a target: the figure measured when the harness was
// written (docs/medcalc.md), minus a small margin.
TEST(MedcalcEvalTest, VisibleTestSetAccuracy) {
  std::ifstream in(BenchCsvPath(), std::ios::binary);
  if (!in) GTEST_SKIP() << "no MedCalc-Bench CSV at " << BenchCsvPath();
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  auto rows = ReadMedcalcRows(text);
  ASSERT_TRUE(rows.ok()) << rows.status().ToString();
  EvalReport report = EvaluateRows(*rows);
  EXPECT_EQ(report.by_calculator.size(), 55u);
  EXPECT_GE(report.Accuracy(), kMinimumAccuracy) << report.Table();
}

}  // namespace
}  // namespace medreact::eval

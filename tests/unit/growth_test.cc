// Tests for the growth pack: the LMS arithmetic and the inverse normal against
// known values; every shipped table against its own published percentile (CDC)
// or SD (WHO) columns at every row, |dz| < 0.01 (the WHO +/-3 and +/-4 columns
// of weight-based indicators only match with the restricted tails); CSV
// quirks; table choice, interpolation and the WHO length/height switch; every
// error through a ToolRegistry (so the JSON Schemas are exercised by
// valijson); and the malnutrition bands at their boundaries.
#include "tools/growth/growth_pack.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "tools/growth/growth_tables.h"
#include "tools/growth/lms.h"

namespace medreact {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::Not;

// ---- Normal distribution -----------------------------------------------------

TEST(GrowthNormalTest, QuantileKnownValues) {
  EXPECT_NEAR(NormalQuantile(0.975), 1.959963984540054, 1e-12);
  EXPECT_NEAR(NormalQuantile(0.025), -1.959963984540054, 1e-12);
  EXPECT_EQ(NormalQuantile(0.5), 0);
  EXPECT_NEAR(NormalQuantile(1e-10), -6.361340902404056, 1e-9);
  EXPECT_NEAR(NormalQuantile(0.03), -1.880793608151251, 1e-12);
  EXPECT_NEAR(NormalQuantile(0.85), 1.036433389493790, 1e-12);
  EXPECT_NEAR(NormalQuantile(0.999), 3.090232306167813, 1e-12);
  EXPECT_NEAR(NormalQuantile(1e-300), -37.0471, 1e-3);
  EXPECT_EQ(NormalQuantile(0), -INFINITY);
  EXPECT_EQ(NormalQuantile(1), INFINITY);
  EXPECT_TRUE(std::isnan(NormalQuantile(-0.1)));
  EXPECT_TRUE(std::isnan(NormalQuantile(1.5)));
  EXPECT_TRUE(std::isnan(NormalQuantile(NAN)));
}

TEST(GrowthNormalTest, CdfKnownValues) {
  EXPECT_EQ(NormalCdf(0), 0.5);
  EXPECT_NEAR(NormalCdf(-2), 0.02275013194817921, 1e-15);
  EXPECT_NEAR(NormalCdf(1.959963984540054), 0.975, 1e-15);
  EXPECT_NEAR(NormalCdf(-6.361340902404056) / 1e-10, 1, 1e-9);
}

// Above z = 5 the round trip tests the rounding of p = 1 - tiny, not Phi^-1.
TEST(GrowthNormalTest, RoundTripsFromTheTailsToTheCentre) {
  for (double z = -8; z <= 5; z += 0.01) {
    const double p = NormalCdf(z);
    ASSERT_NEAR(NormalQuantile(p), z, 1e-9 * std::max(1.0, std::fabs(z))) << z;
  }
  for (double p : {1e-15, 1e-6, 0.001, 0.02425, 0.0243, 0.1, 0.3, 0.5, 0.7, 0.9, 0.97575, 0.999999}) {
    EXPECT_NEAR(NormalCdf(NormalQuantile(p)) / p, 1, 1e-12) << p;
  }
}

// ---- LMS ---------------------------------------------------------------------

TEST(GrowthLmsTest, ZAndValueAreInverse) {
  for (const Lms lms : {Lms{-1.5, 16.5, 0.08}, Lms{0.35, 3.35, 0.146}, Lms{1, 50, 0.04}, Lms{0, 10, 0.1},
                        Lms{1e-12, 10, 0.1}, Lms{4.4, 35.8, 0.052}}) {
    for (double z = -3.5; z <= 3.5; z += 0.25) {
      ASSERT_NEAR(LmsZ(LmsValue(z, lms), lms), z, 1e-10) << lms.l << " " << z;
    }
    EXPECT_DOUBLE_EQ(LmsValue(0, lms), lms.m);
  }
}

TEST(GrowthLmsTest, LZeroIsTheLogLimit) {
  const Lms zero{0, 10, 0.1};
  EXPECT_NEAR(LmsZ(12, zero), std::log(1.2) / 0.1, 1e-15);
  EXPECT_NEAR(LmsZ(12, Lms{1e-9, 10, 0.1}), LmsZ(12, zero), 1e-8);
  EXPECT_NEAR(LmsValue(1, zero), 10 * std::exp(0.1), 1e-12);
  EXPECT_TRUE(std::isnan(LmsValue(10, Lms{-2, 10, 0.1})));  // 1 + L*S*z <= 0
}

TEST(GrowthLmsTest, RestrictedTailsAreLinearBeyondThree) {
  const Lms lms{-0.3521, 7.4327, 0.08217};  // WHO weight-for-height, boys, 65 cm
  const double sd2 = LmsValue(2, lms), sd3 = LmsValue(3, lms);
  const double sd2neg = LmsValue(-2, lms), sd3neg = LmsValue(-3, lms);
  EXPECT_NEAR(WhoRestrictedZ(sd3, lms), 3, 1e-12);
  EXPECT_NEAR(WhoRestrictedZ(sd3neg, lms), -3, 1e-12);
  EXPECT_NEAR(WhoRestrictedZ(sd3 + (sd3 - sd2), lms), 4, 1e-12);
  EXPECT_NEAR(WhoRestrictedZ(sd3neg - 1.5 * (sd2neg - sd3neg), lms), -4.5, 1e-12);
  EXPECT_EQ(WhoRestrictedZ(8, lms), LmsZ(8, lms));  // inside +/-3: plain LMS
  EXPECT_NE(WhoRestrictedZ(sd3 + (sd3 - sd2), lms), LmsZ(sd3 + (sd3 - sd2), lms));
}

// ---- Every table against its published columns --------------------------------

bool FileUsesRestrictedTails(const std::string& file) {
  for (const GrowthTableSpec& spec : GrowthTableCatalog()) {
    for (GrowthSex sex : {GrowthSex::kMale, GrowthSex::kFemale}) {
      if (GrowthTableFile(spec, sex) == file) return spec.restricted_tails;
    }
  }
  ADD_FAILURE() << file << " is not in the catalog";
  return false;
}

// The table family for the summary: "cdc/wtage", "who2006_wfa", ...
std::string Family(const std::string& file) {
  const std::string name = file.substr(file.rfind('/') + 1);
  if (file.find("/cdc/") != std::string::npos) return "cdc/" + name.substr(0, name.find('.'));
  const size_t first = name.find('_');
  return name.substr(0, name.find('_', first + 1));
}

TEST(GrowthTablesTest, EveryPublishedColumnIsReproducedAtEveryRow) {
  const std::vector<std::string> files = AllGrowthTableFiles();
  ASSERT_EQ(files.size(), 26u);  // 8 CDC + 9 WHO tables x 2 sexes
  std::map<std::string, double> max_dz;
  size_t checked = 0;
  for (const std::string& file : files) {
    auto loaded = LoadGrowthFile(file);
    ASSERT_TRUE(loaded.ok()) << loaded.status().ToString();
    const bool restricted = FileUsesRestrictedTails(file);
    const size_t sexes = file.find("/cdc/") != std::string::npos ? 2 : 1;
    ASSERT_EQ((*loaded)->size(), sexes) << file;
    for (const GrowthTable& table : **loaded) {
      ASSERT_GE(table.published_columns.size(), 9u) << file;
      double& worst = max_dz[Family(file)];
      for (const GrowthRow& row : table.rows) {
        ASSERT_EQ(row.published.size(), table.published_z.size());
        for (size_t c = 0; c < row.published.size(); ++c) {
          const double z = restricted ? WhoRestrictedZ(row.published[c], row.lms) : LmsZ(row.published[c], row.lms);
          const double dz = std::fabs(z - table.published_z[c]);
          worst = std::max(worst, dz);
          ++checked;
          ASSERT_LT(dz, 0.01) << file << " " << GrowthSexName(table.sex) << " x=" << row.x << " column "
                              << table.published_columns[c] << ": z " << z << ", published " << table.published_z[c];
        }
      }
    }
  }
  EXPECT_GT(checked, 175000u);
  std::string summary;
  for (const auto& [family, dz] : max_dz) {
    char line[96];
    std::snprintf(line, sizeof(line), "%s max|dz|=%.2e; ", family.c_str(), dz);
    summary += line;
  }
  RecordProperty("max_dz", summary);
}

// The WHO SD3/SD4 columns of weight-based indicators are not plain LMS values:
// without the restricted tails they miss by far more than 0.01.
TEST(GrowthTablesTest, WhoWeightTailsNeedTheRestrictedMethod) {
  auto loaded = LoadGrowthFile("growth/who/who2006_wfa_girls_0-5y_daily.csv");
  ASSERT_TRUE(loaded.ok()) << loaded.status().ToString();
  const GrowthTable& table = (**loaded)[0];
  ASSERT_EQ(table.published_columns.back(), "SD4");
  double worst_plain = 0;
  for (const GrowthRow& row : table.rows) {
    worst_plain = std::max(worst_plain, std::fabs(LmsZ(row.published.back(), row.lms) - 4));
  }
  EXPECT_GT(worst_plain, 0.1);
}

TEST(GrowthTablesTest, RangesAreAsPublished) {
  struct Expected {
    const char* file;
    double min_x, max_x;
  };
  for (const Expected& e : {Expected{"growth/cdc/wtage.csv", 24, 240}, {"growth/cdc/bmiagerev.csv", 24, 240.5},
                            {"growth/cdc/lenageinf.csv", 0, 35.5}, {"growth/cdc/hcageinf.csv", 0, 36},
                            {"growth/cdc/wtleninf.csv", 45, 103.5}, {"growth/cdc/wtstat.csv", 77, 121.5},
                            {"growth/who/who2006_wfa_boys_0-5y_daily.csv", 0, 1856},
                            {"growth/who/who2006_wfl_girls_45-110cm.csv", 45, 110},
                            {"growth/who/who2006_wfh_boys_65-120cm.csv", 65, 120},
                            {"growth/who/who2007_wfa_girls_5-10y_monthly.csv", 61, 120},
                            {"growth/who/who2007_hfa_boys_5-19y_monthly.csv", 61, 228}}) {
    auto loaded = LoadGrowthFile(e.file);
    ASSERT_TRUE(loaded.ok()) << loaded.status().ToString();
    for (const GrowthTable& table : **loaded) {
      EXPECT_EQ(table.min_x(), e.min_x) << e.file;
      EXPECT_EQ(table.max_x(), e.max_x) << e.file;
    }
  }
}

// ---- CSV parsing ---------------------------------------------------------------

TEST(GrowthCsvTest, ToleratesCrlfBomBlankLinesAndRepeatedHeaders) {
  const std::string text =
      "\xEF\xBB\xBFSex,Agemos,L,M,S,P3,P50,Pub3\r\n"
      "1,0,1,10,0.1,8.1,10,8.2\r\n"
      "1,0.5,1,11,0.1,8.9,11,9\r\n"
      "\r\n"
      "Sex,Agemos,L,M,S,P3,P50,Pub3\r\n"
      "2,0,1,9,0.1,7.3,9,7.4\r\n"
      "2,0.5,1,10,0.1,8.1,10,8.2";
  auto tables = ParseGrowthCsv(text, "test.csv", GrowthAxis::kAgeMonths, std::nullopt);
  ASSERT_TRUE(tables.ok()) << tables.status().ToString();
  ASSERT_EQ(tables->size(), 2u);
  EXPECT_EQ((*tables)[0].sex, GrowthSex::kMale);
  EXPECT_EQ((*tables)[1].sex, GrowthSex::kFemale);
  EXPECT_EQ((*tables)[1].rows.size(), 2u);
  EXPECT_EQ((*tables)[0].published_columns, (std::vector<std::string>{"P3", "P50"}));  // Pub3 is not a percentile
  EXPECT_NEAR((*tables)[0].published_z[0], NormalQuantile(0.03), 1e-15);
  EXPECT_EQ((*tables)[0].rows[1].lms.m, 11);
}

TEST(GrowthCsvTest, WhoSdColumnsAndSexFromTheCaller) {
  auto tables = ParseGrowthCsv("Day,L,M,S,SD2neg,SD0,SD3\n0,1,3,0.1,2.4,3,3.9\n1,1,3.1,0.1,2.5,3.1,4\n", "w.csv",
                               GrowthAxis::kAgeDays, GrowthSex::kFemale);
  ASSERT_TRUE(tables.ok()) << tables.status().ToString();
  ASSERT_EQ(tables->size(), 1u);
  EXPECT_EQ((*tables)[0].sex, GrowthSex::kFemale);
  EXPECT_EQ((*tables)[0].published_z, (std::vector<double>{-2, 0, 3}));
}

TEST(GrowthCsvTest, MalformedTablesNameTheFileAndLine) {
  auto parse = [](const std::string& text) {
    auto tables = ParseGrowthCsv(text, "growth/cdc/x.csv", GrowthAxis::kAgeMonths, std::nullopt);
    EXPECT_FALSE(tables.ok());
    return tables.ok() ? std::string() : tables.status().message();
  };
  EXPECT_THAT(parse("Sex,Agemos,L,M,S\n1,0,1,abc,0.1\n1,1,1,2,0.1\n"),
              AllOf(HasSubstr("growth/cdc/x.csv line 2"), HasSubstr("column M"), HasSubstr("'abc'")));
  EXPECT_THAT(parse("Sex,Agemos,L,M,S\n1,0,1,2,0.1\n1,0,1,2,0.1\n"), HasSubstr("does not increase"));
  EXPECT_THAT(parse("Sex,Agemos,L,M,S\n1,0,1,2,0.1\n1,1,1,2\n"), HasSubstr("line 3: 4 cells"));
  EXPECT_THAT(parse("Sex,Agemos,L,M,S\n3,0,1,2,0.1\n"), HasSubstr("Sex is '3'"));
  EXPECT_THAT(parse("Sex,Agemos,L,M,S\n1,0,1,0,0.1\n1,1,1,2,0.1\n"), HasSubstr("must be positive"));
  EXPECT_THAT(parse("Sex,Age,L,M,S\n1,0,1,2,0.1\n"), HasSubstr("header needs"));
  EXPECT_THAT(parse("Sex,Agemos,L,M,S\n1,0,1,2,0.1\n"), HasSubstr("at least 2"));
  EXPECT_THAT(parse(""), HasSubstr("empty"));
}

TEST(GrowthCsvTest, AFileOutsideTheCatalogIsNotFound) {
  auto loaded = LoadGrowthFile("growth/cdc/missing.csv");
  ASSERT_FALSE(loaded.ok());
  EXPECT_EQ(loaded.status().code(), StatusCode::kNotFound);
  EXPECT_THAT(loaded.status().message(), HasSubstr("growth/cdc/missing.csv"));
}

TEST(GrowthCsvTest, ConcurrentFirstUseLoadsOnce) {
  std::vector<std::thread> threads;
  std::vector<const void*> seen(4);
  for (int i = 0; i < 4; ++i) {
    threads.emplace_back([&seen, i] {
      auto loaded = LoadGrowthFile("growth/cdc/wtstat.csv");
      seen[i] = loaded.ok() ? loaded->get() : nullptr;
    });
  }
  for (auto& thread : threads) thread.join();
  EXPECT_NE(seen[0], nullptr);
  for (const void* table : seen) EXPECT_EQ(table, seen[0]);
}

// ---- Table choice and interpolation ----------------------------------------------

GrowthPosition AgeMonths(double months) { return {months, months * kDaysPerMonth, std::nullopt}; }
GrowthPosition AgeDays(double days) { return {days / kDaysPerMonth, days, std::nullopt}; }
GrowthPosition Cm(double cm) { return {std::nullopt, std::nullopt, cm}; }

std::string TableFor(GrowthReference reference, GrowthIndicator indicator, const GrowthPosition& position) {
  auto lookup = FindGrowthLms(reference, indicator, GrowthSex::kMale, position);
  EXPECT_TRUE(lookup.ok()) << lookup.status().ToString();
  return lookup.ok() ? lookup->table->file : "";
}

TEST(GrowthLookupTest, ChoosesTheTableByReferenceIndicatorAndAge) {
  using enum GrowthIndicator;
  const auto cdc = GrowthReference::kCdc, who = GrowthReference::kWho;
  EXPECT_EQ(TableFor(cdc, kWeightForAge, AgeMonths(23.9)), "growth/cdc/wtageinf.csv");
  EXPECT_EQ(TableFor(cdc, kWeightForAge, AgeMonths(24)), "growth/cdc/wtage.csv");
  EXPECT_EQ(TableFor(cdc, kLengthForAge, AgeMonths(30)), "growth/cdc/lenageinf.csv");
  EXPECT_EQ(TableFor(cdc, kHeightForAge, AgeMonths(30)), "growth/cdc/statage.csv");
  EXPECT_EQ(TableFor(cdc, kBmiForAge, AgeMonths(240.5)), "growth/cdc/bmiagerev.csv");
  EXPECT_EQ(TableFor(cdc, kHeadCircumferenceForAge, AgeDays(0)), "growth/cdc/hcageinf.csv");
  EXPECT_EQ(TableFor(cdc, kWeightForLength, Cm(60)), "growth/cdc/wtleninf.csv");
  EXPECT_EQ(TableFor(cdc, kWeightForHeight, Cm(100)), "growth/cdc/wtstat.csv");
  EXPECT_EQ(TableFor(who, kWeightForAge, AgeMonths(60.99)), "growth/who/who2006_wfa_boys_0-5y_daily.csv");
  EXPECT_EQ(TableFor(who, kWeightForAge, AgeMonths(61)), "growth/who/who2007_wfa_boys_5-10y_monthly.csv");
  EXPECT_EQ(TableFor(who, kLengthForAge, AgeDays(100)), "growth/who/who2006_lhfa_boys_0-5y_daily.csv");
  EXPECT_EQ(TableFor(who, kHeightForAge, AgeDays(1000)), "growth/who/who2006_lhfa_boys_0-5y_daily.csv");
  EXPECT_EQ(TableFor(who, kHeightForAge, AgeMonths(200)), "growth/who/who2007_hfa_boys_5-19y_monthly.csv");
  EXPECT_EQ(TableFor(who, kBmiForAge, AgeMonths(228)), "growth/who/who2007_bfa_boys_5-19y_monthly.csv");
  EXPECT_EQ(TableFor(who, kWeightForLength, Cm(45)), "growth/who/who2006_wfl_boys_45-110cm.csv");
  EXPECT_EQ(TableFor(who, kWeightForHeight, Cm(120)), "growth/who/who2006_wfh_boys_65-120cm.csv");
}

TEST(GrowthLookupTest, InterpolatesBetweenRows) {
  auto lookup = FindGrowthLms(GrowthReference::kCdc, GrowthIndicator::kWeightForAge, GrowthSex::kMale,
                              AgeMonths(24.25));
  ASSERT_TRUE(lookup.ok()) << lookup.status().ToString();
  const GrowthRow& lo = lookup->table->rows[0];
  const GrowthRow& hi = lookup->table->rows[1];
  ASSERT_EQ(lo.x, 24);
  ASSERT_EQ(hi.x, 24.5);
  EXPECT_NEAR(lookup->lms.m, (lo.lms.m + hi.lms.m) / 2, 1e-12);
  EXPECT_NEAR(lookup->lms.l, (lo.lms.l + hi.lms.l) / 2, 1e-12);
  EXPECT_NEAR(lookup->lms.s, (lo.lms.s + hi.lms.s) / 2, 1e-12);
  const double z = LmsZ(12, lookup->lms);
  EXPECT_LT(z, LmsZ(12, lo.lms));  // the median grows with age: a fixed weight's z falls
  EXPECT_GT(z, LmsZ(12, hi.lms));

  // WHO daily: 12 months = 365.25 days, a quarter of the way from day 365 to 366.
  auto who = FindGrowthLms(GrowthReference::kWho, GrowthIndicator::kWeightForAge, GrowthSex::kFemale,
                           AgeMonths(12));
  ASSERT_TRUE(who.ok()) << who.status().ToString();
  EXPECT_EQ(who->x, 365.25);
  const Lms& d365 = who->table->rows[365].lms;
  const Lms& d366 = who->table->rows[366].lms;
  EXPECT_NEAR(who->lms.m, d365.m + 0.25 * (d366.m - d365.m), 1e-12);

  // Exactly on a row: that row.
  auto exact = FindGrowthLms(GrowthReference::kWho, GrowthIndicator::kWeightForLength, GrowthSex::kMale, Cm(45.1));
  ASSERT_TRUE(exact.ok());
  EXPECT_EQ(exact->lms.m, 2.4577);
}

TEST(GrowthLookupTest, WhoLengthAndHeightRowsAreNotMixed) {
  // Day 730 is length, 731 height; an age between reads day 730.
  auto lookup = FindGrowthLms(GrowthReference::kWho, GrowthIndicator::kLengthForAge, GrowthSex::kMale,
                              AgeMonths(24));  // 730.5 days
  ASSERT_TRUE(lookup.ok());
  EXPECT_EQ(lookup->x, 730);
  EXPECT_EQ(lookup->lms.m, lookup->table->rows[730].lms.m);
  // The last 2006 day (1856) to 61 months (1856.6875 days) reads day 1856.
  auto gap = FindGrowthLms(GrowthReference::kWho, GrowthIndicator::kBmiForAge, GrowthSex::kMale, AgeDays(1856.5));
  ASSERT_TRUE(gap.ok()) << gap.status().ToString();
  EXPECT_EQ(gap->x, 1856);
}

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

}  // namespace
}  // namespace medreact

namespace medreact {
namespace {

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

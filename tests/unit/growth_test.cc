// Tests for the growth pack: the LMS arithmetic and the inverse normal against
// known values; every shipped table against its own published percentile (CDC)
// or SD (WHO) columns at every row, |dz| < 0.01 (the WHO +/-3 and +/-4 columns
// of weight-based indicators only match with the restricted tails); CSV
// quirks; table choice, interpolation and the WHO length/height switch. The
// tools themselves (through a ToolRegistry) are in growth_pack_test.cc.
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

}  // namespace
}  // namespace medreact

// `medreact eval medcalc` as a user runs it: the per-calculator table on
// stdout, the per-row JSON report from --out, --calculator, and exit code 2
// with the file and line named when the CSV is malformed or missing.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "testing/build_paths.h"
#include "medreact/json.h"
#include "testing/subprocess.h"

namespace medreact {
namespace {

using ::testing::HasSubstr;
using testing::ReadFileOrEmpty;
using testing::RunCommand;
using testing::TempDir;

const char kHeader[] =
    "Row Number,Calculator ID,Calculator Name,Category,Output Type,Note ID,Note Type,Patient Note,Question,"
    "Relevant Entities,Ground Truth Answer,Lower Limit,Upper Limit,Ground Truth Explanation\n";

// Two BMI rows (one right, one with a wrong ground truth) and one CHA2DS2-VASc row, with quoted notes
// spanning lines.
std::string SmallCsv() {
  return std::string(kHeader) +
         "1,6,Body Mass Index (BMI),physical,decimal,n1,Extracted,\"A note,\nover two lines.\",q,"
         "\"{'weight': [80.0, 'kg'], 'height': [200.0, 'cm']}\",20,19,21,\"e\"\n"
         "2,6,Body Mass Index (BMI),physical,decimal,n2,Extracted,note,q,"
         "\"{'weight': [176.37, 'lbs'], 'height': [78.74, 'in']}\",30,28.5,31.5,e\n"
         "3,4,CHA2DS2-VASc Score for Atrial Fibrillation Stroke Risk,risk,integer,n3,Extracted,note,q,"
         "\"{'age': [76, 'years'], 'sex': 'Female', 'Congestive Heart Faliure': True}\",4,4,4,e\n";
}

TEST(MedcalcEvalCliTest, PrintsTheTableAndWritesTheReport) {
  TempDir dir;
  dir.Write("bench.csv", SmallCsv());
  auto r = RunCommand({MEDREACT_BINARY, "eval", "medcalc", "--data", dir.File("bench.csv"), "--out",
                       dir.File("report.json")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("Body Mass Index (BMI)"));
  EXPECT_THAT(r.out, HasSubstr("1/2"));
  EXPECT_THAT(r.out, HasSubstr("overall: 2/3 = 66.7%"));
  auto report = ParseJson(ReadFileOrEmpty(dir.File("report.json")));
  ASSERT_TRUE(report.ok()) << report.status().ToString();
  EXPECT_EQ((*report)["overall"]["correct"], 2);
  const Json& rows = (*report)["rows"];
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[0]["row_number"], 1);
  EXPECT_EQ(rows[0]["calculator"], "body_mass_index");
  EXPECT_EQ(rows[0]["correct"], true);
  EXPECT_EQ(rows[0]["answer"], "20");
  EXPECT_EQ(rows[1]["correct"], false);  // 80 kg / (2 m)^2 = 20, not 30
  EXPECT_EQ(rows[1]["ground_truth"], "30");
  EXPECT_EQ(rows[1]["arguments"]["weight"]["unit"], "lbs");
  EXPECT_EQ(rows[2]["arguments"]["congestive_heart_failure"], true);
  EXPECT_EQ(rows[2]["answer"], "4");  // CHF 1 + age >= 75 2 + female 1
}

TEST(MedcalcEvalCliTest, OneCalculatorOnly) {
  TempDir dir;
  dir.Write("bench.csv", SmallCsv());
  auto r = RunCommand({MEDREACT_BINARY, "eval", "medcalc", "--data", dir.File("bench.csv"), "--calculator", "4"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("overall: 1/1 = 100.0%"));
  EXPECT_THAT(r.out, ::testing::Not(HasSubstr("Body Mass Index")));

  auto unknown = RunCommand({MEDREACT_BINARY, "eval", "medcalc", "--data", dir.File("bench.csv"), "--calculator",
                             "999"});
  EXPECT_EQ(unknown.exit_code, 2);
  EXPECT_THAT(unknown.err, HasSubstr("999"));
}

TEST(MedcalcEvalCliTest, BadInputExitsTwoNamingFileAndLine) {
  TempDir dir;
  dir.Write("broken.csv", std::string(kHeader) + "1,6,BMI,physical,decimal,n1,Extracted,\"unterminated note\n");
  auto broken = RunCommand({MEDREACT_BINARY, "eval", "medcalc", "--data", dir.File("broken.csv")});
  EXPECT_EQ(broken.exit_code, 2);
  EXPECT_THAT(broken.err, HasSubstr(dir.File("broken.csv")));
  EXPECT_THAT(broken.err, HasSubstr("line 2"));
  EXPECT_TRUE(broken.out.empty());

  dir.Write("short.csv", std::string(kHeader) + "1,6,BMI\n");
  auto short_row = RunCommand({MEDREACT_BINARY, "eval", "medcalc", "--data", dir.File("short.csv")});
  EXPECT_EQ(short_row.exit_code, 2);
  EXPECT_THAT(short_row.err, HasSubstr("line 2: 3 fields"));

  auto missing = RunCommand({MEDREACT_BINARY, "eval", "medcalc", "--data", dir.File("nope.csv")});
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_THAT(missing.err, HasSubstr("nope.csv"));

  auto no_data = RunCommand({MEDREACT_BINARY, "eval", "medcalc"});
  EXPECT_EQ(no_data.exit_code, 2);
}

}  // namespace
}  // namespace medreact

// The pack table (tools/packs.h): every known pack registers, packs that
// read data insist on being given it, and the calc command reaches the
// growth tools.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <set>

#include "testing/build_paths.h"
#include "medreact/json.h"
#include "testing/subprocess.h"
#include "tools/packs.h"

namespace medreact {
namespace {

using ::testing::HasSubstr;
using ::testing::UnorderedElementsAre;

TEST(PacksTest, GrowthPackRegistersItsFourTools) {
  ToolRegistry registry;
  ASSERT_TRUE(RegisterPacks(registry, {"growth"}).ok());
  EXPECT_THAT(registry.Names(), UnorderedElementsAre("growth_zscore", "percentile_to_zscore",
                                                     "zscore_to_percentile", "interpret_zscore_malnutrition"));
}

TEST(PacksTest, RagPackNeedsACorpusOrExtras) {
  ToolRegistry registry;
  Status s = RegisterPacks(registry, {"rag"});
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("(corpus_dir) and/or a hints file (extras_path)"));
  EXPECT_TRUE(registry.empty());
}

TEST(PacksTest, RagPackFromAFolderAndAHintsFile) {
  testing::TempDir dir;
  std::filesystem::create_directories(dir.File("corpus"));
  dir.Write("corpus/glim.md", "# GLIM\n\n## Phenotypic criteria\n\nWeight loss over 5 % within 6 months.\n");
  dir.Write("extras.json", R"([{"keywords": ["percentile"], "hint": "3rd percentile = z -1.88"}])");
  ToolRegistry registry;
  Status s = RegisterPacks(registry, {"rag"}, {.corpus_dir = dir.File("corpus"), .extras_path = dir.File("extras.json")});
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_THAT(registry.Names(), UnorderedElementsAre("query_rag", "query_extras"));
  ToolResult r = registry.Execute({.id = "1", .name = "query_rag", .arguments = R"({"query": "weight loss"})"}, {});
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_THAT(r.content, HasSubstr("Phenotypic criteria"));

  ToolRegistry broken;
  dir.Write("bad.json", "[{\"hint\": \"no keywords\"}]");
  s = RegisterPacks(broken, {"rag"}, {.extras_path = dir.File("bad.json")});
  EXPECT_FALSE(s.ok());
  EXPECT_THAT(s.message(), HasSubstr("bad.json"));
}

TEST(PacksTest, CalcCommandRunsGrowthZscore) {
  auto r = testing::RunCommand({MEDREACT_BINARY, "calc", "growth_zscore", "--args",
                                R"({"reference": "who", "indicator": "weight_for_age", "sex": "female",
                                    "age_months": 12, "value": 7.0})"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto out = ParseJson(r.out);
  ASSERT_TRUE(out.ok()) << r.out;
  EXPECT_NEAR((*out)["z"].get<double>(), -2.05, 0.01);  // WHO 2006 girls 12 mo: M 8.948, L -0.2023, S 0.1227
  EXPECT_NEAR((*out)["percentile"].get<double>(), 2.0, 0.05);

  auto bad = testing::RunCommand({MEDREACT_BINARY, "calc", "growth_zscore", "--args", R"({"reference": "who"})"});
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_THAT(bad.err, HasSubstr("indicator"));
}

TEST(PacksTest, ToolsListShowsEveryPack) {
  auto r = testing::RunCommand({MEDREACT_BINARY, "tools", "list"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto specs = ParseJson(r.out);
  ASSERT_TRUE(specs.ok());
  std::set<std::string> packs;
  for (const auto& s : *specs) packs.insert(s["pack"].get<std::string>());
  for (const auto& p : KnownPacks()) EXPECT_TRUE(packs.contains(p.name)) << p.name;
}

}  // namespace
}  // namespace medreact

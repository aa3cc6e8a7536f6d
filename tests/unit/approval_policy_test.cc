// The approval rules (apps/common/approval_policy.h) over real packs: which
// tools each rule makes wait, and the rules that are refused.
#include "apps/common/approval_policy.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "medreact/agent.h"
#include "testing/subprocess.h"
#include "tools/packs.h"

namespace medreact {
namespace {

using ::testing::HasSubstr;

struct RunTools {
  ToolRegistry tools;
  std::map<std::string, std::string> packs;
};

// util, calc and literature (offline: it reads only its cache), plus an
// app's own tool with a side effect.
std::unique_ptr<RunTools> Tools() {
  auto run = std::make_unique<RunTools>();
  testing::TempDir dir;
  PackContext context;
  context.literature.client.cache_path = dir.File("cache.sqlite");
  EXPECT_TRUE(RegisterPacks(run->tools, {"util", "calc", "literature"}, context, &run->packs).ok());
  EXPECT_TRUE(run->tools
                  .Register(MakeFunctionTool({.name = "send_order", .description = "orders", .idempotent = false},
                                             [](const Json&, const ToolContext&) { return ToolResult::Ok("sent"); }))
                  .ok());
  return run;
}

std::vector<std::string> Waiting(const std::vector<std::string>& rules, const RunTools& run) {
  auto needs = ApprovalPredicate(rules, run.tools, run.packs);
  EXPECT_TRUE(needs.ok()) << needs.status().ToString();
  std::vector<std::string> out;
  for (const ToolSpec& spec : run.tools.Specs()) {
    if (*needs && (*needs)(ToolCall{"c1", spec.name, "{}"}, spec)) out.push_back(spec.name);
  }
  return out;
}

TEST(ApprovalPolicyTest, EachRuleMakesItsToolsWait) {
  std::unique_ptr<RunTools> run = Tools();
  EXPECT_EQ(run->packs.at("calculator"), "util");
  EXPECT_EQ(run->packs.at("search_pubmed"), "literature");
  EXPECT_THAT(Waiting({"network"}, *run), ::testing::UnorderedElementsAre("search_pubmed", "search_clinical_trials",
                                                                          "search_preprints", "get_bibliography"));
  EXPECT_THAT(Waiting({"writes"}, *run), ::testing::ElementsAre("send_order"));
  EXPECT_THAT(Waiting({"pack:util"}, *run), ::testing::UnorderedElementsAre("calculator", "current_time"));
  EXPECT_THAT(Waiting({"tool:anion_gap", "calculator"}, *run),
              ::testing::UnorderedElementsAre("anion_gap", "calculator"));
  EXPECT_EQ(Waiting({"all"}, *run).size(), run->tools.Names().size());
  EXPECT_TRUE(Waiting({}, *run).empty());
  auto none = ApprovalPredicate({}, run->tools, run->packs);
  ASSERT_TRUE(none.ok());
  EXPECT_FALSE(*none);  // no rules: no predicate, nothing waits
}

TEST(ApprovalPolicyTest, RulesThatNameNothingAreRefused) {
  std::unique_ptr<RunTools> run = Tools();
  auto typo = ApprovalPredicate({"calculater"}, run->tools, run->packs);
  ASSERT_FALSE(typo.ok());
  EXPECT_THAT(typo.status().message(), HasSubstr("'calculater' names no tool of this run (tools: current_time"));
  EXPECT_THAT(CheckApprovalRules({"pack:nope"}).status().message(), HasSubstr("names no pack (known packs: util"));
  EXPECT_THAT(CheckApprovalRules({"net:work"}).status().message(), HasSubstr("is not one of"));
  EXPECT_FALSE(CheckApprovalRules({" "}).ok());
  EXPECT_FALSE(CheckApprovalRules({"tool:"}).ok());
  Result<std::vector<std::string>> trimmed = CheckApprovalRules({" network ", "network", "all"});
  ASSERT_TRUE(trimmed.ok());
  EXPECT_EQ(*trimmed, (std::vector<std::string>{"network", "all"}));
}

TEST(ApprovalPolicyTest, AnApprovalFileIsReadStrictly) {
  testing::TempDir dir;
  dir.Write("ok.json", R"({"require_approval": ["network", "pack:calc"]})");
  Result<std::vector<std::string>> rules = LoadApprovalFile(dir.File("ok.json"));
  ASSERT_TRUE(rules.ok()) << rules.status().ToString();
  EXPECT_EQ(*rules, (std::vector<std::string>{"network", "pack:calc"}));
  dir.Write("shape.json", R"({"require_approval": ["network", 3]})");
  EXPECT_THAT(LoadApprovalFile(dir.File("shape.json")).status().message(), HasSubstr("/require_approval/1"));
  dir.Write("bad.json", "{");
  EXPECT_THAT(LoadApprovalFile(dir.File("bad.json")).status().message(), HasSubstr("bad.json"));
  EXPECT_FALSE(LoadApprovalFile(dir.File("missing.json")).ok());
  dir.Write("pack.json", R"({"require_approval": ["pack:imaginary"]})");
  EXPECT_THAT(LoadApprovalFile(dir.File("pack.json")).status().message(), HasSubstr("pack.json"));
}

}  // namespace
}  // namespace medreact

// Tool selection for small context windows (engine/tool_selection.h): all
// tools when they fit; else the finishing tools, the tools already used, the
// ones find_tools brought up, then the best-ranked, within the budget.
#include "engine/tool_selection.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "llm/context_fit.h"
#include "medreact/agent.h"
#include "tools/calc/calc_pack.h"

namespace medreact {
namespace {

using ::testing::HasSubstr;

ToolSpec Spec(const std::string& name, const std::string& description) {
  return {name, description + " " + std::string(400, 'x'),
          Json{{"type", "object"}, {"properties", {{"value", {{"type", "number"}}}}}}};
}

// Sixty filler tools and a few with words of their own.
std::vector<ToolSpec> ManySpecs() {
  std::vector<ToolSpec> specs = {Spec("final_answer", "Ends the run with the answer.")};
  for (int i = 0; i < 60; ++i) {
    specs.push_back(Spec("filler_" + std::to_string(i), "Computes filler quantity number " + std::to_string(i) + "."));
  }
  specs.push_back(Spec("creatinine_clearance", "Creatinine clearance by Cockcroft-Gault for drug dosing."));
  specs.push_back(Spec("anion_gap", "Serum anion gap from sodium, chloride and bicarbonate."));
  specs.push_back(Spec("potassium_correction", "Potassium deficit and replacement."));
  return specs;
}

std::vector<std::string> Names(const ToolSelection& sel) {
  std::vector<std::string> out;
  for (const ToolSpec& s : sel.specs) out.push_back(s.name);
  return out;
}

std::string ReasonOf(const ToolSelection& sel, const std::string& name) {
  for (const OfferedTool& t : sel.offered) {
    if (t.name == name) return t.reason;
  }
  return "(not offered)";
}

ToolSelectionInput Input(const std::vector<ToolSpec>& specs, const std::string& query, int64_t window) {
  return {.specs = &specs, .finish_tools = {"final_answer"}, .query = query, .window = window,
          .message_tokens = 100, .reply_tokens = 256};
}

TEST(ToolSelectionTest, AllToolsWhenTheyFitOrTheWindowIsUnknown) {
  const std::vector<ToolSpec> specs = ManySpecs();
  for (int64_t window : {int64_t{0}, int64_t{200'000}}) {
    ToolSelection sel = SelectTools(Input(specs, "creatinine clearance", window));
    EXPECT_TRUE(sel.all);
    EXPECT_EQ(sel.specs.size(), specs.size());
    EXPECT_EQ(Names(sel).back(), "potassium_correction");  // no find_tools
  }
}

TEST(ToolSelectionTest, WhenTheyDoNotFitTheFinishingUsedAndBestRankedWithinTheBudget) {
  const std::vector<ToolSpec> specs = ManySpecs();
  ToolSelectionInput in = Input(specs, "What is the creatinine clearance for dosing?", 2048);
  in.used = {"filler_7"};
  ToolSelection sel = SelectTools(in);
  ASSERT_FALSE(sel.all);
  EXPECT_EQ(sel.total, specs.size());
  EXPECT_LT(sel.specs.size(), specs.size());
  EXPECT_EQ(sel.budget, ToolBudget(2048, 256, 100));
  EXPECT_LE(sel.tokens, sel.budget);
  EXPECT_TRUE(sel.problem.empty());
  EXPECT_EQ(ReasonOf(sel, "final_answer"), "finishing tool");
  EXPECT_EQ(ReasonOf(sel, "filler_7"), "already used");
  EXPECT_THAT(ReasonOf(sel, "creatinine_clearance"), HasSubstr("rank 1 for '"));
  EXPECT_THAT(ReasonOf(sel, "creatinine_clearance"), HasSubstr("creatinine"));
  EXPECT_EQ(ReasonOf(sel, "anion_gap"), "(not offered)");
  EXPECT_EQ(Names(sel).back(), kFindToolsName);
  // What is sent, shortened, is within what was counted (each tool rounded up).
  std::vector<ToolSpec> shortened;
  for (const ToolSpec& s : sel.specs) shortened.push_back(ShortenedToolSpec(s));
  EXPECT_LE(EstimateToolTokens(shortened), sel.tokens);
  EXPECT_GE(EstimateToolTokens(shortened) + static_cast<int64_t>(sel.specs.size()), sel.tokens);
  EXPECT_THAT(sel.Summary(), HasSubstr("tools offered: " + std::to_string(sel.offered.size()) + " of 64"));
  EXPECT_THAT(sel.Summary(), HasSubstr("filler_7 (already used)"));
}

TEST(ToolSelectionTest, TheOrderIsDeterministicAndTiesKeepRegistrationOrder) {
  const std::vector<ToolSpec> specs = ManySpecs();
  ToolSelectionInput in = Input(specs, "filler quantity", 2048);
  const std::vector<std::string> first = Names(SelectTools(in));
  EXPECT_EQ(Names(SelectTools(in)), first);
  // Every filler ties: the earliest registered are taken.
  ASSERT_GE(first.size(), 3u);
  EXPECT_EQ(first[0], "final_answer");
  EXPECT_EQ(first[1], "filler_0");
  EXPECT_EQ(first[2], "filler_1");
  std::vector<ToolScore> ranked = RankTools(specs, "filler quantity");
  ASSERT_EQ(ranked.size(), 60u);
  EXPECT_EQ(ranked[0].index, 1u);
  EXPECT_EQ(ranked[59].index, 60u);
}

TEST(ToolSelectionTest, AToolUsedEarlierIsNeverDroppedEvenOverTheBudget) {
  const std::vector<ToolSpec> specs = ManySpecs();
  ToolSelectionInput in = Input(specs, "anion gap", 1200);
  for (int i = 0; i < 12; ++i) in.used.push_back("filler_" + std::to_string(i));
  ToolSelection sel = SelectTools(in);
  ASSERT_FALSE(sel.all);
  for (const std::string& used : in.used) EXPECT_EQ(ReasonOf(sel, used), "already used") << used;
  EXPECT_GT(sel.tokens, sel.budget);
  EXPECT_THAT(sel.problem, HasSubstr("more than their budget"));
  EXPECT_EQ(ReasonOf(sel, "anion_gap"), "(not offered)");  // nothing optional once over
}

TEST(ToolSelectionTest, FindToolsBringsUpToolsForTheNextRequest) {
  auto registry = std::make_shared<ToolRegistry>();
  ASSERT_TRUE(RegisterFinishTools(*registry).ok());
  for (const ToolSpec& s : ManySpecs()) {
    if (s.name == "final_answer") continue;
    ASSERT_TRUE(registry->Register(MakeFunctionTool(s, [](const Json&, const ToolContext&) {
      return ToolResult::Ok("7");
    })).ok());
  }
  ToolOffer offer(registry, {"final_answer"});
  const std::vector<Message> task = {Message::System("Be careful."), Message::User("Creatinine clearance?")};
  ToolSelection first = offer.Select(task, 2048, 256);
  ASSERT_FALSE(first.all);
  EXPECT_EQ(ReasonOf(first, "potassium_correction"), "(not offered)");
  // find_tools runs through the run's registry, like any tool.
  std::shared_ptr<const ToolRegistry> run_tools = offer.registry();
  ASSERT_NE(run_tools, registry);
  ToolResult found = run_tools->Execute({"c1", kFindToolsName, R"({"query": "potassium replacement creatinine"})"}, {});
  ASSERT_TRUE(found.ok) << found.error;
  EXPECT_THAT(found.content, HasSubstr("potassium_correction"));
  EXPECT_THAT(found.content, ::testing::Not(HasSubstr("\"creatinine_clearance\"")));  // already offered
  std::vector<Message> next = task;
  next.push_back(Message::Assistant("", {{"c1", kFindToolsName, R"({"query": "potassium replacement"})"}}));
  next.push_back(Message::Tool("c1", kFindToolsName, found.content));
  ToolSelection second = offer.Select(next, 2048, 256);
  EXPECT_EQ(ReasonOf(second, "potassium_correction"), "asked for by find_tools");
  EXPECT_LE(second.tokens, second.budget);
  // The agent's own tools still run through the run's registry, validated.
  EXPECT_EQ(run_tools->Execute({"c2", "anion_gap", R"({"value": 3})"}, {}).content, "7");
  EXPECT_FALSE(run_tools->Execute({"c3", "anion_gap", R"({"value": "x"})"}, {}).ok);
}

TEST(ToolSelectionTest, TheCalculatorPackOnA4kWindow) {
  auto registry = std::make_shared<ToolRegistry>();
  ASSERT_TRUE(RegisterFinishTools(*registry).ok());
  ASSERT_TRUE(RegisterCalcPack(*registry).ok());
  ToolOffer offer(registry, {"final_answer", "terminate", "terminate_and_answer"});
  ModelRequest request;
  request.messages = {Message::System("You are a careful clinical assistant."),
                      Message::User("Man, 70 years, 72 kg, serum creatinine 1.3 mg/dL: creatinine clearance?")};
  const int64_t reserve = ReplyReserve(request, 4096);
  ToolSelection sel = offer.Select(request.messages, 4096, reserve);
  ASSERT_FALSE(sel.all);
  ModelRequest whole = request;  // the whole pack does not fit, even shortened
  whole.tools = registry->Specs();
  EXPECT_FALSE(FitToContext(whole, 4096, nullptr).ok());
  EXPECT_THAT(ReasonOf(sel, "creatinine_clearance_cockcroft_gault"), HasSubstr("rank "));
  request.tools = sel.specs;
  Result<std::optional<ModelRequest>> fit = FitToContext(request, 4096, nullptr);
  ASSERT_TRUE(fit.ok()) << fit.status().ToString();
  const ModelRequest& sent = fit->has_value() ? **fit : request;
  EXPECT_LE(EstimateTokens(sent) + reserve, 4096);
  EXPECT_EQ(sent.messages.size(), 2u);  // the tools made room, not the history
}

}  // namespace
}  // namespace medreact

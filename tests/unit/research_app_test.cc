// The research app with in-process peers: the finishing tools' validation,
// the judge's sufficiency rule, the manager's stall counting and replanning,
// every break condition ending in a fallback report that says why, a judge
// answering in prose, and the rules planner's whole flow.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "apps/research/research_app.h"
#include "apps/research/research_planner.h"
#include "apps/research/research_prompts.h"
#include "apps/research/research_report.h"
#include "apps/research/research_types.h"
#include "testing/research_fixture.h"

namespace medreact {
namespace {

using ::testing::HasSubstr;
using testing::FixtureConfig;
using testing::kResearchQuestion;
using testing::Ledger;
using testing::RoleModel;

std::vector<std::string> EventTypes(const ResearchOutcome& out) {
  std::vector<std::string> types;
  for (const ResearchEvent& e : out.events) {
    if (e.type != ResearchEventType::kProgress || !e.agent.empty()) types.push_back(ResearchEventTypeName(e.type));
  }
  return types;
}

bool HasError(const ResearchOutcome& out, const std::string& text) {
  for (const std::string& e : out.errors) {
    if (e.find(text) != std::string::npos) return true;
  }
  return false;
}

TEST(ResearchTypesTest, EveryFinishingToolValidatesItsArguments) {
  ToolRegistry registry;
  ASSERT_TRUE(RegisterResearchFinishingTools(registry, {kSubmitLedgerTool, kSubmitSearchTool, kSubmitJudgementTool,
                                                        kSubmitHypothesesTool, kSubmitReportTool})
                  .ok());
  auto call = [&](const std::string& tool, const Json& args) {
    return registry.Execute({.id = "c", .name = tool, .arguments = DumpJson(args)}, {});
  };
  EXPECT_TRUE(call(kSubmitLedgerTool, Ledger("judge")).ok);
  EXPECT_FALSE(call(kSubmitLedgerTool, Ledger("oracle")).ok);  // not a speaker
  EXPECT_FALSE(call(kSubmitSearchTool, Json{{"queries", {"x"}}}).ok);  // summary required
  Json judgement = {{"details", {{"evidence_assessed", 4}, {"relevant_evidence", {"[1]", "[2]"}}}},
                    {"mechanism_score", 6}, {"mechanism_reasoning", "targets and pathway named in [1]"},
                    {"clinical_evidence_score", 7}, {"clinical_reasoning", "two RCTs [1], [2]"}, {"confidence", 0.8},
                    {"sufficient", true}, {"recommendation", "synthesize"}, {"next_search_queries", Json::array()},
                    {"reasoning", "RCTs and a clear pathway"}};
  EXPECT_TRUE(call(kSubmitJudgementTool, judgement).ok);
  Json bad = judgement;
  bad["mechanism_score"] = 11;
  ToolResult refused = call(kSubmitJudgementTool, bad);
  EXPECT_FALSE(refused.ok);
  EXPECT_THAT(refused.error, HasSubstr("mechanism_score"));
  bad = judgement;
  bad["recommendation"] = "stop";
  EXPECT_FALSE(call(kSubmitJudgementTool, bad).ok);
  EXPECT_FALSE(call(kSubmitHypothesesTool, Json{{"hypotheses", Json::array()}}).ok);  // at least one
  EXPECT_FALSE(call(kSubmitReportTool, Json{{"title", "t"}, {"executive_summary", "s"}, {"conclusion", "c"}}).ok);

  EXPECT_FALSE(ReadJudgement(Json("The evidence looks good.")).ok());
  EXPECT_FALSE(ReadLedger(Json::object()).ok());
  EXPECT_TRUE(ReadJudgement(judgement).ok());
}

TEST(ResearchTypesTest, SufficiencyIsTheSeedsRuleAtItsBoundaries) {
  // Seed 003, "Sufficiency Decision": confidence >= 0.7 and both scores >= 6.
  EXPECT_TRUE(IsSufficientEvidence(0.7, 6, 6));
  EXPECT_FALSE(IsSufficientEvidence(0.69, 6, 6));
  EXPECT_FALSE(IsSufficientEvidence(0.7, 5, 6));
  EXPECT_FALSE(IsSufficientEvidence(0.7, 6, 5));
  EXPECT_TRUE(IsSufficientEvidence(1.0, 10, 10));

  // The model's boolean is not trusted: recomputed, and the disagreement noted.
  Json said = {{"details", {{"evidence_assessed", 3}, {"relevant_evidence", {"[1]"}}}},
               {"mechanism_score", 8}, {"mechanism_reasoning", "pathway described"},
               {"clinical_evidence_score", 8}, {"clinical_reasoning", "a large RCT"}, {"confidence", 0.65},
               {"sufficient", true}, {"recommendation", "synthesize"}, {"next_search_queries", Json::array()},
               {"reasoning", "looks strong"}};
  Result<JudgeAssessment> j = ReadJudgement(said);
  ASSERT_TRUE(j.ok());
  EXPECT_FALSE(j->sufficient);
  EXPECT_EQ(j->recommendation, "continue");
  EXPECT_THAT(j->override_note, HasSubstr("seed 003"));
  said["confidence"] = 0.7;
  said["mechanism_score"] = 6;
  said["clinical_evidence_score"] = 6;
  said["sufficient"] = false;
  j = ReadJudgement(said);
  ASSERT_TRUE(j.ok());
  EXPECT_TRUE(j->sufficient);
  EXPECT_EQ(j->recommendation, "synthesize");
}

TEST(ResearchReportTest, CitationsAreCheckedAgainstTheBibliography) {
  EXPECT_EQ(CitedReferenceNumbers("A [1], B [2, 4] and C [5-6]; a [link](http://x) and [note]."),
            (std::vector<int>{1, 2, 4, 5, 6}));
  EXPECT_EQ(CitedReferenceNumbers("Text [2].\n\n## References\n\n[1] A. http://a\n[9] B. http://b\n"),
            (std::vector<int>{2}));
  ResearchReport r{.markdown = "Shown in [3] and [7]."};
  EXPECT_THAT(CheckReportReferences(r, 5), HasSubstr("[7]"));
  EXPECT_EQ(CheckReportReferences(r, 7), "");
  r.references_cited = {8};
  EXPECT_THAT(CheckReportReferences(r, 7), HasSubstr("[8]"));
  EXPECT_THAT(NumberInCitationOrder({.markdown = "See [2]."}, "[1] A. http://a\n[2] B. http://b\n").report.markdown,
              HasSubstr("See [1].\n\n## References\n\n[1] B. http://b\n"));
}

TEST(ResearchPromptsTest, KeyTermsDropQuestionWords) {
  EXPECT_EQ(KeyTermQuery("What is the evidence for Keytruda in cancer?"), "keytruda cancer");
  EXPECT_EQ(KeyTerms("Does pembrolizumab improve survival in melanoma?"),
            (std::vector<std::string>{"pembrolizumab", "improve", "survival", "melanoma"}));
}

TEST(ResearchAppTest, RulesPlannerRunsTheWholeFlowWithRealReferences) {
  ResearchConfig config = FixtureConfig();
  ResearchOutcome out = RunResearch(kResearchQuestion, config);
  ASSERT_TRUE(out.status.ok()) << out.status.ToString();
  EXPECT_EQ(out.planner, "rules");
  EXPECT_TRUE(out.report_from_agent) << out.fallback_reason;
  EXPECT_EQ(out.evidence_count, 6u);  // 3 trials, 1 PubMed record, 2 preprints; the repeat search adds none
  EXPECT_THAT(out.report.markdown, HasSubstr("## References"));
  EXPECT_THAT(out.report.markdown, HasSubstr("27797938"));  // the record naming the question's terms, cited
  EXPECT_EQ(CheckReportReferences(out.report, out.evidence_count), "");
  EXPECT_FALSE(out.report.references_cited.empty());
  const std::vector<std::string> types = EventTypes(out);
  ASSERT_GE(types.size(), 4u);
  EXPECT_EQ(types.front(), "started");
  EXPECT_EQ(types.back(), "complete");
  EXPECT_EQ(out.trace["ledgers"].size(), static_cast<size_t>(out.rounds));
  EXPECT_EQ(out.result["evidence"].size(), 6u);
  EXPECT_EQ(out.result["references"].size(), out.report.references_cited.size());
}

// Sources that break: PubMed sends a malformed body, ClinicalTrials.gov
// hangs past the request timeout, Europe PMC answers 503. The research still
// ends with a report; each failure is named in the errors and in the trace.
class BrokenSources : public HttpTransport {
 public:
  Result<HttpResponse> Send(const HttpRequest& request, const HttpChunkHandler&,
                            const CancellationToken& cancel) override {
    HttpResponse r;
    r.headers = {{"content-type", "application/json"}};
    if (request.url.find("esearch.fcgi") != std::string::npos) {
      r.status = 200;
      r.body = R"({"esearchresult": {"count": "1", "idlist": [)";  // cut off
    } else if (request.url.find("/studies") != std::string::npos) {
      cancel.WaitFor(request.total_timeout);  // the request's own timeout ends the wait
      return Status::Timeout("the server did not answer within " + std::to_string(request.total_timeout.count()) + " ms");
    } else {
      r.status = 503;
      r.body = R"({"error": "maintenance"})";
    }
    return r;
  }
};

TEST(ResearchAppTest, MalformedHangingAndFailingSourcesAreNamedAndAReportStillComes) {
  ResearchConfig config = FixtureConfig();
  config.literature.client.transport = std::make_shared<BrokenSources>();
  config.literature.client.request_timeout = Millis(200);
  ResearchOutcome out = RunResearch(kResearchQuestion, config);
  ASSERT_TRUE(out.status.ok()) << out.status.ToString();
  EXPECT_EQ(out.evidence_count, 0u);
  EXPECT_FALSE(out.report.markdown.empty());
  const std::string errors = ::testing::PrintToString(out.errors);
  EXPECT_THAT(errors, HasSubstr("PubMed error"));
  EXPECT_THAT(errors, HasSubstr("ClinicalTrials.gov error"));
  EXPECT_THAT(errors, HasSubstr("Europe PMC (preprints) error"));
  EXPECT_THAT(errors, HasSubstr("503"));
  const std::string trace = DumpJson(out.trace);
  EXPECT_THAT(trace, HasSubstr("PubMed error"));
  EXPECT_THAT(trace, HasSubstr("ClinicalTrials.gov error"));
}

TEST(ResearchAppTest, StallsAreCountedAndThreeInARowReplan) {
  auto model = std::make_shared<RoleModel>();
  for (int i = 0; i < 3; ++i) model->PushCall(kSubmitLedgerTool, kSubmitLedgerTool, Ledger("judge", false));
  ResearchConfig config = FixtureConfig();
  config.model = model;
  config.max_rounds = 7;
  ResearchOutcome out = RunResearch(kResearchQuestion, config);
  const Json& ledgers = out.trace["ledgers"];
  ASSERT_GE(ledgers.size(), 4u) << DumpJson(out.trace["errors"]);
  EXPECT_EQ(ledgers[0]["stall_count"], 1);
  EXPECT_EQ(ledgers[1]["stall_count"], 2);
  EXPECT_EQ(ledgers[2]["replanned"], true);
  EXPECT_EQ(ledgers[2]["stall_count"], 0);
  bool replan_event = false;
  for (const ResearchEvent& e : out.events) replan_event |= e.message.find("Replanning after 3") != std::string::npos;
  EXPECT_TRUE(replan_event);
  // After the replan the (rules) manager synthesises; the report is written.
  EXPECT_TRUE(out.report_from_agent) << out.stop_reason << ": " << out.fallback_reason;
}

TEST(ResearchAppTest, MaxRoundsWithAManagerThatNeverCallsTheReportFallsBack) {
  auto model = std::make_shared<RoleModel>();
  model->SetDefault(kSubmitLedgerTool, [](const ModelRequest&, const ModelCallContext&) -> Result<ModelResponse> {
    ModelResponse r;
    r.message = Message::Assistant("", {ToolCall{"m", kSubmitLedgerTool, DumpJson(Ledger("search"))}});
    return r;
  });
  ResearchConfig config = FixtureConfig();
  config.model = model;
  config.max_rounds = 3;
  ResearchOutcome out = RunResearch(kResearchQuestion, config);
  EXPECT_FALSE(out.report_from_agent);
  EXPECT_EQ(out.stop_reason, "max_rounds");
  EXPECT_EQ(out.rounds, 3);
  EXPECT_EQ(model->calls(kSubmitReportTool), 0);
  EXPECT_THAT(out.report.markdown, HasSubstr("stopped by **max_rounds**"));
  EXPECT_THAT(out.report.markdown, HasSubstr("used all 3 rounds"));
  EXPECT_THAT(out.report.markdown, HasSubstr("https://clinicaltrials.gov/study/"));  // the memory's references
  EXPECT_EQ(out.result["fallback_reason"], out.fallback_reason);
  // Numbered in order of first citation: the memory summary's first record is [1]; every record is listed.
  const std::string summary = out.report.markdown.substr(out.report.markdown.find("## What the memory holds"));
  EXPECT_THAT(summary, HasSubstr("1. [1] "));
  EXPECT_THAT(out.report.markdown, HasSubstr("## References\n\n[1] "));
  EXPECT_EQ(out.result["references"].size(), out.evidence_count);
}

// Issue 23: `research --max-rounds 1` wrote the report before any search. A
// round searches before any report: the one round is a search, and the
// report (from the memory: the rounds are spent) rests on what it found.
TEST(ResearchAppTest, OneRoundSearchesBeforeTheReport) {
  ResearchConfig config = FixtureConfig();
  config.max_rounds = 1;
  ResearchOutcome out = RunResearch(kResearchQuestion, config);
  ASSERT_TRUE(out.status.ok()) << out.status.ToString();
  std::vector<ResearchEventType> order;
  for (const ResearchEvent& e : out.events) {
    if (e.type == ResearchEventType::kSearching || e.type == ResearchEventType::kSynthesizing) order.push_back(e.type);
  }
  ASSERT_FALSE(order.empty());
  EXPECT_EQ(order.front(), ResearchEventType::kSearching);
  EXPECT_GT(out.evidence_count, 0u);
  EXPECT_EQ(out.rounds, 1);
  EXPECT_EQ(out.stop_reason, "max_rounds");
  EXPECT_THAT(out.report.markdown, HasSubstr("https://clinicaltrials.gov/study/"));
}

// A model manager that asks for the report (or the judge) before anything
// was searched gets the search agent first, and says so.
TEST(ResearchAppTest, AManagerAskingForTheReportFirstGetsASearchFirst) {
  for (const char* first : {"report", "judge", "hypothesis"}) {
    auto model = std::make_shared<RoleModel>();
    model->PushCall(kSubmitLedgerTool, kSubmitLedgerTool, Ledger(first));
    ResearchConfig config = FixtureConfig();
    config.model = model;
    ResearchOutcome out = RunResearch(kResearchQuestion, config);
    ASSERT_TRUE(out.status.ok()) << out.status.ToString();
    std::vector<std::string> agents;  // the agents that ran, in order
    for (const ResearchEvent& e : out.events) {
      if (e.type == ResearchEventType::kSearching || e.type == ResearchEventType::kJudging ||
          e.type == ResearchEventType::kHypothesizing || e.type == ResearchEventType::kSynthesizing) {
        agents.push_back(e.agent);
      }
    }
    ASSERT_FALSE(agents.empty()) << first;
    EXPECT_EQ(agents.front(), "search") << first;
    bool said = false;
    for (const ResearchEvent& e : out.events) {
      said |= e.message == std::string("Nothing searched yet: the search agent runs before the ") + first;
    }
    EXPECT_TRUE(said) << first;
    EXPECT_GT(out.evidence_count, 0u) << first;
  }
}

TEST(ResearchAppTest, TokenBudgetSummedOverAgentsEndsInAFallbackReport) {
  auto model = std::make_shared<RoleModel>();  // the rules planner's turns, each reporting 1,000 tokens
  model->set_usage(1000);
  ResearchConfig config = FixtureConfig();
  config.model = model;
  config.token_budget = 3500;
  ResearchOutcome out = RunResearch(kResearchQuestion, config);
  EXPECT_EQ(out.stop_reason, "token_budget");
  EXPECT_FALSE(out.report_from_agent);
  EXPECT_GE(out.usage.total_tokens, 3500);
  EXPECT_LE(out.usage.total_tokens, 4000);
  EXPECT_THAT(out.report.markdown, HasSubstr("token budget (3500 tokens)"));
}

TEST(ResearchAppTest, TimeoutIsOneDeadlineForEveryAgentAndFallsBack) {
  auto model = std::make_shared<RoleModel>();
  // Rounds 1 and 2 decided by the planner (search, judge); then the judge and
  // the manager hang until their call's deadline.
  std::shared_ptr<ChatModel> planner = MakeResearchRulesPlanner();
  for (int i = 0; i < 2; ++i) {
    model->Push(kSubmitLedgerTool, [planner](const ModelRequest& r, const ModelCallContext& c) {
      return planner->Complete(r, c);
    });
  }
  auto hang = [](const ModelRequest&, const ModelCallContext& ctx) -> Result<ModelResponse> {
    ctx.cancel.WaitFor(std::min(ctx.deadline.remaining(), Millis(60'000)));
    return Status::Timeout("no reply before the deadline");
  };
  model->SetDefault(kSubmitJudgementTool, hang);
  model->SetDefault(kSubmitLedgerTool, hang);
  ResearchConfig config = FixtureConfig();
  config.model = model;
  config.timeout = Millis(1500);
  const auto start = std::chrono::steady_clock::now();
  ResearchOutcome out = RunResearch(kResearchQuestion, config);
  const auto elapsed = std::chrono::steady_clock::now() - start;
  EXPECT_LT(elapsed, std::chrono::seconds(30));  // a 1.5 s limit against a 60 s hang
  EXPECT_EQ(out.stop_reason, "timeout");
  EXPECT_FALSE(out.report_from_agent);
  EXPECT_THAT(out.report.markdown, HasSubstr("research timeout (1.5 s)"));
}

TEST(ResearchAppTest, AJudgeAnsweringInProseIsAnErrorInTheTraceAndAReportStillComes) {
  auto model = std::make_shared<RoleModel>();
  model->SetDefault(kSubmitJudgementTool, [](const ModelRequest&, const ModelCallContext&) -> Result<ModelResponse> {
    ModelResponse r;
    r.message = Message::Assistant("The evidence looks promising overall; I would say it is probably enough.");
    return r;
  });
  ResearchConfig config = FixtureConfig();
  config.model = model;
  ResearchOutcome out = RunResearch(kResearchQuestion, config);
  EXPECT_GE(model->calls(kSubmitJudgementTool), 2);  // sent back at least once
  EXPECT_TRUE(HasError(out, "judge: no valid judgement")) << DumpJson(out.trace["errors"]);
  bool error_event = false;
  for (const Json& e : out.trace["events"]) error_event |= e["type"] == "error" && e.value("agent", "") == "judge";
  EXPECT_TRUE(error_event);
  EXPECT_FALSE(out.report.markdown.empty());
  EXPECT_THAT(out.report.markdown, HasSubstr("No valid judgement"));
}

TEST(ResearchAppTest, AModelThatNeverAnswersHandsTheResearchToThePlanner) {
  auto model = std::make_shared<RoleModel>();
  model->SetDefault(kSubmitLedgerTool, [](const ModelRequest&, const ModelCallContext&) -> Result<ModelResponse> {
    return Status::Unavailable("connection refused");
  });
  ResearchConfig config = FixtureConfig();
  config.model = model;
  ResearchOutcome out = RunResearch(kResearchQuestion, config);
  EXPECT_TRUE(out.fell_back);
  EXPECT_EQ(out.planner, "rules (fallback)");
  EXPECT_THAT(out.model_failure, HasSubstr("connection refused"));
  EXPECT_TRUE(out.report_from_agent);
}

TEST(ResearchAppTest, ABadMemoryFileIsASetupError) {
  ResearchConfig config = FixtureConfig();
  config.memory_path = "/proc/version";
  ResearchOutcome out = RunResearch(kResearchQuestion, config);
  EXPECT_FALSE(out.status.ok());
}

}  // namespace
}  // namespace medreact

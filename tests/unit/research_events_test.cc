// What a research run tells while it works and in its report: a failed search
// is an `error` event and a line of the report; the report agent's text
// streams as it is generated (the rules planner's section by section, a
// model's fragment by fragment); the finished report numbers its references
// in order of first citation and shows the judge's reasoning.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>

#include "apps/research/research_app.h"
#include "apps/research/research_report.h"
#include "testing/research_fixture.h"

namespace medreact {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using testing::FixtureConfig;
using testing::kResearchQuestion;
using testing::RoleModel;

// The fixture's answers, except PubMed, which is down (503).
class PubMedDown : public HttpTransport {
 public:
  Result<HttpResponse> Send(const HttpRequest& request, const HttpChunkHandler& chunk,
                            const CancellationToken& cancel) override {
    if (request.url.find("eutils") != std::string::npos) {
      HttpResponse r;
      r.status = 503;
      r.headers = {{"content-type", "application/json"}};
      r.body = R"({"error": "maintenance"})";
      return r;
    }
    return fixture_.Send(request, chunk, cancel);
  }

 private:
  testing::FixtureTransport fixture_;
};

std::vector<const ResearchEvent*> Events(const ResearchOutcome& out, ResearchEventType type,
                                         const std::string& agent = "") {
  std::vector<const ResearchEvent*> found;
  for (const ResearchEvent& e : out.events) {
    if (e.type == type && (agent.empty() || e.agent == agent)) found.push_back(&e);
  }
  return found;
}

TEST(ResearchEventsTest, EveryFailedSearchIsAnErrorEventAndNamedInTheReport) {
  ResearchConfig config = FixtureConfig();
  config.literature.client.transport = std::make_shared<PubMedDown>();
  ResearchOutcome out = RunResearch(kResearchQuestion, config);
  ASSERT_TRUE(out.status.ok()) << out.status.ToString();
  ASSERT_FALSE(out.failed_searches.empty());
  std::vector<const ResearchEvent*> errors = Events(out, ResearchEventType::kError, "search");
  ASSERT_EQ(errors.size(), out.failed_searches.size());
  for (size_t i = 0; i < errors.size(); ++i) {
    const FailedSearch& f = out.failed_searches[i];
    EXPECT_EQ(f.tool, "search_pubmed");
    EXPECT_EQ(f.source, "PubMed");
    EXPECT_THAT(f.error, HasSubstr("503"));
    EXPECT_EQ(errors[i]->data["tool"], "search_pubmed");
    EXPECT_EQ(errors[i]->data["query"], f.query);
    EXPECT_THAT(errors[i]->message, HasSubstr("PubMed search \"" + f.query + "\" failed"));
    // Each one named in the report, with its round and query.
    EXPECT_THAT(out.report.markdown, HasSubstr("- Round " + std::to_string(f.round) +
                                               ", PubMed (search_pubmed), query \"" + f.query + "\": "));
  }
  EXPECT_EQ(out.failed_searches.front().query, "keytruda cancer");
  EXPECT_THAT(out.report.markdown, HasSubstr("## Searches that failed"));
  EXPECT_EQ(out.result["failed_searches"].size(), out.failed_searches.size());
  EXPECT_THAT(::testing::PrintToString(out.report.limitations), HasSubstr("search(es) failed"));
}

TEST(ResearchEventsTest, NoFailedSearchNoSectionAndNoErrorEvent) {
  ResearchOutcome out = RunResearch(kResearchQuestion, FixtureConfig());
  ASSERT_TRUE(out.status.ok());
  EXPECT_TRUE(out.failed_searches.empty());
  EXPECT_TRUE(Events(out, ResearchEventType::kError).empty());
  EXPECT_THAT(out.report.markdown, Not(HasSubstr("Searches that failed")));
}

TEST(ResearchEventsTest, TheRulesReportStreamsSectionBySectionBeforeTheEnd) {
  ResearchOutcome out = RunResearch(kResearchQuestion, FixtureConfig());
  ASSERT_TRUE(out.status.ok());
  ASSERT_TRUE(out.report_from_agent);
  std::vector<const ResearchEvent*> chunks = Events(out, ResearchEventType::kStreaming, "report");
  ASSERT_GE(chunks.size(), 5u);  // title, summary, methodology, records, ... as each is written
  std::string draft;
  for (const ResearchEvent* e : chunks) draft += e->data["text"].get<std::string>();
  EXPECT_EQ(draft.rfind("# Research report: ", 0), 0u);
  EXPECT_THAT(draft, HasSubstr("## Executive summary"));
  EXPECT_THAT(draft, HasSubstr("## Conclusion"));
  // The streamed draft is the report agent's text; the final report (in the
  // complete event) adds the References, renumbered.
  const std::vector<const ResearchEvent*> complete = Events(out, ResearchEventType::kComplete);
  ASSERT_EQ(complete.size(), 1u);
  EXPECT_LT(chunks.back(), complete.front());  // streamed before the end (events are stored in order)
  EXPECT_EQ(complete.front()->data["report"], out.report.markdown);
  EXPECT_THAT(out.report.markdown, HasSubstr("## Executive summary"));

  ResearchConfig quiet = FixtureConfig();
  quiet.stream_report = false;
  ResearchOutcome unstreamed = RunResearch(kResearchQuestion, quiet);
  EXPECT_TRUE(Events(unstreamed, ResearchEventType::kStreaming, "report").empty());
}

TEST(ResearchEventsTest, AStreamingModelsReportTextArrivesFragmentByFragment) {
  auto model = std::make_shared<RoleModel>();
  bool asked_to_stream = false;
  // The report agent: bibliography first (the planner), then a streamed reply.
  std::shared_ptr<ChatModel> planner = MakeResearchRulesPlanner();
  model->Push(kSubmitReportTool, [planner](const ModelRequest& r, const ModelCallContext& c) {
    return planner->Complete(r, c);
  });
  model->Push(kSubmitReportTool, [&asked_to_stream](const ModelRequest& r,
                                                    const ModelCallContext& c) -> Result<ModelResponse> {
    asked_to_stream = r.stream;
    for (const char* piece : {"Writing ", "the report ", "as it comes."}) {
      if (c.on_text_delta) c.on_text_delta(piece);
    }
    ModelResponse reply;
    reply.message = Message::Assistant(
        "Writing the report as it comes.",
        {ToolCall{"r", kSubmitReportTool,
                  DumpJson(Json{{"title", "T"}, {"executive_summary", "S"}, {"conclusion", "C"},
                                {"markdown", "# T\n\nOnly [3].\n"}})}});
    return reply;
  });
  model->set_streaming(true);
  ResearchConfig config = FixtureConfig();
  config.model = model;
  ResearchOutcome out = RunResearch(kResearchQuestion, config);
  ASSERT_TRUE(out.report_from_agent) << out.stop_reason << ": " << out.fallback_reason;
  EXPECT_TRUE(asked_to_stream);
  std::vector<std::string> texts;
  for (const ResearchEvent* e : Events(out, ResearchEventType::kStreaming, "report")) {
    texts.push_back(e->data["text"].get<std::string>());
  }
  EXPECT_THAT(texts, ::testing::ElementsAre("Writing ", "the report ", "as it comes."));
  // The report cites only the memory's third record: it is reference [1].
  EXPECT_THAT(out.report.markdown, HasSubstr("Only [1]."));
  ASSERT_EQ(out.reference_numbers, std::vector<int>{3});
  ASSERT_EQ(out.result["references"].size(), 1u);
  EXPECT_EQ(out.result["references"][0]["ref"], 1);
  EXPECT_EQ(out.result["references"][0]["memory_ref"], 3);
  EXPECT_EQ(out.result["evidence"][2]["ref"], 1);
  EXPECT_TRUE(out.result["evidence"][0]["ref"].is_null());
}

TEST(ResearchEventsTest, TheRulesReportIsNumberedInCitationOrderAndShowsTheJudgesReasoning) {
  ResearchOutcome out = RunResearch(kResearchQuestion, FixtureConfig());
  ASSERT_TRUE(out.status.ok());
  ASSERT_FALSE(out.reference_numbers.empty());
  // Read the body's citations in order: each new number is the next one.
  const std::string& md = out.report.markdown;
  const std::string body = md.substr(0, md.find("## References"));
  int next = 1;
  for (size_t open = body.find('['); open != std::string::npos; open = body.find('[', open + 1)) {
    const size_t close = body.find(']', open);
    const std::string inside = body.substr(open + 1, close - open - 1);
    if (inside.empty() || inside.find_first_not_of("0123456789") != std::string::npos) continue;
    const int n = std::stoi(inside);
    EXPECT_LE(n, next) << "reference [" << n << "] cited before [" << next << "]";
    if (n == next) ++next;
  }
  EXPECT_EQ(next - 1, static_cast<int>(out.reference_numbers.size()));
  EXPECT_THAT(md, HasSubstr("## References\n\n[1] "));
  // The judge's reasoning, in the report and in the structured result.
  EXPECT_THAT(md, HasSubstr("## The judge's reasoning"));
  EXPECT_THAT(DumpJson(out.result["judgement"]["clinical_reasoning"]), HasSubstr("Counted by study design"));
  EXPECT_FALSE(out.result["judgement"]["mechanism_reasoning"].get<std::string>().empty());
  EXPECT_GT(out.result["judgement"]["details"]["evidence_assessed"].get<int>(), 0);
}


// What a page needs to show the research: each search of a search turn (its
// source, query, records or error) in the search_complete event, and every
// identifier of a reference (a PubMed record's DOI besides its PMID).
TEST(ResearchEventsTest, SearchCompleteListsEachSearchAndReferencesCarryEveryIdentifier) {
  ResearchConfig config = FixtureConfig();
  config.literature.client.transport = std::make_shared<PubMedDown>();
  ResearchOutcome down = RunResearch(kResearchQuestion, config);
  ASSERT_TRUE(down.status.ok()) << down.status.ToString();
  std::vector<const ResearchEvent*> complete = Events(down, ResearchEventType::kSearchComplete, "search");
  ASSERT_FALSE(complete.empty());
  const Json& searches = complete.front()->data["searches"];
  ASSERT_TRUE(searches.is_array());
  std::map<std::string, Json> by_tool;
  for (const Json& s : searches) by_tool[s["tool"].get<std::string>()] = s;
  ASSERT_EQ(by_tool.size(), 3u) << searches.dump();
  const Json& pubmed = by_tool["search_pubmed"];
  EXPECT_EQ(pubmed["source"], "PubMed");
  EXPECT_EQ(pubmed["ok"], false);
  EXPECT_THAT(pubmed["error"].get<std::string>(), HasSubstr("503"));
  EXPECT_FALSE(pubmed.contains("records"));
  EXPECT_FALSE(pubmed["query"].get<std::string>().empty());
  const Json& trials = by_tool["search_clinical_trials"];
  EXPECT_EQ(trials["source"], "ClinicalTrials.gov");
  EXPECT_EQ(trials["ok"], true);
  EXPECT_EQ(trials["records"], 3);  // the recorded keytruda page holds three trials
  EXPECT_FALSE(trials.contains("error"));
  EXPECT_EQ(complete.front()->data["tool_errors"], 1);

  ResearchOutcome out = RunResearch(kResearchQuestion, FixtureConfig());
  ASSERT_TRUE(out.status.ok());
  bool pmid_seen = false;
  for (const auto& ref : out.result["references"]) {
    ASSERT_TRUE(ref["other_ids"].is_array()) << ref.dump();
    if (ref["id"] != "PMID:27797938") continue;
    pmid_seen = true;
    bool doi = false;
    for (const auto& id : ref["other_ids"]) doi = doi || id.get<std::string>().rfind("DOI:10.", 0) == 0;
    EXPECT_TRUE(doi) << ref.dump();
  }
  EXPECT_TRUE(pmid_seen) << out.result["references"].dump();
}

}  // namespace
}  // namespace medreact

// The research app end to end through real sockets: RunResearch + the
// OpenAI-compatible client + the scripted model server on 127.0.0.1, and the
// literature clients (libcurl) against a loopback fixture server answering
// with the recorded responses. The script plays every agent: search → judge
// (insufficient) → search with the judge's query → judge (sufficient) →
// hypothesis → report. Then `medreact research` offline with the rules
// planner over the demo's recording (the `make run` path), and on bad input.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "testing/build_paths.h"
#include "apps/research/research_app.h"
#include "medreact/openai.h"
#include "mockllm/mock_server.h"
#include "testing/literature_flood.h"
#include "testing/literature_server.h"
#include "testing/subprocess.h"

namespace medreact {
namespace {

using mockllm::MockLlmServer;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Not;
using testing::FixtureReply;
using testing::LiteratureFixture;
using testing::SeenRequest;

const std::string kSource = MEDREACT_SOURCE_DIR;
constexpr char kQuestion[] = "Does pembrolizumab (Keytruda) help in cancer?";
constexpr char kJudgeQuery[] = "pembrolizumab phase 2 trials";

Json Call(const std::string& id, const std::string& name, const Json& args) {
  return {{"id", id}, {"name", name}, {"arguments", DumpJson(args)}};
}
Json Turn(std::vector<Json> calls, const std::string& text = "") {
  return {{"message", {{"content", text.empty() ? Json(nullptr) : Json(text)}, {"tool_calls", calls}}}};
}
constexpr char kReportText[] = "Writing the report on pembrolizumab from the bibliography.";
Json LedgerTurn(const std::string& id, const std::string& next, const std::string& instruction) {
  return Turn({Call(id, "submit_ledger", {{"is_request_satisfied", false}, {"is_in_loop", false},
                                          {"is_progress_being_made", true}, {"next_speaker", next},
                                          {"instruction", instruction}})});
}
Json Judgement(const std::string& id, int mechanism, int clinical, double confidence, bool sufficient,
               std::vector<std::string> queries) {
  return Turn({Call(id, "submit_judgement",
                    {{"details", {{"evidence_assessed", 4}, {"relevant_evidence", {"[1]"}}}},
                     {"mechanism_score", mechanism}, {"mechanism_reasoning", "scored by the scripted judge"},
                     {"clinical_evidence_score", clinical}, {"clinical_reasoning", "scored by the scripted judge"},
                     {"confidence", confidence},
                     {"sufficient", sufficient}, {"recommendation", sufficient ? "synthesize" : "continue"},
                     {"next_search_queries", queries}, {"reasoning", "scored by the scripted judge"}})});
}

Json Script() {
  const std::string report =
      "# Pembrolizumab in cancer\n\nTrials of pembrolizumab combinations are registered [1] and a PubMed record "
      "was found [4].\n";
  return {{"responses",
           {LedgerTurn("m1", "search", "Search PubMed and trials for pembrolizumab in cancer"),
            Turn({Call("s1", "search_pubmed", {{"query", "pembrolizumab cancer"}, {"max_results", 3}}),
                  Call("s2", "search_clinical_trials", {{"query", "keytruda"}, {"max_results", 3}})}),
            Turn({Call("s3", "submit_search", {{"summary", "1 PubMed record, 3 trials"}, {"queries", {"keytruda"}}})}),
            LedgerTurn("m2", "judge", "Evaluate the evidence"),
            Judgement("j1", 3, 4, 0.5, false, {kJudgeQuery}),
            LedgerTurn("m3", "search", "Search again with the judge's queries"),
            Turn({Call("s4", "search_pubmed", {{"query", "pembrolizumab cancer"}, {"max_results", 3}}),
                  Call("s5", "search_clinical_trials", {{"query", kJudgeQuery}, {"max_results", 5}})}),
            Turn({Call("s6", "submit_search", {{"summary", "5 more trials"}, {"queries", {kJudgeQuery}}})}),
            LedgerTurn("m4", "judge", "Evaluate again"),
            Judgement("j2", 7, 7, 0.8, true, {}),
            LedgerTurn("m5", "hypothesis", "Generate hypotheses"),
            Turn({Call("h1", "submit_hypotheses",
                       {{"hypotheses",
                         {{{"drug", "pembrolizumab"}, {"target", "PD-1"}, {"pathway", "T-cell checkpoint release"},
                           {"effect", "tumour response"}, {"confidence", 0.75},
                           {"statement", "PD-1 blockade restores anti-tumour T-cell activity"},
                           {"evidence", {"[1]"}}}}},
                        {"knowledge_gaps", {"biomarkers of response"}}})}),
            LedgerTurn("m6", "report", "Write the report"),
            Turn({Call("r1", "get_bibliography", Json::object())}),
            Turn({Call("r2", "submit_report",
                       {{"title", "Pembrolizumab in cancer"}, {"executive_summary", "Registered trials exist."},
                        {"conclusion", "Promising; see trials."}, {"references_cited", {1, 4}},
                        {"markdown", report}})},
                 kReportText)}}};
}

void RouteLiterature(testing::LiteratureFixtureServer& server) {
  server.Route("/eutils/esearch.fcgi", [](const SeenRequest&) {
    return FixtureReply{.body = R"({"header":{"type":"esearch"},"esearchresult":{"count":"1","idlist":["27797938"]}})"};
  });
  server.Route("/eutils/efetch.fcgi", [](const SeenRequest&) {
    return FixtureReply{.body = LiteratureFixture("ncbi_efetch_pubmed_structured_abstract.xml"), .content_type = "text/xml"};
  });
  const std::string keytruda = LiteratureFixture("ctgov_v2_search_keytruda_pagesize3.json");
  const std::string phelan = LiteratureFixture("ctgov_v2_search_phelan_pagesize5_page1.json");
  server.Route("/ctgov/studies", [=](const SeenRequest& r) {
    return FixtureReply{.body = r.Param("query.term") == kJudgeQuery ? phelan : keytruda};
  });
}

TEST(ResearchE2E, SearchJudgeSearchAgainJudgeHypothesisReport) {
  testing::LiteratureFixtureServer literature;
  RouteLiterature(literature);
  ASSERT_TRUE(literature.Start());
  MockLlmServer server(*MockLlmServer::ParseScript(Script()));
  ASSERT_TRUE(server.Start().ok());
  OpenAIOptions options;
  options.base_url = server.base_url();
  options.model = "mock";
  options.max_retries = 0;

  ResearchConfig config;
  config.model = std::shared_ptr<ChatModel>(MakeOpenAIModel(options));
  config.max_rounds = 8;
  config.sources = {"pubmed", "trials"};
  config.literature.client = {.online = true, .pubmed_url = literature.url("/eutils/"),
                              .ctgov_url = literature.url("/ctgov/"), .europepmc_url = literature.url("/europepmc/"),
                              .use_cache = false, .max_retries = 0};
  config.literature.getenv = [](const char*) -> const char* { return nullptr; };
  ResearchOutcome out = RunResearch(kQuestion, config);
  ASSERT_TRUE(out.status.ok()) << out.status.ToString();

  EXPECT_EQ(out.planner, "model");
  EXPECT_TRUE(out.report_from_agent) << out.stop_reason << ": " << out.fallback_reason << DumpJson(out.trace["errors"]);
  EXPECT_EQ(out.stop_reason, "judge_approved");
  EXPECT_EQ(out.rounds, 6);
  std::vector<std::string> types;
  for (const ResearchEvent& e : out.events) {
    if (e.type != ResearchEventType::kProgress && e.type != ResearchEventType::kStreaming &&
        e.type != ResearchEventType::kThinking) {
      types.push_back(ResearchEventTypeName(e.type));
    }
  }
  EXPECT_THAT(types, ElementsAre("started", "searching", "search_complete", "judging", "judge_complete", "searching",
                                 "search_complete", "judging", "judge_complete", "hypothesizing", "synthesizing",
                                 "complete"));
  // De-duplicated: 1 PubMed record + 3 trials, then the same record again and 5 other trials.
  EXPECT_EQ(out.evidence_count, 9u);
  std::vector<Json> searches;
  for (const ResearchEvent& e : out.events) {
    if (e.type == ResearchEventType::kSearchComplete) searches.push_back(e.data);
  }
  ASSERT_EQ(searches.size(), 2u);
  EXPECT_EQ(searches[0]["new"], 4);
  EXPECT_EQ(searches[1]["new"], 5);
  EXPECT_EQ(searches[1]["duplicates"], 1);
  // The judge's query went to ClinicalTrials.gov.
  bool sent = false;
  for (const SeenRequest& r : literature.requests("/ctgov/studies")) sent |= r.Param("query.term") == kJudgeQuery;
  EXPECT_TRUE(sent);
  // The report cited the bibliography's [1] and [4]; numbered in order of
  // first citation they are [1] and [2], and its References list them so.
  EXPECT_THAT(out.report.markdown, HasSubstr("registered [1] and a PubMed record was found [2]."));
  EXPECT_THAT(out.report.markdown, HasSubstr("## References"));
  EXPECT_THAT(out.report.markdown, HasSubstr("\n[2] "));
  EXPECT_THAT(out.report.markdown, Not(HasSubstr("[4]")));
  EXPECT_THAT(out.report.markdown, HasSubstr("https://clinicaltrials.gov/study/"));
  EXPECT_EQ(out.reference_numbers, (std::vector<int>{1, 4}));
  // The report agent's text streamed through the client as the server sent it.
  std::string streamed;
  for (const ResearchEvent& e : out.events) {
    if (e.type == ResearchEventType::kStreaming && e.agent == "report") streamed += e.data["text"].get<std::string>();
  }
  EXPECT_EQ(streamed, kReportText);
  EXPECT_EQ(out.result["judgement"]["mechanism_reasoning"], "scored by the scripted judge");
  EXPECT_EQ(out.result["hypotheses"].size(), 1u);
  EXPECT_EQ(out.trace["ledgers"].size(), 6u);
  EXPECT_EQ(out.trace["agent_runs"].size(), 12u);
  EXPECT_EQ(server.requests().size(), 15u);
}

TEST(ResearchCli, OfflineDemoWithTheRulesPlannerAndTheRecording) {
  testing::TempDir dir;
  auto r = testing::RunCommand(
      {MEDREACT_BINARY, "research", "What is the evidence for Keytruda?", "--planner", "rules", "--results", "3",
       "--cache", dir.File("cache.sqlite"), "--replay", kSource + "/examples/research/keytruda.jsonl", "--out",
       dir.File("report.json"), "--events", dir.File("events.jsonl"), "--trace", dir.File("trace.json")},
      {{"MEDREACT_LLM_URL", ""}, {"HOME", dir.path()}, {"XDG_CACHE_HOME", dir.path()}});
  EXPECT_THAT(r.err, HasSubstr("imported 1 recorded response(s)"));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("# Research report: What is the evidence for Keytruda?"));
  // The three trials name pembrolizumab (in a title or among the interventions): all count for a
  // question naming Keytruda, and are references [1]-[3] in order of first citation.
  EXPECT_THAT(r.out, HasSubstr("3 name keytruda or pembrolizumab"));
  EXPECT_THAT(r.out, HasSubstr("Abexinostat in Combination With Pembrolizumab"));
  EXPECT_THAT(r.out, HasSubstr("## References\n\n[1] "));
  for (const char* nct : {"NCT05431270", "NCT03590054", "NCT04795661"}) EXPECT_THAT(r.out, HasSubstr(nct));
  // No invented records: nothing but the three recorded trials.
  EXPECT_THAT(r.out, Not(HasSubstr("2099")));
  EXPECT_THAT(r.out, Not(HasSubstr("27797938")));
  // The searches with no recording failed, and the report names them, round 3's included.
  EXPECT_THAT(r.out, HasSubstr("## Searches that failed"));
  EXPECT_THAT(r.out, HasSubstr("- Round 1, PubMed (search_pubmed), query \"keytruda\""));
  EXPECT_THAT(r.out, HasSubstr("- Round 3, ClinicalTrials.gov (search_clinical_trials), query \"keytruda "
                               "randomized controlled trial\""));
  EXPECT_THAT(r.err, HasSubstr("error: search: PubMed search \"keytruda\" failed"));
  EXPECT_THAT(r.err, HasSubstr("streaming: the report agent is writing (its text streams to --events)"));
  Result<Json> report = ParseJson(testing::ReadFileOrEmpty(dir.File("report.json")));
  ASSERT_TRUE(report.ok());
  EXPECT_EQ((*report)["evidence_count"], 3);
  EXPECT_EQ((*report)["planner"], "rules");
  EXPECT_EQ((*report)["failed_searches"].size(), 8u);  // round 1: PubMed, Europe PMC; round 3: all three, twice
  EXPECT_FALSE((*report)["judgement"]["clinical_reasoning"].get<std::string>().empty());
  const std::string events = testing::ReadFileOrEmpty(dir.File("events.jsonl"));
  EXPECT_THAT(events, HasSubstr("\"type\":\"search_complete\""));
  EXPECT_THAT(events, HasSubstr("\"type\":\"error\""));
  EXPECT_THAT(events, HasSubstr("\"agent\":\"report\""));
  EXPECT_THAT(events, HasSubstr("\"type\":\"complete\""));
  Result<Json> trace = ParseJson(testing::ReadFileOrEmpty(dir.File("trace.json")));
  ASSERT_TRUE(trace.ok());
  EXPECT_FALSE((*trace)["agent_runs"].empty());
}

TEST(ResearchCli, BadInputIsExitTwoAndWritesNothing) {
  testing::TempDir dir;
  auto sources = testing::RunCommand({MEDREACT_BINARY, "research", "q?", "--planner", "rules", "--sources", "web"});
  EXPECT_EQ(sources.exit_code, 2);
  EXPECT_THAT(sources.err, HasSubstr("unknown source 'web'"));
  dir.Write("bad.jsonl", "{\"url\": \"ftp://x\", \"status\": 200, \"body\": \"\"}\n");
  auto replay = testing::RunCommand({MEDREACT_BINARY, "research", "q?", "--planner", "rules", "--cache",
                                     dir.File("c.sqlite"), "--replay", dir.File("bad.jsonl")});
  EXPECT_EQ(replay.exit_code, 2);
  EXPECT_THAT(replay.err, HasSubstr("line 1"));
  auto replay_alone = testing::RunCommand({MEDREACT_BINARY, "research", "q?", "--planner", "rules", "--replay",
                                           dir.File("bad.jsonl")});
  EXPECT_EQ(replay_alone.exit_code, 2);  // never into the default cache
  EXPECT_THAT(replay_alone.err, HasSubstr("--cache"));
  auto out = testing::RunCommand({MEDREACT_BINARY, "research", "q?", "--planner", "rules", "--out",
                                  dir.File("missing/dir/out.json")});
  EXPECT_EQ(out.exit_code, 2);
}

// A literature server that answers every search with 32,000 records (issue
// 23 item 4: 66,666 for --results 5, and minutes of de-duplication past the
// timeout). The research keeps what it asked for (5 per search), names what
// it left out, and ends as the engine judges before its deadline: the report
// agent wrote the report (a stop reason, not "timeout"). Only ctest's
// timeout bounds the test's own time.
TEST(ResearchCli, AServerSending32000RecordsPerSearchEndsWithinTheTimeout) {
  testing::LiteratureFixtureServer server;
  const std::vector<std::string> asked = {"900000001", "900000002", "900000003", "900000004", "900000005"};
  server.Route("/eutils/esearch.fcgi", [asked](const SeenRequest&) {
    return FixtureReply{.body = DumpJson(Json{{"esearchresult", {{"count", "32000"}, {"idlist", asked}}}})};
  });
  const std::string efetch = testing::FloodPubmedXml(32'000, 100'000'000, asked);
  server.Route("/eutils/efetch.fcgi",
               [efetch](const SeenRequest&) { return FixtureReply{.body = efetch, .content_type = "text/xml"}; });
  const std::string preprints = testing::FloodEuropePmcJson(32'000);
  server.Route("/europepmc/search", [preprints](const SeenRequest&) { return FixtureReply{.body = preprints}; });
  const std::string trials = testing::FloodTrialsJson(32'000);
  server.Route("/ctgov/studies", [trials](const SeenRequest&) { return FixtureReply{.body = trials}; });
  ASSERT_TRUE(server.Start());
  testing::TempDir dir;
  auto r = testing::RunCommand(
      {MEDREACT_BINARY, "research", "What is the evidence for Keytruda in cancer?", "--planner", "rules", "--results",
       "5", "--online", "--timeout", "60", "--cache", dir.File("cache.sqlite"), "--out", dir.File("out.json"),
       "--trace", dir.File("trace.json"), "-q"},
      {{"MEDREACT_LLM_URL", ""},
       {"HOME", dir.path()},
       {"XDG_CACHE_HOME", dir.path()},
       {"MEDREACT_PUBMED_URL", server.url("/eutils/")},
       {"MEDREACT_CTGOV_URL", server.url("/ctgov/")},
       {"MEDREACT_EUROPEPMC_URL", server.url("/europepmc/")}},
      std::chrono::seconds(240));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  Result<Json> out = ParseJson(testing::ReadFileOrEmpty(dir.File("out.json")));
  ASSERT_TRUE(out.ok());
  EXPECT_NE((*out)["stop_reason"], "timeout");
  EXPECT_TRUE((*out)["report_from_agent"].get<bool>()) << (*out)["stop_reason"];
  // Kept: what was asked for, 5 a search (3 a round at most), far under the cap of 300 a round.
  const int rounds = (*out)["rounds"].get<int>();
  const size_t kept = (*out)["evidence_count"].get<size_t>();
  EXPECT_GE(kept, 10u);  // PubMed's 5 and the trials' 5 at least
  EXPECT_LE(kept, 300u * static_cast<size_t>(rounds));
  EXPECT_LE(kept, 15u * static_cast<size_t>(rounds));
  // The excess named, source by source, in what each search answered.
  const std::string trace = testing::ReadFileOrEmpty(dir.File("trace.json"));
  EXPECT_THAT(trace, HasSubstr("efetch returned 32000 record(s) not asked for"));
  EXPECT_THAT(trace, HasSubstr("the server returned 31995 record(s) beyond the 5 asked for; left out"));
}

}  // namespace
}  // namespace medreact

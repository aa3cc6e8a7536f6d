// The page's Research view (web/research.js) in a real browser: a research
// run through `medreact serve` with the scripted model playing every agent
// and the literature services answered on loopback by an in-process fixture
// server (tests/testing/literature_server.h): PubMed and ClinicalTrials.gov
// answer with recorded responses, Europe PMC refuses every search (a failed
// source the page must show). tests/node/page_research.mjs drives chromium:
// the question typed and submitted, the agents' events streaming in, the
// report with its inline [n] links to the references, a reference's PMID
// link followed (intercepted: no internet), axe, the screenshot `research`.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "testing/literature_server.h"
#include "testing/page_script.h"

namespace medreact::server {
namespace {

using testing::FixtureReply;
using testing::LiteratureFixture;
using testing::SeenRequest;

TEST(ServerPageResearchTest, AQuestionStreamsItsEventsAndAReportWhoseCitationsLinkToTheirSources) {
  if (const std::string why = testing::PageScriptSkipReason(); !why.empty()) GTEST_SKIP() << why;
  testing::LiteratureFixtureServer literature;
  literature.Route("/eutils/esearch.fcgi", [](const SeenRequest&) {
    return FixtureReply{.body = R"({"header":{"type":"esearch"},"esearchresult":{"count":"1","idlist":["27797938"]}})"};
  });
  literature.Route("/eutils/efetch.fcgi", [](const SeenRequest&) {
    return FixtureReply{.body = LiteratureFixture("ncbi_efetch_pubmed_structured_abstract.xml"),
                        .content_type = "text/xml"};
  });
  const std::string trials = LiteratureFixture("ctgov_v2_search_keytruda_pagesize3.json");
  ASSERT_FALSE(trials.empty());
  literature.Route("/ctgov/studies", [trials](const SeenRequest&) { return FixtureReply{.body = trials}; });
  // Europe PMC is "down": a 400 (not retried) for every search.
  literature.Route("/europepmc/search", [](const SeenRequest&) {
    return FixtureReply{.status = 400, .body = R"({"errorMessage":"fixture: the service refuses this search"})"};
  });
  ASSERT_TRUE(literature.Start());

  PAGE_SCRIPT_OR_SKIP(r, "page_research.mjs",
                      {literature.url("/eutils/"), literature.url("/ctgov/"), literature.url("/europepmc/")});
  EXPECT_PAGE_PASSED(r);
  // The research reached every source through the fixture server (the page's run was real).
  EXPECT_FALSE(literature.requests("/eutils/esearch.fcgi").empty());
  EXPECT_FALSE(literature.requests("/ctgov/studies").empty());
  EXPECT_FALSE(literature.requests("/europepmc/search").empty());
}

}  // namespace
}  // namespace medreact::server

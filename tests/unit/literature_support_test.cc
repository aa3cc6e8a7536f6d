// The literature pack's supporting pieces, without a network: Evidence ⇄
// JSON, text helpers, the rate limiter on a fake clock, the cache and its
// key, option resolution, the observation and bibliography texts, and the
// pack's registration and offline behaviour.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <sys/stat.h>

#include <map>

#include "testing/subprocess.h"
#include "tools/literature/evidence.h"
#include "tools/literature/literature_cache.h"
#include "tools/literature/literature_fetch.h"
#include "tools/literature/literature_pack.h"
#include "tools/literature/literature_text.h"
#include "tools/literature/rate_limiter.h"
#include "tools/packs.h"

namespace medreact {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

Evidence Sample() {
  Evidence e;
  e.id = "PMID:27797938";
  e.url = "https://pubmed.ncbi.nlm.nih.gov/27797938/";
  e.title = "Leucocyte telomere length";
  e.abstract = "OBJECTIVE: x\nRESULTS: y";
  e.authors = {"Bao Y", "Prescott J"};
  e.year = 2017;
  e.source = EvidenceSource::kPubMed;
  e.type = "observational-study";
  e.citation = "Bao Y, Prescott J. Leucocyte telomere length. Gut. 2017. PMID:27797938.";
  e.other_ids = {"DOI:10.1136/gutjnl-2016-312510", "PMCID:PMC5442267"};
  return e;
}

// An environment with only these variables.
std::function<const char*(const char*)> Env(std::map<std::string, std::string> vars) {
  auto held = std::make_shared<std::map<std::string, std::string>>(std::move(vars));
  return [held](const char* name) -> const char* {
    auto it = held->find(name);
    return it == held->end() ? nullptr : it->second.c_str();
  };
}

TEST(LiteratureSupportTest, EvidenceRoundTripsThroughJson) {
  const Evidence e = Sample();
  Json j = EvidenceToJson(e);
  EXPECT_EQ(j["source"], "pubmed");
  Result<Evidence> back = EvidenceFromJson(j);
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(back->id, e.id);
  EXPECT_EQ(back->abstract, e.abstract);
  EXPECT_EQ(back->authors, e.authors);
  EXPECT_EQ(back->year, 2017);
  EXPECT_EQ(back->source, EvidenceSource::kPubMed);
  EXPECT_EQ(back->other_ids, e.other_ids);
  EXPECT_TRUE(back->peer_reviewed);
  EXPECT_EQ(EvidenceSourceName(EvidenceSource::kClinicalTrials), "clinicaltrials");
  EXPECT_EQ(EvidenceSourceName(EvidenceSource::kEuropePmc), "europepmc");
}

TEST(LiteratureSupportTest, EvidenceFromJsonNamesTheBadField) {
  EXPECT_THAT(EvidenceFromJson(Json::array()).status().message(), HasSubstr("not a JSON object"));
  EXPECT_THAT(EvidenceFromJson(Json{{"url", "x"}}).status().message(), HasSubstr("/id"));
  EXPECT_THAT(EvidenceFromJson(Json{{"id", "a"}, {"year", 2017.5}}).status().message(), HasSubstr("/year"));
  EXPECT_THAT(EvidenceFromJson(Json{{"id", "a"}, {"year", "2017"}}).status().message(), HasSubstr("/year"));
  EXPECT_THAT(EvidenceFromJson(Json{{"id", "a"}, {"source", "arxiv"}}).status().message(), HasSubstr("/source"));
  EXPECT_THAT(EvidenceFromJson(Json{{"id", "a"}, {"authors", {"x", 1}}}).status().message(), HasSubstr("/authors/1"));
  EXPECT_THAT(EvidenceFromJson(Json{{"id", "a"}, {"peer_reviewed", "no"}}).status().message(),
              HasSubstr("/peer_reviewed"));
  Result<Evidence> minimal = EvidenceFromJson(Json{{"id", "NCT06604689"}});
  ASSERT_TRUE(minimal.ok());
  EXPECT_EQ(minimal->source, EvidenceSource::kOther);
  EXPECT_EQ(minimal->year, 0);
}

TEST(LiteratureSupportTest, TextHelpers) {
  EXPECT_EQ(CollapseWhitespace("  a \n\t b  "), "a b");
  EXPECT_EQ(StripMarkup("<h4>Background</h4>Risk r<sup>2</sup> &lt; 0.25 &amp; p&#61;1<p>End</p>"),
            "Background Risk r2 < 0.25 & p=1 End");
  EXPECT_EQ(StripMarkup("a < b and c<d"), "a < b and c<d");
  EXPECT_EQ(FirstYear("1998 Dec-1999 Jan"), 1998);
  EXPECT_EQ(FirstYear("2024-09-30"), 2024);
  EXPECT_EQ(FirstYear("12345"), 0);
  EXPECT_EQ(FirstYear("Spring"), 0);
  EXPECT_EQ(TypeSlug("Randomized Controlled Trial"), "randomized-controlled-trial");
  EXPECT_EQ(TypeSlug("Research Support, N.I.H., Extramural"), "research-support-n-i-h-extramural");
  EXPECT_EQ(EvidenceTypeFromPublicationTypes({"Journal Article", "Randomized Controlled Trial"}),
            "randomized-controlled-trial");
  EXPECT_EQ(EvidenceTypeFromPublicationTypes({"Review", "Meta-Analysis"}), "meta-analysis");
  EXPECT_EQ(EvidenceTypeFromPublicationTypes({"Clinical Trial, Phase III"}), "clinical-trial");
  EXPECT_EQ(EvidenceTypeFromPublicationTypes({"review-article"}), "review");
  EXPECT_EQ(EvidenceTypeFromPublicationTypes({}), "journal-article");
  // A cut never splits a UTF-8 sequence.
  const std::string greek = "\xCE\xB1\xCE\xB2\xCE\xB3\xCE\xB4";  // αβγδ
  EXPECT_EQ(ShortenText(greek, 3), "\xCE\xB1\xE2\x80\xA6");
  EXPECT_EQ(ShortenText("short", 10), "short");
  EXPECT_EQ(ShortenText("one two three four five", 15), "one two three\xE2\x80\xA6");
  EXPECT_EQ(FormatCitation({"A X", "B Y", "C Z", "D W"}, "Title", "J", 2020, "PMID:1", "10.1/x"),
            "A X, B Y, C Z, et al. Title. J. 2020. PMID:1. doi:10.1/x.");
}

TEST(LiteratureSupportTest, RateLimiterSpacesRequestsOnAFakeClock) {
  auto now = std::make_shared<SteadyClock::time_point>(SteadyClock::time_point{} + std::chrono::hours(1));
  RateLimiter ncbi(kNcbiRequestsPerSecond, [now] { return *now; });
  // The clock does not move: each request waits one more third of a second.
  EXPECT_EQ(ncbi.Reserve().count(), 0);
  EXPECT_EQ(ncbi.Reserve().count(), 334);
  EXPECT_EQ(ncbi.Reserve().count(), 667);
  EXPECT_EQ(ncbi.Reserve().count(), 1000);
  // Two seconds later the queue has drained: no wait, then the spacing again.
  *now += std::chrono::seconds(2);
  EXPECT_EQ(ncbi.Reserve().count(), 0);
  EXPECT_EQ(ncbi.Reserve().count(), 334);
  // Half an interval after a slot: the rest of it.
  *now += std::chrono::milliseconds(500);
  EXPECT_EQ(ncbi.Reserve().count(), 167);

  RateLimiter with_key(kNcbiRequestsPerSecondWithKey, [now] { return *now; });
  EXPECT_EQ(with_key.Reserve().count(), 0);
  EXPECT_EQ(with_key.Reserve().count(), 100);
  EXPECT_EQ(with_key.Reserve().count(), 200);
}

TEST(LiteratureSupportTest, CacheKeyDropsTheKeyAndTheAddress) {
  EXPECT_EQ(LiteratureCacheKey("GET", "https://h/e/esearch.fcgi?db=pubmed&term=a%20b&tool=medreact&email=x%40y.org"
                                      "&api_key=SECRET"),
            "GET https://h/e/esearch.fcgi?db=pubmed&term=a%20b&tool=medreact");
  EXPECT_EQ(LiteratureCacheKey("GET", "https://h/p?api_key=1&x=2#frag"), "GET https://h/p?x=2");
  EXPECT_EQ(LiteratureCacheKey("GET", "https://h/p"), "GET https://h/p");
  EXPECT_EQ(LiteratureCacheKey("GET", "https://h/p?api_keyx=1"), "GET https://h/p?api_keyx=1");
}

TEST(LiteratureSupportTest, CacheStoresAndReplacesPrivately) {
  testing::TempDir dir;
  const std::string path = dir.File("sub/folder/literature.sqlite");
  Result<std::shared_ptr<LiteratureCache>> cache = LiteratureCache::Open(path);
  ASSERT_TRUE(cache.ok()) << cache.status().ToString();
  struct stat st;
  ASSERT_EQ(::stat(path.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  ASSERT_EQ(::stat(dir.File("sub").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0700u);

  EXPECT_FALSE((*cache)->Get("GET x")->has_value());
  ASSERT_TRUE((*cache)->Put("GET x", {.status = 200, .content_type = "application/json", .body = std::string("a\0b", 3)}).ok());
  auto hit = (*cache)->Get("GET x");
  ASSERT_TRUE(hit.ok() && hit->has_value());
  EXPECT_EQ((*hit)->body, std::string("a\0b", 3));
  EXPECT_EQ((*hit)->content_type, "application/json");
  EXPECT_EQ((*hit)->fetched_at.size(), 20u);  // 2025-01-31T12:00:00Z
  ASSERT_TRUE((*cache)->Put("GET x", {.status = 200, .body = "new", .fetched_at = "2000-01-01T00:00:00Z"}).ok());
  EXPECT_EQ((*(*cache)->Get("GET x"))->body, "new");
  EXPECT_EQ(*(*cache)->Size(), 1);

  dir.Write("not-sqlite", std::string(4096, 'x'));
  Result<std::shared_ptr<LiteratureCache>> bad = LiteratureCache::Open(dir.File("not-sqlite"));
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(bad.status().message(), HasSubstr("delete it or choose another cache path"));
}

TEST(LiteratureSupportTest, OptionsFromTheEnvironment) {
  Result<LiteratureOptions> defaults = ResolveLiteratureOptions({}, Env({{"HOME", "/home/u"}}));
  ASSERT_TRUE(defaults.ok());
  EXPECT_FALSE(defaults->online);
  EXPECT_EQ(defaults->pubmed_url, kDefaultPubMedUrl);
  EXPECT_EQ(defaults->ctgov_url, kDefaultCtgovUrl);
  EXPECT_EQ(defaults->europepmc_url, kDefaultEuropePmcUrl);
  EXPECT_EQ(defaults->cache_path, "/home/u/.cache/medreact/literature.sqlite");

  Result<LiteratureOptions> from_env = ResolveLiteratureOptions(
      {}, Env({{"MEDREACT_CTGOV_URL", "http://mirror.local/ctgov"}, {"NCBI_API_KEY", "k"}, {"NCBI_EMAIL", "a@b.c"},
               {"XDG_CACHE_HOME", "/x/cache"}}));
  ASSERT_TRUE(from_env.ok());
  EXPECT_TRUE(from_env->online);  // a base URL given explicitly is a request to use it
  EXPECT_EQ(from_env->ctgov_url, "http://mirror.local/ctgov/");
  EXPECT_EQ(from_env->ncbi_api_key, "k");
  EXPECT_EQ(from_env->ncbi_email, "a@b.c");
  EXPECT_EQ(from_env->cache_path, "/x/cache/medreact/literature.sqlite");

  Result<LiteratureOptions> option_wins =
      ResolveLiteratureOptions({.pubmed_url = "https://e.example/eutils"}, Env({{"MEDREACT_PUBMED_URL", "http://x/"}}));
  ASSERT_TRUE(option_wins.ok());
  EXPECT_EQ(option_wins->pubmed_url, "https://e.example/eutils/");

  Result<LiteratureOptions> bad = ResolveLiteratureOptions({}, Env({{"MEDREACT_EUROPEPMC_URL", "file:///etc"}}));
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(bad.status().message(), HasSubstr("MEDREACT_EUROPEPMC_URL"));
}

TEST(LiteratureSupportTest, ObservationText) {
  LiteratureResults results{.evidence = {Sample()}, .total = 40, .notes = {"PubMed did not find the phrase(s): x"}};
  results.evidence[0].abstract = std::string(1000, 'a');
  const std::string text = FormatSearchResults("PubMed", "telomere", results);
  EXPECT_THAT(text, ::testing::StartsWith("PubMed: 1 of 40 results for: telomere"));
  EXPECT_THAT(text, HasSubstr("[1] PMID:27797938 | 2017 | pubmed | observational-study"));
  EXPECT_THAT(text, HasSubstr("URL: https://pubmed.ncbi.nlm.nih.gov/27797938/"));
  EXPECT_THAT(text, HasSubstr("DOI: 10.1136/gutjnl-2016-312510"));
  EXPECT_THAT(text, HasSubstr("Abstract: " + std::string(300, 'a') + "\xE2\x80\xA6"));
  EXPECT_THAT(text, HasSubstr("\nNote: PubMed did not find the phrase(s): x"));

  const std::string none = FormatSearchResults("PubMed", "zzz", {.notes = {"n"}});
  EXPECT_EQ(none, "No results found for: zzz\nNote: n");

  Evidence preprint = Sample();
  preprint.peer_reviewed = false;
  EXPECT_THAT(FormatSearchResults("Europe PMC (preprints)", "q", {.evidence = {preprint}}),
              HasSubstr("| not peer reviewed"));
  EXPECT_EQ(FormatBibliography({Sample()}),
            "1. Bao Y, Prescott J. Leucocyte telomere length. Gut. 2017. PMID:27797938. "
            "https://pubmed.ncbi.nlm.nih.gov/27797938/");
  EXPECT_THAT(FormatBibliography({}), HasSubstr("No references gathered yet"));
}

TEST(LiteratureSupportTest, PackRegistersFourToolsWithoutTouchingAnything) {
  testing::TempDir dir;
  ToolRegistry registry;
  ASSERT_TRUE(RegisterPacks(registry, {"literature"},
                            {.literature = {.client = {.cache_path = dir.File("never/created.sqlite")}}})
                  .ok());
  EXPECT_THAT(registry.Names(),
              ElementsAre("search_pubmed", "search_clinical_trials", "search_preprints", "get_bibliography"));
  struct stat st;
  EXPECT_NE(::stat(dir.File("never").c_str(), &st), 0);  // the cache opens at the first search
  // Registering twice fails without adding anything.
  EXPECT_FALSE(RegisterLiteraturePack(registry).ok());
  EXPECT_EQ(registry.size(), 4u);
  // Arguments are checked against the schema.
  ToolResult bad = registry.Execute({.id = "1", .name = "search_pubmed", .arguments = R"({"query": "x", "max_results": 51})"}, {});
  EXPECT_FALSE(bad.ok);
  ToolResult bib = registry.Execute({.id = "2", .name = "get_bibliography", .arguments = "{}"}, {});
  ASSERT_TRUE(bib.ok);
  EXPECT_THAT(bib.content, HasSubstr("No references gathered yet"));
}

TEST(LiteratureSupportTest, OfflinePackAnswersFromTheCacheOnlyAndSaysSo) {
  // Default (public) URLs, offline: a miss must be reported without any
  // request (a request would fail differently: no network here).
  testing::TempDir dir;
  ToolRegistry registry;
  LiteraturePackOptions options{.client = {.cache_path = dir.File("lit.sqlite")}, .getenv = Env({{"HOME", dir.path()}})};
  ASSERT_TRUE(RegisterLiteraturePack(registry, options).ok());
  for (const char* tool : {"search_pubmed", "search_clinical_trials", "search_preprints"}) {
    ToolResult r = registry.Execute({.id = "1", .name = tool, .arguments = R"({"query": "metformin"})"}, {});
    ASSERT_FALSE(r.ok) << tool;
    EXPECT_THAT(r.error, HasSubstr("not in the literature cache, and the pack is offline (online is off)")) << r.error;
  }
  ToolResult r = registry.Execute({.id = "2", .name = "search_pubmed", .arguments = R"({"query": "metformin"})"}, {});
  EXPECT_THAT(r.error, ::testing::StartsWith("PubMed error: "));
  r = registry.Execute({.id = "3", .name = "search_clinical_trials", .arguments = R"({"query": "metformin"})"}, {});
  EXPECT_THAT(r.error, ::testing::StartsWith("ClinicalTrials.gov error: "));
  r = registry.Execute({.id = "4", .name = "search_preprints", .arguments = R"({"query": "metformin"})"}, {});
  EXPECT_THAT(r.error, ::testing::StartsWith("Europe PMC (preprints) error: "));
}

}  // namespace
}  // namespace medreact

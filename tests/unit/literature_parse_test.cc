// The literature parsers over every recorded response (tests/fixtures/
// literature) and over hostile bodies: truncated JSON and XML, wrong shapes,
// HTML error pages, in-body errors, a DOCTYPE with entities.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "testing/literature_server.h"
#include "tools/literature/clinical_trials.h"
#include "tools/literature/europepmc.h"
#include "tools/literature/pubmed.h"

namespace medreact {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using testing::LiteratureFixture;

// ---- esearch -------------------------------------------------------------------

TEST(LiteratureParseTest, EsearchJsonCountsAreStrings) {
  Result<EsearchResult> r = ParseEsearch(LiteratureFixture("ncbi_esearch_pubmed_pten_d326n.json"));
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->count, 3);
  EXPECT_THAT(r->ids, ElementsAre("32150788", "29373119", "17427195"));
  EXPECT_TRUE(r->notes.empty());
}

TEST(LiteratureParseTest, EsearchJsonPhraseNotFoundIsANote) {
  Result<EsearchResult> r = ParseEsearch(LiteratureFixture("ncbi_esearch_pubmed_apc_phrasenotfound.json"));
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->count, 40362);
  EXPECT_EQ(r->ids.size(), 100u);
  EXPECT_EQ(r->ids.front(), "42555032");
  ASSERT_EQ(r->notes.size(), 1u);
  EXPECT_EQ(r->notes[0], "PubMed did not find the phrase(s): p.E1317Q");
}

TEST(LiteratureParseTest, EsearchXmlIsReadToo) {
  Result<EsearchResult> r = ParseEsearch(LiteratureFixture("ncbi_esearch_pubmed_biopython.xml"));
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->count, 63);
  ASSERT_EQ(r->ids.size(), 20u);
  EXPECT_EQ(r->ids.front(), "41282813");
  EXPECT_EQ(r->ids.back(), "37810457");
}

TEST(LiteratureParseTest, EsearchXmlWithoutResultsKeepsTheErrorListAsNotes) {
  Result<EsearchResult> r = ParseEsearch(LiteratureFixture("ncbi_esearch_protein_noresults_errorlist.xml"));
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->count, 0);
  EXPECT_TRUE(r->ids.empty());
  EXPECT_THAT(r->notes, ElementsAre("PubMed did not find the phrase(s): abcXYZ", "OutputMessage: No items found."));
}

TEST(LiteratureParseTest, RateLimitInsideHttp200IsResourceExhausted) {
  Result<EsearchResult> r = ParseEsearch(LiteratureFixture("ncbi_esummary_rate_limit_error.json"));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kResourceExhausted);
  EXPECT_EQ(r.status().message(), "API rate limit exceeded (HTTP 200 body)");
  // The same body where efetch XML was expected.
  Result<std::vector<Evidence>> x = ParsePubmedXml(LiteratureFixture("ncbi_esummary_rate_limit_error.json"));
  ASSERT_FALSE(x.ok());
  EXPECT_EQ(x.status().code(), StatusCode::kResourceExhausted);
}

TEST(LiteratureParseTest, OtherInBodyErrorsAreNamed) {
  Result<EsearchResult> r = ParseEsearch(R"({"header":{},"esearchresult":{"ERROR":"Invalid query syntax"}})");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(r.status().message(), "Invalid query syntax (HTTP 200 body)");
  Result<std::vector<Evidence>> x =
      ParsePubmedXml("<?xml version=\"1.0\"?><eFetchResult><ERROR>Empty id list</ERROR></eFetchResult>");
  ASSERT_FALSE(x.ok());
  EXPECT_THAT(x.status().message(), HasSubstr("Empty id list (HTTP 200 body)"));
}

// ---- efetch ----------------------------------------------------------------------

TEST(LiteratureParseTest, EfetchTwoArticles) {
  Result<std::vector<Evidence>> r = ParsePubmedXml(LiteratureFixture("ncbi_efetch_pubmed_11748933_11700088.xml"));
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_EQ(r->size(), 2u);
  const Evidence& a = (*r)[0];
  EXPECT_EQ(a.id, "PMID:11748933");
  EXPECT_EQ(a.url, "https://pubmed.ncbi.nlm.nih.gov/11748933/");
  EXPECT_EQ(a.source, EvidenceSource::kPubMed);
  EXPECT_EQ(a.title,
            "Is cryopreservation a homogeneous process? Ultrastructure and motility of untreated, prefreezing, and "
            "postthawed spermatozoa of Diplodus puntazzo (Cetti).");
  EXPECT_EQ(a.year, 2001);
  EXPECT_THAT(a.abstract, ::testing::StartsWith("This study subdivides the cryopreservation procedure"));
  EXPECT_EQ(a.type, "journal-article");
  EXPECT_TRUE(a.peer_reviewed);
  EXPECT_THAT(a.other_ids, ElementsAre("DOI:10.1006/cryo.2001.2328"));
  ASSERT_FALSE(a.authors.empty());
  EXPECT_THAT(a.citation, HasSubstr("Cryobiology. 2001. PMID:11748933. doi:10.1006/cryo.2001.2328."));
  EXPECT_EQ((*r)[1].id, "PMID:11700088");
  EXPECT_THAT((*r)[1].other_ids, ElementsAre("DOI:10.1006/jmre.2001.2429"));
}

TEST(LiteratureParseTest, EfetchStructuredAbstractWithInlineMarkup) {
  Result<std::vector<Evidence>> r = ParsePubmedXml(LiteratureFixture("ncbi_efetch_pubmed_structured_abstract.xml"));
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_EQ(r->size(), 1u);
  const Evidence& e = (*r)[0];
  EXPECT_EQ(e.id, "PMID:27797938");
  // <i>TERT</i> inside the title: the inner text is kept, spaces intact.
  EXPECT_EQ(e.title,
            "Leucocyte telomere length, genetic variants at the TERT gene region and risk of pancreatic cancer.");
  EXPECT_EQ(e.year, 2017);
  // Four labelled sections, one per line, with <sub>/<sup>/&lt; resolved.
  std::vector<std::string> lines;
  size_t start = 0;
  while (start <= e.abstract.size()) {
    size_t nl = e.abstract.find('\n', start);
    lines.push_back(e.abstract.substr(start, nl == std::string::npos ? std::string::npos : nl - start));
    if (nl == std::string::npos) break;
    start = nl + 1;
  }
  ASSERT_EQ(lines.size(), 4u) << e.abstract;
  EXPECT_THAT(lines[0], ::testing::StartsWith("OBJECTIVE: Telomere shortening occurs"));
  EXPECT_THAT(lines[1], ::testing::StartsWith("DESIGN: "));
  EXPECT_THAT(lines[2], HasSubstr("ptrend=0.048"));
  EXPECT_THAT(lines[2], HasSubstr("r2<0.25"));
  EXPECT_THAT(lines[2], ::testing::StartsWith("RESULTS: "));
  EXPECT_THAT(lines[3], ::testing::StartsWith("CONCLUSIONS: "));
  EXPECT_EQ(e.type, "observational-study");  // Journal Article + Observational Study
  EXPECT_THAT(e.other_ids, ElementsAre("DOI:10.1136/gutjnl-2016-312510", "PMCID:PMC5442267"));
  ASSERT_GE(e.authors.size(), 3u);
  EXPECT_EQ(e.authors[0], "Bao Y");
  EXPECT_EQ(e.authors[1], "Prescott J");
  EXPECT_THAT(e.citation, ::testing::StartsWith("Bao Y, Prescott J, Yuan C, et al. Leucocyte telomere length"));
  EXPECT_THAT(e.citation, HasSubstr("Gut. 2017. PMID:27797938. doi:10.1136/gutjnl-2016-312510."));
}

TEST(LiteratureParseTest, EfetchPublicationTypesAndDates) {
  const std::string xml = R"(<?xml version="1.0"?>
<!DOCTYPE PubmedArticleSet PUBLIC "-//NLM//DTD PubMedArticle, 1st January 2025//EN" "https://dtd.nlm.nih.gov/ncbi/pubmed/out/pubmed_250101.dtd">
<PubmedArticleSet>
 <PubmedArticle><MedlineCitation><PMID>1</PMID><Article>
  <Journal><JournalIssue><PubDate><MedlineDate>1998 Dec-1999 Jan</MedlineDate></PubDate></JournalIssue><Title>Some Journal</Title></Journal>
  <ArticleTitle>A <b>bold</b> <i>claim</i></ArticleTitle>
  <AuthorList><Author><CollectiveName>The Trial Group</CollectiveName></Author></AuthorList>
  <PublicationTypeList><PublicationType>Journal Article</PublicationType><PublicationType>Randomized Controlled Trial</PublicationType></PublicationTypeList>
 </Article></MedlineCitation></PubmedArticle>
 <PubmedArticle><MedlineCitation><PMID>2</PMID><Article><Journal><JournalIssue><PubDate><Year>2020</Year></PubDate></JournalIssue></Journal>
  <ArticleTitle>Pooled</ArticleTitle>
  <PublicationTypeList><PublicationType>Review</PublicationType><PublicationType>Meta-Analysis</PublicationType></PublicationTypeList>
 </Article></MedlineCitation></PubmedArticle>
 <PubmedArticle><MedlineCitation><PMID>3</PMID><Article><Journal/><ArticleTitle>Early</ArticleTitle>
  <ArticleDate><Year>2023</Year></ArticleDate>
  <PublicationTypeList><PublicationType>Preprint</PublicationType></PublicationTypeList>
 </Article></MedlineCitation></PubmedArticle>
 <PubmedArticle><MedlineCitation><Article><ArticleTitle>No PMID: left out</ArticleTitle></Article></MedlineCitation></PubmedArticle>
</PubmedArticleSet>)";
  Result<std::vector<Evidence>> r = ParsePubmedXml(xml);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_EQ(r->size(), 3u);
  EXPECT_EQ((*r)[0].title, "A bold claim");
  EXPECT_EQ((*r)[0].year, 1998);
  EXPECT_EQ((*r)[0].type, "randomized-controlled-trial");
  EXPECT_THAT((*r)[0].authors, ElementsAre("The Trial Group"));
  EXPECT_EQ((*r)[1].type, "meta-analysis");
  EXPECT_EQ((*r)[2].type, "preprint");
  EXPECT_EQ((*r)[2].year, 2023);
  EXPECT_FALSE((*r)[2].peer_reviewed);
  EXPECT_THAT((*r)[2].citation, HasSubstr("Preprint, not peer reviewed."));
}

TEST(LiteratureParseTest, EntitiesDeclaredInADoctypeAreNeverExpanded) {
  // A "billion laughs" internal subset: pugixml skips the DOCTYPE and expands
  // only the five XML entities, so &lol9; stays as text (or the parse fails);
  // either way nothing grows and nothing is fetched.
  std::string xml = "<?xml version=\"1.0\"?><!DOCTYPE PubmedArticleSet [<!ENTITY lol \"lol\">";
  for (int i = 1; i < 10; ++i) {
    xml += "<!ENTITY lol" + std::to_string(i) + " \"";
    for (int k = 0; k < 10; ++k) xml += "&lol" + (i == 1 ? std::string() : std::to_string(i - 1)) + ";";
    xml += "\">";
  }
  xml += "<!ENTITY ext SYSTEM \"http://127.0.0.1:9/secret\">]>"
         "<PubmedArticleSet><PubmedArticle><MedlineCitation><PMID>7</PMID><Article>"
         "<ArticleTitle>&lol9; &ext; &amp; done</ArticleTitle></Article></MedlineCitation></PubmedArticle>"
         "</PubmedArticleSet>";
  Result<std::vector<Evidence>> r = ParsePubmedXml(xml);
  if (r.ok()) {
    ASSERT_EQ(r->size(), 1u);
    EXPECT_LT((*r)[0].title.size(), 100u);
    EXPECT_THAT((*r)[0].title, HasSubstr("& done"));
  }
}

// ---- ClinicalTrials.gov --------------------------------------------------------------

TEST(LiteratureParseTest, CtgovSearchPage) {
  Result<CtgovPage> r = ParseCtgovStudies(LiteratureFixture("ctgov_v2_search_keytruda_pagesize3.json"));
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->total, 2924);
  EXPECT_EQ(r->next_page_token, "ZVt07cGHkvI2wRk2CJf6_LLq14bEL8swd7KrgP4YnzmVtA");
  ASSERT_EQ(r->evidence.size(), 3u);
  const Evidence& e = r->evidence[0];
  EXPECT_EQ(e.id, "NCT05431270");
  EXPECT_EQ(e.url, "https://clinicaltrials.gov/study/NCT05431270");
  EXPECT_EQ(e.source, EvidenceSource::kClinicalTrials);
  EXPECT_EQ(e.type, "clinical-trial");
  EXPECT_FALSE(e.peer_reviewed);
  EXPECT_EQ(e.year, 2022);
  EXPECT_THAT(e.title, ::testing::StartsWith("Dose Escalation/Expansion Study of Mavrostobart (PT199)"));
  // The interventions lead (this trial names pembrolizumab only there), then the brief summary.
  EXPECT_THAT(e.abstract, ::testing::StartsWith(
                              "Interventions: Mavrostobart (PT199); Tislelizumab; Gemcitabine + nab-Paclitaxel; "
                              "Docetaxel; Pemetrexed; Gemcitabine; Carboplatin + Pemetrexed; Pembrolizumab + "
                              "Carboplatin + Pemetrexed. This is a first-in-human, Phase 1/2, open-label"));
  EXPECT_THAT(e.citation, ::testing::StartsWith("Phanes Therapeutics. Dose Escalation"));
  EXPECT_THAT(e.citation,
              HasSubstr("ClinicalTrials.gov. NCT05431270. Phase 1/Phase 2; Recruiting; started 2022-08-11; 40 participants."));
}

TEST(LiteratureParseTest, CtgovSecondRecordedPage) {
  Result<CtgovPage> r = ParseCtgovStudies(LiteratureFixture("ctgov_v2_search_phelan_pagesize5_page1.json"));
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->total, 21);
  EXPECT_EQ(r->evidence.size(), 5u);
  EXPECT_FALSE(r->next_page_token.empty());
  EXPECT_EQ(r->evidence[0].id, "NCT02710084");
  EXPECT_THAT(r->evidence[0].citation, HasSubstr("Phase 2; Completed; started 2016-04-29; 18 participants"));
}

TEST(LiteratureParseTest, CtgovSingleStudyHasNoWrapper) {
  const std::string body = LiteratureFixture("ctgov_v2_get_NCT06604689.json");
  Result<Evidence> e = ParseCtgovStudy(body);
  ASSERT_TRUE(e.ok()) << e.status().ToString();
  EXPECT_EQ(e->id, "NCT06604689");
  EXPECT_EQ(e->year, 2024);
  EXPECT_THAT(e->title, ::testing::StartsWith("AI-guided Prognostication"));
  EXPECT_THAT(e->citation, ::testing::StartsWith("Fudan University. AI-guided"));
  // The same body where a search page was expected is read as a page of one.
  Result<CtgovPage> page = ParseCtgovStudies(body);
  ASSERT_TRUE(page.ok());
  ASSERT_EQ(page->evidence.size(), 1u);
  EXPECT_TRUE(page->next_page_token.empty());
}

// ---- Europe PMC ------------------------------------------------------------------

TEST(LiteratureParseTest, EuropePmcCoreSearch) {
  Result<EuropePmcPage> r = ParseEuropePmcSearch(LiteratureFixture("europepmc_search_cancer_core.json"));
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->hit_count, 5059039);
  EXPECT_EQ(r->next_cursor_mark, "AoIIP4ZawSg1MzEyODI1MA==");
  ASSERT_EQ(r->evidence.size(), 25u);
  const Evidence& e = r->evidence[0];
  EXPECT_EQ(e.id, "PMID:39709209");
  EXPECT_EQ(e.url, "https://pubmed.ncbi.nlm.nih.gov/39709209/");
  EXPECT_EQ(e.source, EvidenceSource::kEuropePmc);
  EXPECT_EQ(e.year, 2025);
  EXPECT_THAT(e.authors, ElementsAre("Schoenfeld JD", "Haas-Kogan DA", "O'Neill AF"));
  EXPECT_THAT(e.other_ids, ElementsAre("DOI:10.1016/s0140-6736(24)02600-x"));
  EXPECT_THAT(e.citation, HasSubstr("Lancet. 2025. PMID:39709209."));
  int reviews = 0, with_abstract = 0;
  for (const Evidence& x : r->evidence) {
    EXPECT_TRUE(x.peer_reviewed) << x.id;
    EXPECT_EQ(x.abstract.find("<h4>"), std::string::npos) << x.id;  // markup stripped
    EXPECT_EQ(x.abstract.find("<p>"), std::string::npos) << x.id;
    reviews += x.type == "review" || x.type == "systematic-review";
    with_abstract += !x.abstract.empty();
  }
  EXPECT_EQ(reviews, 8);  // 6 "Review", 1 "Systematic Review", 1 "review-article"+"Review"
  EXPECT_EQ(with_abstract, 21);
}

TEST(LiteratureParseTest, EuropePmcLiteSearchAndEmptyResults) {
  Result<EuropePmcPage> lite = ParseEuropePmcSearch(LiteratureFixture("europepmc_search_ext_id_20516115_lite.json"));
  ASSERT_TRUE(lite.ok()) << lite.status().ToString();
  ASSERT_EQ(lite->evidence.size(), 1u);
  const Evidence& e = lite->evidence[0];
  EXPECT_EQ(e.id, "PMID:20516115");
  EXPECT_EQ(e.year, 2010);
  EXPECT_THAT(e.other_ids, ElementsAre("DOI:10.1158/0008-5472.can-09-4563", "PMCID:PMC3040717"));
  EXPECT_EQ(e.authors.size(), 11u);  // from authorString
  EXPECT_EQ(e.authors.back(), "Glover JN");
  EXPECT_THAT(e.citation, HasSubstr("Cancer Res. 2010."));
  EXPECT_TRUE(lite->next_cursor_mark.empty());

  Result<EuropePmcPage> none = ParseEuropePmcSearch(LiteratureFixture("europepmc_search_no_results.json"));
  ASSERT_TRUE(none.ok()) << none.status().ToString();
  EXPECT_EQ(none->hit_count, 0);
  EXPECT_TRUE(none->evidence.empty());
}

TEST(LiteratureParseTest, EuropePmcPreprintsAreNotPeerReviewed) {
  Result<EuropePmcPage> r = ParseEuropePmcSearch(LiteratureFixture("europepmc_search_preprints_core.handmade.json"));
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_EQ(r->evidence.size(), 2u);
  const Evidence& a = r->evidence[0];
  EXPECT_EQ(a.id, "PPR:PPR900001");
  EXPECT_EQ(a.url, "https://europepmc.org/article/PPR/PPR900001");
  EXPECT_EQ(a.type, "preprint");
  EXPECT_FALSE(a.peer_reviewed);
  EXPECT_EQ(a.title, "A hand-written example preprint about post-acute fatigue");
  EXPECT_EQ(a.abstract,
            "Background This record is made up for medreact's tests. Methods None; it exists to exercise the preprint "
            "mapping.");
  EXPECT_THAT(a.citation, HasSubstr("medRxiv. 2099. PPR:PPR900001. doi:10.1101/2099.01.01.000001. Preprint, not peer reviewed."));
  EXPECT_EQ(r->evidence[1].type, "preprint");
  EXPECT_THAT(r->evidence[1].authors, ElementsAre("Placeholder C"));
  EXPECT_EQ(PreprintQuery("long covid"), "(long covid) AND SRC:PPR");
}

// ---- Hostile bodies ---------------------------------------------------------------

TEST(LiteratureParseTest, TruncatedBodiesAreParseErrors) {
  for (const char* name : {"ncbi_esearch_pubmed_pten_d326n.json", "ncbi_esearch_pubmed_apc_phrasenotfound.json",
                           "ncbi_esearch_pubmed_biopython.xml", "ncbi_esearch_protein_noresults_errorlist.xml"}) {
    const std::string body = LiteratureFixture(name);
    ASSERT_FALSE(body.empty()) << name;
    for (size_t cut : {body.size() / 3, body.size() / 2, body.size() - 3}) {
      Result<EsearchResult> r = ParseEsearch(std::string_view(body).substr(0, cut));
      EXPECT_FALSE(r.ok()) << name << " cut at " << cut;
      EXPECT_EQ(r.status().code(), StatusCode::kParseError) << r.status().ToString();
    }
  }
  for (const char* name : {"ncbi_efetch_pubmed_11748933_11700088.xml", "ncbi_efetch_pubmed_structured_abstract.xml"}) {
    const std::string body = LiteratureFixture(name);
    for (size_t cut : {size_t{10}, body.size() / 2, body.size() - 5}) {
      Result<std::vector<Evidence>> r = ParsePubmedXml(std::string_view(body).substr(0, cut));
      ASSERT_FALSE(r.ok()) << name << " cut at " << cut;
      EXPECT_EQ(r.status().code(), StatusCode::kParseError);
      EXPECT_THAT(r.status().message(), HasSubstr("not well-formed XML"));
    }
  }
  for (const char* name : {"ctgov_v2_search_keytruda_pagesize3.json", "ctgov_v2_get_NCT06604689.json"}) {
    const std::string body = LiteratureFixture(name);
    EXPECT_EQ(ParseCtgovStudies(body.substr(0, body.size() / 2)).status().code(), StatusCode::kParseError);
    EXPECT_EQ(ParseCtgovStudy(body.substr(0, body.size() - 2)).status().code(), StatusCode::kParseError);
  }
  const std::string epmc = LiteratureFixture("europepmc_search_cancer_core.json");
  EXPECT_EQ(ParseEuropePmcSearch(epmc.substr(0, epmc.size() / 2)).status().code(), StatusCode::kParseError);
}

TEST(LiteratureParseTest, WrongShapesAreClearErrors) {
  const char* html = "<html><body><h1>502 Bad Gateway</h1></body></html>";
  EXPECT_THAT(ParseEsearch(html).status().message(), HasSubstr("not <eSearchResult>"));
  EXPECT_THAT(ParsePubmedXml(html).status().message(), HasSubstr("not <PubmedArticleSet>"));
  EXPECT_EQ(ParseEsearch("").status().code(), StatusCode::kParseError);
  EXPECT_EQ(ParseEsearch("just text").status().code(), StatusCode::kParseError);
  EXPECT_THAT(ParseEsearch("[1,2]").status().message(), HasSubstr("esearch reply"));
  EXPECT_THAT(ParseEsearch(R"({"esearchresult": []})").status().message(), HasSubstr("esearchresult"));
  EXPECT_THAT(ParseEsearch(R"({"esearchresult": {"count": "many"}})").status().message(), HasSubstr("count"));
  EXPECT_THAT(ParseEsearch(R"({"esearchresult": {"count": "1", "idlist": "1"}})").status().message(),
              HasSubstr("idlist"));
  EXPECT_EQ(ParsePubmedXml("").status().code(), StatusCode::kParseError);
  EXPECT_EQ(ParsePubmedXml("{\"a\": 1}").status().code(), StatusCode::kParseError);
  Result<std::vector<Evidence>> empty_set = ParsePubmedXml("<PubmedArticleSet></PubmedArticleSet>");
  ASSERT_TRUE(empty_set.ok());
  EXPECT_TRUE(empty_set->empty());

  EXPECT_THAT(ParseCtgovStudies(R"({"studies": {}})").status().message(), HasSubstr("\"studies\" array"));
  EXPECT_THAT(ParseCtgovStudies("[]").status().message(), HasSubstr("not an object"));
  EXPECT_THAT(ParseCtgovStudy(R"({"protocolSection": {"identificationModule": {"nctId": "12"}}})").status().message(),
              HasSubstr("nctId"));
  Result<CtgovPage> mixed = ParseCtgovStudies(
      R"({"studies": [null, 3, {"protocolSection": {"identificationModule": {"nctId": "NCT00000001", "briefTitle": 5}}}]})");
  ASSERT_TRUE(mixed.ok());
  ASSERT_EQ(mixed->evidence.size(), 1u);
  EXPECT_EQ(mixed->evidence[0].title, "");

  EXPECT_THAT(ParseEuropePmcSearch(R"({"resultList": {"result": "x"}})").status().message(), HasSubstr("not an array"));
  EXPECT_THAT(ParseEuropePmcSearch(R"({"hitCount": 1})").status().message(), HasSubstr("resultList"));
  EXPECT_THAT(ParseEuropePmcSearch(R"({"errCode": 400, "errMsg": "Invalid query"})").status().message(),
              HasSubstr("Invalid query (HTTP 200 body)"));
  Result<EuropePmcPage> odd = ParseEuropePmcSearch(
      R"({"hitCount": 1e300, "resultList": {"result": [{}, {"id": "1", "source": "MED", "pubYear": 99999,
          "authorList": {"author": [{"lastName": "Solo"}]}, "pubTypeList": {"pubType": "Preprint"}}]}})");
  ASSERT_TRUE(odd.ok()) << odd.status().ToString();
  ASSERT_EQ(odd->evidence.size(), 1u);
  EXPECT_EQ(odd->evidence[0].year, 0);
  EXPECT_EQ(odd->evidence[0].id, "MED:1");  // no pmid: the source's own id
  EXPECT_EQ(odd->evidence[0].type, "preprint");
  EXPECT_EQ(odd->hit_count, 0);
}

TEST(LiteratureParseTest, DeepNestingIsRefusedOrSurvived) {
  std::string json(100000, '[');
  EXPECT_FALSE(ParseEsearch("{\"esearchresult\":" + json).ok());
  EXPECT_FALSE(ParseCtgovStudies("{\"studies\":" + json).ok());
  std::string xml = "<PubmedArticleSet>";
  for (int i = 0; i < 100000; ++i) xml += "<i>";
  Result<std::vector<Evidence>> r = ParsePubmedXml(xml);  // unclosed: an error, and no stack overflow
  EXPECT_FALSE(r.ok());
  std::string closed = "<PubmedArticleSet><PubmedArticle><MedlineCitation><PMID>5</PMID><Article><ArticleTitle>";
  for (int i = 0; i < 100000; ++i) closed += "<i>";
  closed += "deep";
  for (int i = 0; i < 100000; ++i) closed += "</i>";
  closed += "</ArticleTitle></Article></MedlineCitation></PubmedArticle></PubmedArticleSet>";
  Result<std::vector<Evidence>> deep = ParsePubmedXml(closed);
  ASSERT_TRUE(deep.ok()) << deep.status().ToString();
  EXPECT_EQ((*deep)[0].title, "deep");
}

}  // namespace
}  // namespace medreact

// Replies of a literature server that answers with far more than it was
// asked for (issue 23 item 4: efetch sent 66,666 records for 5 ids): a
// PubMed efetch set, a Europe PMC page and a ClinicalTrials.gov page of `n`
// generated records each. Record i has a distinct id and a distinct title
// and abstract (words made from its number), so none is a duplicate of
// another.
#ifndef MEDREACT_TESTS_TESTING_LITERATURE_FLOOD_H_
#define MEDREACT_TESTS_TESTING_LITERATURE_FLOOD_H_

#include <cstdio>
#include <string>
#include <vector>

#include "medreact/json.h"

namespace medreact::testing {

// Words that differ from record to record: "w12a w12b ..." from i's digits.
inline std::string FloodWords(size_t i, const char* what) {
  const std::string n = std::to_string(i);
  std::string out = std::string(what) + " study";
  for (char suffix : std::string("abcdefgh")) out += " w" + n + suffix;
  return out;
}

// A PubmedArticleSet of records with PMIDs first_pmid, first_pmid+1, ...
// (`extra_pmids` first: records of PMIDs the caller asked for).
inline std::string FloodPubmedXml(size_t n, size_t first_pmid, const std::vector<std::string>& extra_pmids = {}) {
  std::string xml = "<?xml version=\"1.0\"?>\n<PubmedArticleSet>\n";
  auto record = [&xml](const std::string& pmid, size_t i) {
    xml += "<PubmedArticle><MedlineCitation><PMID Version=\"1\">" + pmid +
           "</PMID><Article><Journal><JournalIssue><PubDate><Year>2020</Year></PubDate></JournalIssue>"
           "<Title>Flood Journal</Title></Journal><ArticleTitle>" +
           FloodWords(i, "PubMed") + "</ArticleTitle><Abstract><AbstractText>" + FloodWords(i, "abstract") +
           "</AbstractText></Abstract></Article></MedlineCitation></PubmedArticle>\n";
  };
  for (size_t k = 0; k < extra_pmids.size(); ++k) record(extra_pmids[k], 1'000'000 + k);
  for (size_t i = 0; i < n; ++i) record(std::to_string(first_pmid + i), i);
  return xml + "</PubmedArticleSet>\n";
}

// A Europe PMC search page (resultType=core) of n preprints, no next cursor.
inline std::string FloodEuropePmcJson(size_t n) {
  Json results = Json::array();
  for (size_t i = 0; i < n; ++i) {
    results.push_back({{"id", "PPR" + std::to_string(500000 + i)},
                       {"source", "PPR"},
                       {"title", FloodWords(i, "Preprint")},
                       {"pubYear", "2024"},
                       {"pubTypeList", {{"pubType", {"Preprint"}}}},
                       {"abstractText", FloodWords(i, "summary")}});
  }
  return DumpJson(Json{{"version", "6.9"}, {"hitCount", n}, {"resultList", {{"result", std::move(results)}}}});
}

// A ClinicalTrials.gov v2 studies page of n trials, no next page.
inline std::string FloodTrialsJson(size_t n) {
  Json studies = Json::array();
  for (size_t i = 0; i < n; ++i) {
    char nct[16];
    std::snprintf(nct, sizeof nct, "NCT%08zu", 10'000'000 + i);
    studies.push_back({{"protocolSection",
                        {{"identificationModule", {{"nctId", nct}, {"briefTitle", FloodWords(i, "Trial")}}},
                         {"statusModule", {{"overallStatus", "RECRUITING"}}},
                         {"descriptionModule", {{"briefSummary", FloodWords(i, "design")}}}}}});
  }
  return DumpJson(Json{{"studies", std::move(studies)}, {"totalCount", n}});
}

}  // namespace medreact::testing

#endif  // MEDREACT_TESTS_TESTING_LITERATURE_FLOOD_H_

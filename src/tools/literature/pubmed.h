// PubMedClient: PubMed through NCBI's E-utilities, in two requests.
//
//   1. esearch.fcgi?db=pubmed&term=Q&retmax=N&retmode=json&sort=relevance
//      → the PMIDs ("Best Match" order), the total count and notes
//   2. efetch.fcgi?db=pubmed&id=P1,P2,...&retmode=xml
//      → PubmedArticleSet XML, parsed with pugixml into Evidence
//
// Every request carries tool=medreact, email (NCBI_EMAIL) when set and
// api_key (NCBI_API_KEY) when set, and waits for the client's rate limiter:
// 3 requests per second, 10 with a key (E-utilities usage guidelines,
// https://www.ncbi.nlm.nih.gov/books/NBK25497/).
//
// Wire quirks handled (seen in the recorded responses, tests/fixtures/literature):
// esearch JSON counts and ids are strings; an esearch reply may be XML;
// "errorlist": {"phrasesnotfound": [...]} is a note, not a failure; errors
// arrive inside HTTP 200 bodies ({"error": "API rate limit exceeded", ...},
// "esearchresult": {"ERROR": ...}, <eFetchResult><ERROR>): a rate-limit body
// is retried like a 429, others fail with the service's words plus "(HTTP
// 200 body)". efetch XML names an external DTD: pugixml never loads DTDs or
// anything else (it has no network code and expands only the five XML
// entities and character references), so the DOCTYPE is skipped as text.
// Thread-safe.
#ifndef MEDREACT_TOOLS_LITERATURE_PUBMED_H_
#define MEDREACT_TOOLS_LITERATURE_PUBMED_H_

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "medreact/status.h"
#include "medreact/tool.h"
#include "tools/literature/evidence.h"
#include "tools/literature/literature_fetch.h"
#include "tools/literature/rate_limiter.h"

namespace medreact {

struct EsearchResult {
  int64_t count = 0;              // matches in PubMed
  std::vector<std::string> ids;   // PMIDs, in the reply's order
  std::vector<std::string> notes;  // "PubMed did not find the phrase(s): ...", ignored phrases, messages
};

// An esearch reply, JSON or XML. In-body errors: a rate-limit message →
// kResourceExhausted, another error → kInvalidArgument, both "<words> (HTTP
// 200 body)"; a body that is neither → kParseError naming what was expected.
Result<EsearchResult> ParseEsearch(std::string_view body);

// A PubmedArticleSet (efetch, retmode=xml) as Evidence, in document order:
// id "PMID:n", url https://pubmed.ncbi.nlm.nih.gov/n/, title and abstract as
// their whole inner text (inline <i>, <sup>, <sub> ... kept as text;
// labelled sections as "LABEL: text", one per line), authors "LastName
// Initials" (or the collective name), year from PubDate/Year, else the
// MedlineDate, else ArticleDate; journal (ISO abbreviation) in the citation;
// DOI and PMCID of the record's own ArticleIdList in other_ids ("DOI:" lower
// case, "PMCID:PMC..."); type from the publication types
// (EvidenceTypeFromPublicationTypes), peer_reviewed false for a preprint.
// Book records (PubmedBookArticle) are read too (type "book"); a record
// without a numeric PMID is left out. Errors:
// malformed XML → kParseError with the offset and pugixml's reason; an
// in-body error as ParseEsearch.
Result<std::vector<Evidence>> ParsePubmedXml(std::string_view body);

class PubMedClient {
 public:
  // The limiter runs at options.pubmed_requests_per_second, or 3 (10 with an
  // API key) when that is 0.
  explicit PubMedClient(std::shared_ptr<const LiteratureFetcher> fetcher);

  // Searches and fetches up to `max_results` (clamped to 1..100) records:
  // only the PMIDs esearch returned, at most `max_results` of them, whatever
  // else efetch sends (a note counts what was left out).
  // Zero matches is a success with no evidence (and the notes); matches of
  // which efetch gives no readable record are a kParseError.
  Result<LiteratureResults> Search(const std::string& query, int max_results, const ToolContext& ctx) const;

  // The records of these PMIDs, in the order given, each once (missing ones
  // left out). Records efetch returned beyond them (another PMID, a PMID a
  // second time) are left out too, and counted in `*not_asked_for`.
  Result<std::vector<Evidence>> Fetch(const std::vector<std::string>& pmids, const ToolContext& ctx,
                                      bool* from_cache = nullptr, size_t* not_asked_for = nullptr) const;

  // The request URLs (secrets included), for tests and the cache.
  std::string EsearchUrl(const std::string& query, int max_results) const;
  std::string EfetchUrl(const std::vector<std::string>& pmids) const;

  double requests_per_second() const { return limiter_->per_second(); }

 private:
  std::string CommonParameters() const;

  std::shared_ptr<const LiteratureFetcher> fetcher_;
  std::shared_ptr<RateLimiter> limiter_;
};

}  // namespace medreact

#endif  // MEDREACT_TOOLS_LITERATURE_PUBMED_H_

// EuropePmcClient: articles and preprints from the Europe PMC REST API
// (https://europepmc.org/RestfulWebService).
//
//   GET {base}search?query=Q&resultType=core&format=json&pageSize=N&cursorMark=C
//       → {"hitCount": n, "nextCursorMark": "...", "resultList": {"result": [...]}}
//
// The first page is cursorMark=*; a search follows nextCursorMark until it
// has max_results records (at most 10 pages; a mark that does not change, or
// an empty page, ends it). search_preprints sends PreprintQuery(q) =
// "(q) AND SRC:PPR": Europe PMC files preprints (bioRxiv, medRxiv, Research
// Square, ...) under the source PPR (Europe PMC search syntax, "SRC").
//
// A record becomes Evidence: a MEDLINE record (source MED) is "PMID:n" with
// PubMed's URL, so it meets the same paper found through PubMed; a preprint
// is "PPR:PPR..." (url https://europepmc.org/article/PPR/PPR...), type
// "preprint", peer_reviewed false; others "<SRC>:<id>". Titles and abstracts
// lose their markup (StripMarkup); DOI (lower case), PMCID and PMID go to
// other_ids. A preprint is recognised by its source or a publication type
// "preprint" (core: pubTypeList.pubType; lite: the "pubType" string).
// Thread-safe.
#ifndef MEDREACT_TOOLS_LITERATURE_EUROPEPMC_H_
#define MEDREACT_TOOLS_LITERATURE_EUROPEPMC_H_

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "medreact/json.h"
#include "medreact/status.h"
#include "medreact/tool.h"
#include "tools/literature/evidence.h"
#include "tools/literature/literature_fetch.h"

namespace medreact {

struct EuropePmcPage {
  std::vector<Evidence> evidence;  // records without a source and id are left out
  int64_t hit_count = 0;
  std::string next_cursor_mark;  // "" when absent
};

// One element of resultList.result. InvalidArgument when it has no source or id.
Result<Evidence> EuropePmcResultToEvidence(const Json& result);

// A search reply (core or lite). An error Europe PMC writes in the body
// ("errMsg") → InvalidArgument "<words> (HTTP 200 body)".
Result<EuropePmcPage> ParseEuropePmcSearch(std::string_view body);

// The query search_preprints sends: "(<query>) AND SRC:PPR".
std::string PreprintQuery(const std::string& query);

class EuropePmcClient {
 public:
  explicit EuropePmcClient(std::shared_ptr<const LiteratureFetcher> fetcher);

  // Up to max_results (clamped to 1..100) records for a Europe PMC query.
  Result<LiteratureResults> Search(const std::string& query, int max_results, const ToolContext& ctx) const;
  // Search(PreprintQuery(query), ...).
  Result<LiteratureResults> SearchPreprints(const std::string& query, int max_results, const ToolContext& ctx) const;

  std::string SearchUrl(const std::string& query, int page_size, const std::string& cursor_mark) const;

 private:
  std::shared_ptr<const LiteratureFetcher> fetcher_;
};

}  // namespace medreact

#endif  // MEDREACT_TOOLS_LITERATURE_EUROPEPMC_H_

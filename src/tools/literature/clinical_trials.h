// ClinicalTrialsClient: registered studies from the ClinicalTrials.gov API
// v2 (https://clinicaltrials.gov/data-api/api).
//
//   GET {base}studies?query.term=Q&pageSize=N&countTotal=true&format=json
//       &fields=...[&filter.overallStatus=S1,S2][&pageToken=T]
//       → {"studies": [...], "totalCount": n, "nextPageToken": "..."}
//       (the token is absent on the last page)
//   GET {base}studies/NCT01234567?format=json&fields=...
//       → one study, with no wrapper object
//
// A search follows nextPageToken until it has max_results studies (at most
// 10 pages; a token seen twice stops it). A study becomes Evidence with id
// "NCT...", url https://clinicaltrials.gov/study/NCT..., title the brief
// title (else the official one), abstract "Interventions: a; b." (at most
// 20 names) and the brief summary, year from the
// start date, type "clinical-trial", peer_reviewed false (a registration is
// not a peer-reviewed publication) and a citation naming the lead sponsor,
// phases, overall status, start date and enrolment. Thread-safe.
#ifndef MEDREACT_TOOLS_LITERATURE_CLINICAL_TRIALS_H_
#define MEDREACT_TOOLS_LITERATURE_CLINICAL_TRIALS_H_

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

// The overall statuses filter.overallStatus accepts (API v2 "Status" enum).
const std::vector<std::string>& CtgovOverallStatuses();

struct CtgovPage {
  std::vector<Evidence> evidence;  // studies without a valid NCT id are left out
  int64_t total = -1;              // totalCount; -1 when absent
  std::string next_page_token;     // "" on the last page
};

// One study object (the element of "studies", or a single-study reply).
// InvalidArgument naming the field when it has no NCT id.
Result<Evidence> CtgovStudyToEvidence(const Json& study);

// A /studies reply. A single-study object is read as a page of one.
Result<CtgovPage> ParseCtgovStudies(std::string_view body);

// A /studies/{nctId} reply.
Result<Evidence> ParseCtgovStudy(std::string_view body);

class ClinicalTrialsClient {
 public:
  explicit ClinicalTrialsClient(std::shared_ptr<const LiteratureFetcher> fetcher);

  // Up to max_results (clamped to 1..100) studies matching `query`, only
  // those with one of `statuses` (CtgovOverallStatuses(); empty = any).
  // InvalidArgument for an unknown status.
  Result<LiteratureResults> Search(const std::string& query, int max_results, const ToolContext& ctx,
                                   const std::vector<std::string>& statuses = {}) const;

  // One study by NCT id ("NCT" and 8 digits).
  Result<Evidence> GetStudy(const std::string& nct_id, const ToolContext& ctx) const;

  std::string SearchUrl(const std::string& query, int page_size, const std::vector<std::string>& statuses,
                        const std::string& page_token) const;
  std::string StudyUrl(const std::string& nct_id) const;

 private:
  std::shared_ptr<const LiteratureFetcher> fetcher_;
};

}  // namespace medreact

#endif  // MEDREACT_TOOLS_LITERATURE_CLINICAL_TRIALS_H_

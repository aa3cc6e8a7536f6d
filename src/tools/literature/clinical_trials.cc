// ClinicalTrials.gov API v2: the /studies wire format and its mapping to
// Evidence. See clinical_trials.h. Field names: the API's study data
// structure, https://clinicaltrials.gov/data-api/about-api/study-data-structure
#include "tools/literature/clinical_trials.h"

#include <algorithm>
#include <cctype>
#include <initializer_list>
#include <set>
#include <utility>

#include "core/text_util.h"
#include "tools/literature/literature_paging.h"
#include "tools/literature/literature_text.h"

namespace medreact {
namespace {

constexpr const char kStudyUrl[] = "https://clinicaltrials.gov/study/";

// The pieces the mapping reads (API v2 "fields" accepts piece names).
constexpr const char kFields[] =
    "NCTId,BriefTitle,OfficialTitle,OverallStatus,StartDate,CompletionDate,LeadSponsorName,BriefSummary,"
    "Condition,StudyType,Phase,EnrollmentCount,InterventionName";

// The member at `path` when every step is an object that has it, else null.
const Json* At(const Json& j, std::initializer_list<const char*> path) {
  const Json* cur = &j;
  for (const char* key : path) {
    if (!cur->is_object()) return nullptr;
    auto it = cur->find(key);
    if (it == cur->end()) return nullptr;
    cur = &*it;
  }
  return cur;
}

std::string StringAt(const Json& j, std::initializer_list<const char*> path) {
  const Json* v = At(j, path);
  return v != nullptr && v->is_string() ? v->get<std::string>() : std::string();
}

bool IsNctId(std::string_view id) {
  return id.size() == 11 && StartsWith(id, "NCT") &&
         std::all_of(id.begin() + 3, id.end(), [](unsigned char c) { return std::isdigit(c) != 0; });
}

// "ACTIVE_NOT_RECRUITING" → "Active not recruiting".
std::string Readable(std::string_view code) {
  std::string out = AsciiLower(code);
  std::replace(out.begin(), out.end(), '_', ' ');
  if (!out.empty()) out[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(out[0])));
  return out;
}

// "PHASE1" → "Phase 1", "EARLY_PHASE1" → "Early Phase 1", "NA" → "Phase N/A".
std::string PhaseName(std::string_view code) {
  if (code == "NA") return "Phase N/A";
  if (StartsWith(code, "EARLY_PHASE")) return "Early Phase " + std::string(code.substr(11));
  if (StartsWith(code, "PHASE")) return "Phase " + std::string(code.substr(5));
  return Readable(code);
}

Result<Json> ParseBody(std::string_view body, const char* what) {
  if (TrimView(body).empty()) return Status::ParseError(std::string(what) + " is empty");
  Result<Json> parsed = ParseJson(body);
  if (!parsed.ok()) return parsed.status().WithContext(std::string(what) + " is not valid JSON");
  if (!parsed->is_object()) return Status::ParseError(std::string(what) + " is JSON but not an object");
  return parsed;
}

}  // namespace

const std::vector<std::string>& CtgovOverallStatuses() {
  static const std::vector<std::string> kStatuses = {
      "ACTIVE_NOT_RECRUITING", "COMPLETED", "ENROLLING_BY_INVITATION", "NOT_YET_RECRUITING", "RECRUITING",
      "SUSPENDED", "TERMINATED", "WITHDRAWN", "AVAILABLE", "NO_LONGER_AVAILABLE", "TEMPORARILY_NOT_AVAILABLE",
      "APPROVED_FOR_MARKETING", "WITHHELD", "UNKNOWN"};
  return kStatuses;
}

Result<Evidence> CtgovStudyToEvidence(const Json& study) {
  const Json* protocol = At(study, {"protocolSection"});
  if (protocol == nullptr || !protocol->is_object()) {
    return Status::InvalidArgument("study has no protocolSection object");
  }
  const std::string nct = Trim(StringAt(*protocol, {"identificationModule", "nctId"}));
  if (!IsNctId(nct)) {
    return Status::InvalidArgument("study's protocolSection/identificationModule/nctId is missing or not NCT + 8 digits");
  }
  Evidence e;
  e.id = nct;
  e.url = kStudyUrl + nct;
  e.source = EvidenceSource::kClinicalTrials;
  e.type = "clinical-trial";
  e.peer_reviewed = false;
  e.title = CollapseWhitespace(StringAt(*protocol, {"identificationModule", "briefTitle"}));
  if (e.title.empty()) e.title = CollapseWhitespace(StringAt(*protocol, {"identificationModule", "officialTitle"}));
  e.abstract = CollapseWhitespace(StringAt(*protocol, {"descriptionModule", "briefSummary"}));
  // What the trial gives (the search asks for InterventionName): many summaries name a drug only
  // by its class ("a PD-1 inhibitor"), so the interventions lead, where a shortened summary keeps them.
  if (const Json* arms = At(*protocol, {"armsInterventionsModule", "interventions"}); arms && arms->is_array()) {
    std::vector<std::string> names;
    for (const Json& arm : *arms) {
      const std::string name = arm.is_object() ? CollapseWhitespace(StringAt(arm, {"name"})) : "";
      if (!name.empty() && names.size() < 20) names.push_back(name);
    }
    if (!names.empty()) {
      std::string lead = "Interventions: " + Join(names, "; ") + ".";
      e.abstract = e.abstract.empty() ? lead : lead + " " + e.abstract;
    }
  }
  const std::string start = StringAt(*protocol, {"statusModule", "startDateStruct", "date"});
  e.year = FirstYear(start);

  std::vector<std::string> details;
  if (const Json* phases = At(*protocol, {"designModule", "phases"}); phases != nullptr && phases->is_array()) {
    std::vector<std::string> names;
    for (const Json& p : *phases) {
      if (p.is_string()) names.push_back(PhaseName(p.get<std::string>()));
    }
    if (!names.empty()) details.push_back(Join(names, "/"));
  }
  if (std::string status = StringAt(*protocol, {"statusModule", "overallStatus"}); !status.empty()) {
    details.push_back(Readable(status));
  }
  if (!start.empty()) details.push_back("started " + start);
  if (const Json* count = At(*protocol, {"designModule", "enrollmentInfo", "count"}); count != nullptr) {
    if (auto n = ExactInteger(*count, 0)) details.push_back(std::to_string(*n) + " participants");
  }
  std::vector<std::string> sponsor;
  if (std::string lead = StringAt(*protocol, {"sponsorCollaboratorsModule", "leadSponsor", "name"}); !lead.empty()) {
    sponsor.push_back(CollapseWhitespace(lead));
  }
  e.citation = FormatCitation(sponsor, e.title, "ClinicalTrials.gov", 0, e.id, "", Join(details, "; "));
  return e;
}

Result<CtgovPage> ParseCtgovStudies(std::string_view body) {
  Result<Json> parsed = ParseBody(body, "ClinicalTrials.gov studies reply");
  if (!parsed.ok()) return parsed.status();
  const Json& j = *parsed;
  CtgovPage page;
  if (!j.contains("studies") && j.contains("protocolSection")) {
    Result<Evidence> one = CtgovStudyToEvidence(j);
    if (!one.ok()) return one.status();
    page.evidence.push_back(std::move(*one));
    page.total = 1;
    return page;
  }
  const Json* studies = At(j, {"studies"});
  if (studies == nullptr || !studies->is_array()) {
    return Status::ParseError("ClinicalTrials.gov studies reply has no \"studies\" array");
  }
  for (const Json& study : *studies) {
    Result<Evidence> e = CtgovStudyToEvidence(study);
    if (e.ok()) page.evidence.push_back(std::move(*e));
  }
  if (const Json* total = At(j, {"totalCount"}); total != nullptr) {
    if (auto n = ExactInteger(*total, 0)) page.total = *n;
  }
  page.next_page_token = StringAt(j, {"nextPageToken"});
  return page;
}

Result<Evidence> ParseCtgovStudy(std::string_view body) {
  Result<Json> parsed = ParseBody(body, "ClinicalTrials.gov study reply");
  if (!parsed.ok()) return parsed.status();
  Result<Evidence> e = CtgovStudyToEvidence(*parsed);
  if (!e.ok()) return Status::ParseError("ClinicalTrials.gov study reply: " + e.status().message());
  return e;
}

ClinicalTrialsClient::ClinicalTrialsClient(std::shared_ptr<const LiteratureFetcher> fetcher)
    : fetcher_(std::move(fetcher)) {}

std::string ClinicalTrialsClient::SearchUrl(const std::string& query, int page_size,
                                            const std::vector<std::string>& statuses,
                                            const std::string& page_token) const {
  std::string url = fetcher_->options().ctgov_url + "studies?format=json&query.term=" + UrlEncode(query) +
                    "&pageSize=" + std::to_string(page_size) + "&countTotal=true&fields=" + UrlEncode(kFields);
  if (!statuses.empty()) url += "&filter.overallStatus=" + UrlEncode(Join(statuses, ","));
  if (!page_token.empty()) url += "&pageToken=" + UrlEncode(page_token);
  return url;
}

std::string ClinicalTrialsClient::StudyUrl(const std::string& nct_id) const {
  return fetcher_->options().ctgov_url + "studies/" + UrlEncode(nct_id) + "?format=json&fields=" + UrlEncode(kFields);
}

Result<LiteratureResults> ClinicalTrialsClient::Search(const std::string& query, int max_results,
                                                       const ToolContext& ctx,
                                                       const std::vector<std::string>& statuses) const {
  max_results = std::clamp(max_results, 1, 100);
  for (const std::string& s : statuses) {
    const auto& known = CtgovOverallStatuses();
    if (std::find(known.begin(), known.end(), s) == known.end()) {
      return Status::InvalidArgument("unknown ClinicalTrials.gov status '" + Preview(s, 40) + "' (known: " +
                                     Join(known, ", ") + ")");
    }
  }
  Result<LiteratureResults> results = FetchPages<CtgovPage>(
      *fetcher_, ctx, "study search", max_results, "",
      [&](int wanted, const std::string& token) { return SearchUrl(query, wanted, statuses, token); },
      &ParseCtgovStudies, &CtgovPage::total, &CtgovPage::next_page_token);
  if (!results.ok()) return results;
  if (results->total < 0) results->total = static_cast<int64_t>(results->evidence.size());
  return results;
}

Result<Evidence> ClinicalTrialsClient::GetStudy(const std::string& nct_id, const ToolContext& ctx) const {
  std::string upper = Trim(nct_id);
  std::transform(upper.begin(), upper.end(), upper.begin(), [](unsigned char c) { return std::toupper(c); });
  if (!IsNctId(upper)) {
    return Status::InvalidArgument("'" + Preview(nct_id, 40) + "' is not a ClinicalTrials.gov id (NCT and 8 digits)");
  }
  Evidence study;
  Result<LiteratureResponse> fetched =
      fetcher_->Get({.url = StudyUrl(upper), .what = "study " + upper}, ctx, [&study](const CachedResponse& r) -> Status {
        Result<Evidence> parsed = ParseCtgovStudy(r.body);
        if (!parsed.ok()) return parsed.status();
        study = std::move(*parsed);
        return Status::OK();
      });
  if (!fetched.ok()) return fetched.status();
  return study;
}

}  // namespace medreact

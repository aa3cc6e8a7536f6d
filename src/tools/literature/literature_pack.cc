// The literature pack's tools: specs written for the model, thin Run
// functions over the three clients, the observation text and the
// bibliography. See literature_pack.h.
#include "tools/literature/literature_pack.h"

#include <algorithm>
#include <memory>
#include <mutex>
#include <set>
#include <utility>

#include "core/text_util.h"
#include "medreact/tool.h"
#include "tools/literature/clinical_trials.h"
#include "tools/literature/europepmc.h"
#include "tools/literature/literature_text.h"
#include "tools/literature/pubmed.h"

namespace medreact {
namespace {

constexpr size_t kAbstractPreviewBytes = 300;
constexpr int kMaxResults = 50;

// Everything one pack instance shares between its tools.
struct PackState {
  PubMedClient pubmed;
  ClinicalTrialsClient trials;
  EuropePmcClient europepmc;
  std::function<void(const std::vector<Evidence>&)> on_evidence;

  std::mutex mu;
  std::vector<Evidence> bibliography;  // first sighting of each record
  std::set<std::string> known_ids;     // ids and other ids of the records above

  explicit PackState(const std::shared_ptr<const LiteratureFetcher>& fetcher,
                     std::function<void(const std::vector<Evidence>&)> hook)
      : pubmed(fetcher), trials(fetcher), europepmc(fetcher), on_evidence(std::move(hook)) {}

  void Gathered(const std::vector<Evidence>& found) {
    if (found.empty()) return;
    std::lock_guard<std::mutex> lock(mu);
    for (const Evidence& e : found) {
      bool seen = known_ids.contains(e.id);
      for (const std::string& other : e.other_ids) seen = seen || known_ids.contains(other);
      if (seen) continue;
      known_ids.insert(e.id);
      known_ids.insert(e.other_ids.begin(), e.other_ids.end());
      bibliography.push_back(e);
    }
    if (on_evidence) on_evidence(found);
  }

  std::vector<Evidence> Bibliography() {
    std::lock_guard<std::mutex> lock(mu);
    return bibliography;
  }
};

Json SearchParameters(const char* query_description) {
  return Json{{"type", "object"},
              {"properties",
               {{"query", {{"type", "string"}, {"minLength", 1}, {"description", query_description}}},
                {"max_results",
                 {{"type", "integer"},
                  {"minimum", 1},
                  {"maximum", kMaxResults},
                  {"default", 10},
                  {"description", "How many records to return, 1-50. Default 10."}}}}},
              {"required", {"query"}},
              {"additionalProperties", false}};
}

int MaxResults(const Json& args) {
  return static_cast<int>(std::clamp<int64_t>(IntegerOr(args, "max_results", 10), 1, kMaxResults));
}

ToolResult SearchOutcome(PackState& state, const std::string& source, const std::string& query,
                         const Result<LiteratureResults>& results) {
  if (!results.ok()) return ToolResult::Error(source + " error: " + results.status().message());
  state.Gathered(results->evidence);
  return ToolResult::Ok(FormatSearchResults(source, query, *results));
}

std::unique_ptr<Tool> SearchPubMedTool(std::shared_ptr<PackState> state) {
  ToolSpec spec{
      .name = "search_pubmed",
      .description =
          "Searches PubMed (NCBI E-utilities) for peer-reviewed biomedical articles and returns, best match "
          "first, each record's PMID, year, publication type (e.g. randomized-controlled-trial, meta-analysis, "
          "review), title, URL and the start of its abstract. Use PubMed query syntax: keywords, quoted phrases, "
          "AND/OR/NOT, field tags such as [Title/Abstract], [MeSH Terms] or [Publication Type], e.g. "
          "\"metformin AND lactic acidosis AND meta-analysis[Publication Type]\". Every record found is added to "
          "the bibliography (get_bibliography).",
      .parameters = SearchParameters("PubMed query, e.g. \"PTEN[Title/Abstract] AND D326N[Title/Abstract]\"."),
  };
  return MakeFunctionTool(std::move(spec), [state](const Json& args, const ToolContext& ctx) {
    const std::string query = Trim(StringOr(args, "query"));
    if (query.empty()) return ToolResult::Error("query is empty: give PubMed search terms");
    return SearchOutcome(*state, "PubMed", query, state->pubmed.Search(query, MaxResults(args), ctx));
  });
}

std::unique_ptr<Tool> SearchTrialsTool(std::shared_ptr<PackState> state) {
  Json parameters = SearchParameters(
      "Free-text ClinicalTrials.gov search (conditions, interventions, sponsors, NCT ids), e.g. \"pembrolizumab "
      "non-small cell lung cancer\".");
  parameters["properties"]["status"] = {
      {"type", "array"},
      {"items", {{"type", "string"}, {"enum", CtgovOverallStatuses()}}},
      {"description", "Only studies with one of these overall statuses, e.g. [\"RECRUITING\"]. Default: any."}};
  ToolSpec spec{
      .name = "search_clinical_trials",
      .description =
          "Searches ClinicalTrials.gov (registered clinical studies) and returns each study's NCT id, start year, "
          "title, URL, sponsor, phase, overall status, enrolment and the start of its brief summary. A "
          "registration describes a planned or running study, not peer-reviewed results. Every study found is "
          "added to the bibliography (get_bibliography).",
      .parameters = std::move(parameters),
  };
  return MakeFunctionTool(std::move(spec), [state](const Json& args, const ToolContext& ctx) {
    const std::string query = Trim(StringOr(args, "query"));
    if (query.empty()) return ToolResult::Error("query is empty: give terms to search ClinicalTrials.gov for");
    std::vector<std::string> statuses;
    if (auto it = args.find("status"); it != args.end() && it->is_array()) {
      for (const Json& s : *it) {
        if (s.is_string()) statuses.push_back(s.get<std::string>());
      }
    }
    return SearchOutcome(*state, "ClinicalTrials.gov", query,
                         state->trials.Search(query, MaxResults(args), ctx, statuses));
  });
}

std::unique_ptr<Tool> SearchPreprintsTool(std::shared_ptr<PackState> state) {
  ToolSpec spec{
      .name = "search_preprints",
      .description =
          "Searches preprints (bioRxiv, medRxiv, Research Square and other servers) through Europe PMC and returns "
          "each record's id, DOI, year, title, URL and the start of its abstract. Preprints are NOT peer reviewed: "
          "treat them as preliminary. The query uses Europe PMC syntax (keywords, quoted phrases, AND/OR/NOT); "
          "it is sent as \"(<query>) AND SRC:PPR\". Every record found is added to the bibliography "
          "(get_bibliography).",
      .parameters = SearchParameters("Europe PMC query, e.g. \"long covid AND fatigue\"."),
  };
  return MakeFunctionTool(std::move(spec), [state](const Json& args, const ToolContext& ctx) {
    const std::string query = Trim(StringOr(args, "query"));
    if (query.empty()) return ToolResult::Error("query is empty: give terms to search preprints for");
    return SearchOutcome(*state, "Europe PMC (preprints)", query,
                         state->europepmc.SearchPreprints(query, MaxResults(args), ctx));
  });
}

std::unique_ptr<Tool> BibliographyTool(std::shared_ptr<PackState> state) {
  ToolSpec spec{
      .name = "get_bibliography",
      .description =
          "Returns the numbered reference list of every record the searches of this session have found (PubMed "
          "articles, trials, preprints), one line each: authors, title, venue, year, id, DOI and URL. Use it to "
          "cite sources in a report.",
      .parameters = Json{{"type", "object"}, {"properties", Json::object()}, {"additionalProperties", false}},
  };
  return MakeFunctionTool(std::move(spec), [state](const Json&, const ToolContext&) {
    return ToolResult::Ok(FormatBibliography(state->Bibliography()));
  });
}

}  // namespace

std::string FormatSearchResults(const std::string& source, const std::string& query, const LiteratureResults& results) {
  std::string out;
  if (results.evidence.empty()) {
    out = "No results found for: " + query;
  } else {
    out = source + ": " + std::to_string(results.evidence.size()) + " of " +
          std::to_string(std::max<int64_t>(results.total, static_cast<int64_t>(results.evidence.size()))) +
          " results for: " + query + (results.from_cache ? " (from the literature cache)" : "");
    for (size_t i = 0; i < results.evidence.size(); ++i) {
      const Evidence& e = results.evidence[i];
      out += "\n\n[" + std::to_string(i + 1) + "] " + e.id + " | " + (e.year > 0 ? std::to_string(e.year) : "year ?") +
             " | " + EvidenceSourceName(e.source) + " | " + e.type + (e.peer_reviewed ? "" : " | not peer reviewed");
      out += "\nTitle: " + (e.title.empty() ? std::string("(none)") : e.title);
      out += "\nURL: " + e.url;
      if (e.source == EvidenceSource::kClinicalTrials) out += "\nRegistration: " + e.citation;
      for (const std::string& other : e.other_ids) {
        if (StartsWith(other, "DOI:")) out += "\nDOI: " + other.substr(4);
      }
      out += "\nAbstract: " + (e.abstract.empty() ? std::string("(none)")
                                                  : ShortenText(CollapseWhitespace(e.abstract), kAbstractPreviewBytes));
    }
  }
  for (const std::string& note : results.notes) out += "\nNote: " + note;
  return out;
}

std::string FormatBibliography(const std::vector<Evidence>& evidence) {
  if (evidence.empty()) {
    return "No references gathered yet: search first (search_pubmed, search_clinical_trials, search_preprints).";
  }
  std::string out;
  for (size_t i = 0; i < evidence.size(); ++i) {
    if (i > 0) out += '\n';
    const Evidence& e = evidence[i];
    out += std::to_string(i + 1) + ". " + (e.citation.empty() ? e.title + ". " + e.id + "." : e.citation) + " " + e.url;
  }
  return out;
}

std::vector<std::string> LiteraturePackToolNames() {
  return {"search_pubmed", "search_clinical_trials", "search_preprints", "get_bibliography"};
}

Status RegisterLiteraturePack(ToolRegistry& registry, LiteraturePackOptions options) {
  Result<LiteratureOptions> resolved = ResolveLiteratureOptions(std::move(options.client), options.getenv);
  if (!resolved.ok()) return resolved.status().WithContext("literature pack");
  for (const std::string& name : LiteraturePackToolNames()) {
    if (registry.Find(name) != nullptr) {
      return Status::InvalidArgument("literature pack: a tool named '" + name + "' is already registered");
    }
  }
  auto fetcher = std::make_shared<const LiteratureFetcher>(std::move(*resolved));
  auto state = std::make_shared<PackState>(fetcher, std::move(options.on_evidence));
  for (auto* make : {&SearchPubMedTool, &SearchTrialsTool, &SearchPreprintsTool, &BibliographyTool}) {
    if (Status s = registry.Register(make(state)); !s.ok()) return s.WithContext("literature pack");
  }
  return Status::OK();
}

}  // namespace medreact

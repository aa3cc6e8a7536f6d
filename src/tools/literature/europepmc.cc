// Europe PMC REST search: the wire format and its mapping to Evidence. See
// europepmc.h. Field names: the API's core result type,
// https://europepmc.org/RestfulWebService (search, resultType=core).
#include "tools/literature/europepmc.h"

#include <algorithm>
#include <initializer_list>
#include <set>
#include <utility>

#include "core/text_util.h"
#include "tools/literature/literature_paging.h"
#include "tools/literature/literature_text.h"

namespace medreact {
namespace {

constexpr const char kPubMedArticleUrl[] = "https://pubmed.ncbi.nlm.nih.gov/";
constexpr const char kEuropePmcArticleUrl[] = "https://europepmc.org/article/";

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

// A string member, or a number written as text ("pubYear": 2025 happens).
std::string TextAt(const Json& j, std::initializer_list<const char*> path) {
  const Json* v = At(j, path);
  if (v == nullptr) return "";
  if (v->is_string()) return Trim(v->get<std::string>());
  if (auto n = ExactInteger(*v)) return std::to_string(*n);
  return "";
}

bool IsToken(std::string_view s) {
  return !s.empty() && s.size() <= 64 && std::all_of(s.begin(), s.end(), [](unsigned char c) {
    return std::isalnum(c) || c == '.' || c == '_' || c == '-' || c == '/';
  });
}

std::vector<std::string> Authors(const Json& r) {
  std::vector<std::string> out;
  if (const Json* list = At(r, {"authorList", "author"}); list != nullptr && list->is_array()) {
    for (const Json& a : *list) {
      std::string name = TextAt(a, {"fullName"});
      if (name.empty()) {
        name = TextAt(a, {"lastName"});
        if (std::string initials = TextAt(a, {"initials"}); !name.empty() && !initials.empty()) name += " " + initials;
      }
      if (name.empty()) name = TextAt(a, {"collectiveName"});
      if (!name.empty()) out.push_back(CollapseWhitespace(name));
    }
  }
  if (!out.empty()) return out;
  std::string list = TextAt(r, {"authorString"});  // "Lee MS, Green R, Glover JN."
  while (!list.empty() && list.back() == '.') list.pop_back();
  size_t start = 0;
  while (start < list.size()) {
    size_t comma = list.find(',', start);
    if (comma == std::string::npos) comma = list.size();
    std::string name = Trim(std::string_view(list).substr(start, comma - start));
    if (!name.empty()) out.push_back(std::move(name));
    start = comma + 1;
  }
  return out;
}

std::vector<std::string> PublicationTypes(const Json& r) {
  std::vector<std::string> out;
  if (const Json* list = At(r, {"pubTypeList", "pubType"}); list != nullptr) {
    if (list->is_string()) out.push_back(list->get<std::string>());
    if (list->is_array()) {
      for (const Json& t : *list) {
        if (t.is_string()) out.push_back(t.get<std::string>());
      }
    }
  }
  std::string lite = TextAt(r, {"pubType"});  // "research-article; journal article"
  size_t start = 0;
  while (start < lite.size()) {
    size_t semicolon = lite.find(';', start);
    if (semicolon == std::string::npos) semicolon = lite.size();
    if (std::string t = Trim(std::string_view(lite).substr(start, semicolon - start)); !t.empty()) out.push_back(t);
    start = semicolon + 1;
  }
  return out;
}

}  // namespace

std::string PreprintQuery(const std::string& query) { return "(" + query + ") AND SRC:PPR"; }

Result<Evidence> EuropePmcResultToEvidence(const Json& r) {
  if (!r.is_object()) return Status::InvalidArgument("result is not an object");
  const std::string source = TextAt(r, {"source"});
  const std::string id = TextAt(r, {"id"});
  if (!IsToken(source) || !IsToken(id)) return Status::InvalidArgument("result has no source and id");
  const std::string pmid = TextAt(r, {"pmid"});
  const std::string pmcid = TextAt(r, {"pmcid"});
  const std::string doi = TextAt(r, {"doi"});

  Evidence e;
  e.source = EvidenceSource::kEuropePmc;
  // Built with append: gcc 12 warns (-Warray-bounds, a false positive) on
  // std::string(literal) + ... chains here.
  if (source == "MED" && IsToken(pmid)) {
    e.id = "PMID:" + pmid;
    e.url.append(kPubMedArticleUrl).append(pmid).append("/");
  } else if (source == "PMC" && IsToken(pmcid)) {
    e.id = "PMCID:" + pmcid;
    e.url.append(kEuropePmcArticleUrl).append("PMC/").append(pmcid);
  } else {
    e.id = source + ":" + id;
    e.url.append(kEuropePmcArticleUrl).append(source).append("/").append(id);
  }
  if (!doi.empty()) e.other_ids.push_back("DOI:" + AsciiLower(doi));
  if (IsToken(pmid) && e.id != "PMID:" + pmid) e.other_ids.push_back("PMID:" + pmid);
  if (IsToken(pmcid) && e.id != "PMCID:" + pmcid) e.other_ids.push_back("PMCID:" + pmcid);

  e.title = StripMarkup(TextAt(r, {"title"}));
  e.abstract = StripMarkup(TextAt(r, {"abstractText"}));
  e.authors = Authors(r);
  e.year = FirstYear(TextAt(r, {"pubYear"}));
  if (e.year == 0) e.year = FirstYear(TextAt(r, {"journalInfo", "yearOfPublication"}));
  if (e.year == 0) e.year = FirstYear(TextAt(r, {"firstPublicationDate"}));

  const std::vector<std::string> types = PublicationTypes(r);
  const bool preprint = source == "PPR" || std::any_of(types.begin(), types.end(), IsPreprintType);
  e.type = preprint ? "preprint" : EvidenceTypeFromPublicationTypes(types);
  e.peer_reviewed = !preprint;

  std::string venue = TextAt(r, {"journalInfo", "journal", "isoabbreviation"});
  if (venue.empty()) venue = TextAt(r, {"journalInfo", "journal", "medlineAbbreviation"});
  if (venue.empty()) venue = TextAt(r, {"journalInfo", "journal", "title"});
  if (venue.empty()) venue = TextAt(r, {"journalTitle"});
  if (venue.empty()) venue = TextAt(r, {"bookOrReportDetails", "publisher"});
  e.citation = FormatCitation(e.authors, e.title, venue, e.year, e.id, doi, preprint ? "Preprint, not peer reviewed" : "");
  return e;
}

Result<EuropePmcPage> ParseEuropePmcSearch(std::string_view body) {
  if (TrimView(body).empty()) return Status::ParseError("Europe PMC search reply is empty");
  Result<Json> parsed = ParseJson(body);
  if (!parsed.ok()) return parsed.status().WithContext("Europe PMC search reply is not valid JSON");
  const Json& j = *parsed;
  if (!j.is_object()) return Status::ParseError("Europe PMC search reply is JSON but not an object");
  const Json* results = At(j, {"resultList", "result"});
  if (results == nullptr) {
    if (std::string error = TextAt(j, {"errMsg"}); !error.empty()) {
      return Status::InvalidArgument(Preview(error, 200) + " (HTTP 200 body)");
    }
    return Status::ParseError("Europe PMC search reply has no resultList.result array");
  }
  if (!results->is_array()) return Status::ParseError("Europe PMC search reply's resultList.result is not an array");
  EuropePmcPage page;
  for (const Json& r : *results) {
    Result<Evidence> e = EuropePmcResultToEvidence(r);
    if (e.ok()) page.evidence.push_back(std::move(*e));
  }
  if (const Json* hits = At(j, {"hitCount"}); hits != nullptr) {
    if (auto n = ExactInteger(*hits, 0)) page.hit_count = *n;
  }
  page.next_cursor_mark = TextAt(j, {"nextCursorMark"});
  return page;
}

EuropePmcClient::EuropePmcClient(std::shared_ptr<const LiteratureFetcher> fetcher) : fetcher_(std::move(fetcher)) {}

std::string EuropePmcClient::SearchUrl(const std::string& query, int page_size, const std::string& cursor_mark) const {
  return fetcher_->options().europepmc_url + "search?query=" + UrlEncode(query) +
         "&resultType=core&format=json&pageSize=" + std::to_string(page_size) +
         "&cursorMark=" + UrlEncode(cursor_mark);
}

Result<LiteratureResults> EuropePmcClient::Search(const std::string& query, int max_results,
                                                  const ToolContext& ctx) const {
  max_results = std::clamp(max_results, 1, 100);
  return FetchPages<EuropePmcPage>(
      *fetcher_, ctx, "search", max_results, "*",
      [&](int wanted, const std::string& cursor) { return SearchUrl(query, wanted, cursor); }, &ParseEuropePmcSearch,
      &EuropePmcPage::hit_count, &EuropePmcPage::next_cursor_mark);
}

Result<LiteratureResults> EuropePmcClient::SearchPreprints(const std::string& query, int max_results,
                                                           const ToolContext& ctx) const {
  return Search(PreprintQuery(query), max_results, ctx);
}

}  // namespace medreact

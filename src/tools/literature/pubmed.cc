// PubMed over E-utilities: esearch (JSON or XML), efetch (PubMed XML) and
// their mapping to Evidence. See pubmed.h for the wire format and quirks.
// Element names: the PubMed DTD, https://dtd.nlm.nih.gov/ncbi/pubmed/out/pubmed_250101.dtd
// and NLM's "PubMed XML Data Element Descriptions".
#include "tools/literature/pubmed.h"

#include <pugixml.hpp>

#include <algorithm>
#include <cctype>
#include <map>
#include <new>
#include <optional>
#include <utility>

#include "core/text_util.h"
#include "tools/literature/literature_text.h"

namespace medreact {
namespace {

constexpr const char kPubMedArticleUrl[] = "https://pubmed.ncbi.nlm.nih.gov/";

bool IsDigits(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](unsigned char c) { return std::isdigit(c) != 0; });
}

// "00123" → "123" (PMIDs are numbers; "0" stays "0").
std::string StripLeadingZeros(std::string_view digits) {
  size_t i = 0;
  while (i + 1 < digits.size() && digits[i] == '0') ++i;
  return std::string(digits.substr(i));
}

std::string FirstNonSpaceIs(std::string_view body) {
  std::string_view t = TrimView(body);
  if (StartsWith(t, "\xEF\xBB\xBF")) t = TrimView(t.substr(3));  // UTF-8 byte order mark
  return t.empty() ? "" : std::string(1, t.front());
}

// An error an E-utility wrote inside an HTTP 200 body.
Status InBodyError(std::string_view words) {
  std::string text = Preview(CollapseWhitespace(words), 200) + " (HTTP 200 body)";
  if (AsciiLower(words).find("rate limit") != std::string::npos) return Status::ResourceExhausted(std::move(text));
  return Status::InvalidArgument(std::move(text));
}

// ---- XML --------------------------------------------------------------------

// All text under `node` (pcdata and cdata, in document order), without
// recursion: inline markup (<i>, <sup>, <b>, MathML) contributes its text.
std::string InnerText(pugi::xml_node node) {
  std::string out;
  pugi::xml_node cur = node.first_child();
  while (cur) {
    if (cur.type() == pugi::node_pcdata || cur.type() == pugi::node_cdata) out += cur.value();
    if (cur.first_child()) {
      cur = cur.first_child();
      continue;
    }
    while (cur && cur != node && !cur.next_sibling()) cur = cur.parent();
    if (!cur || cur == node) break;
    cur = cur.next_sibling();
  }
  return CollapseWhitespace(out);
}

std::string ChildText(pugi::xml_node node, const char* name) { return InnerText(node.child(name)); }

Result<pugi::xml_document*> LoadXml(pugi::xml_document& doc, std::string_view body, const char* what) {
  pugi::xml_parse_result parsed;
  try {
    // parse_ws_pcdata keeps the space between two inline elements
    // ("<i>a</i> <b>b</b>"); the DOCTYPE is skipped (parse_doctype is off).
    parsed = doc.load_buffer(body.data(), body.size(), pugi::parse_default | pugi::parse_ws_pcdata);
  } catch (const std::bad_alloc&) {
    return Status::ResourceExhausted(std::string(what) + ": out of memory parsing " + std::to_string(body.size()) +
                                     " bytes of XML");
  }
  if (!parsed) {
    return Status::ParseError(std::string(what) + " is not well-formed XML (at byte " +
                              std::to_string(parsed.offset) + " of " + std::to_string(body.size()) +
                              ": " + parsed.description() + ")");
  }
  return &doc;
}

// "PMID:n" and the other ids of one record's ArticleIdList.
void ReadArticleIds(pugi::xml_node id_list, std::string& doi, Evidence& e) {
  for (pugi::xml_node id : id_list.children("ArticleId")) {
    const std::string type = AsciiLower(id.attribute("IdType").value());
    const std::string value = Trim(InnerText(id));
    if (value.empty()) continue;
    if (type == "doi") {
      if (doi.empty()) doi = value;
    } else if (type == "pmc") {
      e.other_ids.push_back("PMCID:" + value);
    }
  }
}

std::vector<std::string> ReadAuthors(pugi::xml_node author_list) {
  std::vector<std::string> authors;
  for (pugi::xml_node a : author_list.children("Author")) {
    if (std::string_view(a.attribute("ValidYN").value()) == "N") continue;
    std::string name = ChildText(a, "LastName");
    std::string initials = ChildText(a, "Initials");
    if (initials.empty()) initials = ChildText(a, "ForeName");
    if (!name.empty() && !initials.empty()) name += " " + initials;
    if (name.empty()) name = ChildText(a, "CollectiveName");
    if (!name.empty()) authors.push_back(std::move(name));
  }
  return authors;
}

// Labelled sections as "LABEL: text", one per line.
std::string ReadAbstract(pugi::xml_node abstract) {
  std::vector<std::string> sections;
  for (pugi::xml_node part : abstract.children("AbstractText")) {
    std::string text = InnerText(part);
    if (text.empty()) continue;
    const std::string label = Trim(part.attribute("Label").value());
    sections.push_back(label.empty() ? text : label + ": " + text);
  }
  return Join(sections, "\n");
}

int ReadYear(pugi::xml_node pub_date) {
  if (int y = FirstYear(ChildText(pub_date, "Year")); y > 0) return y;
  return FirstYear(ChildText(pub_date, "MedlineDate"));
}

void Finish(Evidence& e, const std::string& pmid, const std::string& doi, const std::string& venue,
            const std::vector<std::string>& publication_types) {
  e.id = "PMID:" + pmid;
  e.url = kPubMedArticleUrl + pmid + "/";
  e.source = EvidenceSource::kPubMed;
  if (!doi.empty()) e.other_ids.insert(e.other_ids.begin(), "DOI:" + AsciiLower(doi));
  const bool preprint = std::any_of(publication_types.begin(), publication_types.end(),
                                    [](const std::string& t) { return IsPreprintType(t); });
  e.peer_reviewed = !preprint;
  e.citation = FormatCitation(e.authors, e.title, venue, e.year, e.id, doi,
                              preprint ? "Preprint, not peer reviewed" : "");
}

Result<Evidence> ReadArticle(pugi::xml_node article_node) {
  pugi::xml_node citation = article_node.child("MedlineCitation");
  pugi::xml_node article = citation.child("Article");
  const std::string pmid = Trim(ChildText(citation, "PMID"));
  if (!IsDigits(pmid)) return Status::ParseError("a PubmedArticle has no numeric MedlineCitation/PMID");
  Evidence e;
  e.title = ChildText(article, "ArticleTitle");
  if (e.title.empty()) e.title = ChildText(article, "VernacularTitle");
  e.abstract = ReadAbstract(article.child("Abstract"));
  e.authors = ReadAuthors(article.child("AuthorList"));
  pugi::xml_node journal = article.child("Journal");
  e.year = ReadYear(journal.child("JournalIssue").child("PubDate"));
  if (e.year == 0) e.year = FirstYear(ChildText(article.child("ArticleDate"), "Year"));
  std::string venue = ChildText(journal, "ISOAbbreviation");
  if (venue.empty()) venue = ChildText(journal, "Title");
  std::vector<std::string> types;
  for (pugi::xml_node t : article.child("PublicationTypeList").children("PublicationType")) types.push_back(InnerText(t));
  e.type = EvidenceTypeFromPublicationTypes(types);
  std::string doi;
  ReadArticleIds(article_node.child("PubmedData").child("ArticleIdList"), doi, e);
  if (doi.empty()) {
    for (pugi::xml_node loc : article.children("ELocationID")) {
      if (AsciiLower(loc.attribute("EIdType").value()) == "doi") doi = Trim(InnerText(loc));
    }
  }
  Finish(e, pmid, doi, venue, types);
  return e;
}

Result<Evidence> ReadBookArticle(pugi::xml_node book_article) {
  pugi::xml_node doc = book_article.child("BookDocument");
  const std::string pmid = Trim(ChildText(doc, "PMID"));
  if (!IsDigits(pmid)) return Status::ParseError("a PubmedBookArticle has no numeric BookDocument/PMID");
  pugi::xml_node book = doc.child("Book");
  Evidence e;
  e.title = ChildText(doc, "ArticleTitle");
  if (e.title.empty()) e.title = ChildText(book, "BookTitle");
  e.abstract = ReadAbstract(doc.child("Abstract"));
  e.authors = ReadAuthors(doc.child("AuthorList"));
  if (e.authors.empty()) e.authors = ReadAuthors(book.child("AuthorList"));
  e.year = ReadYear(book.child("PubDate"));
  e.type = "book";
  std::string doi;
  ReadArticleIds(book_article.child("PubmedBookData").child("ArticleIdList"), doi, e);
  std::string venue = ChildText(book.child("Publisher"), "PublisherName");
  Finish(e, pmid, doi, venue, {});
  e.type = "book";
  return e;
}

Result<EsearchResult> ParseEsearchXml(std::string_view body) {
  pugi::xml_document doc;
  if (auto loaded = LoadXml(doc, body, "esearch reply"); !loaded.ok()) return loaded.status();
  pugi::xml_node root = doc.child("eSearchResult");
  if (!root) {
    return Status::ParseError(std::string("esearch reply is XML but its root is <") + doc.document_element().name() +
                              ">, not <eSearchResult>");
  }
  if (std::string error = ChildText(root, "ERROR"); !error.empty()) return InBodyError(error);
  EsearchResult r;
  const std::string count = Trim(ChildText(root, "Count"));
  if (!IsDigits(count) || count.size() > 15) return Status::ParseError("esearch reply has no numeric <Count>");
  r.count = std::stoll(count);
  for (pugi::xml_node id : root.child("IdList").children("Id")) {
    const std::string pmid = Trim(InnerText(id));
    if (IsDigits(pmid)) r.ids.push_back(pmid);
  }
  std::vector<std::string> not_found;
  for (pugi::xml_node p : root.child("ErrorList").children("PhraseNotFound")) not_found.push_back(InnerText(p));
  if (!not_found.empty()) r.notes.push_back("PubMed did not find the phrase(s): " + Join(not_found, ", "));
  for (pugi::xml_node w : root.child("WarningList").children()) {
    if (std::string text = InnerText(w); !text.empty()) r.notes.push_back(std::string(w.name()) + ": " + text);
  }
  return r;
}

// Strings of a JSON array member ("phrasesnotfound": [...]); others skipped.
std::vector<std::string> StringList(const Json& object, const char* key) {
  std::vector<std::string> out;
  if (!object.is_object()) return out;
  auto it = object.find(key);
  if (it == object.end() || !it->is_array()) return out;
  for (const Json& v : *it) {
    if (v.is_string() && !v.get<std::string>().empty()) out.push_back(v.get<std::string>());
  }
  return out;
}

Result<EsearchResult> ParseEsearchJson(std::string_view body) {
  Result<Json> parsed = ParseJson(body);
  if (!parsed.ok()) return parsed.status().WithContext("esearch reply is not valid JSON");
  const Json& j = *parsed;
  if (!j.is_object()) return Status::ParseError("esearch reply is JSON but not an object");
  if (auto it = j.find("error"); it != j.end()) {
    return InBodyError(it->is_string() ? it->get<std::string>() : DumpJson(*it));
  }
  auto result = j.find("esearchresult");
  if (result == j.end() || !result->is_object()) {
    return Status::ParseError("esearch reply has no \"esearchresult\" object");
  }
  if (auto it = result->find("ERROR"); it != result->end()) {
    return InBodyError(it->is_string() ? it->get<std::string>() : DumpJson(*it));
  }
  EsearchResult r;
  // Counts are strings ("40362"); a number is accepted too.
  auto count = result->find("count");
  if (count != result->end() && count->is_string() && IsDigits(count->get<std::string>()) &&
      count->get<std::string>().size() <= 15) {
    r.count = std::stoll(count->get<std::string>());
  } else if (count != result->end() && ExactInteger(*count, 0)) {
    r.count = *ExactInteger(*count, 0);
  } else {
    return Status::ParseError("esearch reply has no numeric esearchresult/count");
  }
  auto ids = result->find("idlist");
  if (ids != result->end() && !ids->is_array()) return Status::ParseError("esearch reply's idlist is not an array");
  if (ids != result->end()) {
    for (const Json& id : *ids) {
      if (id.is_string() && IsDigits(id.get<std::string>())) {
        r.ids.push_back(id.get<std::string>());
      } else if (auto n = ExactInteger(id, 1)) {
        r.ids.push_back(std::to_string(*n));
      }
    }
  }
  if (auto errors = result->find("errorlist"); errors != result->end()) {
    if (auto p = StringList(*errors, "phrasesnotfound"); !p.empty()) {
      r.notes.push_back("PubMed did not find the phrase(s): " + Join(p, ", "));
    }
    if (auto f = StringList(*errors, "fieldsnotfound"); !f.empty()) {
      r.notes.push_back("PubMed does not know the field(s): " + Join(f, ", "));
    }
  }
  if (auto warnings = result->find("warninglist"); warnings != result->end()) {
    if (auto p = StringList(*warnings, "phrasesignored"); !p.empty()) {
      r.notes.push_back("PubMed ignored the phrase(s): " + Join(p, ", "));
    }
    if (auto q = StringList(*warnings, "quotedphrasesnotfound"); !q.empty()) {
      r.notes.push_back("PubMed did not find the quoted phrase(s): " + Join(q, ", "));
    }
    for (const std::string& m : StringList(*warnings, "outputmessages")) r.notes.push_back(m);
  }
  return r;
}

}  // namespace

Result<EsearchResult> ParseEsearch(std::string_view body) {
  const std::string first = FirstNonSpaceIs(body);
  if (first == "<") return ParseEsearchXml(body);
  if (first == "{") return ParseEsearchJson(body);
  return Status::ParseError(body.empty() ? "esearch reply is empty"
                                         : "esearch reply is neither JSON nor XML (" +
                                               std::to_string(body.size()) + " bytes)");
}

Result<std::vector<Evidence>> ParsePubmedXml(std::string_view body) {
  const std::string first = FirstNonSpaceIs(body);
  if (first == "{") {  // an E-utilities error as JSON, e.g. the rate limit
    Result<Json> parsed = ParseJson(body);
    if (parsed.ok() && parsed->is_object() && parsed->contains("error")) {
      const Json& error = (*parsed)["error"];
      return InBodyError(error.is_string() ? error.get<std::string>() : DumpJson(error));
    }
    return Status::ParseError("efetch reply is JSON, not PubMed XML");
  }
  if (first.empty()) return Status::ParseError("efetch reply is empty");
  pugi::xml_document doc;
  if (auto loaded = LoadXml(doc, body, "efetch reply"); !loaded.ok()) return loaded.status();
  pugi::xml_node root = doc.document_element();
  if (std::string_view(root.name()) == "eFetchResult") {
    std::string error = ChildText(root, "ERROR");
    return InBodyError(error.empty() ? "efetch returned an eFetchResult without records" : error);
  }
  if (std::string_view(root.name()) != "PubmedArticleSet") {
    return Status::ParseError(std::string("efetch reply's root is <") + root.name() + ">, not <PubmedArticleSet>");
  }
  std::vector<Evidence> out;
  for (pugi::xml_node child : root.children()) {
    if (child.type() != pugi::node_element) continue;
    const std::string_view name = child.name();
    Result<Evidence> e = name == "PubmedArticle"       ? ReadArticle(child)
                         : name == "PubmedBookArticle" ? ReadBookArticle(child)
                                                       : Result<Evidence>(Status::NotFound("not a record"));
    if (e.ok()) out.push_back(std::move(*e));  // a record without a PMID is left out

  }
  return out;
}

// ---- Client -------------------------------------------------------------------

PubMedClient::PubMedClient(std::shared_ptr<const LiteratureFetcher> fetcher) : fetcher_(std::move(fetcher)) {
  const LiteratureOptions& o = fetcher_->options();
  double rate = o.pubmed_requests_per_second;
  if (rate <= 0) rate = o.ncbi_api_key.empty() ? kNcbiRequestsPerSecond : kNcbiRequestsPerSecondWithKey;
  limiter_ = std::make_shared<RateLimiter>(rate, o.now);
}

std::string PubMedClient::CommonParameters() const {
  const LiteratureOptions& o = fetcher_->options();
  std::string p = "&tool=" + UrlEncode(o.ncbi_tool);
  if (!o.ncbi_email.empty()) p += "&email=" + UrlEncode(o.ncbi_email);
  if (!o.ncbi_api_key.empty()) p += "&api_key=" + UrlEncode(o.ncbi_api_key);
  return p;
}

std::string PubMedClient::EsearchUrl(const std::string& query, int max_results) const {
  return fetcher_->options().pubmed_url + "esearch.fcgi?db=pubmed&term=" + UrlEncode(query) +
         "&retmax=" + std::to_string(max_results) + "&retmode=json&sort=relevance" + CommonParameters();
}

std::string PubMedClient::EfetchUrl(const std::vector<std::string>& pmids) const {
  return fetcher_->options().pubmed_url + "efetch.fcgi?db=pubmed&id=" + UrlEncode(Join(pmids, ",")) +
         "&retmode=xml" + CommonParameters();
}

Result<std::vector<Evidence>> PubMedClient::Fetch(const std::vector<std::string>& pmids, const ToolContext& ctx,
                                                  bool* from_cache, size_t* not_asked_for) const {
  std::vector<Evidence> records;
  Result<LiteratureResponse> fetched = fetcher_->Get(
      {.url = EfetchUrl(pmids), .what = "efetch", .limiter = limiter_.get()}, ctx,
      [&records](const CachedResponse& r) -> Status {
        Result<std::vector<Evidence>> parsed = ParsePubmedXml(r.body);
        if (!parsed.ok()) return parsed.status();
        records = std::move(*parsed);
        return Status::OK();
      });
  if (!fetched.ok()) return fetched.status();
  if (from_cache != nullptr) *from_cache = fetched->from_cache;
  // Only the records asked for, each once, in the order asked for: a server
  // may send more than it was asked (issue 23: 66,666 records for 5 ids),
  // and every one kept costs the memory's de-duplication later.
  std::map<std::string, size_t> rank;
  for (size_t i = 0; i < pmids.size(); ++i) rank.emplace("PMID:" + StripLeadingZeros(pmids[i]), i);
  std::vector<std::optional<Evidence>> slots(pmids.size());
  size_t extra = 0;
  for (Evidence& e : records) {
    auto r = rank.find("PMID:" + StripLeadingZeros(e.id.substr(5)));
    if (r == rank.end() || slots[r->second]) {
      ++extra;
      continue;
    }
    slots[r->second] = std::move(e);
  }
  std::vector<Evidence> out;
  for (std::optional<Evidence>& slot : slots) {
    if (slot) out.push_back(std::move(*slot));
  }
  if (not_asked_for != nullptr) *not_asked_for = extra;
  return out;
}

Result<LiteratureResults> PubMedClient::Search(const std::string& query, int max_results, const ToolContext& ctx) const {
  max_results = std::clamp(max_results, 1, 100);
  EsearchResult found;
  Result<LiteratureResponse> searched = fetcher_->Get(
      {.url = EsearchUrl(query, max_results), .what = "esearch", .limiter = limiter_.get()}, ctx,
      [&found](const CachedResponse& r) -> Status {
        Result<EsearchResult> parsed = ParseEsearch(r.body);
        if (!parsed.ok()) return parsed.status();
        found = std::move(*parsed);
        return Status::OK();
      });
  if (!searched.ok()) return searched.status();
  LiteratureResults results{.total = found.count, .notes = found.notes, .from_cache = searched->from_cache};
  if (found.ids.size() > static_cast<size_t>(max_results)) found.ids.resize(max_results);
  if (found.ids.empty()) return results;
  bool fetched_from_cache = false;
  size_t not_asked_for = 0;
  Result<std::vector<Evidence>> records = Fetch(found.ids, ctx, &fetched_from_cache, &not_asked_for);
  if (!records.ok()) return records.status();
  if (not_asked_for > 0) {
    results.notes.push_back("efetch returned " + std::to_string(not_asked_for) +
                            " record(s) not asked for (another PMID, or one asked for twice); left out");
  }
  if (records->empty()) {
    return Status::ParseError("efetch gave no readable record for the " + std::to_string(found.ids.size()) +
                              " PMIDs esearch found" +
                              (not_asked_for > 0 ? " (it returned " + std::to_string(not_asked_for) +
                                                       " record(s) of PMIDs not asked for, left out)"
                                                 : std::string()));
  }
  results.evidence = std::move(*records);
  results.from_cache = results.from_cache && fetched_from_cache;
  return results;
}

}  // namespace medreact

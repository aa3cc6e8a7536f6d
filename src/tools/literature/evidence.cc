// Evidence to JSON and back. See evidence.h.
#include "tools/literature/evidence.h"

#include <string_view>
#include <utility>

namespace medreact {
namespace {

constexpr std::pair<EvidenceSource, std::string_view> kSourceNames[] = {
    {EvidenceSource::kPubMed, "pubmed"},
    {EvidenceSource::kClinicalTrials, "clinicaltrials"},
    {EvidenceSource::kEuropePmc, "europepmc"},
    {EvidenceSource::kOther, "other"},
};

Status FieldError(std::string_view field, std::string_view what) {
  return Status::InvalidArgument("evidence /" + std::string(field) + " " + std::string(what));
}

// Reads an optional string member into `out`; a present non-string is an error.
Status ReadString(const Json& j, std::string_view key, std::string& out) {
  auto it = j.find(key);
  if (it == j.end() || it->is_null()) return Status::OK();
  if (!it->is_string()) return FieldError(key, "is not a string");
  out = it->get<std::string>();
  return Status::OK();
}

Status ReadStrings(const Json& j, std::string_view key, std::vector<std::string>& out) {
  auto it = j.find(key);
  if (it == j.end() || it->is_null()) return Status::OK();
  if (!it->is_array()) return FieldError(key, "is not an array of strings");
  for (size_t i = 0; i < it->size(); ++i) {
    if (!(*it)[i].is_string()) return FieldError(std::string(key) + "/" + std::to_string(i), "is not a string");
    out.push_back((*it)[i].get<std::string>());
  }
  return Status::OK();
}

}  // namespace

std::string EvidenceSourceName(EvidenceSource s) {
  for (const auto& [source, name] : kSourceNames) {
    if (source == s) return std::string(name);
  }
  return "other";
}

std::optional<EvidenceSource> EvidenceSourceFromName(std::string_view name) {
  for (const auto& [source, source_name] : kSourceNames) {
    if (name == source_name) return source;
  }
  return std::nullopt;
}

Json EvidenceToJson(const Evidence& e) {
  return Json{{"id", e.id},
              {"url", e.url},
              {"title", e.title},
              {"abstract", e.abstract},
              {"authors", e.authors},
              {"year", e.year},
              {"source", EvidenceSourceName(e.source)},
              {"type", e.type},
              {"citation", e.citation},
              {"peer_reviewed", e.peer_reviewed},
              {"other_ids", e.other_ids}};
}

Result<Evidence> EvidenceFromJson(const Json& j) {
  if (!j.is_object()) return Status::InvalidArgument("evidence is not a JSON object");
  Evidence e;
  if (Status s = ReadString(j, "id", e.id); !s.ok()) return s;
  if (e.id.empty()) return FieldError("id", "is missing or empty (e.g. \"PMID:11748933\")");
  for (auto [key, out] : {std::pair<const char*, std::string*>{"url", &e.url},
                          {"title", &e.title},
                          {"abstract", &e.abstract},
                          {"type", &e.type},
                          {"citation", &e.citation}}) {
    if (Status s = ReadString(j, key, *out); !s.ok()) return s;
  }
  if (Status s = ReadStrings(j, "authors", e.authors); !s.ok()) return s;
  if (Status s = ReadStrings(j, "other_ids", e.other_ids); !s.ok()) return s;
  if (auto it = j.find("year"); it != j.end() && !it->is_null()) {
    std::optional<int64_t> year = ExactInteger(*it, 0, 9999);
    if (!year) return FieldError("year", "is not an integer in [0, 9999] (0 = unknown)");
    e.year = static_cast<int>(*year);
  }
  if (auto it = j.find("source"); it != j.end() && !it->is_null()) {
    if (!it->is_string()) return FieldError("source", "is not a string");
    const std::string name = it->get<std::string>();
    const std::optional<EvidenceSource> source = EvidenceSourceFromName(name);
    if (source) e.source = *source;
    if (!source) return FieldError("source", "is '" + Preview(name, 40) + "', not pubmed, clinicaltrials, europepmc or other");
  }
  if (auto it = j.find("peer_reviewed"); it != j.end() && !it->is_null()) {
    if (!it->is_boolean()) return FieldError("peer_reviewed", "is not true or false");
    e.peer_reviewed = it->get<bool>();
  }
  return e;
}

}  // namespace medreact

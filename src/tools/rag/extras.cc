// Loading and keyword matching for the extras hints file. See extras.h.
#include "tools/rag/extras.h"

#include <algorithm>
#include <cctype>
#include <fstream>
#include <numeric>
#include <sstream>

namespace medreact {
namespace {

// Lower-cased ASCII words; bytes >= 0x80 are letters (UTF-8 kept whole);
// everything else separates. "Z-Score" -> {"z", "score"}.
std::vector<std::string> NormalizedWords(const std::string& text) {
  std::vector<std::string> words;
  std::string word;
  for (unsigned char c : text) {
    if (std::isalnum(c) || c >= 0x80) {
      word += static_cast<char>(std::tolower(c));
    } else if (!word.empty()) {
      words.push_back(std::move(word));
      word.clear();
    }
  }
  if (!word.empty()) words.push_back(std::move(word));
  return words;
}

std::string Concat(const std::vector<std::string>& words) {
  return std::accumulate(words.begin(), words.end(), std::string());
}

// True when `needle`'s words appear contiguously, in order, in `hay`.
bool ContainsWords(const std::vector<std::string>& hay, const std::vector<std::string>& needle) {
  if (needle.empty() || needle.size() > hay.size()) return false;
  return std::search(hay.begin(), hay.end(), needle.begin(), needle.end()) != hay.end();
}

bool KeywordMatches(const std::vector<std::string>& query, const std::vector<std::string>& keyword) {
  if (query.empty() || keyword.empty()) return false;
  if (Concat(query) == Concat(keyword)) return true;  // "zscore" = "z-score"
  return ContainsWords(keyword, query) || ContainsWords(query, keyword);
}

}  // namespace

Result<ExtrasFile> ExtrasFile::Load(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status::NotFound("extras file '" + path + "' cannot be opened; check the path");
  std::stringstream ss;
  ss << in.rdbuf();
  Result<Json> document = ParseJson(ss.str());
  if (!document.ok()) return document.status().WithContext("extras file '" + path + "'");
  return FromJson(*document, path);
}

Result<ExtrasFile> ExtrasFile::FromJson(const Json& document, const std::string& source) {
  auto bad = [&](const std::string& pointer, const std::string& what) {
    return Status::InvalidArgument(source + ": " + pointer + " " + what +
                                   "; expected [{\"keywords\": [\"...\"], \"hint\": \"...\", \"source\": \"...\"}]");
  };
  if (!document.is_array()) return bad("(root)", "is not an array");
  ExtrasFile file;
  for (size_t i = 0; i < document.size(); ++i) {
    const Json& entry = document[i];
    const std::string at = std::string("/").append(std::to_string(i));
    if (!entry.is_object()) return bad(at, "is not an object");
    auto keywords = entry.find("keywords");
    if (keywords == entry.end() || !keywords->is_array() || keywords->empty()) {
      return bad(at + "/keywords", "is missing or not a non-empty array");
    }
    ExtraHint hint;
    std::vector<std::vector<std::string>> normalized;
    for (size_t k = 0; k < keywords->size(); ++k) {
      const Json& keyword = (*keywords)[k];
      if (!keyword.is_string() || NormalizedWords(keyword.get<std::string>()).empty()) {
        return bad(at + "/keywords/" + std::to_string(k), "is not a string with a letter or digit");
      }
      hint.keywords.push_back(keyword.get<std::string>());
      normalized.push_back(NormalizedWords(hint.keywords.back()));
    }
    auto text = entry.find("hint");
    if (text == entry.end() || !text->is_string() || text->get<std::string>().empty()) {
      return bad(at + "/hint", "is missing or not a non-empty string");
    }
    hint.hint = text->get<std::string>();
    if (auto src = entry.find("source"); src != entry.end()) {
      if (!src->is_string()) return bad(at + "/source", "is not a string");
      hint.source = src->get<std::string>();
    }
    file.hints_.push_back(std::move(hint));
    file.normalized_.push_back(std::move(normalized));
  }
  return file;
}

std::vector<ExtraMatch> ExtrasFile::Lookup(const std::vector<std::string>& keywords, size_t max_results) const {
  // Normalized query keywords; a repeat ("BMI", "bmi") counts once (left empty).
  std::vector<std::vector<std::string>> query;
  std::vector<std::string> seen;
  for (const std::string& k : keywords) {
    std::vector<std::string> words = NormalizedWords(k);
    const std::string key = Concat(words);
    if (std::find(seen.begin(), seen.end(), key) != seen.end()) words.clear();
    seen.push_back(key);
    query.push_back(std::move(words));
  }
  std::vector<ExtraMatch> matches;
  for (size_t h = 0; h < hints_.size(); ++h) {
    ExtraMatch match{&hints_[h], {}};
    for (size_t q = 0; q < query.size(); ++q) {
      const bool hit = std::any_of(normalized_[h].begin(), normalized_[h].end(),
                                   [&](const std::vector<std::string>& kw) { return KeywordMatches(query[q], kw); });
      if (hit) match.matched.push_back(keywords[q]);
    }
    if (!match.matched.empty()) matches.push_back(std::move(match));
  }
  std::stable_sort(matches.begin(), matches.end(),
                   [](const ExtraMatch& a, const ExtraMatch& b) { return a.matched.size() > b.matched.size(); });
  if (matches.size() > max_results) matches.resize(max_results);
  return matches;
}

}  // namespace medreact

// Query sanitising for FTS5. See fts_query.h.
#include "tools/rag/fts_query.h"

#include <algorithm>
#include <cctype>
#include <functional>
#include <set>
#include <vector>

namespace medreact {
namespace {

constexpr size_t kMaxQueryTerms = 32;

// Common English function words; they match most chunks and add nothing to
// the ranking but time.
const std::set<std::string, std::less<>>& StopWords() {
  static const std::set<std::string, std::less<>> words = {
      "a",    "about", "after", "all",   "an",    "and",   "any",   "are",   "as",    "at",    "be",
      "been", "but",   "by",    "can",   "could", "did",   "do",    "does",  "for",   "from",  "had",
      "has",  "have",  "how",   "i",     "if",    "in",    "into",  "is",    "it",    "its",   "me",
      "my",   "no",    "not",   "of",    "on",    "or",    "our",   "should", "so",   "than",  "that",
      "the",  "their", "then",  "there", "these", "they",  "this",  "those", "to",    "vs",    "was",
      "we",   "were",  "what",  "when",  "where", "which", "while", "who",   "why",   "will",  "with",
      "would", "you",  "your"};
  return words;
}

}  // namespace

std::string BuildFtsQuery(std::string_view query) {
  struct Term {
    std::string phrase;  // words joined by single spaces, original case
    std::string key;     // lower-cased, for stop words and duplicates
    bool single = true;
  };
  std::vector<Term> terms;
  size_t pos = 0;
  auto is_space = [](unsigned char c) {
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
  };
  while (pos < query.size()) {
    while (pos < query.size() && is_space(query[pos])) ++pos;
    size_t start = pos;
    while (pos < query.size() && !is_space(query[pos])) ++pos;
    if (start == pos) break;
    // Keep letters and digits; anything else splits the word into parts.
    Term term;
    bool in_part = false;
    size_t parts = 0;
    for (size_t i = start; i < pos; ++i) {
      const auto c = static_cast<unsigned char>(query[i]);
      if (std::isalnum(c) || c >= 0x80) {
        if (!in_part && !term.phrase.empty()) {
          term.phrase += ' ';
          term.key += ' ';
        }
        if (!in_part) ++parts;
        term.phrase += static_cast<char>(c);
        term.key += static_cast<char>(std::tolower(c));
        in_part = true;
      } else {
        in_part = false;
      }
    }
    if (parts == 0) continue;
    term.single = parts == 1;
    terms.push_back(std::move(term));
  }
  const bool all_stop = std::all_of(terms.begin(), terms.end(), [](const Term& t) {
    return t.single && StopWords().count(t.key) > 0;
  });
  std::set<std::string> seen;
  std::string match;
  size_t used = 0;
  for (const Term& t : terms) {
    if (!all_stop && t.single && StopWords().count(t.key)) continue;
    if (!seen.insert(t.key).second) continue;
    if (used == kMaxQueryTerms) break;
    if (used++ > 0) match += " OR ";
    match += '"' + t.phrase + '"';  // no '"' can be inside: only letters, digits and spaces
  }
  return match;
}

}  // namespace medreact

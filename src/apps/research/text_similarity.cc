// Word tokens, TF-IDF and cosine. See text_similarity.h.
#include "apps/research/text_similarity.h"

#include <cmath>
#include <set>

namespace medreact {
namespace {

// English function words and the labels of structured abstracts (PubMed's
// NLM categories and the common author-written ones).
const std::set<std::string, std::less<>>& IgnoredWords() {
  static const std::set<std::string, std::less<>> kWords = {
      // function words
      "a", "about", "above", "after", "again", "against", "all", "also", "am", "an", "and", "any", "are", "as", "at",
      "be", "because", "been", "before", "being", "below", "between", "both", "but", "by", "can", "could", "did",
      "do", "does", "during", "each", "for", "from", "further", "had", "has", "have", "he", "her", "here", "his",
      "how", "however", "i", "if", "in", "into", "is", "it", "its", "itself", "may", "might", "more", "most", "no",
      "nor", "not", "of", "off", "on", "once", "only", "or", "other", "our", "out", "over", "own", "same", "she",
      "should", "so", "some", "such", "than", "that", "the", "their", "them", "then", "there", "these", "they",
      "this", "those", "through", "to", "under", "until", "up", "us", "very", "was", "we", "were", "what", "when",
      "where", "whereas", "which", "while", "who", "whom", "why", "will", "with", "would", "you", "your",
      // section labels of structured abstracts
      "abstract", "aim", "aims", "background", "conclusion", "conclusions", "design", "findings", "funding",
      "importance", "interpretation", "intervention", "interventions", "introduction", "main", "measurement",
      "measurements", "method", "methods", "objective", "objectives", "outcome", "outcomes", "participants",
      "purpose", "result", "results", "setting"};
  return kWords;
}

bool IsWordByte(unsigned char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c >= 0x80;
}

bool EndsWith(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

std::string FoldPlural(std::string w) {
  if (w.size() > 3 && EndsWith(w, "ies")) {
    w.replace(w.size() - 3, 3, "y");
  } else if (w.size() > 3 && w.back() == 's' && !EndsWith(w, "ss") && !EndsWith(w, "us") && !EndsWith(w, "is")) {
    w.pop_back();
  }
  return w;
}

}  // namespace

std::vector<std::string> WordTokens(std::string_view text) {
  std::vector<std::string> out;
  size_t i = 0;
  while (i < text.size()) {
    while (i < text.size() && !IsWordByte(static_cast<unsigned char>(text[i]))) ++i;
    size_t j = i;
    while (j < text.size() && IsWordByte(static_cast<unsigned char>(text[j]))) ++j;
    if (j > i) {
      std::string w(text.substr(i, j - i));
      for (char& c : w) {
        if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
      }
      const bool one_letter = w.size() == 1 && !(w[0] >= '0' && w[0] <= '9');
      if (!one_letter && IgnoredWords().count(w) == 0) out.push_back(FoldPlural(std::move(w)));
    }
    i = j;
  }
  return out;
}

TermCounts CountTerms(std::string_view text) {
  TermCounts counts;
  for (std::string& w : WordTokens(text)) ++counts[std::move(w)];
  return counts;
}

namespace {

// The dot product of two vectors sorted by key (their keys merged once).
template <typename SortedVector>
double SortedDot(const SortedVector& a, const SortedVector& b) {
  double dot = 0;
  auto i = a.begin();
  auto j = b.begin();
  while (i != a.end() && j != b.end()) {
    if (i->first < j->first) {
      ++i;
    } else if (j->first < i->first) {
      ++j;
    } else {
      dot += i->second * j->second;
      ++i;
      ++j;
    }
  }
  return dot;
}

}  // namespace

double Cosine(const SparseVector& a, const SparseVector& b) { return SortedDot(a, b); }

double Cosine(const NumberedVector& a, const NumberedVector& b) { return SortedDot(a, b); }

TfIdfSpace::TfIdfSpace(const std::vector<const TermCounts*>& documents)
    : n_(static_cast<double>(documents.size())) {
  for (const TermCounts* doc : documents) {
    for (const auto& [term, count] : *doc) ++df_[term];
  }
  rank_.reserve(df_.size());
  uint32_t rank = 0;
  for (const auto& [term, df] : df_) rank_.emplace(term, rank++);
}

NumberedVector TfIdfSpace::Numbered(const TermCounts& terms) const {
  NumberedVector out;
  const SparseVector v = Vector(terms);
  out.reserve(v.size());
  for (const auto& [term, weight] : v) {
    if (auto r = rank_.find(term); r != rank_.end()) out.emplace_back(r->second, weight);
  }
  return out;
}

SparseVector TfIdfSpace::Vector(const TermCounts& terms) const {
  SparseVector v;
  v.reserve(terms.size());
  double norm = 0;
  for (const auto& [term, count] : terms) {
    auto df = df_.find(term);
    const double d = df == df_.end() ? 0.0 : static_cast<double>(df->second);
    const double w = (1.0 + std::log(static_cast<double>(count))) * (std::log((1.0 + n_) / (1.0 + d)) + 1.0);
    v.emplace_back(term, w);
    norm += w * w;
  }
  if (norm > 0) {
    const double inv = 1.0 / std::sqrt(norm);
    for (auto& [term, w] : v) w *= inv;
  }
  return v;
}

}  // namespace medreact

// Lexical similarity for the research memory when no embeddings server is
// configured or it fails: TF-IDF vectors over normalised word tokens and their
// cosine.
//
// Tokens (WordTokens): ASCII letters lower-cased; a token is a run of ASCII
// letters and digits or of bytes above 0x7F (so "β" or "é" stay inside their
// word), anything else separates. Dropped: one-letter tokens (digits are
// kept: "IL-6" gives "il", "6"), English function words, and the section labels
// of structured abstracts ("BACKGROUND:", "METHODS:", ...), which one index
// writes and another leaves out. Plurals are folded: "-ies" → "-y", and a
// final "s" is dropped from words longer than three letters not ending in
// "ss", "us" or "is".
//
// Weights: tf = 1 + ln(count); idf = ln((1 + N) / (1 + df)) + 1 over the N
// documents of the space (the smoothed idf of scikit-learn's
// TfidfVectorizer); vectors are unit length, so the cosine is a dot product.
//
// Deterministic: terms are kept sorted, so the same texts give the same
// scores bit for bit. Not thread-safe objects; the functions are pure.
#ifndef MEDREACT_APPS_RESEARCH_TEXT_SIMILARITY_H_
#define MEDREACT_APPS_RESEARCH_TEXT_SIMILARITY_H_

#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace medreact {

std::vector<std::string> WordTokens(std::string_view text);

// Term → count, sorted by term.
using TermCounts = std::map<std::string, int>;
TermCounts CountTerms(std::string_view text);

// A unit-length TF-IDF vector: (term, weight) sorted by term.
using SparseVector = std::vector<std::pair<std::string, double>>;

double Cosine(const SparseVector& a, const SparseVector& b);

class TfIdfSpace {
 public:
  // The idf of every term over `documents` (each counted once per document).
  explicit TfIdfSpace(const std::vector<const TermCounts*>& documents);
  // Terms the space never saw get the idf of a term in no document.
  SparseVector Vector(const TermCounts& terms) const;

 private:
  double n_ = 0;
  std::map<std::string, int> df_;
};

}  // namespace medreact

#endif  // MEDREACT_APPS_RESEARCH_TEXT_SIMILARITY_H_

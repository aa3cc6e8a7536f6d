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

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <unordered_map>
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

// A SparseVector whose terms are numbered in term order (TfIdfSpace::Numbered):
// the same cosine, bit for bit (the products are summed in the same order),
// without comparing strings.
using NumberedVector = std::vector<std::pair<uint32_t, double>>;
double Cosine(const NumberedVector& a, const NumberedVector& b);

class TfIdfSpace {
 public:
  // The idf of every term over `documents` (each counted once per document).
  explicit TfIdfSpace(const std::vector<const TermCounts*>& documents);
  TfIdfSpace(const TfIdfSpace&) = delete;  // rank_ views df_'s keys
  TfIdfSpace& operator=(const TfIdfSpace&) = delete;
  // Terms the space never saw get the idf of a term in no document.
  SparseVector Vector(const TermCounts& terms) const;
  // Vector(terms) with each term numbered by its rank among the space's
  // terms; terms the space never saw are left out (they are in none of its
  // documents, so they add nothing to a cosine with one).
  NumberedVector Numbered(const TermCounts& terms) const;

 private:
  double n_ = 0;
  std::map<std::string, int> df_;
  std::unordered_map<std::string_view, uint32_t> rank_;  // term (a key of df_) → its rank
};

}  // namespace medreact

#endif  // MEDREACT_APPS_RESEARCH_TEXT_SIMILARITY_H_

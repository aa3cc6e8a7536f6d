// NearDuplicateCandidates: which kept records a new one is worth comparing
// with in the research memory's meaning pass (research_memory.h), so that
// storing n records costs about n comparisons, not n² (issue 23 item 4:
// 32,000 records took 52 s when each was compared with every kept one).
//
// A new record is compared with:
//   - every kept record, while at most kMaxComparisons are kept (a small
//     memory: the exact pass it always had);
//   - beyond that, the kept records with the same bag of words (title +
//     abstract terms and counts: a copy under another key), and those
//     sharing its rarest terms: its kProbeTerms terms held by the fewest kept
//     records (terms no kept record holds are skipped), each term's first
//     kMaxPostings holders read; those sharing at least two of them (one,
//     when the record has one such term), ranked by how many they share, the
//     first kMaxComparisons.
// A near-duplicate shares most of its words with the record it duplicates,
// the rare ones included (a cosine of 0.7 on TF-IDF vectors needs them), so
// it is among the candidates; two records that share none of their rarer
// words are not compared, whatever an embeddings model would say of them.
//
// Deterministic: the same records added in the same order give the same
// candidates. Not thread-safe (the memory's writer owns one per call). The
// TermCounts added must outlive the object (it keeps views of their terms).
#ifndef MEDREACT_APPS_RESEARCH_NEAR_DUPLICATES_H_
#define MEDREACT_APPS_RESEARCH_NEAR_DUPLICATES_H_

#include <cstddef>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "apps/research/text_similarity.h"

namespace medreact {

class NearDuplicateCandidates {
 public:
  // Comparisons per new record at most (and the size up to which every kept
  // record is compared).
  static constexpr size_t kMaxComparisons = 128;
  // The rarest terms of a new record looked up.
  static constexpr size_t kProbeTerms = 8;
  // Holders of one term read at most (a term in more records than this is
  // hardly rare; its first holders still count).
  static constexpr size_t kMaxPostings = 256;

  // A kept record: `index` is the caller's (increasing with each Add).
  void Add(size_t index, const TermCounts& terms);

  // The kept records to compare a record of these terms with, in the order
  // they were added.
  std::vector<size_t> For(const TermCounts& terms) const;

  size_t size() const { return kept_.size(); }

 private:
  std::vector<size_t> kept_;
  std::unordered_map<std::string_view, std::vector<size_t>> postings_;  // term → holders
  std::unordered_map<std::string, std::vector<size_t>> same_bag_;        // bag of words → records
};

}  // namespace medreact

#endif  // MEDREACT_APPS_RESEARCH_NEAR_DUPLICATES_H_

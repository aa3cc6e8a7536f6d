// Candidates for the meaning pass. See near_duplicates.h.
#include "apps/research/near_duplicates.h"

#include <algorithm>
#include <utility>

namespace medreact {
namespace {

// The bag of words as one string: "term\x1fcount\x1e..." (terms are sorted).
std::string BagKey(const TermCounts& terms) {
  std::string key;
  for (const auto& [term, count] : terms) {
    key += term;
    key += '\x1f';
    key += std::to_string(count);
    key += '\x1e';
  }
  return key;
}

}  // namespace

void NearDuplicateCandidates::Add(size_t index, const TermCounts& terms) {
  kept_.push_back(index);
  for (const auto& [term, count] : terms) postings_[term].push_back(index);
  if (!terms.empty()) same_bag_[BagKey(terms)].push_back(index);
}

std::vector<size_t> NearDuplicateCandidates::For(const TermCounts& terms) const {
  if (kept_.size() <= kMaxComparisons) return kept_;
  // Score: 1 per shared probe term; a same bag of words outranks them all.
  std::unordered_map<size_t, size_t> score;
  if (!terms.empty()) {
    if (auto same = same_bag_.find(BagKey(terms)); same != same_bag_.end()) {
      for (size_t i = 0; i < same->second.size() && i < kMaxPostings; ++i) score[same->second[i]] += kProbeTerms + 1;
    }
  }
  // The rarest terms among the kept records (fewest holders; then by term).
  std::vector<std::pair<size_t, const std::vector<size_t>*>> probes;
  for (const auto& [term, count] : terms) {
    auto p = postings_.find(term);
    if (p != postings_.end()) probes.emplace_back(p->second.size(), &p->second);
  }
  const size_t n_probes = std::min(kProbeTerms, probes.size());
  // stable: terms arrive sorted, so equal counts keep the order of their terms
  std::stable_sort(probes.begin(), probes.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  for (size_t t = 0; t < n_probes; ++t) {
    const std::vector<size_t>& holders = *probes[t].second;
    for (size_t i = 0; i < holders.size() && i < kMaxPostings; ++i) ++score[holders[i]];
  }
  // A near-duplicate shares most of these terms: one shared term alone is chance.
  const size_t min_score = std::min<size_t>(2, n_probes);
  std::vector<std::pair<size_t, size_t>> ranked;  // (index, score)
  for (const auto& [index, s] : score) {
    if (s >= min_score) ranked.emplace_back(index, s);
  }
  std::sort(ranked.begin(), ranked.end(), [](const auto& a, const auto& b) {
    return a.second != b.second ? a.second > b.second : a.first < b.first;
  });
  if (ranked.size() > kMaxComparisons) ranked.resize(kMaxComparisons);
  std::vector<size_t> out;
  out.reserve(ranked.size());
  for (const auto& [index, s] : ranked) out.push_back(index);
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace medreact

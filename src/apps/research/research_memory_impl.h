// The research memory's inside, shared by its two files: research_memory.cc
// (opening, reading, ranking, hypotheses, snapshots, summaries) and
// research_memory_store.cc (Store: the identity and meaning passes). Not a
// public header: only those two include it. See research_memory.h for the
// contract and thread-safety.
#ifndef MEDREACT_APPS_RESEARCH_RESEARCH_MEMORY_IMPL_H_
#define MEDREACT_APPS_RESEARCH_RESEARCH_MEMORY_IMPL_H_

#include <algorithm>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "apps/research/evidence_identity.h"
#include "apps/research/research_memory.h"
#include "apps/research/research_memory_db.h"
#include "apps/research/text_similarity.h"
#include "core/text_util.h"
#include "tools/rag/embeddings.h"

namespace medreact {
namespace memory_internal {

// Texts sent for embedding are cut here (at a UTF-8 boundary): a title and an
// abstract fit, a server's input limit is not reached by a long trial summary.
inline constexpr size_t kMaxEmbeddingInputBytes = 8192;
inline constexpr size_t kEmbeddingBatch = 64;

struct Entry {
  StoredEvidence stored;            // seq, key, evidence, vector
  std::vector<std::string> ids;     // canonical identifiers
  bool record_ids = false;          // a PMID or NCT among them (HaveDistinctRecordIds can be true)
  TermCounts terms;                 // of title + abstract
};

std::string SimilarityText(const Evidence& e);  // title, a blank line, abstract
std::string EmbeddingInput(const Entry& entry);  // SimilarityText, never empty, cut at kMaxEmbeddingInputBytes
Entry MakeEntry(std::string key, Evidence e);
double Dot(const Embedding& a, const Embedding& b);
std::string Fixed(double x, int digits);         // "%.*f"

}  // namespace memory_internal

// For the two files that include this one (the Impl below uses them unqualified).
using memory_internal::Dot;
using memory_internal::EmbeddingInput;
using memory_internal::Entry;
using memory_internal::Fixed;
using memory_internal::kEmbeddingBatch;
using memory_internal::MakeEntry;
using memory_internal::SimilarityText;

struct ResearchMemory::Impl {
  std::string path;
  std::string query;
  ResearchMemoryOptions options;
  std::optional<EmbeddingsClient> embedder;
  std::unique_ptr<MemoryDb> db;

  std::mutex write_mu;          // one writer at a time, for its whole call
  mutable std::mutex state_mu;  // the fields below
  std::vector<Entry> entries;   // storage order
  std::unordered_map<std::string, size_t> by_key;
  std::unordered_map<std::string, size_t> by_id;  // canonical identifier → entry
  std::vector<Hypothesis> hypotheses;
  std::vector<Conflict> conflicts;
  int iteration = 0;
  // The query's vector, kept while the text is the same.
  std::string query_vector_text;
  Embedding query_vector;

  void Warn(const std::string& warning) const {
    if (options.on_warning) options.on_warning(warning);
  }

  static void Index(const std::vector<Entry>& entries, std::unordered_map<std::string, size_t>& keys,
                    std::unordered_map<std::string, size_t>& ids,
                    std::unordered_map<std::string, size_t>* titles = nullptr) {
    keys.clear();
    ids.clear();
    if (titles) titles->clear();
    for (size_t i = 0; i < entries.size(); ++i) {
      keys.emplace(entries[i].stored.key, i);
      for (const std::string& id : entries[i].ids) ids.emplace(id, i);
      if (!titles) continue;
      if (std::string t = TitleKey(entries[i].stored.evidence.title); !t.empty()) titles->emplace(std::move(t), i);
    }
  }

  // The entry with this key or identifier (any spelling). Caller holds a lock.
  std::optional<size_t> Find(std::string_view key_or_id) const {
    if (auto k = by_key.find(std::string(TrimView(key_or_id))); k != by_key.end()) return k->second;
    const std::string id = CanonicalIdentifier(key_or_id);
    if (auto i = by_id.find(id); !id.empty() && i != by_id.end()) return i->second;
    return std::nullopt;
  }

  // `refs` as keys; InvalidArgument naming the first unknown one.
  Result<std::vector<std::string>> ResolveRefs(const std::vector<std::string>& refs, const char* what) const {
    std::lock_guard<std::mutex> lock(state_mu);
    std::vector<std::string> keys;
    for (const std::string& ref : refs) {
      std::optional<size_t> i = Find(ref);
      if (!i) {
        return Status::InvalidArgument(std::string(what) + " cites evidence '" + Preview(ref, 80) +
                                       "', which is not in the memory; cite a key from GetAllEvidence or an "
                                       "identifier of a stored record (PMID:…, DOI:…, NCT…)");
      }
      const std::string& key = entries[*i].stored.key;
      if (std::find(keys.begin(), keys.end(), key) == keys.end()) keys.push_back(key);
    }
    return keys;
  }

  // Embeds entries[i] for every i in `need` (and `extra` texts first, e.g.
  // the query); fills their vectors. On failure nothing changes and the
  // reason is returned. Caller holds write_mu.
  Result<std::vector<Embedding>> Embed(std::vector<Entry>& work, const std::vector<size_t>& need,
                                       const std::vector<std::string>& extra, const CancellationToken& cancel,
                                       Deadline deadline = Deadline::Never()) const {
    std::vector<std::string> texts = extra;
    for (size_t i : need) texts.push_back(EmbeddingInput(work[i]));
    std::vector<Embedding> vectors;
    for (size_t first = 0; first < texts.size(); first += kEmbeddingBatch) {
      if (deadline.expired()) {
        return Status::Timeout("the deadline passed after " + std::to_string(first) + " of " +
                                        std::to_string(texts.size()) + " texts were embedded");
      }
      const size_t last = std::min(texts.size(), first + kEmbeddingBatch);
      Result<std::vector<Embedding>> got = embedder->Embed(
          std::vector<std::string>(texts.begin() + static_cast<long>(first), texts.begin() + static_cast<long>(last)),
          cancel, std::min(options.embeddings_timeout, std::max(Millis(1), deadline.remaining())));
      if (!got.ok()) return got.status();
      for (Embedding& v : *got) vectors.push_back(std::move(v));
    }
    // One dimension for the memory: the new vectors and any already stored.
    size_t dim = vectors.empty() ? 0 : vectors.front().size();
    for (const Entry& e : work) {
      if (!e.stored.vector.empty()) {
        dim = e.stored.vector.size();
        break;
      }
    }
    for (const Embedding& v : vectors) {
      if (v.size() != dim) {
        return Status::FailedPrecondition("the embeddings have " + std::to_string(v.size()) +
                                          " dimensions, the memory's " + std::to_string(dim) +
                                          " (the model changed under the same name: set another embeddings_model)");
      }
    }
    for (Embedding& v : vectors) NormalizeEmbedding(v);
    for (size_t k = 0; k < need.size(); ++k) work[need[k]].stored.vector = vectors[extra.size() + k];
    vectors.resize(extra.size());
    return vectors;
  }

  std::string EmbeddingsWarning(const Status& why) const {
    return "embeddings unavailable, lexical similarity (TF-IDF) used for this call: " + why.message();
  }

  Result<StoreReport> Store(std::vector<Evidence> items, const CancellationToken& cancel, Deadline deadline);
  EvidenceRanking Rank(std::string_view text, size_t n, const CancellationToken& cancel);
  void Apply(std::vector<Entry> work);  // the new state, swapped in under state_mu
};

}  // namespace medreact

#endif  // MEDREACT_APPS_RESEARCH_RESEARCH_MEMORY_IMPL_H_

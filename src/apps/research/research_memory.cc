// ResearchMemory: de-duplication, ranking, summaries, over MemoryDb. See
// research_memory.h for the contract.
//
// A store call works on a copy of the stored records: identity pass (merge
// duplicates), vectors (embeddings, or TF-IDF when there are none), meaning
// pass (drop near-duplicates), one transaction, and only then the copy
// replaces the state. Writers hold write_mu for the whole call; state_mu
// guards the state itself and is held only to read it or swap it.
#include "apps/research/research_memory.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <mutex>
#include <set>
#include <unordered_map>
#include <utility>

#include "apps/research/evidence_identity.h"
#include "apps/research/near_duplicates.h"
#include "apps/research/research_memory_db.h"
#include "apps/research/text_similarity.h"
#include "core/text_util.h"
#include "tools/rag/embeddings.h"

namespace medreact {
namespace {

// Texts sent for embedding are cut here (at a UTF-8 boundary): a title and an
// abstract fit, a server's input limit is not reached by a long trial summary.
constexpr size_t kMaxEmbeddingInputBytes = 8192;
constexpr size_t kEmbeddingBatch = 64;

struct Entry {
  StoredEvidence stored;            // seq, key, evidence, vector
  std::vector<std::string> ids;     // canonical identifiers
  bool record_ids = false;          // a PMID or NCT among them (HaveDistinctRecordIds can be true)
  TermCounts terms;                 // of title + abstract
};

std::string SimilarityText(const Evidence& e) {
  std::string text = e.title;
  if (!IsBlank(e.abstract)) text += "\n\n" + e.abstract;
  return text;
}

std::string EmbeddingInput(const Entry& entry) {
  std::string text = SimilarityText(entry.stored.evidence);
  if (IsBlank(text)) text = entry.stored.key;  // servers refuse empty input
  if (text.size() > kMaxEmbeddingInputBytes) {
    size_t cut = kMaxEmbeddingInputBytes;
    while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;
    text.resize(cut);
  }
  return text;
}

Entry MakeEntry(std::string key, Evidence e) {
  Entry entry;
  entry.ids = CanonicalIdentifiers(e);
  entry.record_ids = std::any_of(entry.ids.begin(), entry.ids.end(), [](const std::string& id) {
    return StartsWith(id, "PMID:") || StartsWith(id, "NCT:");
  });
  entry.terms = CountTerms(SimilarityText(e));
  entry.stored.key = std::move(key);
  entry.stored.evidence = std::move(e);
  return entry;
}

double Dot(const Embedding& a, const Embedding& b) {
  double dot = 0;
  for (size_t i = 0; i < a.size() && i < b.size(); ++i) dot += static_cast<double>(a[i]) * b[i];
  return dot;
}

std::string Fixed(double x, int digits) {
  char buffer[32];
  std::snprintf(buffer, sizeof(buffer), "%.*f", digits, x);
  return buffer;
}

// "Surname A, Surname B, Surname C, et al. Title. 2021. PMID:123."
std::string BuiltCitation(const Evidence& e) {
  std::vector<std::string> parts;
  if (!e.authors.empty()) {
    std::vector<std::string> first(e.authors.begin(), e.authors.begin() + std::min<size_t>(3, e.authors.size()));
    std::string authors = Join(first, ", ");
    if (e.authors.size() > 3) authors += ", et al";
    parts.push_back(authors);
  }
  std::string title = Trim(e.title);
  while (!title.empty() && title.back() == '.') title.pop_back();
  if (!title.empty()) parts.push_back(title);
  if (e.year > 0) parts.push_back(std::to_string(e.year));
  if (!IsBlank(e.id)) parts.push_back(Trim(e.id));
  return parts.empty() ? std::string("(untitled)") : Join(parts, ". ");
}

// Why a store call left records out: "the deadline passed while
// de-duplicating: 31,000 of 32,000 incoming record(s) were not examined and
// not stored".
std::string StoppedWarning(const StoreReport& report, size_t incoming) {
  return std::string(report.stopped == "cancelled" ? "the research was cancelled" : "the deadline passed") +
         " while de-duplicating: " + std::to_string(report.not_examined) + " of " + std::to_string(incoming) +
         " incoming record(s) were not examined and not stored";
}

std::string OneLine(std::string_view text, size_t max_bytes) {
  std::string out;
  bool space = false;
  for (char c : text) {
    if (IsAsciiSpace(c)) {
      space = !out.empty();
      continue;
    }
    if (space) out += ' ';
    space = false;
    out += c;
  }
  if (out.size() > max_bytes) {
    size_t cut = max_bytes;
    while (cut > 0 && (static_cast<unsigned char>(out[cut]) & 0xC0) == 0x80) --cut;
    out.resize(cut);
    out += "…";
  }
  return out;
}

}  // namespace

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

// ---- Storing ------------------------------------------------------------------

Result<StoreReport> ResearchMemory::Impl::Store(std::vector<Evidence> items, const CancellationToken& cancel,
                                                Deadline deadline) {
  std::lock_guard<std::mutex> write(write_mu);
  StoreReport report;
  report.similarity = "lexical";
  // Past the deadline (or cancelled) the records not yet examined are left
  // out, named in the report; what was examined is stored.
  auto out_of_time = [&] {
    if (cancel.cancelled()) report.stopped = "cancelled";
    if (report.stopped.empty() && deadline.expired()) report.stopped = "deadline";
    return !report.stopped.empty();
  };
  const size_t incoming = items.size();
  if (out_of_time()) {
    report.not_examined = incoming;
    report.warnings.push_back(StoppedWarning(report, incoming));
    for (const std::string& w : report.warnings) Warn(w);
    return report;
  }
  std::vector<Entry> work = entries;  // only writers change `entries`, and this is the writer
  std::unordered_map<std::string, size_t> keys;
  std::unordered_map<std::string, size_t> ids;
  std::unordered_map<std::string, size_t> titles;
  Index(work, keys, ids, &titles);
  const size_t stored_count = work.size();
  std::vector<bool> changed(stored_count, false);  // stored records merged with a duplicate: fields and vector
  std::vector<size_t> candidates;                  // new records awaiting the meaning pass

  // 1. Identity: the same URL, a shared identifier or the same title is one record.
  for (Evidence& item : items) {
    std::string key = Trim(IsBlank(item.url) ? item.id : item.url);
    if (key.empty()) {
      report.warnings.push_back("evidence '" + Preview(item.title, 60) +
                                "' has neither a URL nor an id and was not stored");
      continue;
    }
    std::optional<size_t> match;
    std::string reason;
    const std::vector<std::string> item_ids = CanonicalIdentifiers(item);
    if (auto k = keys.find(key); k != keys.end()) {
      match = k->second;
      reason = IsBlank(item.url) ? "same id" : "same URL";
    } else {
      for (const std::string& id : item_ids) {
        if (auto i = ids.find(id); i != ids.end()) {
          match = i->second;
          reason = "shared identifier " + id;
          break;
        }
      }
    }
    const std::string title = TitleKey(item.title);
    if (!match && !title.empty()) {
      if (auto t = titles.find(title); t != titles.end() && !HaveDistinctRecordIds(item_ids, work[t->second].ids)) {
        match = t->second;
        reason = "same title";
      }
    }
    if (!match) {
      candidates.push_back(work.size());
      work.push_back(MakeEntry(key, std::move(item)));
      keys.emplace(key, work.size() - 1);
      for (const std::string& id : work.back().ids) ids.emplace(id, work.size() - 1);
      if (!title.empty()) titles.emplace(title, work.size() - 1);
      continue;
    }
    Entry& kept = work[*match];
    const std::string before = SimilarityText(kept.stored.evidence);
    Entry merged = MakeEntry(kept.stored.key, MergeDuplicates(kept.stored.evidence, item));
    merged.stored.seq = kept.stored.seq;
    if (SimilarityText(merged.stored.evidence) == before) merged.stored.vector = std::move(kept.stored.vector);
    kept = std::move(merged);
    for (const std::string& id : kept.ids) ids.emplace(id, *match);
    if (std::string t = TitleKey(kept.stored.evidence.title); !t.empty()) titles.emplace(std::move(t), *match);
    if (*match < stored_count) changed[*match] = true;
    report.duplicates.push_back({.key = kept.stored.key, .incoming = key, .reason = reason, .merged = true});
  }

  // 2. Vectors: embeddings for every record that lacks one, else TF-IDF.
  bool use_embeddings = false;
  std::vector<size_t> embedded_stored;  // stored records that got a vector now
  if (embedder && !candidates.empty() && !out_of_time()) {
    std::vector<size_t> need;
    for (size_t i = 0; i < work.size(); ++i) {
      if (work[i].stored.vector.empty()) need.push_back(i);
    }
    Result<std::vector<Embedding>> done = Embed(work, need, {}, cancel, deadline);
    if (done.ok()) {
      use_embeddings = true;
      report.similarity = "embeddings";
      for (size_t i : need) {
        if (i < stored_count) embedded_stored.push_back(i);
      }
    } else {
      report.warnings.push_back(EmbeddingsWarning(done.status()));
    }
  }
  std::vector<NumberedVector> lexical;
  if (!use_embeddings && !candidates.empty() && !out_of_time()) {
    std::vector<const TermCounts*> docs;
    for (const Entry& e : work) docs.push_back(&e.terms);
    const TfIdfSpace space(docs);
    lexical.reserve(work.size());
    for (const Entry& e : work) lexical.push_back(space.Numbered(e.terms));
  }
  const double threshold = use_embeddings ? options.semantic_threshold : options.lexical_threshold;

  // 3. Meaning: a new record close enough to a kept one is dropped. It is
  // compared only with the kept records that may be near it
  // (near_duplicates.h), and the deadline is looked at as it goes.
  NearDuplicateCandidates near;
  for (size_t i = 0; i < stored_count; ++i) near.Add(i, work[i].terms);
  std::map<size_t, size_t> dropped;  // candidate → the record it duplicates
  std::set<size_t> unexamined;       // candidates the deadline left out
  for (size_t n = 0; n < candidates.size(); ++n) {
    const size_t c = candidates[n];
    if ((lexical.empty() && !use_embeddings) || (n % 32 == 0 && out_of_time())) {
      unexamined.insert(candidates.begin() + static_cast<long>(n), candidates.end());
      break;
    }
    double best = -1;
    size_t best_index = 0;
    for (size_t k : near.For(work[c].terms)) {
      if (work[c].record_ids && work[k].record_ids && HaveDistinctRecordIds(work[c].ids, work[k].ids)) continue;
      const double s = use_embeddings ? Dot(work[c].stored.vector, work[k].stored.vector)
                                      : Cosine(lexical[c], lexical[k]);
      if (s > best) {
        best = s;
        best_index = k;
      }
    }
    if (best >= threshold) {
      dropped[c] = best_index;
      report.duplicates.push_back(
          {.key = work[best_index].stored.key,
           .incoming = work[c].stored.key,
           .reason = "cosine " + Fixed(best, 2) + (use_embeddings ? " (embeddings)" : " (lexical)"),
           .merged = false});
    } else {
      near.Add(c, work[c].terms);
      report.new_keys.push_back(work[c].stored.key);
    }
  }
  // An identity duplicate merged into a record that was then dropped points
  // at what that record duplicated; one merged into a record left
  // unexamined is left out with it.
  std::vector<DuplicateEvidence> duplicates;
  for (DuplicateEvidence& d : report.duplicates) {
    auto k = keys.find(d.key);
    if (k != keys.end() && unexamined.count(k->second)) {
      ++report.not_examined;
      continue;
    }
    if (k != keys.end()) {
      if (auto drop = dropped.find(k->second); drop != dropped.end()) d.key = work[drop->second].stored.key;
    }
    duplicates.push_back(std::move(d));
  }
  report.duplicates = std::move(duplicates);
  report.not_examined += unexamined.size();
  if (report.not_examined > 0) report.warnings.push_back(StoppedWarning(report, incoming));

  // 4. One transaction; the state changes only once it committed.
  if (Status s = db->Begin(); !s.ok()) return s;
  Status written;
  for (size_t i : embedded_stored) changed[i] = true;
  for (size_t i = 0; i < stored_count && written.ok(); ++i) {
    if (!changed[i]) continue;
    written = db->UpdateEvidence(work[i].stored.seq, work[i].stored.evidence);
    // The vector too: new, kept, or none when a merge changed the text.
    if (written.ok()) written = db->SetEmbedding(work[i].stored.seq, work[i].stored.vector);
  }
  if (written.ok() && use_embeddings) written = db->SetMeta("embeddings_model", options.embeddings_model);
  std::vector<Entry> next;
  next.reserve(stored_count + candidates.size());
  for (size_t i = 0; i < stored_count; ++i) next.push_back(std::move(work[i]));
  for (size_t c : candidates) {
    if (!written.ok()) break;
    if (dropped.count(c) || unexamined.count(c)) continue;
    Result<int64_t> seq = db->InsertEvidence(work[c].stored.key, work[c].stored.evidence, work[c].stored.vector);
    if (!seq.ok()) {
      written = seq.status();
      break;
    }
    work[c].stored.seq = *seq;
    next.push_back(std::move(work[c]));
  }
  if (written.ok()) written = db->Commit();
  if (!written.ok()) {
    db->Rollback();
    return written.WithContext("storing evidence (nothing of this call was stored)");
  }
  Apply(std::move(next));
  for (const std::string& w : report.warnings) Warn(w);
  return report;
}

void ResearchMemory::Impl::Apply(std::vector<Entry> next) {
  std::unordered_map<std::string, size_t> keys;
  std::unordered_map<std::string, size_t> ids;
  Index(next, keys, ids);
  std::lock_guard<std::mutex> lock(state_mu);
  entries = std::move(next);
  by_key = std::move(keys);
  by_id = std::move(ids);
}

// ---- Ranking ------------------------------------------------------------------

EvidenceRanking ResearchMemory::Impl::Rank(std::string_view text, size_t n, const CancellationToken& cancel) {
  std::lock_guard<std::mutex> write(write_mu);
  EvidenceRanking ranking;
  ranking.similarity = "lexical";
  if (entries.empty() || n == 0) return ranking;

  std::vector<double> scores(entries.size(), 0);
  bool scored = false;
  if (embedder) {
    std::vector<Entry> work = entries;
    std::vector<size_t> need;
    for (size_t i = 0; i < work.size(); ++i) {
      if (work[i].stored.vector.empty()) need.push_back(i);
    }
    std::vector<std::string> extra;
    if (query_vector_text != text || query_vector.empty()) extra.emplace_back(text);
    Result<std::vector<Embedding>> done =
        need.empty() && extra.empty() ? std::vector<Embedding>{} : Embed(work, need, extra, cancel);
    if (done.ok()) {
      if (!extra.empty()) {
        query_vector = std::move(done->front());
        query_vector_text = std::string(text);
      }
      if (query_vector.size() == work.front().stored.vector.size()) {
        for (size_t i = 0; i < work.size(); ++i) scores[i] = Dot(query_vector, work[i].stored.vector);
        scored = true;
        ranking.similarity = "embeddings";
      } else {
        ranking.warning = "embeddings unavailable, lexical similarity (TF-IDF) used: the query's vector has " +
                          std::to_string(query_vector.size()) + " dimensions, the memory's " +
                          std::to_string(work.front().stored.vector.size());
      }
      // Keep the vectors computed for ranking; a failure to save them only costs a later request.
      if (!need.empty()) {
        Status saved = db->Begin();
        for (size_t i : need) {
          if (saved.ok()) saved = db->SetEmbedding(work[i].stored.seq, work[i].stored.vector);
        }
        if (saved.ok()) saved = db->SetMeta("embeddings_model", options.embeddings_model);
        if (saved.ok()) saved = db->Commit();
        if (saved.ok()) {
          Apply(std::move(work));
        } else {
          db->Rollback();
          Warn("embeddings computed for ranking were not saved: " + saved.message());
        }
      }
    } else {
      ranking.warning = EmbeddingsWarning(done.status());
    }
  }
  if (!scored) {
    const TermCounts query_terms = CountTerms(text);
    std::vector<const TermCounts*> docs;
    for (const Entry& e : entries) docs.push_back(&e.terms);
    const TfIdfSpace space(docs);
    const SparseVector q = space.Vector(query_terms);
    for (size_t i = 0; i < entries.size(); ++i) scores[i] = Cosine(q, space.Vector(entries[i].terms));
  }
  if (!ranking.warning.empty()) Warn(ranking.warning);

  std::vector<size_t> order(entries.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return scores[a] > scores[b]; });
  order.resize(std::min(n, order.size()));
  std::lock_guard<std::mutex> lock(state_mu);
  for (size_t i : order) {
    ranking.items.push_back({.key = entries[i].stored.key,
                             .reference = static_cast<int>(i) + 1,
                             .score = scores[i],
                             .evidence = entries[i].stored.evidence});
  }
  return ranking;
}

// ---- The class ------------------------------------------------------------------

ResearchMemory::ResearchMemory(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
ResearchMemory::ResearchMemory(ResearchMemory&&) noexcept = default;
ResearchMemory& ResearchMemory::operator=(ResearchMemory&&) noexcept = default;
ResearchMemory::~ResearchMemory() = default;

Result<ResearchMemory> ResearchMemory::Open(const std::string& path, std::string query,
                                            ResearchMemoryOptions options) {
  auto impl = std::make_unique<Impl>();
  impl->path = path;
  query = Trim(query);
  Result<std::unique_ptr<MemoryDb>> db = MemoryDb::Open(path);
  if (!db.ok()) return db.status();
  impl->db = std::move(*db);
  MemoryDb& d = *impl->db;

  // Schema, question and contents in one transaction.
  if (Status s = d.Begin(); !s.ok()) return s;
  Result<MemoryContents> contents = [&]() -> Result<MemoryContents> {
    Result<bool> created = d.EnsureSchema(query);
    if (!created.ok()) return created.status();
    Result<MemoryContents> loaded = d.Load();
    if (!loaded.ok()) return loaded.status();
    if (!query.empty() && loaded->query != query) {
      return Status::FailedPrecondition("research memory '" + path + "' holds another question ('" +
                                        Preview(loaded->query, 80) +
                                        "'); reopen it without a question to resume it, or use another file");
    }
    // Vectors of another embeddings model are no use: drop them.
    if (!options.embeddings_url.empty() && loaded->has_embeddings_model &&
        loaded->embeddings_model != options.embeddings_model) {
      if (Status s = d.ClearEmbeddings(); !s.ok()) return s;
      if (Status s = d.SetMeta("embeddings_model", options.embeddings_model); !s.ok()) return s;
      for (StoredEvidence& e : loaded->evidence) e.vector.clear();
    }
    return loaded;
  }();
  if (!contents.ok()) {
    d.Rollback();
    return contents.status();
  }
  if (Status s = d.Commit(); !s.ok()) return s;
  if (Status s = d.EnableWal(); !s.ok()) return s;

  impl->query = contents->query;
  if (!options.embeddings_url.empty()) {
    impl->embedder.emplace(EmbeddingsClientOptions{.base_url = options.embeddings_url,
                                                   .model = options.embeddings_model,
                                                   .api_key = options.api_key,
                                                   .transport = options.transport,
                                                   .timeout = options.embeddings_timeout});
  }
  impl->options = std::move(options);
  for (StoredEvidence& row : contents->evidence) {
    Entry entry = MakeEntry(row.key, std::move(row.evidence));
    entry.stored.seq = row.seq;
    entry.stored.vector = std::move(row.vector);
    impl->entries.push_back(std::move(entry));
  }
  Impl::Index(impl->entries, impl->by_key, impl->by_id);
  impl->hypotheses = std::move(contents->hypotheses);
  impl->conflicts = std::move(contents->conflicts);
  impl->iteration = contents->iteration;
  return ResearchMemory(std::move(impl));
}

const std::string& ResearchMemory::query() const { return impl_->query; }
const std::string& ResearchMemory::path() const { return impl_->path; }

Result<StoreReport> ResearchMemory::Store(std::vector<Evidence> items, const CancellationToken& cancel,
                                          Deadline deadline) {
  return impl_->Store(std::move(items), cancel, deadline);
}

Result<std::vector<std::string>> ResearchMemory::StoreEvidence(std::vector<Evidence> items,
                                                               const CancellationToken& cancel) {
  Result<StoreReport> report = impl_->Store(std::move(items), cancel, Deadline::Never());
  if (!report.ok()) return report.status();
  return std::move(report->new_keys);
}

std::vector<Evidence> ResearchMemory::GetAllEvidence() const {
  std::lock_guard<std::mutex> lock(impl_->state_mu);
  std::vector<Evidence> out;
  out.reserve(impl_->entries.size());
  for (const Entry& e : impl_->entries) out.push_back(e.stored.evidence);
  return out;
}

std::vector<std::string> ResearchMemory::EvidenceKeys() const {
  std::lock_guard<std::mutex> lock(impl_->state_mu);
  std::vector<std::string> out;
  for (const Entry& e : impl_->entries) out.push_back(e.stored.key);
  return out;
}

size_t ResearchMemory::evidence_count() const {
  std::lock_guard<std::mutex> lock(impl_->state_mu);
  return impl_->entries.size();
}

std::optional<Evidence> ResearchMemory::FindEvidence(std::string_view key_or_id) const {
  std::lock_guard<std::mutex> lock(impl_->state_mu);
  std::optional<size_t> i = impl_->Find(key_or_id);
  if (!i) return std::nullopt;
  return impl_->entries[*i].stored.evidence;
}

std::optional<int> ResearchMemory::ReferenceNumber(std::string_view key_or_id) const {
  std::lock_guard<std::mutex> lock(impl_->state_mu);
  std::optional<size_t> i = impl_->Find(key_or_id);
  if (!i) return std::nullopt;
  return static_cast<int>(*i) + 1;
}

EvidenceRanking ResearchMemory::RankEvidence(std::string_view query, size_t n, const CancellationToken& cancel) {
  return impl_->Rank(query, n, cancel);
}

std::vector<Evidence> ResearchMemory::GetRelevantEvidence(size_t n, const CancellationToken& cancel) {
  std::vector<Evidence> out;
  for (ScoredEvidence& s : impl_->Rank(impl_->query, n, cancel).items) out.push_back(std::move(s.evidence));
  return out;
}

Status ResearchMemory::AddHypothesis(Hypothesis h) {
  if (!std::isfinite(h.confidence) || h.confidence < 0 || h.confidence > 1) {
    return Status::InvalidArgument("hypothesis confidence must be between 0 and 1, got " + Fixed(h.confidence, 3));
  }
  if (IsBlank(h.statement) && IsBlank(h.drug)) {
    return Status::InvalidArgument("a hypothesis needs a statement or at least a drug");
  }
  std::lock_guard<std::mutex> write(impl_->write_mu);
  Result<std::vector<std::string>> keys = impl_->ResolveRefs(h.evidence, "the hypothesis");
  if (!keys.ok()) return keys.status();
  h.evidence = std::move(*keys);
  if (Status s = impl_->db->Begin(); !s.ok()) return s;
  Status s = impl_->db->InsertHypothesis(h);
  if (s.ok()) s = impl_->db->Commit();
  if (!s.ok()) {
    impl_->db->Rollback();
    return s;
  }
  std::lock_guard<std::mutex> lock(impl_->state_mu);
  impl_->hypotheses.push_back(std::move(h));
  return Status::OK();
}

std::vector<Hypothesis> ResearchMemory::GetHypotheses() const {
  std::lock_guard<std::mutex> lock(impl_->state_mu);
  return impl_->hypotheses;
}

std::vector<Hypothesis> ResearchMemory::GetConfirmedHypotheses() const {
  std::lock_guard<std::mutex> lock(impl_->state_mu);
  std::vector<Hypothesis> out;
  for (const Hypothesis& h : impl_->hypotheses) {
    if (h.confidence > impl_->options.confirmed_threshold) out.push_back(h);
  }
  return out;
}

Status ResearchMemory::AddConflict(Conflict c) {
  if (IsBlank(c.description)) return Status::InvalidArgument("a conflict needs a description of what disagrees");
  std::lock_guard<std::mutex> write(impl_->write_mu);
  Result<std::vector<std::string>> keys = impl_->ResolveRefs(c.evidence, "the conflict");
  if (!keys.ok()) return keys.status();
  c.evidence = std::move(*keys);
  if (Status s = impl_->db->Begin(); !s.ok()) return s;
  Status s = impl_->db->InsertConflict(c);
  if (s.ok()) s = impl_->db->Commit();
  if (!s.ok()) {
    impl_->db->Rollback();
    return s;
  }
  std::lock_guard<std::mutex> lock(impl_->state_mu);
  impl_->conflicts.push_back(std::move(c));
  return Status::OK();
}

std::vector<Conflict> ResearchMemory::GetConflicts() const {
  std::lock_guard<std::mutex> lock(impl_->state_mu);
  return impl_->conflicts;
}

int ResearchMemory::iteration_count() const {
  std::lock_guard<std::mutex> lock(impl_->state_mu);
  return impl_->iteration;
}

Result<int> ResearchMemory::IncrementIteration() {
  std::lock_guard<std::mutex> write(impl_->write_mu);
  const int next = impl_->iteration + 1;
  if (Status s = impl_->db->Begin(); !s.ok()) return s;
  Status s = impl_->db->SetMeta("iteration", std::to_string(next));
  if (s.ok()) s = impl_->db->Commit();
  if (!s.ok()) {
    impl_->db->Rollback();
    return s;
  }
  std::lock_guard<std::mutex> lock(impl_->state_mu);
  impl_->iteration = next;
  return next;
}

// ---- Summaries ------------------------------------------------------------------

// ---- Snapshot and restore (a research run's checkpoint) -----------------------

namespace {

Json HypothesisJson(const Hypothesis& h) {
  return {{"drug", h.drug}, {"target", h.target}, {"pathway", h.pathway}, {"effect", h.effect},
          {"confidence", h.confidence}, {"statement", h.statement}, {"evidence", h.evidence}};
}

std::vector<std::string> Strings(const Json& j, const char* key) {
  std::vector<std::string> out;
  if (const auto it = j.find(key); it != j.end() && it->is_array()) {
    for (const Json& v : *it) {
      if (v.is_string()) out.push_back(v.get<std::string>());
    }
  }
  return out;
}

}  // namespace

Json ResearchMemory::Snapshot() const {
  std::lock_guard<std::mutex> lock(impl_->state_mu);
  Json evidence = Json::array();
  for (const Entry& e : impl_->entries) {
    evidence.push_back({{"key", e.stored.key}, {"evidence", EvidenceToJson(e.stored.evidence)}});
  }
  Json hypotheses = Json::array();
  for (const Hypothesis& h : impl_->hypotheses) hypotheses.push_back(HypothesisJson(h));
  Json conflicts = Json::array();
  for (const Conflict& c : impl_->conflicts) {
    conflicts.push_back({{"description", c.description}, {"evidence", c.evidence}, {"resolution", c.resolution}});
  }
  return {{"query", impl_->query},
          {"iteration", impl_->iteration},
          {"evidence", std::move(evidence)},
          {"hypotheses", std::move(hypotheses)},
          {"conflicts", std::move(conflicts)}};
}

Status ResearchMemory::Restore(const Json& snapshot) {
  auto bad = [](const std::string& what) {
    return Status::InvalidArgument("research memory snapshot: " + what);
  };
  if (!snapshot.is_object()) return bad("not an object");
  if (StringOr(snapshot, "query") != impl_->query) {
    return bad("it is of another question ('" + Preview(StringOr(snapshot, "query"), 80) + "')");
  }
  // Everything read before anything is written.
  std::vector<std::pair<std::string, Evidence>> records;
  for (const Json& row : snapshot.value("evidence", Json::array())) {
    const std::string key = row.is_object() ? StringOr(row, "key") : "";
    Result<Evidence> e = row.is_object() ? EvidenceFromJson(row.value("evidence", Json())) : bad("a record");
    if (key.empty() || !e.ok()) return bad("record " + std::to_string(records.size() + 1) + " is not one");
    records.emplace_back(key, std::move(*e));
  }
  std::vector<Hypothesis> hypotheses;
  for (const Json& h : snapshot.value("hypotheses", Json::array())) {
    if (!h.is_object()) return bad("a hypothesis is not an object");
    hypotheses.push_back({.drug = StringOr(h, "drug"), .target = StringOr(h, "target"),
                          .pathway = StringOr(h, "pathway"), .effect = StringOr(h, "effect"),
                          .confidence = h.value("confidence", 0.0), .statement = StringOr(h, "statement"),
                          .evidence = Strings(h, "evidence")});
  }
  std::vector<Conflict> conflicts;
  for (const Json& c : snapshot.value("conflicts", Json::array())) {
    if (!c.is_object()) return bad("a conflict is not an object");
    conflicts.push_back({.description = StringOr(c, "description"), .evidence = Strings(c, "evidence"),
                         .resolution = StringOr(c, "resolution")});
  }
  const int iteration = static_cast<int>(IntegerOr(snapshot, "iteration", 0));

  std::lock_guard<std::mutex> write(impl_->write_mu);
  MemoryDb& d = *impl_->db;
  if (Status s = d.Begin(); !s.ok()) return s;
  std::vector<Entry> entries;
  Status s = d.ClearContents();
  for (auto& [key, evidence] : records) {
    if (!s.ok()) break;
    Entry entry = MakeEntry(key, std::move(evidence));
    Result<int64_t> seq = d.InsertEvidence(entry.stored.key, entry.stored.evidence, {});
    if (!seq.ok()) s = seq.status();
    entry.stored.seq = seq.ok() ? *seq : 0;
    entries.push_back(std::move(entry));
  }
  for (const Hypothesis& h : hypotheses) {
    if (s.ok()) s = d.InsertHypothesis(h);
  }
  for (const Conflict& c : conflicts) {
    if (s.ok()) s = d.InsertConflict(c);
  }
  if (s.ok()) s = d.SetMeta("iteration", std::to_string(iteration));
  if (s.ok()) s = d.Commit();
  if (!s.ok()) {
    d.Rollback();
    return s;
  }
  std::lock_guard<std::mutex> lock(impl_->state_mu);
  impl_->entries = std::move(entries);
  Impl::Index(impl_->entries, impl_->by_key, impl_->by_id);
  impl_->hypotheses = std::move(hypotheses);
  impl_->conflicts = std::move(conflicts);
  impl_->iteration = iteration;
  return Status::OK();
}

std::string ResearchMemory::GetContextSummary(const CancellationToken& cancel) {
  const EvidenceRanking top = impl_->Rank(impl_->query, impl_->options.summary_evidence, cancel);
  std::lock_guard<std::mutex> lock(impl_->state_mu);
  const Impl& m = *impl_;
  std::string out = "## Research memory\n\n";
  out += "**Question:** " + OneLine(m.query, 500) + "\n";
  out += "**Iteration:** " + std::to_string(m.iteration) + "\n";
  std::map<std::string, int> by_source;
  for (const Entry& e : m.entries) ++by_source[EvidenceSourceName(e.stored.evidence.source)];
  out += "**Evidence:** " + std::to_string(m.entries.size()) + (m.entries.size() == 1 ? " record" : " records");
  std::vector<std::string> counts;
  for (const auto& [source, count] : by_source) counts.push_back(source + " " + std::to_string(count));
  if (!counts.empty()) out += " (" + Join(counts, ", ") + ")";
  out += "\n";

  if (!top.items.empty()) {
    out += "\n### Most relevant evidence (" + top.similarity + " similarity to the question)\n\n";
    for (size_t i = 0; i < top.items.size(); ++i) {
      const Evidence& e = top.items[i].evidence;
      std::vector<std::string> facts;
      if (!IsBlank(e.id)) facts.push_back(Trim(e.id));
      if (e.year > 0) facts.push_back(std::to_string(e.year));
      facts.push_back(EvidenceSourceName(e.source));
      if (!IsBlank(e.type)) facts.push_back(Trim(e.type));
      if (!e.peer_reviewed) facts.push_back("not peer-reviewed");
      out += std::to_string(i + 1) + ". [" + std::to_string(top.items[i].reference) + "] " +
             OneLine(IsBlank(e.title) ? std::string("(untitled)") : e.title, 200) + " (" + Join(facts, "; ") + ")";
      if (!IsBlank(e.abstract)) out += " — " + OneLine(e.abstract, 300);
      out += "\n";
    }
  }

  // "[n]" for each cited key, in the memory's numbering.
  auto refs = [&m](const std::vector<std::string>& keys) {
    std::vector<std::string> numbers;
    for (const std::string& k : keys) {
      if (auto i = m.by_key.find(k); i != m.by_key.end()) numbers.push_back("[" + std::to_string(i->second + 1) + "]");
    }
    return numbers.empty() ? std::string() : " " + Join(numbers, "");
  };
  size_t confirmed = 0;
  for (const Hypothesis& h : m.hypotheses) confirmed += h.confidence > m.options.confirmed_threshold ? 1 : 0;
  out += "\n### Hypotheses (" + std::to_string(m.hypotheses.size()) + ", " + std::to_string(confirmed) +
         " confirmed with confidence > " + Fixed(m.options.confirmed_threshold, 1) + ")\n\n";
  if (m.hypotheses.empty()) out += "None yet.\n";
  for (const Hypothesis& h : m.hypotheses) {
    std::vector<std::string> chain;
    for (const std::string* part : {&h.drug, &h.target, &h.pathway, &h.effect}) {
      if (!IsBlank(*part)) chain.push_back(OneLine(*part, 120));
    }
    out += "- ";
    if (h.confidence > m.options.confirmed_threshold) out += "**confirmed** ";
    out += Join(chain, " → ") + " (confidence " + Fixed(h.confidence, 2) + ")";
    if (!IsBlank(h.statement)) out += ": " + OneLine(h.statement, 400);
    out += refs(h.evidence) + "\n";
  }
  out += "\n### Conflicts (" + std::to_string(m.conflicts.size()) + ")\n\n";
  if (m.conflicts.empty()) out += "None recorded.\n";
  for (const Conflict& c : m.conflicts) {
    out += "- " + OneLine(c.description, 400) + refs(c.evidence) + " — " +
           (IsBlank(c.resolution) ? std::string("open") : "resolved: " + OneLine(c.resolution, 300)) + "\n";
  }
  return out;
}

std::string ResearchMemory::Bibliography() const {
  std::lock_guard<std::mutex> lock(impl_->state_mu);
  std::string out;
  for (size_t i = 0; i < impl_->entries.size(); ++i) {
    const Evidence& e = impl_->entries[i].stored.evidence;
    std::string citation = OneLine(IsBlank(e.citation) ? BuiltCitation(e) : e.citation, 1000);
    while (!citation.empty() && citation.back() == '.') citation.pop_back();
    out += "[" + std::to_string(i + 1) + "] " + citation + ".";
    if (!IsBlank(e.url)) out += " " + Trim(e.url);
    out += "\n";
  }
  return out;
}

}  // namespace medreact

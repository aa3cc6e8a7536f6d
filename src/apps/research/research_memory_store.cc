// ResearchMemory::Store: the identity and meaning passes, bounded by the
// deadline. See research_memory.h for the contract.
//
// A store call works on a copy of the stored records: identity pass (merge
// duplicates), vectors (embeddings, or TF-IDF when there are none), meaning
// pass (drop near-duplicates, each new record compared only with candidates:
// near_duplicates.h), one transaction, and only then the copy replaces the
// state. Writers hold write_mu for the whole call; state_mu guards the state
// itself and is held only to read it or swap it.
#include <map>
#include <set>

#include "apps/research/near_duplicates.h"
#include "apps/research/research_memory_impl.h"

namespace medreact {
namespace {

// Why a store call left records out: "the deadline passed while
// de-duplicating: 31000 of 32000 incoming record(s) were not examined and
// not stored".
std::string StoppedWarning(const StoreReport& report, size_t incoming) {
  return std::string(report.stopped == "cancelled" ? "the research was cancelled" : "the deadline passed") +
         " while de-duplicating: " + std::to_string(report.not_examined) + " of " + std::to_string(incoming) +
         " incoming record(s) were not examined and not stored";
}

}  // namespace

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

}  // namespace medreact

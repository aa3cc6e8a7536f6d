// ResearchMemory: the shared state of the multi-agent research app (seed 003,
// "Shared State (ResearchMemory)"; issue 12 item 2). It holds the research
// question, the evidence found so far (keyed by URL, in the order it was
// first stored: the seed's evidence_ids and _evidence_cache), the
// hypotheses, the conflicts and the iteration count; it de-duplicates
// evidence as it arrives and ranks it against the question.
//
// De-duplication of StoreEvidence, in this order:
//   1. Identity: the same URL, or a shared identifier (PMID, DOI, PMCID, NCT,
//      ... compared in canonical form: evidence_identity.h) from any source is
//      one record; so is the same title (TitleKey: case and punctuation do
//      not count, four words at least) when the two records have no distinct
//      PMIDs or NCT numbers. The richer record's fields are kept, the gaps
//      filled from the other, identifiers united; the key (the URL first
//      stored) stays. Hash lookups: linear in the records.
//   2. Meaning: a record whose title + abstract is at least
//      `semantic_threshold` (0.9, seed 003's "Dedup similarity") cosine-similar
//      to a stored one, by embeddings when `embeddings_url` is set, is a
//      duplicate and is not stored. Without embeddings, or when the server
//      fails (then for that call only, with a warning: the evidence is still
//      stored), the cosine of TF-IDF vectors (text_similarity.h; idf over the
//      memory's records and the incoming ones) is compared with
//      `lexical_threshold` (0.7, see its comment). Two records with different
//      PMIDs or different NCT numbers are never semantic duplicates. A record
//      is compared only with the kept ones that may be near it: all of them
//      in a memory of up to 128, else those sharing its rarer words
//      (near_duplicates.h), so a call costs about linear time, not quadratic.
//
// A store call given a deadline (or a cancellation) looks at it as it goes:
// once it passed, the records not yet examined are not stored, and the
// report says so (`stopped`, `not_examined`, a warning naming the counts);
// what was examined before is stored as usual.
//
// Persistence: one SQLite file (WAL journal, synchronous=NORMAL: a power cut
// may lose the last store, never corrupt the file), created 0600, with a
// `meta` table (kind, schema_version, query, iteration, embeddings_model) and
// one table each for evidence (with its embedding), hypotheses and conflicts.
// Every mutating call is one transaction, and the in-memory state changes only
// after it committed, so a failed write leaves both as they were. Open()
// reopens a file and restores everything; an empty path keeps the memory in
// memory only (same code, SQLite's ":memory:").
//
// Reference numbers ([n] in GetContextSummary, Bibliography) are the
// 1-based positions in storage order: stable across calls and reopenings,
// because evidence is never removed or reordered.
//
// Thread-safety: all methods may be called from any thread. Calls that write
// (Store*, Add*, IncrementIteration, and the rankers, which may store vectors
// they had to compute) are serialised, including their embeddings request;
// reads of the stored state (GetAllEvidence, GetHypotheses, Bibliography...)
// wait only for the short moment a write applies its result. `on_warning` is
// called on the calling thread, never concurrently.
#ifndef MEDREACT_APPS_RESEARCH_RESEARCH_MEMORY_H_
#define MEDREACT_APPS_RESEARCH_RESEARCH_MEMORY_H_

#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "medreact/cancel.h"
#include "medreact/http.h"
#include "medreact/json.h"
#include "medreact/status.h"
#include "tools/literature/evidence.h"

namespace medreact {

// A mechanistic hypothesis (seed 003's HypothesisAgent: drug → target →
// pathway → effect, with a confidence).
struct Hypothesis {
  std::string drug;       // "testosterone"
  std::string target;     // "androgen receptor"
  std::string pathway;    // "dopamine release in the medial preoptic area"
  std::string effect;     // "increased sexual desire"
  double confidence = 0;  // 0..1; confirmed when > confirmed_threshold
  std::string statement;  // the hypothesis in one sentence
  // Evidence it rests on: keys, or identifiers such as "PMID:123" (resolved
  // to keys when added).
  std::vector<std::string> evidence;
};

// Evidence that disagrees (seed 003's Conflict).
struct Conflict {
  std::string description;            // what disagrees, in one or two sentences
  std::vector<std::string> evidence;  // keys or identifiers, resolved to keys when added
  std::string resolution;             // "" while open
};

struct ResearchMemoryOptions {
  // Base URL of an OpenAI-compatible embeddings server ("/embeddings" is
  // appended), e.g. "http://127.0.0.1:8000/v1". Default: "" (lexical only)
  std::string embeddings_url;
  // Sent as "model"; stored vectors of another model are dropped and
  // recomputed. Default: "" (omitted)
  std::string embeddings_model;
  // Bearer token for the embeddings server. Default: "" (none)
  std::string api_key;
  // Default: nullptr = libcurl (only created when embeddings_url is set)
  std::shared_ptr<HttpTransport> transport;
  // One embeddings request; past it the call falls back to lexical. Default: 30 s
  Millis embeddings_timeout{30'000};
  // Embedding cosine at or above which a record duplicates a stored one.
  // Default: 0.9 (seed 003, "Dedup similarity")
  double semantic_threshold = 0.9;
  // The same for the TF-IDF fallback. 0.9 would miss a preprint and its
  // reworded published version (0.73-0.76 on the calibration set) and even a
  // record with a revised sample size and one extra sentence when the memory
  // holds only those two (0.88); 0.7 catches every near-duplicate there and
  // stays 0.18 above the most similar distinct paper (a companion paper of
  // the same trial sharing its design sentences, 0.52) and 0.39 above
  // different papers on the same question (at most 0.31). The set and the
  // test: tests/fixtures/research/similarity_calibration.json,
  // ResearchMemoryLexicalTest.CalibrationSetSeparatesAtTheThreshold.
  // Default: 0.7
  double lexical_threshold = 0.7;
  // A hypothesis is confirmed when its confidence is strictly above this.
  // Default: 0.8 (seed 003, "Confirmed hypothesis")
  double confirmed_threshold = 0.8;
  // Evidence listed by GetContextSummary (most relevant first). Default: 10
  size_t summary_evidence = 10;
  // Told about degraded work (embeddings unavailable, a vector that could not
  // be saved); each warning is also in the call's report. Default: none
  std::function<void(const std::string&)> on_warning;
};

// An incoming record that was not stored as new.
struct DuplicateEvidence {
  std::string key;       // the stored record it duplicates
  std::string incoming;  // its URL (or id when it had no URL)
  // "same URL", "shared identifier PMID:123", "cosine 0.93 (embeddings)",
  // "cosine 0.81 (lexical)"
  std::string reason;
  bool merged = false;   // identity duplicate: merged into `key`; semantic: dropped
};

struct StoreReport {
  std::vector<std::string> new_keys;          // the seed's return value
  std::vector<DuplicateEvidence> duplicates;
  std::string similarity;                     // "embeddings" or "lexical"
  std::vector<std::string> warnings;          // also sent to on_warning
  // "" when every record was examined; "deadline" or "cancelled" when the
  // call stopped first and `not_examined` incoming records were left out
  // (neither stored nor counted as duplicates; a warning names them).
  std::string stopped;
  size_t not_examined = 0;
};

struct ScoredEvidence {
  std::string key;
  int reference = 0;  // its [n]
  double score = 0;   // cosine to the query
  Evidence evidence;
};

struct EvidenceRanking {
  std::vector<ScoredEvidence> items;  // best first; ties in storage order
  std::string similarity;             // "embeddings" or "lexical"
  std::string warning;                // "" or why embeddings were not used
};

class ResearchMemory {
 public:
  // Creates the memory at `path` (a new file is created 0600) or reopens it.
  // `query`: the research question; required for a new memory; when
  // reopening, "" means the stored one, and another question is an error
  // (one memory per question). `path` "" keeps everything in memory.
  // Errors: InvalidArgument (no question, a folder), FailedPrecondition (a
  // file that is not a SQLite database, a database that is not a research
  // memory, a newer schema, another question, a damaged row), Unavailable
  // (cannot create or open the file).
  static Result<ResearchMemory> Open(const std::string& path, std::string query,
                                     ResearchMemoryOptions options = {});

  ResearchMemory(ResearchMemory&&) noexcept;
  ResearchMemory& operator=(ResearchMemory&&) noexcept;
  ~ResearchMemory();

  const std::string& query() const;
  const std::string& path() const;  // "" when in memory

  // Stores `items` with de-duplication (see the top of this file); items
  // without a URL are keyed by their id, items with neither are left out with
  // a warning. Past `deadline` (or once `cancel` is cancelled) the records not
  // yet examined are left out and named in the report (see the top of this
  // file). The error is a failed write: nothing of the call was stored.
  Result<StoreReport> Store(std::vector<Evidence> items, const CancellationToken& cancel = {},
                            Deadline deadline = Deadline::Never());
  // Store(), returning the keys of the newly stored records (the seed's
  // store_evidence).
  Result<std::vector<std::string>> StoreEvidence(std::vector<Evidence> items, const CancellationToken& cancel = {});

  std::vector<Evidence> GetAllEvidence() const;   // storage order
  std::vector<std::string> EvidenceKeys() const;  // storage order (the seed's evidence_ids)
  size_t evidence_count() const;
  // The stored record with this key, or with this identifier in any
  // spelling ("pmid:123", "https://doi.org/10.1/X").
  std::optional<Evidence> FindEvidence(std::string_view key_or_id) const;
  // Its [n], or nullopt.
  std::optional<int> ReferenceNumber(std::string_view key_or_id) const;

  // The `n` records most similar to `query` (embeddings when configured and
  // reachable, else TF-IDF), each with its score and reference number.
  EvidenceRanking RankEvidence(std::string_view query, size_t n, const CancellationToken& cancel = {});
  // The seed's get_relevant_evidence(n): RankEvidence(query(), n)'s records.
  std::vector<Evidence> GetRelevantEvidence(size_t n, const CancellationToken& cancel = {});

  // InvalidArgument for a confidence outside [0, 1], no statement and no
  // drug, or evidence that is not in the memory.
  Status AddHypothesis(Hypothesis hypothesis);
  std::vector<Hypothesis> GetHypotheses() const;           // in the order added
  std::vector<Hypothesis> GetConfirmedHypotheses() const;  // confidence > confirmed_threshold

  // InvalidArgument for an empty description or evidence not in the memory.
  Status AddConflict(Conflict conflict);
  std::vector<Conflict> GetConflicts() const;

  int iteration_count() const;
  // Adds one and returns the new count.
  Result<int> IncrementIteration();

  // The whole content as JSON, for a run's checkpoint (research_app.h):
  // {"query","iteration","evidence":[{"key","evidence"}],"hypotheses","conflicts"}
  // in storage order; embeddings are left out (recomputed when needed).
  Json Snapshot() const;
  // Makes the memory hold exactly `snapshot` (a Snapshot of a memory of the
  // same question), in one transaction: records, hypotheses and conflicts
  // stored after it are dropped, the iteration set back. InvalidArgument for
  // a snapshot that is not one or is of another question (nothing changed);
  // a failed write changes nothing either.
  Status Restore(const Json& snapshot);

  // Markdown for fallback synthesis: the question, the iteration, counts by
  // source, the most relevant evidence with reference numbers and
  // identifiers, the hypotheses (confirmed marked) and the conflicts.
  std::string GetContextSummary(const CancellationToken& cancel = {});
  // One line per record, "[n] <citation>. <url>", in reference order; the
  // citation is built from authors, title, year and id when the source gave
  // none. "" when there is no evidence.
  std::string Bibliography() const;

 private:
  struct Impl;
  explicit ResearchMemory(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace medreact

#endif  // MEDREACT_APPS_RESEARCH_RESEARCH_MEMORY_H_

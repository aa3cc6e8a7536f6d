// MemoryDb: the research memory's SQLite file (research_memory.h has the
// contract). Schema, version 1:
//   meta(key, value)       kind = "medreact-research-memory", schema_version,
//                          query, iteration, embeddings_model
//   evidence(seq, key, id, url, title, abstract, authors, year, source, type,
//            citation, peer_reviewed, other_ids, embedding)
//                          seq = storage order; authors and other_ids are JSON
//                          arrays of strings; embedding a unit float32 BLOB or NULL
//   hypotheses(seq, drug, target, pathway, effect, confidence, statement, evidence)
//   conflicts(seq, description, evidence, resolution)
//                          evidence = JSON array of evidence keys
// Statements are prepared once per connection. Errors name the file; a file
// that is not SQLite, or SQLite that is not a research memory, is a
// FailedPrecondition saying so. Not thread-safe (ResearchMemory serialises).
#ifndef MEDREACT_APPS_RESEARCH_RESEARCH_MEMORY_DB_H_
#define MEDREACT_APPS_RESEARCH_RESEARCH_MEMORY_DB_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "apps/research/research_memory.h"
#include "medreact/status.h"
#include "tools/literature/evidence.h"
#include "tools/rag/embeddings.h"

namespace medreact {

inline constexpr int kResearchMemorySchemaVersion = 1;

struct StoredEvidence {
  int64_t seq = 0;   // storage order (row id)
  std::string key;   // the URL first stored (or the id when it had none)
  Evidence evidence;
  Embedding vector;  // unit length; empty when none
};

struct MemoryContents {
  std::string query;
  int iteration = 0;
  std::string embeddings_model;
  bool has_embeddings_model = false;  // false: no vectors were ever stored
  std::vector<StoredEvidence> evidence;  // by seq
  std::vector<Hypothesis> hypotheses;
  std::vector<Conflict> conflicts;
};

class MemoryDb {
 public:
  // Opens (creating 0600) the file at `path`, or an in-memory database for "".
  // Nothing is read or written yet: a file that is not a research memory is
  // found by EnsureSchema and left as it was.
  static Result<std::unique_ptr<MemoryDb>> Open(const std::string& path);
  // Switches a file to the WAL journal (readers never block the writer); a
  // no-op in memory. Outside a transaction, after EnsureSchema accepted the file.
  Status EnableWal();
  ~MemoryDb();
  MemoryDb(const MemoryDb&) = delete;
  MemoryDb& operator=(const MemoryDb&) = delete;

  // BEGIN IMMEDIATE / COMMIT / ROLLBACK.
  Status Begin();
  Status Commit();
  void Rollback();

  // Inside a transaction: creates the schema for `query` when the database is
  // empty, else checks it is a research memory of a version this code reads.
  // Returns true when it was created.
  Result<bool> EnsureSchema(const std::string& query);
  Result<MemoryContents> Load();

  Result<int64_t> InsertEvidence(const std::string& key, const Evidence& e, const Embedding& vector);
  Status UpdateEvidence(int64_t seq, const Evidence& e);
  Status SetEmbedding(int64_t seq, const Embedding& vector);
  Status ClearEmbeddings();
  Status InsertHypothesis(const Hypothesis& h);
  Status InsertConflict(const Conflict& c);
  Status SetMeta(const std::string& key, const std::string& value);
  // Deletes every record, hypothesis and conflict (a restore's first step; meta stays).
  Status ClearContents();

 private:
  struct Impl;
  explicit MemoryDb(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace medreact

#endif  // MEDREACT_APPS_RESEARCH_RESEARCH_MEMORY_DB_H_

// RagIndex: retrieval over a directory of guideline documents (issue 4, item 5).
//
// Open() scans the corpus recursively for *.md, *.markdown and *.txt (hidden
// files and folders skipped, and the index's own files), chunks each document
// (chunker.h: heading paths kept, chunks never cross a heading) and keeps the
// chunks in a SQLite database outside the corpus, in the user's cache:
// `$XDG_CACHE_HOME/medreact/rag/<folder name>-<FNV-1a 64 of the corpus's
// canonical path>.sqlite`, or under `$HOME/.cache` when XDG_CACHE_HOME is not
// an absolute path (DefaultRagDbPath). The folders medreact/ and medreact/rag/
// are created 0700 (and made 0700 when they exist), the database file 0600;
// RagOptions::db_path overrides the location (a new file is created 0600).
// The database records the corpus's canonical path and is rebuilt if it held
// another corpus.
//
// Safety of the scan: the corpus folder is a boundary. A symbolic link to a
// document is followed only when the target's real path lies inside the
// corpus; a link to a folder is never followed (inside the corpus its
// documents are indexed under their own path, outside they are not the
// corpus), so loops of links cannot occur; FIFOs, sockets and devices are
// never opened; a document is opened without
// blocking and checked through its descriptor (a regular file, the one that
// was scanned, whose real path is inside the corpus) before it is read; a
// document larger than kMaxRagFileBytes (8 MiB) is left out. Each file left
// out that would otherwise have been indexed is a warning in
// RagUpdate::warnings naming its path relative to the corpus, and its chunks
// leave the index. The database is a cache of the files:
//   files(path, size, mtime_ns, hash, chunks)      one row per indexed document
//   chunks(id, path, heading, section, context, ordinal, begin_offset, end_offset,
//          text, embedding)   heading = context + " > " + section
//   chunks_fts  FTS5 external-content table over chunks(section, context, text),
//               tokenize 'porter unicode61', kept in step by triggers
//   meta(key, value)                               chunker settings, embedding model
// On every Open (or Refresh) only what changed is redone, in one transaction:
// a file whose size and mtime match its row is not read; one whose size or
// mtime differ is read and hashed (FNV-1a 64), and re-chunked only if the hash
// differs (a mere touch updates the row); files gone from disk lose their
// chunks. Changing the chunker settings or the schema version rebuilds all.
// last_update() says what happened.
//
// Search() ranks with FTS5's BM25 and reports score = −bm25 (positive, larger
// is better). Columns are weighted section 4, context 1, text 1: the chunk's
// own heading ("Phenotypic criteria") says what it is about, while the
// ancestors, the document title first, are shared by every chunk of a file
// (weighting the whole path 2 let short intro chunks that repeat the title
// outrank the section a query names). The user's query is
// never passed to MATCH as written: BuildFtsQuery() turns it into quoted
// terms joined by OR (fts_query.h says why OR and what is dropped), so quotes,
// parentheses, `NEAR`, `*`, `:` or `^` in the input are text, not syntax.
//
// Embeddings (optional): with `embeddings_url` set, every chunk without a
// vector is embedded at index time through POST {embeddings_url}/embeddings
// (OpenAI wire format, batched) and stored as a float32 BLOB; vectors are
// loaded into memory, unit-normalised. Search() then also embeds the query,
// ranks every chunk by cosine similarity, and fuses the two rankings by
// reciprocal rank fusion, score(d) = Σ 1 / (rrf_k + rank_i(d)) with rrf_k = 60
// (Cormack, Clarke & Büttcher, "Reciprocal rank fusion outperforms Condorcet
// and individual rank learning methods", SIGIR 2009). An embeddings failure at
// index time fails Open()/Refresh() and rolls back (nothing half-indexed); at
// query time the search falls back to BM25 and says so in
// RagSearch::warning (mode "bm25"). Changing `embeddings_model` re-embeds
// every chunk at the next Open.
//
// Thread-safety: one SQLite connection per RagIndex, guarded by a mutex: every
// method may be called from any thread, database work is serialised (a BM25
// query on 50,000 chunks takes 13 ms at the median and 35 ms at p99 on a
// 2-core VM, see docs/benchmarks.md, so serialising costs nothing at an
// agent's call rate). The query's embedding request runs outside the lock.
// Several processes may open the same corpus: the update runs in BEGIN
// IMMEDIATE with a 10 s busy timeout, so a second process waits and then
// finds the work done.
#ifndef MEDREACT_TOOLS_RAG_RAG_INDEX_H_
#define MEDREACT_TOOLS_RAG_RAG_INDEX_H_

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "medreact/cancel.h"
#include "medreact/http.h"
#include "medreact/status.h"
#include "tools/rag/chunker.h"
#include "tools/rag/fts_query.h"

namespace medreact {

// The largest document indexed; larger files are skipped with a warning.
inline constexpr size_t kMaxRagFileBytes = size_t{8} << 20;  // 8 MiB

struct RagOptions {
  // Where the index lives. Default: "" = DefaultRagDbPath(corpus_dir), in the user's cache
  std::string db_path;
  // Chunk size and overlap. Default: 200 words, 40 overlap
  ChunkerOptions chunker;
  // Base URL of an OpenAI-compatible server ("/embeddings" is appended), e.g.
  // "http://127.0.0.1:8000/v1". Default: "" (BM25 only)
  std::string embeddings_url;
  // Sent as "model"; a change re-embeds the corpus. Default: "" (omitted)
  std::string embeddings_model;
  // Bearer token for the embeddings server. Default: "" (no Authorization header)
  std::string api_key;
  // Default: nullptr = libcurl (only created when embeddings_url is set)
  std::shared_ptr<HttpTransport> transport;
  // Texts per embeddings request at index time. Default: 64
  int embeddings_batch = 64;
  // Whole-request timeout of one embeddings call at index time. Default: 120 s
  Millis embeddings_timeout{120'000};
  // The same for the query's embedding; past it the search is BM25 only. Default: 10 s
  Millis query_embedding_timeout{10'000};
  // Hits taken from each ranking (BM25, cosine) into the fusion. Default: 50
  int fusion_candidates = 50;
  // The k of reciprocal rank fusion. Default: 60 (Cormack et al. 2009)
  int rrf_k = 60;
};

// What an Open() or Refresh() did.
struct RagUpdate {
  size_t files_scanned = 0;    // documents found on disk
  size_t files_added = 0;      // new documents, chunked
  size_t files_changed = 0;    // content changed, re-chunked
  size_t files_touched = 0;    // size/mtime changed, same content: row refreshed only
  size_t files_unchanged = 0;  // size and mtime match: not read
  size_t files_removed = 0;    // gone from disk: chunks deleted
  size_t chunks_added = 0;
  size_t chunks_removed = 0;
  size_t chunks_embedded = 0;
  std::string rebuild_reason;          // why everything was redone; "" when incremental
  std::vector<std::string> warnings;   // files left out ("skipped '<path in the corpus>': why")
  size_t reindexed() const { return files_added + files_changed; }
  bool changed() const { return reindexed() + files_removed + chunks_embedded > 0; }
};

struct RagHit {
  std::string source;   // path relative to the corpus
  std::string heading;  // heading path, "A > B"; "" when none
  std::string text;
  int ordinal = 0;      // chunk position in its document
  double score = 0;     // bm25 mode: −bm25; hybrid: the RRF score. Larger is better
  int rank = 0;         // 1-based position in the result
  int bm25_rank = 0;    // hybrid: 1-based rank in each list, 0 = not among the candidates
  int vector_rank = 0;
};

struct RagSearch {
  std::vector<RagHit> hits;  // best first
  std::string mode;          // "bm25" or "hybrid"
  std::string match;         // the FTS5 expression run; "" when the query had no searchable word
  std::string warning;       // "" or why results may be degraded (embeddings down, empty query)
};

// Where the index of `corpus_dir` lives by default (see the top of this file):
// $XDG_CACHE_HOME/medreact/rag/<name>-<hash>.sqlite, else
// $HOME/.cache/medreact/rag/...; the same for every spelling of the folder's
// path. Creates nothing. Fails when the folder does not exist or neither
// variable holds an absolute path.
Result<std::string> DefaultRagDbPath(const std::string& corpus_dir);

class RagIndex {
 public:
  // Opens (creating if needed) the index of `corpus_dir` and brings it up to
  // date. Fails when the folder does not exist, the database cannot be
  // created, opened or written (the message says which path; set db_path), or
  // the embeddings server fails while embedding.
  static Result<RagIndex> Open(const std::string& corpus_dir, RagOptions options = {});

  RagIndex(RagIndex&&) noexcept;
  RagIndex& operator=(RagIndex&&) noexcept;
  ~RagIndex();

  // Rescans the corpus now (what Open does after opening).
  Result<RagUpdate> Refresh();

  // The best `k` chunks (1 <= k <= 100) for a free-text query. An empty or
  // punctuation-only query gives no hits and a warning, not an error.
  Result<RagSearch> Search(std::string_view query, int k = 5, const CancellationToken& cancel = {}) const;

  RagUpdate last_update() const;
  size_t chunk_count() const;
  size_t file_count() const;
  bool hybrid() const;  // embeddings configured and present
  const std::string& db_path() const;
  const std::string& corpus_dir() const;

 private:
  struct Impl;
  explicit RagIndex(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};


}  // namespace medreact

#endif  // MEDREACT_TOOLS_RAG_RAG_INDEX_H_

// RagIndex: the SQLite schema, the incremental update and the two rankers.
// See rag_index.h for the contract.
//
// Update, in one BEGIN IMMEDIATE transaction: scan the disk, diff against the
// files table, delete the chunks of changed and removed files (triggers keep
// the FTS5 table in step), insert the new chunks, then embed every chunk that
// has no vector (new ones, or all after a model change), and commit. Any
// failure rolls the whole update back.
#include "tools/rag/rag_index.h"

#include <sqlite3.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <limits>
#include <map>
#include <mutex>
#include <optional>
#include <unordered_map>
#include <utility>

#include "tools/rag/corpus_files.h"
#include "tools/rag/embeddings.h"
#include "core/sqlite_stmt.h"
#include "core/file_io.h"
#include "core/text_util.h"

namespace medreact {
namespace fs = std::filesystem;
namespace {

constexpr int kSchemaVersion = 1;

constexpr const char* kSchema = R"sql(
CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS files(
  path TEXT PRIMARY KEY, size INTEGER NOT NULL, mtime_ns INTEGER NOT NULL,
  hash TEXT NOT NULL, chunks INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS chunks(
  id INTEGER PRIMARY KEY, path TEXT NOT NULL, heading TEXT NOT NULL, section TEXT NOT NULL,
  context TEXT NOT NULL, ordinal INTEGER NOT NULL, begin_offset INTEGER NOT NULL,
  end_offset INTEGER NOT NULL, text TEXT NOT NULL, embedding BLOB);
CREATE INDEX IF NOT EXISTS chunks_by_path ON chunks(path, ordinal);
CREATE VIRTUAL TABLE IF NOT EXISTS chunks_fts USING fts5(
  section, context, text, content='chunks', content_rowid='id', tokenize='porter unicode61');
CREATE TRIGGER IF NOT EXISTS chunks_ai AFTER INSERT ON chunks BEGIN
  INSERT INTO chunks_fts(rowid, section, context, text) VALUES (new.id, new.section, new.context, new.text);
END;
CREATE TRIGGER IF NOT EXISTS chunks_ad AFTER DELETE ON chunks BEGIN
  INSERT INTO chunks_fts(chunks_fts, rowid, section, context, text)
  VALUES ('delete', old.id, old.section, old.context, old.text);
END;
CREATE TRIGGER IF NOT EXISTS chunks_au AFTER UPDATE OF section, context, text ON chunks BEGIN
  INSERT INTO chunks_fts(chunks_fts, rowid, section, context, text)
  VALUES ('delete', old.id, old.section, old.context, old.text);
  INSERT INTO chunks_fts(rowid, section, context, text) VALUES (new.id, new.section, new.context, new.text);
END;
)sql";

constexpr const char* kDropAll = R"sql(
DROP TRIGGER IF EXISTS chunks_ai; DROP TRIGGER IF EXISTS chunks_ad; DROP TRIGGER IF EXISTS chunks_au;
DROP TABLE IF EXISTS chunks_fts; DROP TABLE IF EXISTS chunks; DROP TABLE IF EXISTS files;
DROP TABLE IF EXISTS meta;
)sql";

// Hits of the BM25 ranker, weights (section, context, text) = (4, 1, 1): the
// FTS5 subquery is ordered and limited first so only the winners are joined
// with their text. bm25() is called explicitly: ORDER BY the `rank` column
// with a configured rank function measured 1.6x slower on 50,000 chunks.
constexpr const char* kBm25Sql = R"sql(
SELECT c.id, c.path, c.heading, c.ordinal, c.text, f.score
FROM (SELECT rowid AS id, bm25(chunks_fts, 4.0, 1.0, 1.0) AS score FROM chunks_fts
      WHERE chunks_fts MATCH ?1 ORDER BY score LIMIT ?2) AS f
JOIN chunks AS c ON c.id = f.id ORDER BY f.score
)sql";

std::string Fnv1a64(std::string_view bytes) {
  char out[32];
  std::snprintf(out, sizeof(out), "fnv1a64:%016llx", static_cast<unsigned long long>(Fnv1a64Value(bytes)));
  return out;
}

std::string ChunkerKey(const ChunkerOptions& o) {
  return std::to_string(o.target_words) + "/" + std::to_string(o.overlap_words);
}

struct FileRow {
  int64_t size = 0;
  int64_t mtime_ns = 0;
  std::string hash;
};

std::string EmbeddingInput(const std::string& heading, const std::string& text) {
  return heading.empty() ? text : heading + "\n\n" + text;
}

}  // namespace

// ---- The index ----------------------------------------------------------------

struct RagIndex::Impl {
  std::string corpus_dir;
  std::string corpus_real;  // canonical: the boundary no document may cross
  std::string db_path;
  RagOptions options;
  std::optional<EmbeddingsClient> embedder;

  mutable std::mutex mu;
  sqlite3* db = nullptr;
  RagUpdate last;
  // Unit-normalised vectors of every embedded chunk, row-major, and their ids.
  std::vector<int64_t> vector_ids;
  std::vector<float> vectors;
  size_t dim = 0;

  ~Impl() {
    if (db) sqlite3_close(db);
  }

  Status SqlError(const std::string& what) const {
    return Status::Internal("RAG index '" + db_path + "': " + what + ": " +
                            (db ? sqlite3_errmsg(db) : "no database"));
  }

  Status Exec(const char* sql) const {
    char* err = nullptr;
    if (sqlite3_exec(db, sql, nullptr, nullptr, &err) != SQLITE_OK) {
      std::string message = err ? err : "unknown error";
      sqlite3_free(err);
      return Status::Internal("RAG index '" + db_path + "': " + message);
    }
    return Status::OK();
  }

  Result<std::string> Meta(const std::string& key) const {
    Stmt s(db, "SELECT value FROM meta WHERE key = ?1");
    if (!s.ok()) return SqlError("reading meta");
    s.Text(1, key);
    int rc = s.Step();
    if (rc == SQLITE_ROW) return s.ColText(0);
    if (rc == SQLITE_DONE) return std::string();
    return SqlError("reading meta");
  }

  Status SetMeta(const std::string& key, const std::string& value) const {
    Stmt s(db, "INSERT INTO meta(key, value) VALUES (?1, ?2) ON CONFLICT(key) DO UPDATE SET value = excluded.value");
    if (!s.ok()) return SqlError("writing meta");
    s.Text(1, key);
    s.Text(2, value);
    return s.Step() == SQLITE_DONE ? Status::OK() : SqlError("writing meta");
  }

  Status OpenDatabase() {
    if (sqlite3_open_v2(db_path.c_str(), &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX,
                        nullptr) != SQLITE_OK) {
      return Status::Unavailable("cannot open the RAG index '" + db_path + "': " +
                                 (db ? sqlite3_errmsg(db) : "out of memory") +
                                 "; give a writable database path");
    }
    sqlite3_busy_timeout(db, 10'000);
    // The index is a cache of the corpus: losing the last transaction in a
    // power cut costs one re-index, so NORMAL durability is enough.
    if (Status s = Exec("PRAGMA synchronous = NORMAL;"); !s.ok()) {
      return Status::FailedPrecondition(s.message() +
                                        "; the file is not a usable SQLite database: delete it to rebuild the index");
    }
    return Status::OK();
  }

  // Creates the schema, or rebuilds it when its version or the chunker changed.
  // Runs inside the update transaction. Returns the reason for a rebuild.
  Result<std::string> EnsureSchema() {
    Stmt v(db, "PRAGMA user_version");
    if (!v.ok() || v.Step() != SQLITE_ROW) return SqlError("reading the schema version");
    const int64_t version = v.ColInt(0);
    std::string reason;
    if (version != 0 && version != kSchemaVersion) {
      reason = "index schema version " + std::to_string(version) + " replaced by " + std::to_string(kSchemaVersion);
      if (Status s = Exec(kDropAll); !s.ok()) return s;
    }
    if (version != kSchemaVersion) {
      if (Status s = Exec(kSchema); !s.ok()) return s;
      if (Status s = Exec(("PRAGMA user_version = " + std::to_string(kSchemaVersion)).c_str()); !s.ok()) return s;
    }
    Result<std::string> chunker = Meta("chunker");
    if (!chunker.ok()) return chunker.status();
    const std::string wanted = ChunkerKey(options.chunker);
    if (!chunker->empty() && *chunker != wanted) {
      reason = "chunker settings changed from " + *chunker + " to " + wanted + " (words/overlap)";
      if (Status s = Exec("DELETE FROM chunks; DELETE FROM files;"); !s.ok()) return s;
    }
    if (Status s = SetMeta("chunker", wanted); !s.ok()) return s;
    // An index is of one corpus: another one's rows would only be wiped file by file.
    Result<std::string> corpus = Meta("corpus");
    if (!corpus.ok()) return corpus.status();
    if (!corpus->empty() && *corpus != corpus_real) {
      reason = "the index held another corpus folder";
      if (Status s = Exec("DELETE FROM chunks; DELETE FROM files;"); !s.ok()) return s;
    }
    if (Status s = SetMeta("corpus", corpus_real); !s.ok()) return s;
    return reason;
  }

  bool IsOwnFile(const fs::path& path) const {
    std::error_code ec;
    const fs::path own = fs::weakly_canonical(db_path, ec);
    const fs::path p = fs::weakly_canonical(path, ec);
    const std::string o = own.string();
    const std::string s = p.string();
    return s == o || s == o + "-journal" || s == o + "-wal" || s == o + "-shm";
  }

  Result<std::map<std::string, FileRow>> LoadFileRows() const {
    std::map<std::string, FileRow> rows;
    Stmt s(db, "SELECT path, size, mtime_ns, hash FROM files");
    if (!s.ok()) return SqlError("reading files");
    int rc;
    while ((rc = s.Step()) == SQLITE_ROW) rows[s.ColText(0)] = {s.ColInt(1), s.ColInt(2), s.ColText(3)};
    if (rc != SQLITE_DONE) return SqlError("reading files");
    return rows;
  }

  // Deletes a document's chunks (and its row); returns how many chunks went.
  Result<size_t> DeleteFile(const std::string& path) const {
    Stmt chunks(db, "DELETE FROM chunks WHERE path = ?1");
    Stmt file(db, "DELETE FROM files WHERE path = ?1");
    if (!chunks.ok() || !file.ok()) return SqlError("deleting '" + path + "'");
    chunks.Text(1, path);
    if (chunks.Step() != SQLITE_DONE) return SqlError("deleting the chunks of '" + path + "'");
    const size_t removed = static_cast<size_t>(sqlite3_changes(db));
    file.Text(1, path);
    if (file.Step() != SQLITE_DONE) return SqlError("deleting '" + path + "'");
    return removed;
  }

  Status WriteFileRow(const std::string& path, const CorpusFile& disk, const std::string& hash, size_t chunks) const {
    Stmt s(db, "INSERT OR REPLACE INTO files(path, size, mtime_ns, hash, chunks) VALUES (?1, ?2, ?3, ?4, ?5)");
    if (!s.ok()) return SqlError("writing files");
    s.Text(1, path);
    s.Int(2, disk.size);
    s.Int(3, disk.mtime_ns);
    s.Text(4, hash);
    s.Int(5, static_cast<int64_t>(chunks));
    return s.Step() == SQLITE_DONE ? Status::OK() : SqlError("writing the row of '" + path + "'");
  }

  Result<size_t> InsertChunks(const std::vector<Chunk>& chunks) const {
    Stmt s(db,
           "INSERT INTO chunks(path, heading, section, context, ordinal, begin_offset, end_offset, text) "
           "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)");
    if (!s.ok()) return SqlError("preparing the chunk insert");
    for (const Chunk& c : chunks) {
      // The section's own heading describes the chunk; the ancestors (the
      // document title first) are shared by many chunks and weigh less.
      const size_t cut = c.heading.rfind(kHeadingSeparator);
      const std::string section =
          cut == std::string::npos ? c.heading : c.heading.substr(cut + kHeadingSeparator.size());
      const std::string context = cut == std::string::npos ? std::string() : c.heading.substr(0, cut);
      s.Text(1, c.source);
      s.Text(2, c.heading);
      s.Text(3, section);
      s.Text(4, context);
      s.Int(5, c.ordinal);
      s.Int(6, static_cast<int64_t>(c.begin));
      s.Int(7, static_cast<int64_t>(c.end));
      s.Text(8, c.text);
      if (s.Step() != SQLITE_DONE) return SqlError("inserting a chunk of '" + c.source + "'");
      s.Reset();
    }
    return chunks.size();
  }

  // Embeds every chunk without a vector. After a model change, first clears
  // every vector so the corpus is re-embedded with one model.
  Result<size_t> EmbedMissing() {
    if (!embedder) return size_t{0};
    Result<std::string> model = Meta("embeddings_model");
    if (!model.ok()) return model.status();
    if (*model != options.embeddings_model) {
      if (Status s = Exec("UPDATE chunks SET embedding = NULL; DELETE FROM meta WHERE key = 'embeddings_dim';");
          !s.ok()) {
        return s;
      }
      if (Status s = SetMeta("embeddings_model", options.embeddings_model); !s.ok()) return s;
    }
    Result<std::string> stored_dim = Meta("embeddings_dim");
    if (!stored_dim.ok()) return stored_dim.status();
    size_t want_dim = std::strtoul(stored_dim->c_str(), nullptr, 10);  // 0 when unset

    std::vector<int64_t> ids;
    std::vector<std::string> inputs;
    {
      Stmt s(db, "SELECT id, heading, text FROM chunks WHERE embedding IS NULL ORDER BY id");
      if (!s.ok()) return SqlError("listing chunks to embed");
      int rc;
      while ((rc = s.Step()) == SQLITE_ROW) {
        ids.push_back(s.ColInt(0));
        inputs.push_back(EmbeddingInput(s.ColText(1), s.ColText(2)));
      }
      if (rc != SQLITE_DONE) return SqlError("listing chunks to embed");
    }
    Stmt update(db, "UPDATE chunks SET embedding = ?1 WHERE id = ?2");
    if (!update.ok()) return SqlError("preparing the embedding update");
    const size_t batch = static_cast<size_t>(std::max(1, options.embeddings_batch));
    for (size_t first = 0; first < inputs.size(); first += batch) {
      const size_t last = std::min(inputs.size(), first + batch);
      std::vector<std::string> texts(inputs.begin() + first, inputs.begin() + last);
      Result<std::vector<Embedding>> vectors = embedder->Embed(texts);
      if (!vectors.ok()) {
        return vectors.status().WithContext("indexing '" + corpus_dir + "' (nothing was written; fix the server or "
                                            "clear embeddings_url for BM25 only)");
      }
      for (size_t i = 0; i < vectors->size(); ++i) {
        const Embedding& e = (*vectors)[i];
        if (want_dim == 0) want_dim = e.size();
        if (e.size() != want_dim) {
          return Status::FailedPrecondition("embeddings for '" + corpus_dir + "' have " + std::to_string(e.size()) +
                                            " dimensions, the index holds " + std::to_string(want_dim) +
                                            "; the model changed under the same name: set another embeddings_model "
                                            "or delete '" + db_path + "'");
        }
        update.Blob(1, e.data(), e.size() * sizeof(float));
        update.Int(2, ids[first + i]);
        if (update.Step() != SQLITE_DONE) return SqlError("storing an embedding");
        update.Reset();
      }
    }
    if (want_dim > 0) {
      if (Status s = SetMeta("embeddings_dim", std::to_string(want_dim)); !s.ok()) return s;
    }
    return ids.size();
  }

  Status LoadVectors() {
    vector_ids.clear();
    vectors.clear();
    dim = 0;
    if (!embedder) return Status::OK();
    Stmt s(db, "SELECT id, embedding FROM chunks WHERE embedding IS NOT NULL ORDER BY id");
    if (!s.ok()) return SqlError("loading embeddings");
    int rc;
    Embedding e;
    while ((rc = s.Step()) == SQLITE_ROW) {
      std::string_view blob = s.ColBlob(1);
      const size_t n = blob.size() / sizeof(float);
      if (n == 0 || (dim != 0 && n != dim)) continue;  // cannot happen: EmbedMissing keeps one dimension
      dim = n;
      e.resize(n);
      std::memcpy(e.data(), blob.data(), n * sizeof(float));
      NormalizeEmbedding(e);
      vector_ids.push_back(s.ColInt(0));
      vectors.insert(vectors.end(), e.begin(), e.end());
    }
    return rc == SQLITE_DONE ? Status::OK() : SqlError("loading embeddings");
  }

  Result<RagUpdate> UpdateLocked() {
    RagUpdate update;
    if (Status s = Exec("BEGIN IMMEDIATE"); !s.ok()) {
      return Status::FailedPrecondition(s.message() + "; if the file is not a medreact index, delete it to rebuild");
    }
    Result<RagUpdate> result = ApplyChanges(update);
    if (!result.ok()) {
      (void)Exec("ROLLBACK");
      return result.status();
    }
    if (Status s = Exec("COMMIT"); !s.ok()) {
      (void)Exec("ROLLBACK");
      return s;
    }
    if (vectors.empty() || result->changed() || !result->rebuild_reason.empty()) {
      if (Status s = LoadVectors(); !s.ok()) return s;
    }
    last = *result;
    return result;
  }

  Result<RagUpdate> ApplyChanges(RagUpdate& update) {
    Result<std::string> reason = EnsureSchema();
    if (!reason.ok()) return reason.status();
    update.rebuild_reason = *reason;
    const std::map<std::string, CorpusFile> disk =
        ScanCorpus(corpus_dir, corpus_real, [this](const fs::path& p) { return IsOwnFile(p); }, update.warnings);
    Result<std::map<std::string, FileRow>> rows = LoadFileRows();
    if (!rows.ok()) return rows.status();
    update.files_scanned = disk.size();

    for (const auto& [path, file] : disk) {
      auto row = rows->find(path);
      if (row != rows->end() && row->second.size == file.size && row->second.mtime_ns == file.mtime_ns) {
        ++update.files_unchanged;
        continue;
      }
      Result<std::string> text = ReadCorpusFile(file, corpus_real);
      if (!text.ok()) {
        update.warnings.push_back("skipped '" + path + "': " + text.status().message());
        if (row != rows->end()) {  // what can no longer be read safely leaves the index
          Result<size_t> removed = DeleteFile(path);
          if (!removed.ok()) return removed.status();
          update.chunks_removed += *removed;
          ++update.files_removed;
        }
        continue;
      }
      const std::string hash = Fnv1a64(*text);
      if (row != rows->end() && row->second.hash == hash) {
        ++update.files_touched;
        Stmt touch(db, "UPDATE files SET size = ?2, mtime_ns = ?3 WHERE path = ?1");
        if (!touch.ok()) return SqlError("updating '" + path + "'");
        touch.Text(1, path);
        touch.Int(2, file.size);
        touch.Int(3, file.mtime_ns);
        if (touch.Step() != SQLITE_DONE) return SqlError("updating '" + path + "'");
        continue;
      }
      if (row != rows->end()) {
        Result<size_t> removed = DeleteFile(path);
        if (!removed.ok()) return removed.status();
        update.chunks_removed += *removed;
        ++update.files_changed;
      } else {
        ++update.files_added;
      }
      const std::vector<Chunk> chunks = ChunkDocument(*text, path, options.chunker);
      Result<size_t> added = InsertChunks(chunks);
      if (!added.ok()) return added.status();
      update.chunks_added += *added;
      if (Status s = WriteFileRow(path, file, hash, chunks.size()); !s.ok()) return s;
    }
    for (const auto& [path, row] : *rows) {
      if (disk.count(path)) continue;
      Result<size_t> removed = DeleteFile(path);
      if (!removed.ok()) return removed.status();
      update.chunks_removed += *removed;
      ++update.files_removed;
    }
    Result<size_t> embedded = EmbedMissing();
    if (!embedded.ok()) return embedded.status();
    update.chunks_embedded = *embedded;
    return update;
  }

  // Top `limit` chunk ids by cosine similarity to `query` (unit vector).
  std::vector<int64_t> VectorRanking(const Embedding& query, size_t limit) const {
    const size_t n = vector_ids.size();
    std::vector<std::pair<float, size_t>> scored(n);
    for (size_t i = 0; i < n; ++i) {
      const float* v = vectors.data() + i * dim;
      // Eight partial sums: the compiler may not reorder a float reduction,
      // but independent lanes vectorise and pipeline.
      float lane[8] = {0, 0, 0, 0, 0, 0, 0, 0};
      size_t d = 0;
      for (; d + 8 <= dim; d += 8) {
        for (size_t j = 0; j < 8; ++j) lane[j] += v[d + j] * query[d + j];
      }
      float dot = ((lane[0] + lane[1]) + (lane[2] + lane[3])) + ((lane[4] + lane[5]) + (lane[6] + lane[7]));
      for (; d < dim; ++d) dot += v[d] * query[d];
      scored[i] = {dot, i};
    }
    limit = std::min(limit, n);
    std::partial_sort(scored.begin(), scored.begin() + static_cast<long>(limit), scored.end(),
                      [](const auto& a, const auto& b) {
                        return a.first > b.first || (a.first == b.first && a.second < b.second);
                      });
    std::vector<int64_t> ids;
    for (size_t i = 0; i < limit; ++i) ids.push_back(vector_ids[scored[i].second]);
    return ids;
  }

  Status Bm25(const std::string& match, size_t limit, std::vector<std::pair<int64_t, RagHit>>& out) const {
    Stmt s(db, kBm25Sql);
    if (!s.ok()) return SqlError("preparing the search");
    s.Text(1, match);
    s.Int(2, static_cast<int64_t>(limit));
    int rc;
    while ((rc = s.Step()) == SQLITE_ROW) {
      RagHit hit;
      hit.source = s.ColText(1);
      hit.heading = s.ColText(2);
      hit.ordinal = static_cast<int>(s.ColInt(3));
      hit.text = s.ColText(4);
      hit.score = -s.ColDouble(5);
      out.emplace_back(s.ColInt(0), std::move(hit));
    }
    return rc == SQLITE_DONE ? Status::OK() : SqlError("searching '" + Preview(match, 80) + "'");
  }

  Result<RagHit> ChunkById(int64_t id) const {
    Stmt s(db, "SELECT path, heading, ordinal, text FROM chunks WHERE id = ?1");
    if (!s.ok()) return SqlError("reading a chunk");
    s.Int(1, id);
    if (s.Step() != SQLITE_ROW) return SqlError("reading chunk " + std::to_string(id));
    RagHit hit;
    hit.source = s.ColText(0);
    hit.heading = s.ColText(1);
    hit.ordinal = static_cast<int>(s.ColInt(2));
    hit.text = s.ColText(3);
    return hit;
  }

  size_t CountRows(const char* sql) const {
    std::lock_guard<std::mutex> lock(mu);
    Stmt s(db, sql);
    return s.ok() && s.Step() == SQLITE_ROW ? static_cast<size_t>(s.ColInt(0)) : 0;
  }
};

RagIndex::RagIndex(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
RagIndex::RagIndex(RagIndex&&) noexcept = default;
RagIndex& RagIndex::operator=(RagIndex&&) noexcept = default;
RagIndex::~RagIndex() = default;

Result<RagIndex> RagIndex::Open(const std::string& corpus_dir, RagOptions options) {
  std::error_code ec;
  if (!fs::is_directory(corpus_dir, ec)) {
    return Status::NotFound("RAG corpus '" + corpus_dir +
                            "' is not a folder; pass the folder holding the .md/.txt guidelines");
  }
  auto impl = std::make_unique<Impl>();
  impl->corpus_dir = corpus_dir;
  impl->corpus_real = fs::canonical(corpus_dir, ec).string();
  if (ec) return Status::NotFound("RAG corpus '" + corpus_dir + "': " + ec.message());
  const bool default_location = options.db_path.empty();
  if (!default_location) {
    if (Status s = CheckRegularOrNew(options.db_path, "RAG index (rag_db)"); !s.ok()) return s;
  }
  if (default_location) {
    Result<std::string> path = DefaultRagDbPath(corpus_dir);
    if (!path.ok()) return path.status();
    impl->db_path = *path;
    if (Status s = PrepareCacheFolder(fs::path(impl->db_path).parent_path()); !s.ok()) return s;
  } else {
    impl->db_path = options.db_path;
  }
  if (Status s = PrepareDatabaseFile(impl->db_path, default_location); !s.ok()) return s;
  if (!options.embeddings_url.empty()) {
    impl->embedder.emplace(EmbeddingsClientOptions{.base_url = options.embeddings_url,
                                                   .model = options.embeddings_model,
                                                   .api_key = options.api_key,
                                                   .transport = options.transport,
                                                   .timeout = options.embeddings_timeout});
  }
  impl->options = std::move(options);
  if (Status s = impl->OpenDatabase(); !s.ok()) return s;
  {
    std::lock_guard<std::mutex> lock(impl->mu);
    Result<RagUpdate> update = impl->UpdateLocked();
    if (!update.ok()) return update.status();
  }
  return RagIndex(std::move(impl));
}

Result<RagUpdate> RagIndex::Refresh() {
  std::lock_guard<std::mutex> lock(impl_->mu);
  return impl_->UpdateLocked();
}

Result<RagSearch> RagIndex::Search(std::string_view query, int k, const CancellationToken& cancel) const {
  if (k < 1 || k > 100) return Status::InvalidArgument("k must be between 1 and 100, got " + std::to_string(k));
  const Impl& impl = *impl_;
  RagSearch result;
  result.mode = "bm25";
  result.match = BuildFtsQuery(query);

  // The query's vector, fetched before taking the lock (network).
  std::optional<Embedding> query_vector;
  bool vectors_present;
  {
    std::lock_guard<std::mutex> lock(impl.mu);
    vectors_present = !impl.vector_ids.empty();
  }
  if (impl.embedder && vectors_present && !TrimView(query).empty()) {
    Result<std::vector<Embedding>> v =
        impl.embedder->Embed({std::string(query)}, cancel, impl.options.query_embedding_timeout);
    if (v.ok()) {
      query_vector = std::move(v->front());
      NormalizeEmbedding(*query_vector);
    } else {
      result.warning = "embeddings unavailable, BM25 only: " + v.status().message();
    }
  }

  std::lock_guard<std::mutex> lock(impl.mu);
  if (query_vector && query_vector->size() != impl.dim) {
    result.warning = "the query embedding has " + std::to_string(query_vector->size()) +
                     " dimensions but the index holds " + std::to_string(impl.dim) + "; BM25 only";
    query_vector.reset();
  }
  const bool hybrid = query_vector.has_value();
  const size_t candidates = hybrid ? std::max<size_t>(k, impl.options.fusion_candidates) : static_cast<size_t>(k);

  std::vector<std::pair<int64_t, RagHit>> bm25;
  if (!result.match.empty()) {
    if (Status s = impl.Bm25(result.match, candidates, bm25); !s.ok()) return s;
  } else if (!hybrid) {
    if (result.warning.empty()) {
      result.warning = "the query has no searchable words; use guideline terms, e.g. \"GLIM phenotypic criteria\"";
    }
    return result;
  }

  if (!hybrid) {
    for (auto& [id, hit] : bm25) {
      hit.rank = static_cast<int>(result.hits.size()) + 1;
      result.hits.push_back(std::move(hit));
    }
    return result;
  }

  // Reciprocal rank fusion of the two rankings.
  result.mode = "hybrid";
  const std::vector<int64_t> by_vector = impl.VectorRanking(*query_vector, candidates);
  struct Fused {
    double score = 0;
    int bm25_rank = 0;
    int vector_rank = 0;
    std::optional<RagHit> hit;
  };
  std::unordered_map<int64_t, Fused> fused;
  const double rrf_k = impl.options.rrf_k;
  for (size_t i = 0; i < bm25.size(); ++i) {
    Fused& f = fused[bm25[i].first];
    f.score += 1.0 / (rrf_k + static_cast<double>(i + 1));
    f.bm25_rank = static_cast<int>(i + 1);
    f.hit = std::move(bm25[i].second);
  }
  for (size_t i = 0; i < by_vector.size(); ++i) {
    Fused& f = fused[by_vector[i]];
    f.score += 1.0 / (rrf_k + static_cast<double>(i + 1));
    f.vector_rank = static_cast<int>(i + 1);
  }
  std::vector<std::pair<int64_t, Fused*>> order;
  for (auto& [id, f] : fused) order.emplace_back(id, &f);
  // Ties: better best rank first, then lower id (stable across runs).
  std::sort(order.begin(), order.end(), [](const auto& a, const auto& b) {
    if (a.second->score != b.second->score) return a.second->score > b.second->score;
    auto best = [](const Fused* f) {
      int r = std::numeric_limits<int>::max();
      if (f->bm25_rank) r = std::min(r, f->bm25_rank);
      if (f->vector_rank) r = std::min(r, f->vector_rank);
      return r;
    };
    if (best(a.second) != best(b.second)) return best(a.second) < best(b.second);
    return a.first < b.first;
  });
  for (const auto& [id, f] : order) {
    if (result.hits.size() == static_cast<size_t>(k)) break;
    RagHit hit;
    if (f->hit) {
      hit = std::move(*f->hit);
    } else {
      Result<RagHit> h = impl.ChunkById(id);
      if (!h.ok()) return h.status();
      hit = std::move(*h);
    }
    hit.score = f->score;
    hit.bm25_rank = f->bm25_rank;
    hit.vector_rank = f->vector_rank;
    hit.rank = static_cast<int>(result.hits.size()) + 1;
    result.hits.push_back(std::move(hit));
  }
  return result;
}

RagUpdate RagIndex::last_update() const {
  std::lock_guard<std::mutex> lock(impl_->mu);
  return impl_->last;
}
size_t RagIndex::chunk_count() const { return impl_->CountRows("SELECT COUNT(*) FROM chunks"); }
size_t RagIndex::file_count() const { return impl_->CountRows("SELECT COUNT(*) FROM files"); }
bool RagIndex::hybrid() const {
  std::lock_guard<std::mutex> lock(impl_->mu);
  return impl_->embedder.has_value() && !impl_->vector_ids.empty();
}
const std::string& RagIndex::db_path() const { return impl_->db_path; }
const std::string& RagIndex::corpus_dir() const { return impl_->corpus_dir; }

}  // namespace medreact

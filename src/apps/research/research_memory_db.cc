// The research memory's SQLite file: creation, schema check, rows to structs
// and back. See research_memory_db.h.
#include "apps/research/research_memory_db.h"

#include <fcntl.h>
#include <sqlite3.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <utility>

#include "core/sqlite_stmt.h"
#include "core/text_util.h"
#include "medreact/json.h"

namespace medreact {
namespace {

constexpr char kKind[] = "medreact-research-memory";

constexpr const char* kSchema = R"sql(
CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE evidence(
  seq INTEGER PRIMARY KEY, key TEXT NOT NULL UNIQUE, id TEXT NOT NULL, url TEXT NOT NULL,
  title TEXT NOT NULL, abstract TEXT NOT NULL, authors TEXT NOT NULL, year INTEGER NOT NULL,
  source TEXT NOT NULL, type TEXT NOT NULL, citation TEXT NOT NULL, peer_reviewed INTEGER NOT NULL,
  other_ids TEXT NOT NULL, embedding BLOB);
CREATE TABLE hypotheses(
  seq INTEGER PRIMARY KEY, drug TEXT NOT NULL, target TEXT NOT NULL, pathway TEXT NOT NULL,
  effect TEXT NOT NULL, confidence REAL NOT NULL, statement TEXT NOT NULL, evidence TEXT NOT NULL);
CREATE TABLE conflicts(
  seq INTEGER PRIMARY KEY, description TEXT NOT NULL, evidence TEXT NOT NULL, resolution TEXT NOT NULL);
)sql";

}  // namespace

namespace {

std::string StringsToJson(const std::vector<std::string>& items) { return DumpJson(Json(items)); }

// A JSON array of strings from a column, or nullopt when it is not one.
std::optional<std::vector<std::string>> StringsFromJson(const std::string& text) {
  Result<Json> j = ParseJson(text);
  if (!j.ok() || !j->is_array()) return std::nullopt;
  std::vector<std::string> out;
  for (const Json& item : *j) {
    if (!item.is_string()) return std::nullopt;
    out.push_back(item.get<std::string>());
  }
  return out;
}

}  // namespace

struct MemoryDb::Impl {
  std::string path;  // "" in memory
  sqlite3* db = nullptr;
  std::unique_ptr<Stmt> insert_evidence, update_evidence, set_embedding, insert_hypothesis, insert_conflict,
      set_meta;

  ~Impl() {
    // Statements before the connection.
    insert_evidence.reset();
    update_evidence.reset();
    set_embedding.reset();
    insert_hypothesis.reset();
    insert_conflict.reset();
    set_meta.reset();
    if (db) sqlite3_close(db);
  }

  std::string Where() const {
    return path.empty() ? std::string("the in-memory research memory") : "research memory '" + path + "'";
  }

  // The connection's last error as a Status naming the file and, for the
  // cases a user can act on, what to do.
  Status Error(const std::string& what) const {
    const int code = db ? (sqlite3_errcode(db) & 0xff) : SQLITE_CANTOPEN;
    const std::string detail = db ? sqlite3_errmsg(db) : "out of memory";
    switch (code) {
      case SQLITE_NOTADB:
        return Status::FailedPrecondition(Where() + " is not a SQLite database (" + detail +
                                          "); pass the path of a research memory or of a new file");
      case SQLITE_CORRUPT:
        return Status::FailedPrecondition(Where() + " is damaged (" + detail + "); move it away and start anew");
      case SQLITE_BUSY:
      case SQLITE_LOCKED:
        return Status::Unavailable(Where() + " is in use by another process (" + detail + "); try again");
      case SQLITE_READONLY:
      case SQLITE_CANTOPEN:
      case SQLITE_IOERR:
      case SQLITE_FULL:
      case SQLITE_PERM:
        return Status::Unavailable(Where() + ": " + what + ": " + detail);
      default:
        return Status::Internal(Where() + ": " + what + ": " + detail);
    }
  }

  Status Exec(const char* sql, const std::string& what) const {
    if (sqlite3_exec(db, sql, nullptr, nullptr, nullptr) != SQLITE_OK) return Error(what);
    return Status::OK();
  }

  // The statement, prepared at its first use.
  Result<Stmt*> Prepared(std::unique_ptr<Stmt>& slot, const char* sql) {
    if (!slot) {
      auto s = std::make_unique<Stmt>(db, sql);
      if (!s->ok()) return Error("preparing a statement");
      slot = std::move(s);
    }
    slot->Reset();
    return slot.get();
  }

  Result<std::string> Meta(const std::string& key) const {
    Stmt s(db, "SELECT value FROM meta WHERE key = ?1");
    if (!s.ok()) return Error("reading meta");
    s.Text(1, key);
    const int rc = s.Step();
    if (rc == SQLITE_ROW) return s.ColText(0);
    if (rc == SQLITE_DONE) return std::string();
    return Error("reading meta");
  }

  Result<int64_t> Count(const char* sql) const {
    Stmt s(db, sql);
    if (!s.ok() || s.Step() != SQLITE_ROW) return Error("reading the schema");
    return s.ColInt(0);
  }

  Status NotOurs(const std::string& why) const {
    return Status::FailedPrecondition(Where() + " is a SQLite database but not a medreact research memory (" + why +
                                      "); pass the path of a research memory or of a new file");
  }
  Status Damaged(const std::string& what) const {
    return Status::FailedPrecondition(Where() + " is damaged: " + what + "; move it away and start anew");
  }
};

MemoryDb::MemoryDb(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
MemoryDb::~MemoryDb() = default;

Result<std::unique_ptr<MemoryDb>> MemoryDb::Open(const std::string& path) {
  auto impl = std::make_unique<Impl>();
  impl->path = path;
  if (!path.empty()) {
    struct stat st;
    if (::stat(path.c_str(), &st) == 0) {
      if (!S_ISREG(st.st_mode)) {
        return Status::InvalidArgument("research memory path '" + path + "' is " +
                                       (S_ISDIR(st.st_mode) ? "a folder" : "not a regular file") +
                                       "; pass the path of a file");
      }
    } else {
      // New: created private (the question may be about a patient).
      const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
      if (fd < 0 && errno != EEXIST) {
        return Status::Unavailable("cannot create the research memory '" + path + "': " + std::strerror(errno) +
                                   "; choose a writable path");
      }
      if (fd >= 0) ::close(fd);
    }
  }
  const std::string name = path.empty() ? std::string(":memory:") : path;
  if (sqlite3_open_v2(name.c_str(), &impl->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX,
                      nullptr) != SQLITE_OK) {
    return impl->Error("opening");
  }
  sqlite3_busy_timeout(impl->db, 10'000);
  if (Status s = impl->Exec("PRAGMA synchronous = NORMAL", "setting synchronous"); !s.ok()) return s;
  return std::unique_ptr<MemoryDb>(new MemoryDb(std::move(impl)));
}

Status MemoryDb::EnableWal() {
  if (impl_->path.empty()) return Status::OK();
  Stmt wal(impl_->db, "PRAGMA journal_mode = WAL");
  if (!wal.ok() || wal.Step() != SQLITE_ROW) return impl_->Error("setting the journal mode");
  return Status::OK();
}

Status MemoryDb::Begin() { return impl_->Exec("BEGIN IMMEDIATE", "starting a transaction"); }
Status MemoryDb::Commit() {
  if (Status s = impl_->Exec("COMMIT", "committing"); !s.ok()) {
    Rollback();
    return s;
  }
  return Status::OK();
}
void MemoryDb::Rollback() {
  if (!sqlite3_get_autocommit(impl_->db)) sqlite3_exec(impl_->db, "ROLLBACK", nullptr, nullptr, nullptr);
}

Result<bool> MemoryDb::EnsureSchema(const std::string& query) {
  Impl& d = *impl_;
  Result<int64_t> tables = d.Count("SELECT count(*) FROM sqlite_master");
  if (!tables.ok()) return tables.status();
  if (*tables == 0) {
    if (IsBlank(query)) {
      return Status::InvalidArgument("a new research memory needs its research question (" + d.Where() + ")");
    }
    if (Status s = d.Exec(kSchema, "creating the schema"); !s.ok()) return s;
    for (const auto& [key, value] : {std::pair<std::string, std::string>{"kind", kKind},
                                     {"schema_version", std::to_string(kResearchMemorySchemaVersion)},
                                     {"query", query},
                                     {"iteration", "0"}}) {
      if (Status s = SetMeta(key, value); !s.ok()) return s;
    }
    return true;
  }
  Result<int64_t> meta = d.Count("SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'meta'");
  if (!meta.ok()) return meta.status();
  if (*meta == 0) return d.NotOurs("it has no meta table");
  Result<std::string> kind = d.Meta("kind");
  if (!kind.ok()) return kind.status();
  if (*kind != kKind) return d.NotOurs("its kind is '" + Preview(*kind, 40) + "'");
  Result<std::string> version = d.Meta("schema_version");
  if (!version.ok()) return version.status();
  char* end = nullptr;
  const long v = std::strtol(version->c_str(), &end, 10);
  if (version->empty() || *end != '\0' || v < 1)
    return d.Damaged("its schema version is '" + Preview(*version, 20) + "'");
  if (v > kResearchMemorySchemaVersion) {
    return Status::FailedPrecondition(d.Where() + " was written by a newer medreact (schema version " +
                                      std::to_string(v) + "; this one reads " +
                                      std::to_string(kResearchMemorySchemaVersion) + ")");
  }
  return false;
}

Result<MemoryContents> MemoryDb::Load() {
  Impl& d = *impl_;
  MemoryContents out;
  Result<std::string> query = d.Meta("query");
  if (!query.ok()) return query.status();
  out.query = *query;
  Result<std::string> iteration = d.Meta("iteration");
  if (!iteration.ok()) return iteration.status();
  char* end = nullptr;
  const long it = std::strtol(iteration->c_str(), &end, 10);
  if (iteration->empty() || *end != '\0' || it < 0 || it > 1'000'000'000) {
    return d.Damaged("its iteration count is '" + Preview(*iteration, 20) + "'");
  }
  out.iteration = static_cast<int>(it);
  {
    Stmt s(d.db, "SELECT value FROM meta WHERE key = 'embeddings_model'");
    if (!s.ok()) return d.Error("reading meta");
    const int rc = s.Step();
    if (rc == SQLITE_ROW) {
      out.has_embeddings_model = true;
      out.embeddings_model = s.ColText(0);
    } else if (rc != SQLITE_DONE) {
      return d.Error("reading meta");
    }
  }

  Stmt ev(d.db,
          "SELECT seq, key, id, url, title, abstract, authors, year, source, type, citation, peer_reviewed, "
          "other_ids, embedding FROM evidence ORDER BY seq");
  if (!ev.ok()) return d.Error("reading evidence");
  int rc;
  while ((rc = ev.Step()) == SQLITE_ROW) {
    StoredEvidence row;
    row.seq = ev.ColInt(0);
    row.key = ev.ColText(1);
    Evidence& e = row.evidence;
    e.id = ev.ColText(2);
    e.url = ev.ColText(3);
    e.title = ev.ColText(4);
    e.abstract = ev.ColText(5);
    auto authors = StringsFromJson(ev.ColText(6));
    auto other_ids = StringsFromJson(ev.ColText(12));
    if (!authors || !other_ids) {
      return d.Damaged("evidence row " + std::to_string(row.seq) + " holds a malformed authors or identifier list");
    }
    e.authors = std::move(*authors);
    const int64_t year = ev.ColInt(7);
    e.year = year > 0 && year < 10'000 ? static_cast<int>(year) : 0;
    e.source = EvidenceSourceFromName(ev.ColText(8)).value_or(EvidenceSource::kOther);
    e.type = ev.ColText(9);
    e.citation = ev.ColText(10);
    e.peer_reviewed = ev.ColInt(11) != 0;
    e.other_ids = std::move(*other_ids);
    const std::string_view blob = ev.ColBlob(13);
    if (!blob.empty() && blob.size() % sizeof(float) == 0) {
      row.vector.resize(blob.size() / sizeof(float));
      std::memcpy(row.vector.data(), blob.data(), blob.size());
    }
    out.evidence.push_back(std::move(row));
  }
  if (rc != SQLITE_DONE) return d.Error("reading evidence");

  Stmt hy(d.db,
          "SELECT seq, drug, target, pathway, effect, confidence, statement, evidence FROM hypotheses ORDER BY seq");
  if (!hy.ok()) return d.Error("reading hypotheses");
  while ((rc = hy.Step()) == SQLITE_ROW) {
    Hypothesis h{.drug = hy.ColText(1),
                 .target = hy.ColText(2),
                 .pathway = hy.ColText(3),
                 .effect = hy.ColText(4),
                 .confidence = hy.ColDouble(5),
                 .statement = hy.ColText(6)};
    auto evidence = StringsFromJson(hy.ColText(7));
    if (!evidence) return d.Damaged("hypothesis row " + std::to_string(hy.ColInt(0)) + " holds a malformed list");
    h.evidence = std::move(*evidence);
    out.hypotheses.push_back(std::move(h));
  }
  if (rc != SQLITE_DONE) return d.Error("reading hypotheses");

  Stmt co(d.db, "SELECT seq, description, evidence, resolution FROM conflicts ORDER BY seq");
  if (!co.ok()) return d.Error("reading conflicts");
  while ((rc = co.Step()) == SQLITE_ROW) {
    auto evidence = StringsFromJson(co.ColText(2));
    if (!evidence) return d.Damaged("conflict row " + std::to_string(co.ColInt(0)) + " holds a malformed list");
    out.conflicts.push_back(
        {.description = co.ColText(1), .evidence = std::move(*evidence), .resolution = co.ColText(3)});
  }
  if (rc != SQLITE_DONE) return d.Error("reading conflicts");
  return out;
}

namespace {

// Parameters ?2..?12 of the insert and the update: the record's fields, in one place.
void BindEvidence(Stmt& st, const Evidence& e) {
  st.Text(2, e.id);
  st.Text(3, e.url);
  st.Text(4, e.title);
  st.Text(5, e.abstract);
  st.Text(6, StringsToJson(e.authors));
  st.Int(7, e.year);
  st.Text(8, EvidenceSourceName(e.source));
  st.Text(9, e.type);
  st.Text(10, e.citation);
  st.Int(11, e.peer_reviewed ? 1 : 0);
  st.Text(12, StringsToJson(e.other_ids));
}

}  // namespace

Result<int64_t> MemoryDb::InsertEvidence(const std::string& key, const Evidence& e, const Embedding& vector) {
  Result<Stmt*> s = impl_->Prepared(
      impl_->insert_evidence,
      "INSERT INTO evidence(key, id, url, title, abstract, authors, year, source, type, citation, peer_reviewed, "
      "other_ids, embedding) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)");
  if (!s.ok()) return s.status();
  Stmt& st = **s;
  st.Text(1, key);
  BindEvidence(st, e);
  if (vector.empty()) {
    st.Null(13);
  } else {
    st.Blob(13, vector.data(), vector.size() * sizeof(float));
  }
  if (st.Step() != SQLITE_DONE) return impl_->Error("storing evidence");
  return static_cast<int64_t>(sqlite3_last_insert_rowid(impl_->db));
}

Status MemoryDb::UpdateEvidence(int64_t seq, const Evidence& e) {
  Result<Stmt*> s = impl_->Prepared(
      impl_->update_evidence,
      "UPDATE evidence SET id = ?2, url = ?3, title = ?4, abstract = ?5, authors = ?6, year = ?7, source = ?8, "
      "type = ?9, citation = ?10, peer_reviewed = ?11, other_ids = ?12 WHERE seq = ?1");
  if (!s.ok()) return s.status();
  Stmt& st = **s;
  st.Int(1, seq);
  BindEvidence(st, e);
  return st.Step() == SQLITE_DONE ? Status::OK() : impl_->Error("updating evidence");
}

Status MemoryDb::SetEmbedding(int64_t seq, const Embedding& vector) {
  Result<Stmt*> s = impl_->Prepared(impl_->set_embedding, "UPDATE evidence SET embedding = ?2 WHERE seq = ?1");
  if (!s.ok()) return s.status();
  Stmt& st = **s;
  st.Int(1, seq);
  if (vector.empty()) {
    st.Null(2);
  } else {
    st.Blob(2, vector.data(), vector.size() * sizeof(float));
  }
  return st.Step() == SQLITE_DONE ? Status::OK() : impl_->Error("storing an embedding");
}

Status MemoryDb::ClearEmbeddings() {
  return impl_->Exec("UPDATE evidence SET embedding = NULL", "clearing embeddings");
}

Status MemoryDb::InsertHypothesis(const Hypothesis& h) {
  Result<Stmt*> s = impl_->Prepared(impl_->insert_hypothesis,
                                    "INSERT INTO hypotheses(drug, target, pathway, effect, confidence, statement, "
                                    "evidence) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)");
  if (!s.ok()) return s.status();
  Stmt& st = **s;
  st.Text(1, h.drug);
  st.Text(2, h.target);
  st.Text(3, h.pathway);
  st.Text(4, h.effect);
  st.Double(5, h.confidence);
  st.Text(6, h.statement);
  st.Text(7, StringsToJson(h.evidence));
  return st.Step() == SQLITE_DONE ? Status::OK() : impl_->Error("storing a hypothesis");
}

Status MemoryDb::InsertConflict(const Conflict& c) {
  Result<Stmt*> s = impl_->Prepared(impl_->insert_conflict,
                                    "INSERT INTO conflicts(description, evidence, resolution) VALUES (?1, ?2, ?3)");
  if (!s.ok()) return s.status();
  Stmt& st = **s;
  st.Text(1, c.description);
  st.Text(2, StringsToJson(c.evidence));
  st.Text(3, c.resolution);
  return st.Step() == SQLITE_DONE ? Status::OK() : impl_->Error("storing a conflict");
}

Status MemoryDb::SetMeta(const std::string& key, const std::string& value) {
  Result<Stmt*> s = impl_->Prepared(
      impl_->set_meta,
      "INSERT INTO meta(key, value) VALUES (?1, ?2) ON CONFLICT(key) DO UPDATE SET value = excluded.value");
  if (!s.ok()) return s.status();
  Stmt& st = **s;
  st.Text(1, key);
  st.Text(2, value);
  return st.Step() == SQLITE_DONE ? Status::OK() : impl_->Error("writing meta");
}

Status MemoryDb::ClearContents() {
  return impl_->Exec("DELETE FROM evidence; DELETE FROM hypotheses; DELETE FROM conflicts;", "clearing the memory");
}

}  // namespace medreact

// Stmt: one prepared SQLite statement, finalised when it goes out of scope,
// with the few bind and column calls medreact's SQLite files use (the run
// store, the RAG index, the literature cache, the research memory). Text and
// blobs are bound SQLITE_TRANSIENT (copied), so the caller's buffers need not
// outlive the call. Not thread-safe: a statement belongs to its connection's
// user.
//
// Header-only and in core so that every layer with a SQLite file (store,
// tools, apps) shares this one copy; core itself does not link SQLite, the
// targets that include this header do.
#ifndef MEDREACT_CORE_SQLITE_STMT_H_
#define MEDREACT_CORE_SQLITE_STMT_H_

#include <sqlite3.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>

namespace medreact {

// A connection's prepared statements by their SQL, for those run over and
// over (the run store's checkpoint runs the same few several times a step:
// parsing them each time was a fifth of SQLite's time there). Destroy it
// before the connection is closed (it finalises them). Not thread-safe.
class StmtCache {
 public:
  explicit StmtCache(sqlite3* db) : db_(db) {}
  ~StmtCache() {
    for (auto& [sql, stmt] : stmts_) sqlite3_finalize(stmt);
  }
  StmtCache(const StmtCache&) = delete;
  StmtCache& operator=(const StmtCache&) = delete;

  // The statement for `sql`, prepared at its first use; null with `*rc` set
  // when it cannot be prepared.
  sqlite3_stmt* Get(const char* sql, int* rc) {
    auto it = stmts_.find(sql);
    if (it != stmts_.end()) {
      *rc = SQLITE_OK;
      return it->second;
    }
    sqlite3_stmt* stmt = nullptr;
    *rc = sqlite3_prepare_v3(db_, sql, -1, SQLITE_PREPARE_PERSISTENT, &stmt, nullptr);
    if (*rc != SQLITE_OK) {
      sqlite3_finalize(stmt);
      return nullptr;
    }
    stmts_.emplace(sql, stmt);
    return stmt;
  }

 private:
  sqlite3* db_;
  std::unordered_map<std::string, sqlite3_stmt*> stmts_;
};

class Stmt {
 public:
  Stmt(sqlite3* db, const char* sql) { rc_ = sqlite3_prepare_v2(db, sql, -1, &stmt_, nullptr); }
  // Borrows the cache's statement; gives it back reset and unbound.
  Stmt(StmtCache& cache, const char* sql) : borrowed_(true) { stmt_ = cache.Get(sql, &rc_); }
  ~Stmt() {
    if (!borrowed_) {
      sqlite3_finalize(stmt_);
    } else if (stmt_) {
      sqlite3_reset(stmt_);
      sqlite3_clear_bindings(stmt_);
    }
  }
  Stmt(const Stmt&) = delete;
  Stmt& operator=(const Stmt&) = delete;

  bool ok() const { return rc_ == SQLITE_OK; }
  void Text(int i, std::string_view s) {
    sqlite3_bind_text(stmt_, i, s.data(), static_cast<int>(s.size()), SQLITE_TRANSIENT);
  }
  void Int(int i, int64_t v) { sqlite3_bind_int64(stmt_, i, v); }
  void Double(int i, double v) { sqlite3_bind_double(stmt_, i, v); }
  void Null(int i) { sqlite3_bind_null(stmt_, i); }
  void Blob(int i, const void* data, size_t n) {
    sqlite3_bind_blob(stmt_, i, data, static_cast<int>(n), SQLITE_TRANSIENT);
  }
  // SQLITE_ROW, SQLITE_DONE or an error code.
  int Step() { return sqlite3_step(stmt_); }
  void Reset() {
    sqlite3_reset(stmt_);
    sqlite3_clear_bindings(stmt_);
  }
  std::string ColText(int c) const {
    const auto* p = reinterpret_cast<const char*>(sqlite3_column_text(stmt_, c));
    return p ? std::string(p, sqlite3_column_bytes(stmt_, c)) : std::string();
  }
  bool ColNull(int c) const { return sqlite3_column_type(stmt_, c) == SQLITE_NULL; }
  int64_t ColInt(int c) const { return sqlite3_column_int64(stmt_, c); }
  double ColDouble(int c) const { return sqlite3_column_double(stmt_, c); }
  std::string_view ColBlob(int c) const {
    const void* p = sqlite3_column_blob(stmt_, c);
    return p ? std::string_view(static_cast<const char*>(p), sqlite3_column_bytes(stmt_, c)) : std::string_view();
  }

 private:
  sqlite3_stmt* stmt_ = nullptr;
  int rc_;
  bool borrowed_ = false;
};

}  // namespace medreact

#endif  // MEDREACT_CORE_SQLITE_STMT_H_

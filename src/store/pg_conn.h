// PgConnection: one libpq connection to a PostgreSQL server, the little the
// run store (run_store_pg.cc) and the job queue need of it: statements with
// text parameters ($1..$n; nullopt = NULL) and text results, transactions,
// and errors as values naming the server by its URL without a password, the
// statement's purpose, PostgreSQL's SQLSTATE and its message.
//
// Not thread-safe: a connection belongs to one user at a time (the run store
// keeps it behind its mutex). A lost connection (the server restarted, a
// network cut) shows as Broken() after the failing call; Reconnect() opens it
// again (PQreset). Serialisation failures and deadlocks (SQLSTATE 40001 /
// 40P01, IsRetryableSqlState) are the caller's to retry: only it knows where
// its transaction began. Notices (e.g. "already exists, skipping") are not
// printed: the project's output is its own.
#ifndef MEDREACT_STORE_PG_CONN_H_
#define MEDREACT_STORE_PG_CONN_H_

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "medreact/status.h"

struct pg_conn;
struct pg_result;

namespace medreact {

// Whether `s` is a PostgreSQL URL: postgres:// or postgresql:// (any case).
bool IsPostgresUrl(std::string_view s);

// The URL as messages may show it: its password (user:PASSWORD@, or a
// `password=` query parameter) replaced by "***". Anything else is kept,
// so the user sees which server and database were meant.
std::string RedactPostgresUrl(const std::string& url);

// A statement's rows, in text form (PostgreSQL's text output).
class PgRows {
 public:
  PgRows() = default;
  explicit PgRows(pg_result* res);
  ~PgRows();
  PgRows(PgRows&& other) noexcept;
  PgRows& operator=(PgRows&& other) noexcept;
  PgRows(const PgRows&) = delete;
  PgRows& operator=(const PgRows&) = delete;

  int size() const;     // rows
  int columns() const;
  // The value at (row, col); nullopt for NULL or out of range.
  std::optional<std::string> Get(int row, int col) const;
  bool Null(int row, int col) const;
  // The value as text ("" for NULL) and as an integer (0 for NULL or not one).
  std::string Text(int row, int col) const;
  int64_t Int(int row, int col) const;
  double Double(int row, int col) const;
  // The rows an INSERT/UPDATE/DELETE touched (PQcmdTuples), 0 otherwise.
  int64_t affected() const;

 private:
  pg_result* res_ = nullptr;
};

struct PgConnectOptions {
  // How long connecting may take (libpq's connect_timeout, whole seconds,
  // at least 2). Default: 10 s
  std::chrono::milliseconds connect_timeout{10'000};
  // Every transaction of the session read-only (default_transaction_read_only):
  // a write fails with SQLSTATE 25006. Default: false
  bool read_only = false;
};

class PgConnection {
 public:
  // Connects to `url` (postgres:// or postgresql://). Unavailable naming the
  // redacted URL and libpq's reason when the server cannot be reached or
  // refuses (a wrong password, a missing database).
  static Result<std::unique_ptr<PgConnection>> Connect(const std::string& url, PgConnectOptions options = {});
  ~PgConnection();
  PgConnection(const PgConnection&) = delete;
  PgConnection& operator=(const PgConnection&) = delete;

  // Runs `sql` with `params` as $1..$n (text; nullopt = NULL). `what` names
  // the purpose in an error ("reading the run"). Errors: Unavailable (with
  // the SQLSTATE and PostgreSQL's message); sqlstate() holds the code.
  Result<PgRows> Exec(const std::string& sql, const std::vector<std::optional<std::string>>& params = {},
                      const std::string& what = "");
  // Several statements, no parameters (a migration's script).
  Status ExecScript(const std::string& sql, const std::string& what);

  Status Begin(const std::string& mode = "");  // BEGIN <mode> (e.g. "ISOLATION LEVEL SERIALIZABLE")
  Status Commit();
  Status Rollback();  // a no-op outside a transaction
  bool InTransaction() const;

  // The connection is lost (the last call failed for it); Reconnect() first.
  bool Broken() const;
  // Opens the connection again; Unavailable when the server is still gone.
  Status Reconnect();

  // The SQLSTATE of the last failed call ("" when it was not the server's
  // error, e.g. a lost connection).
  const std::string& sqlstate() const { return sqlstate_; }
  // The server as messages name it: "PostgreSQL 'postgres://u:***@h/db'".
  std::string Where() const;
  const std::string& redacted_url() const { return redacted_; }

 private:
  PgConnection(pg_conn* conn, std::string url, PgConnectOptions options);
  Status Fail(const std::string& what, pg_result* res);
  Status ApplySession();

  pg_conn* conn_ = nullptr;
  std::string url_;       // with its password: never in a message
  std::string redacted_;
  PgConnectOptions options_;
  std::string sqlstate_;
};

// SQLSTATE 40001 (serialization_failure) or 40P01 (deadlock_detected): the
// transaction may simply be run again.
bool IsRetryableSqlState(const std::string& sqlstate);
// SQLSTATE 23505: unique_violation.
inline constexpr const char* kPgUniqueViolation = "23505";

}  // namespace medreact

#endif  // MEDREACT_STORE_PG_CONN_H_

// The run store's connection (RunStore::Db): the schema and its migrations,
// transactions, and the rows a checkpoint, an end and a read write or read.
// Internal to src/store (run_store.cc, model_info.cc); see run_store.h.
#ifndef MEDREACT_STORE_RUN_STORE_DB_H_
#define MEDREACT_STORE_RUN_STORE_DB_H_

#include <sqlite3.h>
#include <sys/statvfs.h>

#include <algorithm>
#include <chrono>
#include <functional>
#include <iterator>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "core/sqlite_stmt.h"
#include "store/run_store.h"

namespace medreact {
namespace run_store_detail {

// "MRRS": marks the file as a medreact run store (PRAGMA application_id).
inline constexpr int kApplicationId = 0x4D525253;

// The schema's history: step i brings a file from version i to i + 1. A
// step runs in the transaction that sets its version, so a file is never
// half-way. A step only adds (tables, columns): the rows of an older file
// stay as they are.
struct Migration {
  int version;      // the version the step brings the file to
  const char* sql;
};
inline constexpr Migration kMigrations[] = {
    {1, R"sql(
CREATE TABLE runs (
  id         TEXT PRIMARY KEY,
  app        TEXT NOT NULL,
  inputs     TEXT NOT NULL,
  model      TEXT NOT NULL,
  status     TEXT NOT NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  result     TEXT
);
CREATE INDEX runs_updated ON runs(updated_at);
CREATE TABLE checkpoints (
  run_id   TEXT PRIMARY KEY,
  seq      INTEGER NOT NULL,
  phase    TEXT NOT NULL,
  step     INTEGER NOT NULL,
  messages INTEGER NOT NULL,
  steps    INTEGER NOT NULL,
  state    TEXT NOT NULL,
  saved_at TEXT NOT NULL
);
CREATE TABLE messages (
  run_id  TEXT NOT NULL,
  idx     INTEGER NOT NULL,
  message TEXT NOT NULL,
  PRIMARY KEY (run_id, idx)
);
CREATE TABLE steps (
  run_id TEXT NOT NULL,
  idx    INTEGER NOT NULL,
  record TEXT NOT NULL,
  PRIMARY KEY (run_id, idx)
);
)sql"},
    // 2: the runs' events, in order (run_store.h). A run recorded before has none.
    {2, R"sql(
CREATE TABLE events (
  run_id       TEXT NOT NULL,
  seq          INTEGER NOT NULL,
  type         TEXT NOT NULL,
  step         INTEGER NOT NULL,
  tool_call_id TEXT NOT NULL,
  elapsed_ms   REAL NOT NULL,
  event        TEXT NOT NULL,
  PRIMARY KEY (run_id, seq)
);
)sql"},
    // 3: leases (one process runs a run at a time), the events' wall-clock
    // time, the model servers' context sizes (asked once per server), and
    // the trace's input kept once per run instead of in every checkpoint.
    {3, R"sql(
ALTER TABLE runs ADD COLUMN owner TEXT;
ALTER TABLE runs ADD COLUMN lease_until INTEGER;
ALTER TABLE events ADD COLUMN at TEXT NOT NULL DEFAULT '';
ALTER TABLE checkpoints ADD COLUMN trace_input TEXT;
CREATE TABLE model_info (
  url            TEXT NOT NULL,
  model          TEXT NOT NULL,
  context_tokens INTEGER NOT NULL,
  probed_at      TEXT NOT NULL,
  PRIMARY KEY (url, model)
);
)sql"},
    // 4: every event gets a store-wide position that is never reused
    // (AUTOINCREMENT: a pruned newest run's ids are not handed out again),
    // the cursor of a stream that follows many runs (RunStore::EventsSince).
    // The rows keep their order: their rowid becomes their id.
    {4, R"sql(
CREATE TABLE events_v4 (
  id           INTEGER PRIMARY KEY AUTOINCREMENT,
  run_id       TEXT NOT NULL,
  seq          INTEGER NOT NULL,
  type         TEXT NOT NULL,
  step         INTEGER NOT NULL,
  tool_call_id TEXT NOT NULL,
  elapsed_ms   REAL NOT NULL,
  event        TEXT NOT NULL,
  at           TEXT NOT NULL DEFAULT '',
  UNIQUE (run_id, seq)
);
INSERT INTO events_v4(id, run_id, seq, type, step, tool_call_id, elapsed_ms, event, at)
  SELECT rowid, run_id, seq, type, step, tool_call_id, elapsed_ms, event, at FROM events ORDER BY rowid;
DROP TABLE events;
ALTER TABLE events_v4 RENAME TO events;
)sql"},
    // 5: the job queue (job_queue.h): a worklist's cases as jobs that worker
    // processes claim with a lease, retry with a backoff and end done or dead.
    {5, R"sql(
CREATE TABLE job_batches (
  id         TEXT PRIMARY KEY,
  label      TEXT NOT NULL,
  created_at TEXT NOT NULL
);
CREATE INDEX job_batches_label ON job_batches(label, created_at);
CREATE TABLE jobs (
  id           INTEGER PRIMARY KEY AUTOINCREMENT,
  batch_id     TEXT NOT NULL,
  case_name    TEXT NOT NULL,
  inputs       TEXT NOT NULL,
  state        TEXT NOT NULL,
  attempts     INTEGER NOT NULL DEFAULT 0,
  owner        TEXT,
  lease_until  INTEGER NOT NULL DEFAULT 0,
  available_at INTEGER NOT NULL DEFAULT 0,
  run_id       TEXT NOT NULL DEFAULT '',
  result       TEXT,
  last_error   TEXT NOT NULL DEFAULT '',
  created_at   TEXT NOT NULL,
  updated_at   TEXT NOT NULL,
  UNIQUE (batch_id, case_name)
);
CREATE INDEX jobs_claim ON jobs(state, available_at);
)sql"},
};
static_assert(std::size(kMigrations) == RunStore::kSchemaVersion, "one migration step per schema version");

inline std::string PhaseName(const RunState& state) {
  return state.phase == RunState::Phase::kInTurn ? "in_turn" : "between_steps";
}

}  // namespace run_store_detail

struct RunStore::Db {
  // The WAL is folded into the file when a run ends (FinishRun, once it
  // holds kEndWalPages; Prune), not every 1,000 pages mid-run as SQLite does
  // by default: that copy landed on 1 % of checkpoints and was their p99
  // (bench/store_bench.cc). A WAL past this size is folded at the next
  // checkpoint anyway (a very long run).
  static constexpr int kMaxWalPages = 8192;  // 32 MiB of 4 KiB pages

  std::string path;
  sqlite3* db = nullptr;
  int wal_pages = 0;  // after the last commit (the WAL hook)
  mutable int last_error = SQLITE_OK;  // the primary code the last Error() saw
  // What this connection wrote of a run it holds, as of its last commit:
  // the rows stored, the run row's status, updated_at and lease, and whether
  // the checkpoint row holds the trace input. With it a checkpoint reads no
  // row count back and leaves the run's row alone when nothing in it changed
  // (same status, same second, lease not yet a third used): in a one-shot
  // chat's 9 commits (its WAL frames, strace) only the run's start and end
  // wrote the row and its updated_at index. An entry holds only
  // while the run's owner is this store without a break: a checkpoint checks
  // the owner first (Fresh), and every other path that may let another
  // writer in (a rollback, the run's end, a claim, a release, a prune) drops
  // the entry (Take before the transaction, put back after its commit).
  struct Written {
    int64_t messages = 0;  // rows 1..messages stored
    int64_t steps = 0;
    int64_t events = 0;    // the last event's seq
    std::string status;
    std::string updated_at;
    int64_t lease_until = 0;
    bool input = false;    // the checkpoint row holds the trace input
  };
  mutable std::unordered_map<std::string, Written> written;
  std::string owner;               // this store's lease holder id
  std::chrono::milliseconds ttl{};  // a lease's length

  // A lease taken now ends at this time (ms since the epoch).
  int64_t LeaseEnd() const {
    return NowMillis() + std::max<int64_t>(ttl.count(), 1);
  }
  static int64_t NowMillis() {
    return std::chrono::duration_cast<std::chrono::milliseconds>(
               std::chrono::system_clock::now().time_since_epoch())
        .count();
  }
  // The statements a checkpoint runs, prepared once (Cached()).
  mutable std::unique_ptr<StmtCache> cache;
  // At close, a WAL shorter than this is left for the next connection, not
  // folded (see ~Db).
  static constexpr int kCloseWalPages = 256;  // 1 MiB of 4 KiB pages

  ~Db() {
    cache.reset();  // finalised before the connection closes
    if (!db) return;
    // The last connection to close folds the WAL into the file, syncs both
    // and deletes the WAL and -shm files, which the next process makes and
    // syncs again: in a one-shot chat (~50 WAL frames) that was most of the
    // store's system time (4 fdatasync, 2 unlink; docs/benchmarks.md). A WAL
    // shorter than kCloseWalPages (after this connection's last commit; 0
    // for a connection that only read) is left as it is: the next process
    // reads it back when it opens the file, and a close that finds it
    // longer folds it. Its commits are as safe as a killed process's.
    if (wal_pages < kCloseWalPages) sqlite3_db_config(db, SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, 1, nullptr);
    sqlite3_close(db);
  }

  StmtCache& Cached() const {
    if (!cache) cache = std::make_unique<StmtCache>(db);
    return *cache;
  }

  std::string Where() const { return "run store '" + path + "'"; }

  // A write refused for want of space: said so, with what to do and what is safe.
  Status DiskFull(const std::string& what, const std::string& detail) const {
    return Status::Unavailable(Where() + ": " + what + ": the disk holding it is full (" + detail +
                               "); free space and try again (what the store recorded before is kept)");
  }

  // Whether the store's folder has no block left for an unprivileged writer.
  bool FolderIsFull() const {
    const size_t slash = path.rfind('/');
    const std::string folder = slash == std::string::npos ? "." : slash == 0 ? "/" : path.substr(0, slash);
    struct statvfs fs {};
    return ::statvfs(folder.c_str(), &fs) == 0 && fs.f_bavail == 0;
  }

  static int OnWalCommit(void* self, sqlite3*, const char*, int pages) {
    static_cast<Db*>(self)->wal_pages = pages;
    return SQLITE_OK;
  }

  // At a run's end the WAL is folded once it holds this many pages (SQLite's
  // own automatic checkpoint size): a process that ends many short runs (a
  // server) pays for a fold every few runs, not at every end.
  static constexpr int kEndWalPages = 1000;

  // A passive WAL checkpoint (never waits for readers) when the WAL holds at
  // least `min_pages` pages. A failure is harmless (the WAL stays).
  void FoldWal(int min_pages) const {
    if (wal_pages < min_pages) return;
    sqlite3_wal_checkpoint_v2(db, nullptr, SQLITE_CHECKPOINT_PASSIVE, nullptr, nullptr);
  }

  // The connection's last error as a Status naming the file and, where the
  // user can act on it, what to do.
  Status Error(const std::string& what) const {
    const int code = db ? (sqlite3_errcode(db) & 0xff) : SQLITE_CANTOPEN;
    last_error = code;
    const std::string detail = db ? sqlite3_errmsg(db) : "out of memory";
    switch (code) {
      case SQLITE_NOTADB:
        return Status::FailedPrecondition(Where() + " is not a SQLite database (" + detail +
                                          "); give the path of a run store or of a new file");
      case SQLITE_CORRUPT:
        return Status::FailedPrecondition(Where() + " is damaged (" + detail + "); move it away and start anew");
      case SQLITE_READONLY:
        return Status::Unavailable(Where() + ": " + what + ": the store cannot be written here (" + detail +
                                   "): the file, or the store's folder, is read-only");
      case SQLITE_BUSY:
      case SQLITE_LOCKED:
        return Status::Unavailable(Where() + " is in use by another process (" + detail + "); try again");
      case SQLITE_FULL:
        return DiskFull(what, detail);
      case SQLITE_IOERR:  // what SQLite says when it cannot grow its -shm or -wal file
        if (FolderIsFull()) return DiskFull(what, detail);
        [[fallthrough]];
      default:
        return Status::Unavailable(Where() + ": " + what + ": " + detail);
    }
  }

  Status Exec(const char* sql, const std::string& what) const {
    if (sqlite3_exec(db, sql, nullptr, nullptr, nullptr) != SQLITE_OK) return Error(what);
    return Status::OK();
  }

  Result<int64_t> Pragma(const char* sql) const {
    Stmt s(db, sql);
    if (!s.ok() || s.Step() != SQLITE_ROW) return Error(std::string("reading ") + sql);
    return s.ColInt(0);
  }

  Status Damaged(const std::string& what) const {
    return Status::FailedPrecondition(Where() + " is damaged: " + what + "; move it away and start anew");
  }

  // The run's entry of `written`, taken out of it: a transaction that does
  // not commit leaves none (Keep puts it back after the commit).
  std::optional<Written> Take(const std::string& run_id) const {
    auto it = written.find(run_id);
    if (it == written.end()) return std::nullopt;
    Written w = std::move(it->second);
    written.erase(it);
    return w;
  }
  void Keep(const std::string& run_id, Written w) const {
    if (written.size() > 4096) written.clear();  // a long-lived process: bounded
    written[run_id] = std::move(w);
  }

  // A transaction that rolls back unless committed.
  class Tx {
   public:
    explicit Tx(const Db& d) : d_(d) {}
    ~Tx() {
      if (open_ && !sqlite3_get_autocommit(d_.db)) sqlite3_exec(d_.db, "ROLLBACK", nullptr, nullptr, nullptr);
    }
    Status Begin() {
      // IMMEDIATE: take the write lock now (waiting up to the busy timeout),
      // so a read inside never has to be upgraded and fail with BUSY.
      // Prepared once, as the statements inside are.
      Stmt begin(d_.Cached(), "BEGIN IMMEDIATE");
      if (!begin.ok() || begin.Step() != SQLITE_DONE) return d_.Error("starting a transaction");
      open_ = true;
      return Status::OK();
    }
    Status Commit() {
      Stmt commit(d_.Cached(), "COMMIT");
      if (!commit.ok() || commit.Step() != SQLITE_DONE) return d_.Error("committing");
      open_ = false;
      return Status::OK();
    }

   private:
    const Db& d_;
    bool open_ = false;
  };

  Status Migrate() const {
    Tx tx(*this);
    if (Status s = tx.Begin(); !s.ok()) return s;
    Result<int64_t> version = Pragma("PRAGMA user_version");
    if (!version.ok()) return version.status();
    Result<int64_t> app = Pragma("PRAGMA application_id");
    if (!app.ok()) return app.status();
    if (*version == 0) {
      Result<int64_t> tables = Pragma("SELECT count(*) FROM sqlite_master");
      if (!tables.ok()) return tables.status();
      if (*tables != 0 || *app != 0) {
        return Status::FailedPrecondition(Where() +
                                          " is a SQLite database but not a medreact run store; give the path of "
                                          "a run store or of a new file");
      }
    } else if (*app != run_store_detail::kApplicationId) {
      return Status::FailedPrecondition(
          Where() + " is a SQLite database but not a medreact run store (application id " + std::to_string(*app) +
          "); give the path of a run store or of a new file");
    }
    if (*version > RunStore::kSchemaVersion) {
      return Status::FailedPrecondition(Where() + " was written by a newer medreact (schema version " +
                                        std::to_string(*version) + "; this one reads up to " +
                                        std::to_string(RunStore::kSchemaVersion) + ")");
    }
    if (*version == RunStore::kSchemaVersion) return Status::OK();  // the rollback ends the read
    for (const run_store_detail::Migration& m : run_store_detail::kMigrations) {
      if (m.version <= *version) continue;
      if (Status s = Exec(m.sql, "migrating to schema version " + std::to_string(m.version)); !s.ok()) return s;
      const std::string set = "PRAGMA user_version = " + std::to_string(m.version) +
                              "; PRAGMA application_id = " + std::to_string(run_store_detail::kApplicationId);
      if (Status s = Exec(set.c_str(), "setting the schema version"); !s.ok()) return s;
    }
    return tx.Commit();
  }

  // Marks the run updated, held by `owner` until `lease_until` (ms since
  // the epoch; 0: released). NotFound when it is not stored;
  // FailedPrecondition when another owner holds it (fencing: a process
  // whose lease was taken over never writes again).
  Status Touch(const std::string& run_id, const std::string& status, const std::string& now,
               const std::string& owner, int64_t lease_until) const {
    Stmt s(Cached(),
           "UPDATE runs SET status = ?2, updated_at = ?3, owner = ?5, lease_until = ?6 "
           "WHERE id = ?1 AND (owner IS NULL OR owner = ?4)");
    if (!s.ok()) return Error("preparing a statement");
    s.Text(1, run_id);
    s.Text(2, status);
    s.Text(3, now);
    s.Text(4, owner);
    if (lease_until > 0) {
      s.Text(5, owner);
      s.Int(6, lease_until);
    }
    if (s.Step() != SQLITE_DONE) return Error("updating the run");
    if (sqlite3_changes(db) != 0) return Status::OK();
    Stmt h(db, "SELECT owner FROM runs WHERE id = ?1");
    if (!h.ok()) return Error("preparing a statement");
    h.Text(1, run_id);
    if (h.Step() != SQLITE_ROW) return Status::NotFound("no run '" + run_id + "' in the " + Where());
    return Status::FailedPrecondition("run '" + run_id + "' is now run by " + DescribeRunOwner(h.ColText(0)) +
                                      " (this process's lease ended and was taken over); this process stops "
                                      "writing it");
  }

  // Whether this store still owns the run (its entry of `written` holds, see
  // there). False when the run is gone or another owner has or had it.
  Result<bool> Fresh(const std::string& run_id) const {
    Stmt s(Cached(), "SELECT owner FROM runs WHERE id = ?1");
    if (!s.ok()) return Error("preparing a statement");
    s.Text(1, run_id);
    const int rc = s.Step();
    if (rc == SQLITE_DONE) return false;
    if (rc != SQLITE_ROW) return Error("reading the run");
    return !s.ColNull(0) && s.ColText(0) == owner;
  }

  // Touch for a run this store owns without a break (Fresh): the run's row
  // is written only when its status or second changed or a third of the
  // lease was used (as the heartbeat renews it).
  Status Renew(const std::string& run_id, const std::string& status, const std::string& now, Written& w) const {
    const bool lease_due = w.lease_until - NowMillis() < std::max<int64_t>(ttl.count(), 1) * 2 / 3;
    if (status == w.status && now == w.updated_at && !lease_due) return Status::OK();
    Stmt s(Cached(), "UPDATE runs SET status = ?2, updated_at = ?3, lease_until = ?4 WHERE id = ?1 AND owner = ?5");
    if (!s.ok()) return Error("preparing a statement");
    const int64_t lease = LeaseEnd();
    s.Text(1, run_id);
    s.Text(2, status);
    s.Text(3, now);
    s.Int(4, lease);
    s.Text(5, owner);
    if (s.Step() != SQLITE_DONE) return Error("updating the run");
    w.status = status;
    w.updated_at = now;
    w.lease_until = lease;
    return Status::OK();
  }

  // The state without its conversation and steps (RunStateHeaderToJson),
  // and the messages and steps not stored yet: a checkpoint writes what
  // changed. Both only grow at their end (Agent::Loop), so the stored prefix
  // is kept; a shorter list (a state from before) cuts the rows back.
  // `w`: what is stored, read from the file first unless `known`; updated.
  Status PutCheckpoint(const std::string& run_id, const RunState& state, const std::string& now, Written& w,
                       bool known) const {
    const auto messages = static_cast<int64_t>(state.messages.size());
    const auto steps = static_cast<int64_t>(state.trace.steps.size());
    if (Status s = SyncRows("messages", run_id, messages,
                            [&](int64_t i) { return MessageToStateJsonText(state.messages[i]); },
                            known ? &w.messages : nullptr);
        !s.ok()) {
      return s;
    }
    if (Status s = SyncRows("steps", run_id, steps, [&](int64_t i) { return StepText(state.trace.steps[i]); },
                            known ? &w.steps : nullptr);
        !s.ok()) {
      return s;
    }
    w.messages = messages;
    w.steps = steps;
    Stmt s(Cached(),
           "INSERT INTO checkpoints(run_id, seq, phase, step, messages, steps, state, saved_at) "
           "VALUES (?1, 1, ?2, ?3, ?4, ?5, ?6, ?7) "
           "ON CONFLICT(run_id) DO UPDATE SET seq = seq + 1, phase = excluded.phase, step = excluded.step, "
           "messages = excluded.messages, steps = excluded.steps, state = excluded.state, "
           "saved_at = excluded.saved_at");
    if (!s.ok()) return Error("preparing a statement");
    s.Text(1, run_id);
    s.Text(2, run_store_detail::PhaseName(state));
    s.Int(3, state.step);
    s.Int(4, messages);
    s.Int(5, steps);
    s.Text(6, RunStateHeaderToJsonText(state, /*with_trace_input=*/false));
    s.Text(7, now);
    if (s.Step() != SQLITE_DONE) return Error("saving the checkpoint");
    // The trace's input (message, system prompt, tools, options) is the same
    // at every checkpoint of a run: written once per run and connection.
    if (known && w.input) return Status::OK();
    Stmt in(Cached(), "UPDATE checkpoints SET trace_input = ?2 WHERE run_id = ?1");
    if (!in.ok()) return Error("preparing a statement");
    in.Text(1, run_id);
    in.Text(2, DumpJson(state.trace.input));
    if (in.Step() != SQLITE_DONE) return Error("saving the checkpoint");
    w.input = true;
    return Status::OK();
  }

  static std::string StepText(const StepRecord& step) { return StepRecordToStateJsonText(step); }

  // Makes `table` (messages or steps) hold rows 1..size of the run: cuts
  // rows past `size`, appends those missing (`text(i)` is row i + 1).
  // `known`: how many are stored, when this connection knows; else read.
  Status SyncRows(const std::string& table, const std::string& run_id, int64_t size,
                  const std::function<std::string(size_t)>& text, const int64_t* known = nullptr) const {
    const bool is_steps = table == "steps";
    // Rows are numbered 1..n, so the largest is the count (found in the
    // key's index, where count(*) would walk every row of the run).
    Result<int64_t> stored = known ? Result<int64_t>(*known)
                                   : Count(is_steps ? "SELECT COALESCE(MAX(idx), 0) FROM steps WHERE run_id = ?1"
                                                    : "SELECT COALESCE(MAX(idx), 0) FROM messages WHERE run_id = ?1",
                                           run_id);
    if (!stored.ok()) return stored.status();
    if (*stored > size) {
      Stmt cut(db, is_steps ? "DELETE FROM steps WHERE run_id = ?1 AND idx > ?2"
                            : "DELETE FROM messages WHERE run_id = ?1 AND idx > ?2");
      if (!cut.ok()) return Error("preparing a statement");
      cut.Text(1, run_id);
      cut.Int(2, size);
      if (cut.Step() != SQLITE_DONE) return Error("storing the " + table);
      *stored = size;
    }
    if (*stored == size) return Status::OK();
    Stmt add(Cached(), is_steps ? "INSERT OR REPLACE INTO steps(run_id, idx, record) VALUES (?1, ?2, ?3)"
                                : "INSERT OR REPLACE INTO messages(run_id, idx, message) VALUES (?1, ?2, ?3)");
    if (!add.ok()) return Error("preparing a statement");
    for (int64_t i = *stored; i < size; ++i) {
      add.Reset();
      add.Text(1, run_id);
      add.Int(2, i + 1);
      add.Text(3, text(static_cast<size_t>(i)));
      if (add.Step() != SQLITE_DONE) return Error("storing the " + table);
    }
    return Status::OK();
  }

  // Makes the run's steps rows `steps`, writing only the rows whose text
  // differs from the stored one: the end usually changes none, or the last
  // step's notes and a fallback step, where deleting and writing them all
  // again was 9 % of a stored run's CPU (BM_WarmRunStored).
  Status PutFinalSteps(const std::string& run_id, const std::vector<StepRecord>& steps) const {
    std::vector<std::string> stored;
    {
      Stmt s(Cached(), "SELECT idx, record FROM steps WHERE run_id = ?1 ORDER BY idx");
      if (!s.ok()) return Error("preparing a statement");
      s.Text(1, run_id);
      for (int rc = s.Step();; rc = s.Step()) {
        if (rc == SQLITE_DONE) break;
        if (rc != SQLITE_ROW) return Error("reading the steps");
        const int64_t idx = s.ColInt(0);
        if (idx < 1 || idx > static_cast<int64_t>(steps.size())) continue;  // cut below
        stored.resize(std::max<size_t>(stored.size(), static_cast<size_t>(idx)));
        stored[static_cast<size_t>(idx - 1)] = s.ColText(1);
      }
    }
    {
      Stmt cut(Cached(), "DELETE FROM steps WHERE run_id = ?1 AND idx > ?2");
      if (!cut.ok()) return Error("preparing a statement");
      cut.Text(1, run_id);
      cut.Int(2, static_cast<int64_t>(steps.size()));
      if (cut.Step() != SQLITE_DONE) return Error("storing the steps");
    }
    Stmt put(Cached(), "INSERT OR REPLACE INTO steps(run_id, idx, record) VALUES (?1, ?2, ?3)");
    if (!put.ok()) return Error("preparing a statement");
    for (size_t i = 0; i < steps.size(); ++i) {
      std::string text = StepText(steps[i]);
      if (i < stored.size() && stored[i] == text) continue;
      put.Reset();
      put.Text(1, run_id);
      put.Int(2, static_cast<int64_t>(i + 1));
      put.Text(3, text);
      if (put.Step() != SQLITE_DONE) return Error("storing the steps");
    }
    return Status::OK();
  }

  // Appends `events` after the run's last stored one (seq continues across
  // resumes). Part of the caller's transaction.
  // `last`, when given, is set to the run's last seq after them; it is read
  // from the file first unless `known` (this connection knows it).
  Status PutEvents(const std::string& run_id, const std::vector<RunEvent>& events, int64_t* last_seq = nullptr,
                   bool known = false) const {
    if (events.empty() && (!last_seq || known)) return Status::OK();
    Result<int64_t> last = known && last_seq
                               ? Result<int64_t>(*last_seq)
                               : Count("SELECT COALESCE(MAX(seq), 0) FROM events WHERE run_id = ?1", run_id);
    if (!last.ok()) return last.status();
    Stmt add(Cached(),
             "INSERT INTO events(run_id, seq, type, step, tool_call_id, elapsed_ms, event, at) "
             "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)");
    if (!add.ok()) return Error("preparing a statement");
    int64_t seq = *last;
    for (const RunEvent& e : events) {
      add.Reset();
      add.Text(1, run_id);
      add.Int(2, ++seq);
      add.Text(3, e.type);
      add.Int(4, e.step);
      add.Text(5, e.tool_call_id);
      add.Double(6, e.elapsed_ms);
      add.Text(7, e.json);
      add.Text(8, e.at);
      if (add.Step() != SQLITE_DONE) return Error("storing the events");
    }
    if (last_seq) *last_seq = seq;
    return Status::OK();
  }

  // A count of one run's rows.
  Result<int64_t> Count(const char* sql, const std::string& run_id) const {
    Stmt s(Cached(), sql);
    if (!s.ok()) return Error("preparing a statement");
    s.Text(1, run_id);
    if (s.Step() != SQLITE_ROW) return Error("counting rows");
    return s.ColInt(0);
  }

  Status DeleteRows(const char* sql, const std::string& run_id) const {
    Stmt s(Cached(), sql);
    if (!s.ok()) return Error("preparing a statement");
    s.Text(1, run_id);
    if (s.Step() != SQLITE_DONE) return Error("deleting rows");
    return Status::OK();
  }

  // A row of kRunColumns.
  Result<RunRecord> ReadRun(const Stmt& s) const;

  // The JSON of a column, or the damage named.
  Result<Json> JsonColumn(const Stmt& s, int c, const std::string& what) const {
    if (s.ColNull(c)) return Json();
    Result<Json> j = ParseJson(s.ColText(c));
    if (!j.ok()) return Damaged(what + " is not JSON (" + j.status().message() + ")");
    return j;
  }
};

}  // namespace medreact

#endif  // MEDREACT_STORE_RUN_STORE_DB_H_

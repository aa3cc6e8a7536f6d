// The run store's SQLite file: opening, migrations, and rows to structs and
// back. See run_store.h.
//
// The file is opened the way the project's other SQLite files are
// (tools/literature/literature_cache.cc, apps/research/research_memory_db.cc):
// created private before SQLite sees it, busy timeout, errors naming the file.
#include "store/run_store.h"

#include <errno.h>
#include <fcntl.h>
#include <sqlite3.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <set>
#include <thread>
#include <unordered_map>
#include <utility>

#include "core/file_io.h"
#include "core/sqlite_stmt.h"
#include "store/run_owner.h"

namespace medreact {

namespace {

namespace fs = std::filesystem;

// "MRRS": marks the file as a medreact run store (PRAGMA application_id).
constexpr int kApplicationId = 0x4D525253;

// The schema's history: step i brings a file from version i to i + 1. A
// step runs in the transaction that sets its version, so a file is never
// half-way. A step only adds (tables, columns): the rows of an older file
// stay as they are.
struct Migration {
  int version;      // the version the step brings the file to
  const char* sql;
};
constexpr Migration kMigrations[] = {
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
};
static_assert(std::size(kMigrations) == RunStore::kSchemaVersion, "one migration step per schema version");

std::string PhaseName(const RunState& state) {
  return state.phase == RunState::Phase::kInTurn ? "in_turn" : "between_steps";
}

}  // namespace

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
  // What this connection wrote of a run it holds, as of its last commit:
  // the rows stored, the run row's status, updated_at and lease, and whether
  // the checkpoint row holds the trace input. With it a checkpoint reads no
  // row count back and leaves the run's row alone when nothing in it changed
  // (same status, same second, lease not yet a third used): at most 2 of the
  // 9 checkpoints of BM_WarmRunStored's run write it. An entry holds only
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
  ~Db() {
    cache.reset();  // finalised before the connection closes
    if (db) sqlite3_close(db);
  }

  StmtCache& Cached() const {
    if (!cache) cache = std::make_unique<StmtCache>(db);
    return *cache;
  }

  std::string Where() const { return "run store '" + path + "'"; }

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
    const std::string detail = db ? sqlite3_errmsg(db) : "out of memory";
    switch (code) {
      case SQLITE_NOTADB:
        return Status::FailedPrecondition(Where() + " is not a SQLite database (" + detail +
                                          "); give the path of a run store or of a new file");
      case SQLITE_CORRUPT:
        return Status::FailedPrecondition(Where() + " is damaged (" + detail + "); move it away and start anew");
      case SQLITE_BUSY:
      case SQLITE_LOCKED:
        return Status::Unavailable(Where() + " is in use by another process (" + detail + "); try again");
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
    } else if (*app != kApplicationId) {
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
    for (const Migration& m : kMigrations) {
      if (m.version <= *version) continue;
      if (Status s = Exec(m.sql, "migrating to schema version " + std::to_string(m.version)); !s.ok()) return s;
      const std::string set = "PRAGMA user_version = " + std::to_string(m.version) +
                              "; PRAGMA application_id = " + std::to_string(kApplicationId);
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
    s.Text(2, PhaseName(state));
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

// Renews the leases of the runs a store holds, every third of the lease's
// time, on a thread of its own (a model or tool call may outlast a lease
// between two checkpoints).
struct RunStore::Heartbeat {
  std::mutex mu;
  std::condition_variable cv;
  std::set<std::string> held;  // guarded by mu
  bool stop = false;           // guarded by mu
  std::thread thread;
};

RunStore::RunStore(std::string path, std::unique_ptr<Db> db)
    : path_(std::move(path)), db_(std::move(db)), heartbeat_(std::make_unique<Heartbeat>()) {}

// The heartbeat's thread, started when the store first holds a run (a store
// that only reads, `runs list`, starts none). REQUIRES: heartbeat_->mu held.
void RunStore::StartHeartbeat() {
  if (db_->ttl.count() <= 0 || heartbeat_->thread.joinable()) return;
  heartbeat_->thread = std::thread([this] {
    const auto period = std::max<std::chrono::milliseconds>(db_->ttl / 3, std::chrono::milliseconds(1));
    std::unique_lock<std::mutex> lock(heartbeat_->mu);
    while (!heartbeat_->stop) {
      heartbeat_->cv.wait_for(lock, period, [this] { return heartbeat_->stop; });
      if (heartbeat_->stop) break;
      const std::set<std::string> held = heartbeat_->held;
      lock.unlock();
      {
        std::lock_guard<std::mutex> db_lock(mu_);
        for (const std::string& id : held) {
          Stmt s(db_->db, "UPDATE runs SET lease_until = ?3 WHERE id = ?1 AND owner = ?2");
          if (!s.ok()) break;
          s.Text(1, id);
          s.Text(2, db_->owner);
          s.Int(3, db_->LeaseEnd());
          s.Step();  // a failure is retried next beat; the next checkpoint reports a lost lease
        }
      }
      lock.lock();
    }
  });
}

RunStore::~RunStore() {
  {
    std::lock_guard<std::mutex> lock(heartbeat_->mu);
    heartbeat_->stop = true;
  }
  heartbeat_->cv.notify_all();
  if (heartbeat_->thread.joinable()) heartbeat_->thread.join();
  // The runs still held are given back: a store closed mid-run (its process
  // going on, or ending without finishing them) leaves them free to resume.
  for (const std::string& id : heartbeat_->held) {
    Stmt s(db_->db, "UPDATE runs SET owner = NULL, lease_until = NULL WHERE id = ?1 AND owner = ?2");
    if (!s.ok()) break;
    s.Text(1, id);
    s.Text(2, db_->owner);
    s.Step();
  }
  ForgetOwner(db_->owner);
}

const std::string& RunStore::owner() const { return db_->owner; }

void RunStore::Hold(const std::string& run_id) {
  std::lock_guard<std::mutex> lock(heartbeat_->mu);
  heartbeat_->held.insert(run_id);
  StartHeartbeat();
}

void RunStore::Unhold(const std::string& run_id) {
  std::lock_guard<std::mutex> lock(heartbeat_->mu);
  heartbeat_->held.erase(run_id);
}

Result<std::unique_ptr<RunStore>> RunStore::Open(const std::string& path, RunStoreOptions options) {
  if (path.empty()) return Status::InvalidArgument("the run store needs a file path");
  struct stat st;
  if (::stat(path.c_str(), &st) == 0) {
    if (!S_ISREG(st.st_mode)) {
      return Status::InvalidArgument("run store path '" + path + "' is " +
                                     (S_ISDIR(st.st_mode) ? "a folder" : "not a regular file") +
                                     "; give the path of a file");
    }
  } else if (!options.create_if_missing) {
    return Status::NotFound("no run store at '" + path + "' (no run has been recorded there)");
  } else {
    if (Status s = MakePrivateFolders(fs::path(path).parent_path().string()); !s.ok()) {
      return Status::Unavailable(s.message() + " for the run store '" + path +
                                 "'; choose a writable path for the run store (store) or in MEDREACT_STORE");
    }
    // Created private before SQLite opens it (SQLite would use 0644).
    const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd >= 0) {
      ::close(fd);
    } else if (errno != EEXIST) {
      return Status::Unavailable("cannot create the run store '" + path + "': " + std::strerror(errno) +
                                 "; choose a writable path for the run store (store) or in MEDREACT_STORE");
    }
  }
  auto db = std::make_unique<Db>();
  db->path = path;
  db->owner = options.owner.empty() ? NewRunOwnerId() : options.owner;
  db->ttl = options.lease_ttl;
  if (sqlite3_open_v2(path.c_str(), &db->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, nullptr) != SQLITE_OK) {
    return db->Error("opening");
  }
  sqlite3_busy_timeout(db->db, static_cast<int>(std::min<int64_t>(options.busy_timeout.count(), INT32_MAX)));
  {
    Stmt wal(db->db, "PRAGMA journal_mode = WAL");
    if (!wal.ok() || wal.Step() != SQLITE_ROW) return db->Error("setting the journal mode");
  }
  if (Status s = db->Exec(options.sync_full ? "PRAGMA synchronous = FULL" : "PRAGMA synchronous = NORMAL",
                          "setting synchronous");
      !s.ok()) {
    return s;
  }
  if (Status s = db->Migrate(); !s.ok()) return s;
  sqlite3_wal_hook(db->db, &Db::OnWalCommit, db.get());  // replaces SQLite's auto-checkpoint
  return std::unique_ptr<RunStore>(new RunStore(path, std::move(db)));
}

Status RunStore::CreateRun(const RunRecord& run, const RunState* first) {
  if (run.id.empty()) return Status::InvalidArgument("a run needs an id to be stored");
  std::lock_guard<std::mutex> lock(mu_);
  const Db& d = *db_;
  Db::Tx tx(d);
  d.Take(run.id);  // nothing known of a run before it is stored
  if (Status s = tx.Begin(); !s.ok()) return s;
  const std::string now = StoreTimestamp(std::chrono::system_clock::now());
  Db::Written w{.status = run.status.empty() ? std::string("running") : run.status, .updated_at = now};
  w.lease_until = d.LeaseEnd();
  {
    Stmt s(d.Cached(),
           "INSERT INTO runs(id, app, inputs, model, status, created_at, updated_at, result, owner, lease_until) "
           "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?6, ?7, ?8, ?9)");
    if (!s.ok()) return d.Error("preparing a statement");
    s.Text(1, run.id);
    s.Text(2, run.app);
    s.Text(3, DumpJson(run.inputs));
    s.Text(4, DumpJson(run.model));
    s.Text(5, w.status);
    s.Text(6, now);
    if (!run.result.is_null()) s.Text(7, DumpJson(run.result));
    s.Text(8, d.owner);
    s.Int(9, w.lease_until);
    const int rc = s.Step();
    if ((rc & 0xff) == SQLITE_CONSTRAINT) {
      return Status::InvalidArgument("run '" + run.id + "' is already in the " + d.Where());
    }
    if (rc != SQLITE_DONE) return d.Error("adding the run");
  }
  if (first) {
    if (Status s = d.PutCheckpoint(run.id, *first, now, w, /*known=*/true); !s.ok()) return s;
  }
  if (Status s = tx.Commit(); !s.ok()) return s;
  d.Keep(run.id, std::move(w));
  Hold(run.id);
  return Status::OK();
}

Status RunStore::SaveCheckpoint(const std::string& run_id, const RunState& state, const std::vector<RunEvent>& events,
                                const std::string& status) {
  std::lock_guard<std::mutex> lock(mu_);
  const Db& d = *db_;
  Db::Tx tx(d);
  std::optional<Db::Written> known = d.Take(run_id);  // back after the commit
  if (Status s = tx.Begin(); !s.ok()) return s;
  const std::string now = StoreTimestamp(std::chrono::system_clock::now());
  if (known) {
    Result<bool> fresh = d.Fresh(run_id);
    if (!fresh.ok()) return fresh.status();
    if (!*fresh) known.reset();
  }
  Db::Written w = known.value_or(Db::Written{});
  if (known) {
    if (Status s = d.Renew(run_id, status, now, w); !s.ok()) return s;
  } else {
    const int64_t lease = d.LeaseEnd();
    if (Status s = d.Touch(run_id, status, now, d.owner, lease); !s.ok()) return s;
    w.status = status;
    w.updated_at = now;
    w.lease_until = lease;
  }
  if (Status s = d.PutCheckpoint(run_id, state, now, w, known.has_value()); !s.ok()) return s;
  if (Status s = d.PutEvents(run_id, events, &w.events, known.has_value()); !s.ok()) return s;
  if (Status s = tx.Commit(); !s.ok()) return s;
  d.Keep(run_id, std::move(w));
  Hold(run_id);
  d.FoldWal(Db::kMaxWalPages);
  return Status::OK();
}

Status RunStore::FinishRun(const std::string& run_id, const std::string& status, const Json& result,
                           const std::vector<StepRecord>& steps, const std::vector<RunEvent>& events) {
  std::lock_guard<std::mutex> lock(mu_);
  const Db& d = *db_;
  Db::Tx tx(d);
  std::optional<Db::Written> known = d.Take(run_id);  // the run ends: not put back
  if (Status s = tx.Begin(); !s.ok()) return s;
  const std::string now = StoreTimestamp(std::chrono::system_clock::now());
  if (known) {
    Result<bool> fresh = d.Fresh(run_id);
    if (!fresh.ok()) return fresh.status();
    if (!*fresh) known.reset();
  }
  if (Status s = d.Touch(run_id, status, now, d.owner, /*lease_until=*/0); !s.ok()) return s;
  {
    Stmt s(d.Cached(), "UPDATE runs SET result = ?2 WHERE id = ?1");
    if (!s.ok()) return d.Error("preparing a statement");
    s.Text(1, run_id);
    s.Text(2, DumpJson(result));
    if (s.Step() != SQLITE_DONE) return d.Error("storing the result");
  }
  int64_t last_seq = known ? known->events : 0;
  if (Status s = d.PutEvents(run_id, events, &last_seq, known.has_value()); !s.ok()) return s;
  // The final steps replace those stored (the end adds notes, a fallback step).
  if (Status s = d.PutFinalSteps(run_id, steps); !s.ok()) return s;
  // Those go on from their checkpoint: a pause, a stop by the user, and an
  // error (a model server or tool that was down may be back).
  if (status != "interrupted" && status != "awaiting_approval" && status != "error") {
    for (const char* sql : {"DELETE FROM checkpoints WHERE run_id = ?1", "DELETE FROM messages WHERE run_id = ?1"}) {
      if (Status s = d.DeleteRows(sql, run_id); !s.ok()) return s;
    }
  }
  if (Status s = tx.Commit(); !s.ok()) return s;
  Unhold(run_id);
  d.FoldWal(Db::kEndWalPages);  // the run is over: off the steps' path
  return Status::OK();
}

Status RunStore::ClaimRun(const std::string& run_id) {
  std::lock_guard<std::mutex> lock(mu_);
  const Db& d = *db_;
  Db::Tx tx(d);
  d.Take(run_id);  // another process may have written it since
  if (Status s = tx.Begin(); !s.ok()) return s;
  {
    Stmt s(d.db, "SELECT owner, lease_until FROM runs WHERE id = ?1");
    if (!s.ok()) return d.Error("preparing a statement");
    s.Text(1, run_id);
    const int rc = s.Step();
    if (rc == SQLITE_DONE) return Status::NotFound("no run '" + run_id + "' in the " + d.Where());
    if (rc != SQLITE_ROW) return d.Error("reading run '" + run_id + "'");
    const std::string holder = s.ColNull(0) ? "" : s.ColText(0);
    const int64_t until = s.ColNull(1) ? 0 : s.ColInt(1);
    if (!holder.empty() && holder != d.owner && until > Db::NowMillis() && !RunOwnerGone(holder)) {
      using Ms = std::chrono::milliseconds;
      return Status::Unavailable("run '" + run_id + "' is being run by " + DescribeRunOwner(holder) +
                                 " (its lease runs until " +
                                 StoreTimestampMillis(std::chrono::system_clock::time_point(Ms(until))) +
                                 " and is renewed while it runs); wait for it to end, or stop that process");
    }
  }
  Stmt s(d.db, "UPDATE runs SET owner = ?2, lease_until = ?3 WHERE id = ?1");
  if (!s.ok()) return d.Error("preparing a statement");
  s.Text(1, run_id);
  s.Text(2, d.owner);
  s.Int(3, d.LeaseEnd());
  if (s.Step() != SQLITE_DONE) return d.Error("taking run '" + run_id + "'");
  if (Status st = tx.Commit(); !st.ok()) return st;
  Hold(run_id);
  return Status::OK();
}

Status RunStore::ReleaseRun(const std::string& run_id) {
  std::lock_guard<std::mutex> lock(mu_);
  Unhold(run_id);
  db_->Take(run_id);
  Stmt s(db_->db, "UPDATE runs SET owner = NULL, lease_until = NULL WHERE id = ?1 AND owner = ?2");
  if (!s.ok()) return db_->Error("preparing a statement");
  s.Text(1, run_id);
  s.Text(2, db_->owner);
  if (s.Step() != SQLITE_DONE) return db_->Error("giving back run '" + run_id + "'");
  return Status::OK();
}

Result<std::optional<int64_t>> RunStore::ModelContextTokens(const std::string& url, const std::string& model) const {
  std::lock_guard<std::mutex> lock(mu_);
  Stmt s(db_->db, "SELECT context_tokens FROM model_info WHERE url = ?1 AND model = ?2");
  if (!s.ok()) return db_->Error("preparing a statement");
  s.Text(1, UrlForStore(url));
  s.Text(2, model);
  const int rc = s.Step();
  if (rc == SQLITE_DONE) return std::optional<int64_t>();
  if (rc != SQLITE_ROW) return db_->Error("reading a model's context size");
  return std::optional<int64_t>(s.ColInt(0));
}

Status RunStore::PutModelContextTokens(const std::string& url, const std::string& model, int64_t tokens) {
  std::lock_guard<std::mutex> lock(mu_);
  Stmt s(db_->db,
         "INSERT INTO model_info(url, model, context_tokens, probed_at) VALUES (?1, ?2, ?3, ?4) "
         "ON CONFLICT(url, model) DO UPDATE SET context_tokens = excluded.context_tokens, "
         "probed_at = excluded.probed_at");
  if (!s.ok()) return db_->Error("preparing a statement");
  s.Text(1, UrlForStore(url));
  s.Text(2, model);
  s.Int(3, tokens);
  s.Text(4, StoreTimestamp(std::chrono::system_clock::now()));
  if (s.Step() != SQLITE_DONE) return db_->Error("storing a model's context size");
  return Status::OK();
}

namespace {

constexpr const char* kRunColumns =
    "SELECT r.id, r.app, r.inputs, r.model, r.status, r.created_at, r.updated_at, r.result, "
    "(SELECT count(*) FROM steps s WHERE s.run_id = r.id), "
    "COALESCE((SELECT c.seq FROM checkpoints c WHERE c.run_id = r.id), 0), "
    "(SELECT count(*) FROM events e WHERE e.run_id = r.id), r.owner, r.lease_until FROM runs r ";

}  // namespace

Result<RunRecord> RunStore::Get(const std::string& run_id) const {
  std::lock_guard<std::mutex> lock(mu_);
  Stmt s(db_->db, (std::string(kRunColumns) + "WHERE r.id = ?1").c_str());
  if (!s.ok()) return db_->Error("preparing a statement");
  s.Text(1, run_id);
  const int rc = s.Step();
  if (rc == SQLITE_DONE) return Status::NotFound("no run '" + run_id + "' in the " + db_->Where());
  if (rc != SQLITE_ROW) return db_->Error("reading run '" + run_id + "'");
  return db_->ReadRun(s);
}

Result<RunRecord> RunStore::Db::ReadRun(const Stmt& s) const {
  const Db& d = *this;
  RunRecord r;
  r.id = s.ColText(0);
  r.app = s.ColText(1);
  const std::string what = "run '" + r.id + "'";
  Result<Json> inputs = d.JsonColumn(s, 2, what + "'s inputs");
  if (!inputs.ok()) return inputs.status();
  Result<Json> model = d.JsonColumn(s, 3, what + "'s model");
  if (!model.ok()) return model.status();
  Result<Json> result = d.JsonColumn(s, 7, what + "'s result");
  if (!result.ok()) return result.status();
  r.inputs = std::move(*inputs);
  r.model = std::move(*model);
  r.status = s.ColText(4);
  r.created_at = s.ColText(5);
  r.updated_at = s.ColText(6);
  r.result = std::move(*result);
  r.steps = s.ColInt(8);
  r.checkpoints = s.ColInt(9);
  r.events = s.ColInt(10);
  if (!s.ColNull(11)) r.owner = s.ColText(11);
  if (!s.ColNull(12)) {
    using Ms = std::chrono::milliseconds;
    r.lease_until = StoreTimestampMillis(std::chrono::system_clock::time_point(Ms(s.ColInt(12))));
  }
  return r;
}

Result<std::vector<RunRecord>> RunStore::List(const RunFilter& filter) const {
  std::lock_guard<std::mutex> lock(mu_);
  Stmt s(db_->db, (std::string(kRunColumns) +
                   "WHERE (?1 = '' OR r.app = ?1) AND (?2 = '' OR r.status = ?2) "
                   "ORDER BY r.updated_at DESC, r.id LIMIT ?3")
                      .c_str());
  if (!s.ok()) return db_->Error("preparing a statement");
  s.Text(1, filter.app);
  s.Text(2, filter.status);
  s.Int(3, filter.limit > 0 ? filter.limit : -1);
  std::vector<RunRecord> out;
  for (int rc = s.Step();; rc = s.Step()) {
    if (rc == SQLITE_DONE) break;
    if (rc != SQLITE_ROW) return db_->Error("listing runs");
    Result<RunRecord> r = db_->ReadRun(s);
    if (!r.ok()) return r.status();
    out.push_back(std::move(*r));
  }
  return out;
}

Result<std::vector<StepRecord>> RunStore::Steps(const std::string& run_id) const {
  std::lock_guard<std::mutex> lock(mu_);
  Stmt s(db_->db, "SELECT idx, record FROM steps WHERE run_id = ?1 ORDER BY idx");
  if (!s.ok()) return db_->Error("preparing a statement");
  s.Text(1, run_id);
  std::vector<StepRecord> out;
  for (int rc = s.Step();; rc = s.Step()) {
    if (rc == SQLITE_DONE) break;
    if (rc != SQLITE_ROW) return db_->Error("reading the steps of run '" + run_id + "'");
    const std::string what = "step " + std::to_string(s.ColInt(0)) + " of run '" + run_id + "'";
    Result<Json> j = db_->JsonColumn(s, 1, what);
    if (!j.ok()) return j.status();
    Result<StepRecord> step = StepRecordFromStateJson(*j);
    if (!step.ok()) return db_->Damaged(what + ": " + step.status().message());
    out.push_back(std::move(*step));
  }
  return out;
}

Result<std::vector<RunEvent>> RunStore::Events(const std::string& run_id) const {
  std::lock_guard<std::mutex> lock(mu_);
  Stmt s(db_->db,
         "SELECT seq, type, step, tool_call_id, elapsed_ms, event, at FROM events WHERE run_id = ?1 ORDER BY seq");
  if (!s.ok()) return db_->Error("preparing a statement");
  s.Text(1, run_id);
  std::vector<RunEvent> out;
  for (int rc = s.Step();; rc = s.Step()) {
    if (rc == SQLITE_DONE) break;
    if (rc != SQLITE_ROW) return db_->Error("reading the events of run '" + run_id + "'");
    out.push_back({.seq = s.ColInt(0),
                   .type = s.ColText(1),
                   .step = s.ColInt(2),
                   .tool_call_id = s.ColText(3),
                   .elapsed_ms = s.ColDouble(4),
                   .at = s.ColText(6),
                   .json = s.ColText(5)});
  }
  return out;
}

Result<std::optional<RunState>> RunStore::LatestState(const std::string& run_id) const {
  std::lock_guard<std::mutex> lock(mu_);
  const std::string what = "the checkpoint of run '" + run_id + "'";
  Json j;
  int64_t count = 0, step_count = 0;
  {
    Stmt s(db_->db, "SELECT state, messages, steps, trace_input FROM checkpoints WHERE run_id = ?1");
    if (!s.ok()) return db_->Error("preparing a statement");
    s.Text(1, run_id);
    const int rc = s.Step();
    if (rc == SQLITE_DONE) return std::optional<RunState>();
    if (rc != SQLITE_ROW) return db_->Error("reading " + what);
    Result<Json> header = db_->JsonColumn(s, 0, what);
    if (!header.ok()) return header.status();
    if (!header->is_object() || !(*header)["trace"].is_object()) return db_->Damaged(what + " is not a run state");
    j = std::move(*header);
    count = s.ColInt(1);
    step_count = s.ColInt(2);
    if (!s.ColNull(3)) {  // kept once per run (schema 3); older rows hold it in the header
      Result<Json> input = db_->JsonColumn(s, 3, what + "'s trace input");
      if (!input.ok()) return input.status();
      j["trace"]["input"] = std::move(*input);
    }
  }
  // The conversation and the steps back in, as RunStateFromJson reads them.
  Json messages = Json::array();
  {
    Stmt s(db_->db, "SELECT message FROM messages WHERE run_id = ?1 AND idx <= ?2 ORDER BY idx");
    if (!s.ok()) return db_->Error("preparing a statement");
    s.Text(1, run_id);
    s.Int(2, count);
    for (int rc = s.Step();; rc = s.Step()) {
      if (rc == SQLITE_DONE) break;
      if (rc != SQLITE_ROW) return db_->Error("reading the conversation of run '" + run_id + "'");
      Result<Json> m = db_->JsonColumn(s, 0, "a message of run '" + run_id + "'");
      if (!m.ok()) return m.status();
      messages.push_back(std::move(*m));
    }
  }
  if (static_cast<int64_t>(messages.size()) != count) {
    return db_->Damaged(what + " has " + std::to_string(messages.size()) + " of its " + std::to_string(count) +
                        " messages");
  }
  Json steps = Json::array();
  {
    Stmt s(db_->db, "SELECT record FROM steps WHERE run_id = ?1 AND idx <= ?2 ORDER BY idx");
    if (!s.ok()) return db_->Error("preparing a statement");
    s.Text(1, run_id);
    s.Int(2, step_count);
    for (int rc = s.Step();; rc = s.Step()) {
      if (rc == SQLITE_DONE) break;
      if (rc != SQLITE_ROW) return db_->Error("reading the steps of run '" + run_id + "'");
      Result<Json> step = db_->JsonColumn(s, 0, "a step of run '" + run_id + "'");
      if (!step.ok()) return step.status();
      steps.push_back(std::move(*step));
    }
  }
  if (static_cast<int64_t>(steps.size()) != step_count) {
    return db_->Damaged(what + " has " + std::to_string(steps.size()) + " of its " + std::to_string(step_count) +
                        " steps");
  }
  j["messages"] = std::move(messages);
  j["trace"]["steps"] = std::move(steps);
  Result<RunState> state = RunStateFromJson(j);
  if (!state.ok()) return db_->Damaged(what + ": " + state.status().message());
  return std::optional<RunState>(std::move(*state));
}

Result<std::vector<std::string>> RunStore::Prune(const PruneFilter& filter) {
  std::lock_guard<std::mutex> lock(mu_);
  const Db& d = *db_;
  Db::Tx tx(d);
  if (Status s = tx.Begin(); !s.ok()) return s;
  std::vector<std::string> ids;
  {
    Stmt s(d.db, "SELECT id, status FROM runs WHERE updated_at <= ?1 ORDER BY updated_at, id");
    if (!s.ok()) return d.Error("preparing a statement");
    s.Text(1, StoreTimestamp(filter.updated_before));
    for (int rc = s.Step();; rc = s.Step()) {
      if (rc == SQLITE_DONE) break;
      if (rc != SQLITE_ROW) return d.Error("listing runs to prune");
      const std::string status = s.ColText(1);
      const bool chosen = filter.statuses.empty()
                              ? status != "running" && status != "awaiting_approval"
                              : std::find(filter.statuses.begin(), filter.statuses.end(), status) !=
                                    filter.statuses.end();
      if (chosen) ids.push_back(s.ColText(0));
    }
  }
  if (filter.dry_run) return ids;
  for (const std::string& id : ids) {
    for (const char* sql : {"DELETE FROM steps WHERE run_id = ?1", "DELETE FROM checkpoints WHERE run_id = ?1",
                            "DELETE FROM messages WHERE run_id = ?1", "DELETE FROM events WHERE run_id = ?1",
                            "DELETE FROM runs WHERE id = ?1"}) {
      if (Status s = d.DeleteRows(sql, id); !s.ok()) return s;
    }
    d.Take(id);
  }
  if (Status s = tx.Commit(); !s.ok()) return s;
  d.FoldWal(0);
  return ids;
}

Status RunStore::IntegrityCheck() const {
  std::lock_guard<std::mutex> lock(mu_);
  Stmt s(db_->db, "PRAGMA integrity_check");
  if (!s.ok()) return db_->Error("checking integrity");
  std::string findings;
  int lines = 0;
  for (int rc = s.Step();; rc = s.Step()) {
    if (rc == SQLITE_DONE) break;
    if (rc != SQLITE_ROW) return db_->Error("checking integrity");
    const std::string line = s.ColText(0);
    if (line == "ok") continue;
    if (++lines <= 5) findings += (findings.empty() ? "" : "; ") + line;
  }
  if (lines == 0) return Status::OK();
  return Status::FailedPrecondition(db_->Where() + " fails its integrity check (" + std::to_string(lines) +
                                    " finding(s): " + findings + ")");
}

Result<std::string> DefaultRunStorePath(const std::function<const char*(const char*)>& getenv) {
  auto env = [&getenv](const char* name) -> const char* { return getenv ? getenv(name) : std::getenv(name); };
  if (const char* store = env("MEDREACT_STORE"); store && *store) return std::string(store);
  fs::path data;
  if (const char* xdg = env("XDG_DATA_HOME"); xdg && fs::path(xdg).is_absolute()) {
    data = xdg;
  } else if (const char* home = env("HOME"); home && fs::path(home).is_absolute()) {
    data = fs::path(home) / ".local" / "share";
  } else {
    return Status::FailedPrecondition(
        "no folder for the run store: set XDG_DATA_HOME or HOME to an absolute path, or give the run store's "
        "path (store)");
  }
  return (data / "medreact" / "runs.sqlite").string();
}

std::string StoreTimestampMillis(std::chrono::system_clock::time_point t) {
  const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(t.time_since_epoch()).count();
  const std::time_t tt = static_cast<std::time_t>(ms / 1000);
  std::tm tm{};
  gmtime_r(&tt, &tm);
  char buf[48];
  const size_t n = std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%S", &tm);
  std::snprintf(buf + n, sizeof buf - n, ".%03dZ", static_cast<int>(ms % 1000));
  return buf;
}

std::string UrlForStore(const std::string& url) {
  std::string out = url.substr(0, url.find_first_of("?#"));
  const size_t scheme = out.find("://");
  if (scheme == std::string::npos) return out;
  const size_t host = scheme + 3;
  const size_t at = out.rfind('@', out.find('/', host));
  if (at != std::string::npos && at >= host) out.erase(host, at + 1 - host);
  return out;
}

namespace {

class StoreCache : public ContextSizeCache {
 public:
  explicit StoreCache(std::shared_ptr<RunStore> store) : store_(std::move(store)) {}
  std::optional<int64_t> Get(const std::string& base_url, const std::string& model) override {
    Result<std::optional<int64_t>> known = store_->ModelContextTokens(base_url, model);
    return known.ok() ? *known : std::nullopt;
  }
  void Put(const std::string& base_url, const std::string& model, int64_t tokens) override {
    store_->PutModelContextTokens(base_url, model, tokens);  // a failure costs one more probe next run
  }

 private:
  std::shared_ptr<RunStore> store_;
};

}  // namespace

std::shared_ptr<ContextSizeCache> StoreContextCache(std::shared_ptr<RunStore> store) {
  if (!store) return nullptr;
  return std::make_shared<StoreCache>(std::move(store));
}

std::string StoreTimestamp(std::chrono::system_clock::time_point t) {
  const std::time_t tt = std::chrono::system_clock::to_time_t(t);
  std::tm tm{};
  gmtime_r(&tt, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

}  // namespace medreact

// The run store's SQLite file: opening, migrations, leases and the writes.
// See run_store.h; the reads are in run_store_reads.cc.
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
#include <cctype>
#include <cstdio>
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
#include "store/pg_conn.h"
#include "store/run_owner.h"
#include "store/run_store_db.h"
#include "store/run_store_pg.h"
#include "store/wal_batch_vfs.h"

namespace medreact {

namespace {

namespace fs = std::filesystem;

// A URI for SQLite naming `path` (percent-escaped) with `query`.
std::string FileUri(const std::string& path, const std::string& query) {
  std::string uri = "file:";
  for (unsigned char c : fs::absolute(path).string()) {
    if (std::isalnum(c) || c == '/' || c == '-' || c == '_' || c == '.' || c == '~') {
      uri += static_cast<char>(c);
    } else {
      char hex[4];
      std::snprintf(hex, sizeof hex, "%%%02X", c);
      uri += hex;
    }
  }
  return uri + "?" + query;
}

bool FolderWritable(const std::string& path) {
  const fs::path parent = fs::absolute(path).parent_path();
  return ::access(parent.c_str(), W_OK) == 0;
}

}  // namespace

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

RunStore::RunStore(std::unique_ptr<Pg> pg)
    : path_(pg->redacted), heartbeat_(std::make_unique<Heartbeat>()), pg_(std::move(pg)) {}

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
  if (pg_) {
    pg_.reset();  // its heartbeat stopped, its runs given back
    return;
  }
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

const std::string& RunStore::owner() const { return pg_ ? pg_->owner : db_->owner; }

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
  if (IsPostgresUrl(path)) {
    Result<std::unique_ptr<Pg>> pg = Pg::Open(path, options);
    if (!pg.ok()) return pg.status();
    return std::unique_ptr<RunStore>(new RunStore(std::move(*pg)));
  }
  if (options.read_only) {
    Result<std::unique_ptr<RunStore>> read = OpenToRead(path, options);
    // A store of an older schema where it can be written is brought up to
    // date first (the one write a reading command makes), as it always was.
    if (!read.ok() && read.status().message().find(" has schema version ") != std::string::npos &&
        FolderWritable(path) && ::access(path.c_str(), W_OK) == 0) {
      options.read_only = false;
      options.create_if_missing = false;
      return Open(path, options);
    }
    return read;
  }
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
  // The WAL's frames written with one call per commit (wal_batch_vfs.h).
  if (sqlite3_open_v2(path.c_str(), &db->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, WalBatchVfsName()) !=
      SQLITE_OK) {
    return db->Error("opening");
  }
  sqlite3_busy_timeout(db->db, static_cast<int>(std::min<int64_t>(options.busy_timeout.count(), INT32_MAX)));
  // The journal-mode switch and the migration, retried while another
  // connection holds the file (several processes creating one new store at
  // once: SQLite gives the switch SQLITE_BUSY without waiting), up to the
  // busy timeout.
  auto set_up = [&]() -> Status {
    {
      Stmt wal(db->db, "PRAGMA journal_mode = WAL");
      if (!wal.ok() || wal.Step() != SQLITE_ROW) return db->Error("setting the journal mode");
    }
    if (Status s = db->Exec(options.sync_full ? "PRAGMA synchronous = FULL" : "PRAGMA synchronous = NORMAL",
                            "setting synchronous");
        !s.ok()) {
      return s;
    }
    return db->Migrate();
  };
  const auto give_up = std::chrono::steady_clock::now() + options.busy_timeout;
  for (int attempt = 0;; ++attempt) {
    db->last_error = SQLITE_OK;
    Status s = set_up();
    if (s.ok()) break;
    const bool busy = db->last_error == SQLITE_BUSY || db->last_error == SQLITE_LOCKED;
    if (!busy || std::chrono::steady_clock::now() >= give_up) {
      if (!FolderWritable(path)) {
        return Status::Unavailable(s.message() + " (the store's folder is read-only: SQLite keeps its log files "
                                                 "beside the store)");
      }
      return s;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(1 << std::min(attempt, 6)));  // 1 .. 64 ms
  }
  sqlite3_wal_hook(db->db, &Db::OnWalCommit, db.get());  // replaces SQLite's auto-checkpoint
  return std::unique_ptr<RunStore>(new RunStore(path, std::move(db)));
}

Result<std::unique_ptr<RunStore>> RunStore::OpenToRead(const std::string& path, const RunStoreOptions& options) {
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) {
    return Status::NotFound("no run store at '" + path + "' (no run has been recorded there)");
  }
  if (!S_ISREG(st.st_mode)) {
    return Status::InvalidArgument("run store path '" + path + "' is " +
                                   (S_ISDIR(st.st_mode) ? "a folder" : "not a regular file") +
                                   "; give the path of a file");
  }
  // A run store, of this schema: what a read-only store needs to be read.
  auto readable = [](const Db& db) -> Status {
    Stmt s(db.db, "SELECT (SELECT application_id FROM pragma_application_id), "
                  "(SELECT user_version FROM pragma_user_version)");
    if (!s.ok() || s.Step() != SQLITE_ROW) return db.Error("reading the schema version");
    const int64_t app = s.ColInt(0), version = s.ColInt(1);
    if (app != run_store_detail::kApplicationId) {
      return Status::FailedPrecondition(db.Where() + " is not a medreact run store (application id " +
                                        std::to_string(app) + ")");
    }
    if (version > RunStore::kSchemaVersion) {
      return Status::FailedPrecondition(db.Where() + " was written by a newer medreact (schema version " +
                                        std::to_string(version) + "; this one reads up to " +
                                        std::to_string(RunStore::kSchemaVersion) + ")");
    }
    if (version < RunStore::kSchemaVersion) {
      return Status::FailedPrecondition(db.Where() + " has schema version " + std::to_string(version) +
                                        " and is read as version " + std::to_string(RunStore::kSchemaVersion) +
                                        ": open it once to write (a run recorded or pruned with this store) to bring "
                                        "it up to date");
    }
    return Status::OK();
  };
  auto open = [&](const std::string& name, int flags) -> Result<std::unique_ptr<Db>> {
    auto db = std::make_unique<Db>();
    db->path = path;
    db->owner = options.owner.empty() ? NewRunOwnerId() : options.owner;
    db->ttl = std::chrono::milliseconds(0);  // never holds a run
    if (sqlite3_open_v2(name.c_str(), &db->db, flags | SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX, nullptr) !=
        SQLITE_OK) {
      return db->Error("opening");
    }
    sqlite3_busy_timeout(db->db, static_cast<int>(std::min<int64_t>(options.busy_timeout.count(), INT32_MAX)));
    if (Status s = readable(*db); !s.ok()) return s;
    return db;
  };
  Result<std::unique_ptr<Db>> db = open(path, 0);
  if (!db.ok() && !FolderWritable(path)) {
    // Read-only media: a WAL-mode file is read without its -shm file only as
    // immutable, which ignores a log left beside it. So only when none is.
    std::error_code ec;
    const auto wal = fs::file_size(path + "-wal", ec);
    if (!ec && wal > 0) {
      return Status::FailedPrecondition(
          "run store '" + path + "': the store's folder is read-only and its log ('" + path +
          "-wal') holds commits SQLite can read only by making a '-shm' file beside it; copy the store's files "
          "to a writable folder and read them there");
    }
    db = open(FileUri(path, "immutable=1"), SQLITE_OPEN_URI);
    if (!db.ok()) {
      return Status::Unavailable(db.status().message() + " (the store's folder is read-only)");
    }
  }
  if (!db.ok()) return db.status();
  return std::unique_ptr<RunStore>(new RunStore(path, std::move(*db)));
}

Status RunStore::CreateRun(const RunRecord& run, const RunState* first) {
  if (run.id.empty()) return Status::InvalidArgument("a run needs an id to be stored");
  if (pg_) return pg_->CreateRun(run, first);
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
  Wrote();
  return Status::OK();
}

Status RunStore::SaveCheckpoint(const std::string& run_id, const RunState& state, const std::vector<RunEvent>& events,
                                const std::string& status) {
  if (pg_) return pg_->SaveCheckpoint(run_id, state, events, status);
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
  Wrote();
  d.FoldWal(Db::kMaxWalPages);
  return Status::OK();
}

Status RunStore::AppendEvents(const std::string& run_id, const std::vector<RunEvent>& events) {
  if (events.empty()) return Status::OK();
  if (pg_) return pg_->AppendEvents(run_id, events);
  std::lock_guard<std::mutex> lock(mu_);
  const Db& d = *db_;
  Db::Tx tx(d);
  std::optional<Db::Written> known = d.Take(run_id);  // back after the commit
  if (Status s = tx.Begin(); !s.ok()) return s;
  Result<bool> fresh = d.Fresh(run_id);
  if (!fresh.ok()) return fresh.status();
  if (!*fresh) {
    Stmt h(d.db, "SELECT owner FROM runs WHERE id = ?1");
    if (!h.ok()) return d.Error("preparing a statement");
    h.Text(1, run_id);
    if (h.Step() != SQLITE_ROW) return Status::NotFound("no run '" + run_id + "' in the " + d.Where());
    return Status::FailedPrecondition("run '" + run_id + "' is not held by this process (" +
                                      DescribeRunOwner(h.ColNull(0) ? std::string() : h.ColText(0)) +
                                      "); its events are not written");
  }
  int64_t last_seq = known ? known->events : 0;
  if (Status s = d.PutEvents(run_id, events, &last_seq, known.has_value()); !s.ok()) return s;
  if (Status s = tx.Commit(); !s.ok()) return s;
  if (known) {
    known->events = last_seq;
    d.Keep(run_id, std::move(*known));
  }
  Wrote();
  return Status::OK();
}

Status RunStore::FinishRun(const std::string& run_id, const std::string& status, const Json& result,
                           const std::vector<StepRecord>& steps, const std::vector<RunEvent>& events) {
  if (pg_) return pg_->FinishRun(run_id, status, result, steps, events);
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
  Wrote();
  d.FoldWal(Db::kEndWalPages);  // the run is over: off the steps' path
  return Status::OK();
}

Status RunStore::ClaimRun(const std::string& run_id) {
  if (pg_) return pg_->ClaimRun(run_id);
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
  if (pg_) return pg_->ReleaseRun(run_id);
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
  if (pg_) return pg_->ModelContextTokens(url, model);
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
  if (pg_) return pg_->PutModelContextTokens(url, model, tokens);
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

void RunStore::SetWriteListener(std::function<void()> listener) {
  if (pg_) return pg_->SetWriteListener(std::move(listener));
  std::lock_guard<std::mutex> lock(mu_);
  on_write_ = std::move(listener);
}

Result<std::vector<std::string>> RunStore::Prune(const PruneFilter& filter) {
  if (pg_) return pg_->Prune(filter);
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
  if (pg_) return pg_->IntegrityCheck();
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

std::string RunStoreFilesBase(const std::string& path) {
  if (!IsPostgresUrl(path)) return path;
  // host:port/db of the URL, without user, password or query.
  std::string rest = path.substr(path.find("://") + 3);
  rest = rest.substr(0, rest.find_first_of("?#"));
  if (const size_t at = rest.rfind('@', rest.find('/')); at != std::string::npos) rest.erase(0, at + 1);
  std::string name;
  for (unsigned char c : rest) name += std::isalnum(c) || c == '-' || c == '.' ? static_cast<char>(c) : '_';
  fs::path data;
  if (const char* xdg = std::getenv("XDG_DATA_HOME"); xdg && fs::path(xdg).is_absolute()) {
    data = xdg;
  } else if (const char* home = std::getenv("HOME"); home && fs::path(home).is_absolute()) {
    data = fs::path(home) / ".local" / "share";
  } else {
    data = fs::temp_directory_path();
  }
  return (data / "medreact" / "postgres" / name).string();
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

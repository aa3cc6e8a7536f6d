// The job queue in the SQLite run store's file (job_queue.h): its tables are
// the run store's schema version 5 (run_store_db.h), so RunStore::Open
// creates or migrates the file first; the queue then keeps a connection of
// its own. Every change is one IMMEDIATE transaction (the write lock taken
// at its start): two processes claiming at once are serialised by SQLite's
// lock, so a job is never handed to two workers.
#include <sqlite3.h>

#include <algorithm>
#include <chrono>
#include <mutex>
#include <set>

#include "core/sqlite_stmt.h"
#include "store/job_queue.h"
#include "store/run_store.h"

namespace medreact {
namespace {

int64_t NowMillis() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

std::string Now() { return StoreTimestamp(std::chrono::system_clock::now()); }

constexpr char kJobColumns[] =
    "id, batch_id, case_name, inputs, state, attempts, owner, lease_until, available_at, run_id, result, "
    "last_error, created_at, updated_at";

class SqliteJobQueue : public JobQueue {
 public:
  SqliteJobQueue(std::string path, sqlite3* db, JobQueueOptions options)
      : path_(std::move(path)), db_(db), options_(options) {}
  ~SqliteJobQueue() override { sqlite3_close_v2(db_); }

  Result<std::string> Enqueue(const std::string& label, const std::vector<JobSpec>& jobs) override {
    if (jobs.empty()) return Status::InvalidArgument("a batch needs at least one job");
    std::set<std::string> names;
    for (const JobSpec& j : jobs) {
      if (j.case_name.empty()) return Status::InvalidArgument("a job needs a case name");
      if (!names.insert(j.case_name).second) {
        return Status::InvalidArgument("case '" + j.case_name + "' is twice in the batch");
      }
    }
    std::lock_guard<std::mutex> lock(mu_);
    Tx tx(this);
    if (Status s = tx.Begin(); !s.ok()) return s;
    const std::string id = NewBatchId();
    const std::string now = Now();
    {
      Stmt s(db_, "INSERT INTO job_batches(id, label, created_at) VALUES (?1, ?2, ?3)");
      if (!s.ok()) return Error("preparing a statement");
      s.Text(1, id);
      s.Text(2, label);
      s.Text(3, now);
      if (s.Step() != SQLITE_DONE) return Error("adding the batch");
    }
    Stmt s(db_,
           "INSERT INTO jobs(batch_id, case_name, inputs, state, created_at, updated_at) "
           "VALUES (?1, ?2, ?3, 'queued', ?4, ?4)");
    if (!s.ok()) return Error("preparing a statement");
    for (const JobSpec& j : jobs) {
      s.Reset();
      s.Text(1, id);
      s.Text(2, j.case_name);
      s.Text(3, DumpJson(j.inputs));
      s.Text(4, now);
      if (s.Step() != SQLITE_DONE) return Error("adding a job");
    }
    if (Status st = tx.Commit(); !st.ok()) return st;
    return id;
  }

  Result<std::optional<Job>> Claim(const std::string& owner, std::chrono::milliseconds lease) override {
    std::lock_guard<std::mutex> lock(mu_);
    Tx tx(this);
    if (Status s = tx.Begin(); !s.ok()) return s;
    const int64_t now = NowMillis();
    // Held jobs whose worker is gone: lease expired, or its process on this machine ended.
    std::vector<std::pair<int64_t, int>> lost;
    {
      Stmt s(db_, "SELECT id, owner, lease_until, attempts FROM jobs WHERE state = 'running' ORDER BY id");
      if (!s.ok()) return Error("preparing a statement");
      int rc;
      while ((rc = s.Step()) == SQLITE_ROW) {
        const std::string holder = s.ColNull(1) ? std::string() : s.ColText(1);
        if (s.ColInt(2) < now || RunOwnerGone(holder)) lost.push_back({s.ColInt(0), static_cast<int>(s.ColInt(3))});
      }
      if (rc != SQLITE_DONE) return Error("reading the jobs");
    }
    std::optional<int64_t> pick;
    for (const auto& [id, attempts] : lost) {
      if (attempts >= options_.max_attempts) {
        Stmt s(db_,
               "UPDATE jobs SET state = 'dead', owner = NULL, lease_until = 0, updated_at = ?2, "
               "last_error = ?3 WHERE id = ?1");
        if (!s.ok()) return Error("preparing a statement");
        s.Int(1, id);
        s.Text(2, Now());
        s.Text(3, "its worker stopped without ending it on each of " + std::to_string(attempts) + " attempts");
        if (s.Step() != SQLITE_DONE) return Error("ending a job");
      } else if (!pick) {
        pick = id;
      }
    }
    if (!pick) {
      Stmt s(db_, "SELECT id FROM jobs WHERE state = 'queued' AND available_at <= ?1 ORDER BY available_at, id LIMIT 1");
      if (!s.ok()) return Error("preparing a statement");
      s.Int(1, now);
      const int rc = s.Step();
      if (rc == SQLITE_ROW) {
        pick = s.ColInt(0);
      } else if (rc != SQLITE_DONE) {
        return Error("reading the jobs");
      }
    }
    if (!pick) {
      if (Status s = tx.Commit(); !s.ok()) return s;  // the dead ones
      return std::optional<Job>();
    }
    {
      Stmt s(db_,
             "UPDATE jobs SET state = 'running', owner = ?2, lease_until = ?3, attempts = attempts + 1, "
             "updated_at = ?4 WHERE id = ?1");
      if (!s.ok()) return Error("preparing a statement");
      s.Int(1, *pick);
      s.Text(2, owner);
      s.Int(3, now + std::max<int64_t>(lease.count(), 1));
      s.Text(4, Now());
      if (s.Step() != SQLITE_DONE) return Error("claiming a job");
    }
    Result<Job> job = ReadJob(*pick);
    if (!job.ok()) return job.status();
    if (Status s = tx.Commit(); !s.ok()) return s;
    return std::optional<Job>(std::move(*job));
  }

  Status Heartbeat(int64_t job_id, const std::string& owner, std::chrono::milliseconds lease) override {
    std::lock_guard<std::mutex> lock(mu_);
    Stmt s(db_, "UPDATE jobs SET lease_until = ?3 WHERE id = ?1 AND owner = ?2 AND state = 'running'");
    if (!s.ok()) return Error("preparing a statement");
    s.Int(1, job_id);
    s.Text(2, owner);
    s.Int(3, NowMillis() + std::max<int64_t>(lease.count(), 1));
    if (s.Step() != SQLITE_DONE) return Error("renewing a job's lease");
    return Held(job_id, owner);
  }

  Status SetRunId(int64_t job_id, const std::string& owner, const std::string& run_id) override {
    std::lock_guard<std::mutex> lock(mu_);
    Stmt s(db_, "UPDATE jobs SET run_id = ?3 WHERE id = ?1 AND owner = ?2 AND state = 'running'");
    if (!s.ok()) return Error("preparing a statement");
    s.Int(1, job_id);
    s.Text(2, owner);
    s.Text(3, run_id);
    if (s.Step() != SQLITE_DONE) return Error("storing a job's run");
    return Held(job_id, owner);
  }

  Status Complete(int64_t job_id, const std::string& owner, const std::string& result,
                  const std::string& run_id) override {
    std::lock_guard<std::mutex> lock(mu_);
    Stmt s(db_,
           "UPDATE jobs SET state = 'done', result = ?3, run_id = CASE WHEN ?4 = '' THEN run_id ELSE ?4 END, "
           "owner = NULL, lease_until = 0, updated_at = ?5 WHERE id = ?1 AND owner = ?2 AND state = 'running'");
    if (!s.ok()) return Error("preparing a statement");
    s.Int(1, job_id);
    s.Text(2, owner);
    s.Text(3, result);
    s.Text(4, run_id);
    s.Text(5, Now());
    if (s.Step() != SQLITE_DONE) return Error("completing a job");
    return Held(job_id, owner);
  }

  Result<std::string> Fail(int64_t job_id, const std::string& owner, const std::string& error) override {
    std::lock_guard<std::mutex> lock(mu_);
    Tx tx(this);
    if (Status s = tx.Begin(); !s.ok()) return s;
    Stmt q(db_, "SELECT attempts FROM jobs WHERE id = ?1 AND owner = ?2 AND state = 'running'");
    if (!q.ok()) return Error("preparing a statement");
    q.Int(1, job_id);
    q.Text(2, owner);
    const int rc = q.Step();
    if (rc != SQLITE_ROW) {
      if (rc != SQLITE_DONE) return Error("reading a job");
      return NotHeld(job_id);
    }
    const int attempts = static_cast<int>(q.ColInt(0));
    const bool dead = attempts >= options_.max_attempts;
    Stmt s(db_,
           "UPDATE jobs SET state = ?2, owner = NULL, lease_until = 0, available_at = ?3, last_error = ?4, "
           "updated_at = ?5 WHERE id = ?1");
    if (!s.ok()) return Error("preparing a statement");
    s.Int(1, job_id);
    s.Text(2, dead ? "dead" : "queued");
    s.Int(3, dead ? 0 : NowMillis() + Backoff(options_, attempts).count());
    s.Text(4, error);
    s.Text(5, Now());
    if (s.Step() != SQLITE_DONE) return Error("failing a job");
    if (Status st = tx.Commit(); !st.ok()) return st;
    return std::string(dead ? "dead" : "queued");
  }

  Status Release(int64_t job_id, const std::string& owner) override {
    std::lock_guard<std::mutex> lock(mu_);
    Stmt s(db_,
           "UPDATE jobs SET state = 'queued', owner = NULL, lease_until = 0, available_at = 0, "
           "attempts = max(attempts - 1, 0), updated_at = ?3 WHERE id = ?1 AND owner = ?2 AND state = 'running'");
    if (!s.ok()) return Error("preparing a statement");
    s.Int(1, job_id);
    s.Text(2, owner);
    s.Text(3, Now());
    if (s.Step() != SQLITE_DONE) return Error("releasing a job");
    return Status::OK();
  }

  Result<std::vector<Job>> ListBatch(const std::string& batch_id) override {
    std::lock_guard<std::mutex> lock(mu_);
    if (Status s = BatchExists(batch_id); !s.ok()) return s;
    const std::string sql = std::string("SELECT ") + kJobColumns + " FROM jobs WHERE batch_id = ?1 ORDER BY case_name";
    Stmt s(db_, sql.c_str());
    if (!s.ok()) return Error("preparing a statement");
    s.Text(1, batch_id);
    std::vector<Job> out;
    int rc;
    while ((rc = s.Step()) == SQLITE_ROW) out.push_back(Row(s));
    if (rc != SQLITE_DONE) return Error("reading the jobs");
    return out;
  }

  Result<BatchInfo> Batch(const std::string& batch_id) override {
    std::lock_guard<std::mutex> lock(mu_);
    Stmt s(db_, "SELECT id, label, created_at FROM job_batches WHERE id = ?1");
    if (!s.ok()) return Error("preparing a statement");
    s.Text(1, batch_id);
    return ReadBatch(s, "no batch '" + batch_id + "' in the job queue of '" + path_ + "'");
  }

  Result<BatchInfo> LatestBatch(const std::string& label) override {
    std::lock_guard<std::mutex> lock(mu_);
    Stmt s(db_, "SELECT id, label, created_at FROM job_batches WHERE label = ?1 ORDER BY created_at DESC, rowid DESC LIMIT 1");
    if (!s.ok()) return Error("preparing a statement");
    s.Text(1, label);
    return ReadBatch(s, "no batch of '" + label + "' in the job queue of '" + path_ + "'");
  }

  Result<int64_t> Pending() override {
    std::lock_guard<std::mutex> lock(mu_);
    Stmt s(db_, "SELECT count(*) FROM jobs WHERE state IN ('queued', 'running')");
    if (!s.ok() || s.Step() != SQLITE_ROW) return Error("counting the jobs");
    return s.ColInt(0);
  }

 private:
  // One IMMEDIATE transaction, rolled back unless committed.
  class Tx {
   public:
    explicit Tx(SqliteJobQueue* q) : q_(q) {}
    ~Tx() {
      if (open_) sqlite3_exec(q_->db_, "ROLLBACK", nullptr, nullptr, nullptr);
    }
    Status Begin() {
      if (sqlite3_exec(q_->db_, "BEGIN IMMEDIATE", nullptr, nullptr, nullptr) != SQLITE_OK) {
        return q_->Error("starting a transaction");
      }
      open_ = true;
      return Status::OK();
    }
    Status Commit() {
      if (sqlite3_exec(q_->db_, "COMMIT", nullptr, nullptr, nullptr) != SQLITE_OK) return q_->Error("committing");
      open_ = false;
      return Status::OK();
    }

   private:
    SqliteJobQueue* q_;
    bool open_ = false;
  };

  Status Error(const std::string& what) const {
    return Status::Unavailable("job queue '" + path_ + "': " + what + ": " + sqlite3_errmsg(db_));
  }

  Status NotHeld(int64_t job_id) const {
    return Status::FailedPrecondition("job " + std::to_string(job_id) +
                                      " is no longer held by this worker (its lease expired and it was taken over, "
                                      "or it ended)");
  }

  // OK when the last UPDATE changed the job (`owner` holds it).
  Status Held(int64_t job_id, const std::string& owner) const {
    (void)owner;
    return sqlite3_changes(db_) > 0 ? Status::OK() : NotHeld(job_id);
  }

  Status BatchExists(const std::string& batch_id) const {
    Stmt s(db_, "SELECT 1 FROM job_batches WHERE id = ?1");
    if (!s.ok()) return Error("preparing a statement");
    s.Text(1, batch_id);
    const int rc = s.Step();
    if (rc == SQLITE_ROW) return Status::OK();
    if (rc != SQLITE_DONE) return Error("reading the batches");
    return Status::NotFound("no batch '" + batch_id + "' in the job queue of '" + path_ + "'");
  }

  Result<BatchInfo> ReadBatch(Stmt& s, const std::string& missing) const {
    const int rc = s.Step();
    if (rc == SQLITE_DONE) return Status::NotFound(missing);
    if (rc != SQLITE_ROW) return Error("reading the batches");
    BatchInfo info{.id = s.ColText(0), .label = s.ColText(1), .created_at = s.ColText(2)};
    Stmt c(db_, "SELECT state, count(*) FROM jobs WHERE batch_id = ?1 GROUP BY state");
    if (!c.ok()) return Error("preparing a statement");
    c.Text(1, info.id);
    int crc;
    while ((crc = c.Step()) == SQLITE_ROW) {
      const std::string state = c.ColText(0);
      const int64_t n = c.ColInt(1);
      info.jobs += n;
      if (state == "queued") info.queued = n;
      if (state == "running") info.running = n;
      if (state == "done") info.done = n;
      if (state == "dead") info.dead = n;
    }
    if (crc != SQLITE_DONE) return Error("counting the jobs");
    return info;
  }

  static Job Row(const Stmt& s) {
    Job j;
    j.id = s.ColInt(0);
    j.batch_id = s.ColText(1);
    j.case_name = s.ColText(2);
    Result<Json> inputs = ParseJson(s.ColText(3));
    j.inputs = inputs.ok() ? *inputs : Json::object();
    j.state = s.ColText(4);
    j.attempts = static_cast<int>(s.ColInt(5));
    j.owner = s.ColNull(6) ? std::string() : s.ColText(6);
    j.lease_until = s.ColInt(7);
    j.available_at = s.ColInt(8);
    j.run_id = s.ColText(9);
    j.result = s.ColNull(10) ? std::string() : s.ColText(10);
    j.last_error = s.ColText(11);
    j.created_at = s.ColText(12);
    j.updated_at = s.ColText(13);
    return j;
  }

  Result<Job> ReadJob(int64_t id) const {
    const std::string sql = std::string("SELECT ") + kJobColumns + " FROM jobs WHERE id = ?1";
    Stmt s(db_, sql.c_str());
    if (!s.ok()) return Error("preparing a statement");
    s.Int(1, id);
    if (s.Step() != SQLITE_ROW) return Error("reading a job");
    return Row(s);
  }

  std::string path_;
  std::mutex mu_;
  sqlite3* db_;
  JobQueueOptions options_;
};

}  // namespace

Result<std::unique_ptr<JobQueue>> OpenSqliteJobQueue(const std::string& path, JobQueueOptions options) {
  // Creates or migrates the file (the queue's tables are the store's schema).
  {
    Result<std::unique_ptr<RunStore>> store = RunStore::Open(path, {.busy_timeout = options.busy_timeout});
    if (!store.ok()) return store.status();
  }
  sqlite3* db = nullptr;
  if (sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, nullptr) != SQLITE_OK) {
    const std::string message = db ? sqlite3_errmsg(db) : "out of memory";
    sqlite3_close_v2(db);
    return Status::Unavailable("job queue '" + path + "': opening: " + message);
  }
  sqlite3_busy_timeout(db, static_cast<int>(std::min<int64_t>(options.busy_timeout.count(), INT32_MAX)));
  return std::unique_ptr<JobQueue>(new SqliteJobQueue(path, db, options));
}

}  // namespace medreact

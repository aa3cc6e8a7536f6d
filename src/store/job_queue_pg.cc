// The job queue on PostgreSQL (job_queue.h): its tables are version 2 of the
// PostgreSQL schema (pg_schema.cc), applied when the queue is opened.
//
// A claim is one statement: the oldest available job is picked with
// `FOR UPDATE SKIP LOCKED` (a job another claimer is taking is skipped, not
// waited for) and updated in the same statement, so two workers on any
// number of machines never get one job. Times (leases, backoffs) are the
// server's clock in ms, so the workers' clocks may disagree. Every write of
// a worker names its owner and is refused when the job is no longer its own.
// A lost connection is opened again before the next call.
#include <mutex>
#include <set>

#include "store/job_queue.h"
#include "store/pg_conn.h"
#include "store/pg_schema.h"
#include "store/run_store.h"

namespace medreact {
namespace {

// Now, in ms since the epoch, by the server's clock.
constexpr char kNowMs[] = "(extract(epoch from clock_timestamp()) * 1000)::bigint";

constexpr char kJobColumns[] =
    "id, batch_id, case_name, inputs, state, attempts, owner, lease_until, available_at, run_id, result, "
    "last_error, created_at, updated_at";

std::string Now() { return StoreTimestamp(std::chrono::system_clock::now()); }

Job RowToJob(const PgRows& r, int i) {
  Job j;
  j.id = r.Int(i, 0);
  j.batch_id = r.Text(i, 1);
  j.case_name = r.Text(i, 2);
  Result<Json> inputs = ParseJson(r.Text(i, 3));
  j.inputs = inputs.ok() ? *inputs : Json::object();
  j.state = r.Text(i, 4);
  j.attempts = static_cast<int>(r.Int(i, 5));
  j.owner = r.Text(i, 6);
  j.lease_until = r.Int(i, 7);
  j.available_at = r.Int(i, 8);
  j.run_id = r.Text(i, 9);
  j.result = r.Text(i, 10);
  j.last_error = r.Text(i, 11);
  j.created_at = r.Text(i, 12);
  j.updated_at = r.Text(i, 13);
  return j;
}

class PgJobQueue : public JobQueue {
 public:
  PgJobQueue(std::unique_ptr<PgConnection> conn, JobQueueOptions options)
      : conn_(std::move(conn)), options_(options) {}

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
    if (Status s = Ready(); !s.ok()) return s;
    const std::string id = NewBatchId();
    const std::string now = Now();
    if (Status s = conn_->Begin(); !s.ok()) return s;
    auto fail = [&](const Status& s) {
      conn_->Rollback();
      return s;
    };
    Result<PgRows> b = conn_->Exec("INSERT INTO job_batches(id, label, created_at) VALUES ($1, $2, $3)",
                                   {id, label, now}, "adding the batch");
    if (!b.ok()) return fail(b.status());
    for (const JobSpec& j : jobs) {
      Result<PgRows> r = conn_->Exec(
          "INSERT INTO jobs(batch_id, case_name, inputs, state, created_at, updated_at) "
          "VALUES ($1, $2, $3, 'queued', $4, $4)",
          {id, j.case_name, DumpJson(j.inputs), now}, "adding a job");
      if (!r.ok()) return fail(r.status());
    }
    if (Status s = conn_->Commit(); !s.ok()) return s;
    return id;
  }

  Result<std::optional<Job>> Claim(const std::string& owner, std::chrono::milliseconds lease) override {
    std::lock_guard<std::mutex> lock(mu_);
    if (Status s = Ready(); !s.ok()) return s;
    const std::string max = std::to_string(options_.max_attempts);
    const std::string lease_ms = std::to_string(std::max<int64_t>(lease.count(), 1));
    // Held jobs whose lease expired after their last allowed attempt: dead.
    Result<PgRows> dead = conn_->Exec(
        std::string("UPDATE jobs SET state = 'dead', owner = NULL, lease_until = 0, updated_at = $2, "
                    "last_error = 'its worker stopped without ending it on each of ' || attempts || ' attempts' "
                    "WHERE id IN (SELECT id FROM jobs WHERE state = 'running' AND lease_until < ") +
            kNowMs + " AND attempts >= $1 FOR UPDATE SKIP LOCKED)",
        {max, Now()}, "ending jobs whose workers stopped");
    if (!dead.ok()) return dead.status();
    // Held jobs of this machine whose process is gone: taken over at once.
    std::vector<std::pair<std::string, std::string>> gone;  // id, owner
    {
      Result<PgRows> held = conn_->Exec(
          std::string("SELECT id, owner FROM jobs WHERE state = 'running' AND lease_until >= ") + kNowMs +
              " AND attempts < $1",
          {max}, "reading the held jobs");
      if (!held.ok()) return held.status();
      for (int i = 0; i < held->size(); ++i) {
        if (RunOwnerGone(held->Text(i, 1))) gone.push_back({held->Text(i, 0), held->Text(i, 1)});
      }
    }
    for (const auto& [id, holder] : gone) {
      Result<PgRows> r = conn_->Exec("UPDATE jobs SET lease_until = 0 WHERE id = $1 AND state = 'running' AND owner = $2",
                                     {id, holder}, "freeing a job whose worker is gone");
      if (!r.ok()) return r.status();
    }
    Result<PgRows> r = conn_->Exec(
        std::string("UPDATE jobs SET state = 'running', owner = $1, lease_until = ") + kNowMs +
            " + $2::bigint, attempts = attempts + 1, updated_at = $4 WHERE id = (SELECT id FROM jobs WHERE "
            "(state = 'queued' AND available_at <= " + kNowMs + ") OR (state = 'running' AND lease_until < " +
            kNowMs + " AND attempts < $3) ORDER BY available_at, id LIMIT 1 FOR UPDATE SKIP LOCKED) RETURNING " +
            kJobColumns,
        {owner, lease_ms, max, Now()}, "claiming a job");
    if (!r.ok()) return r.status();
    if (r->size() == 0) return std::optional<Job>();
    return std::optional<Job>(RowToJob(*r, 0));
  }

  Status Heartbeat(int64_t job_id, const std::string& owner, std::chrono::milliseconds lease) override {
    return Update(std::string("UPDATE jobs SET lease_until = ") + kNowMs +
                      " + $3::bigint WHERE id = $1 AND owner = $2 AND state = 'running'",
                  {std::to_string(job_id), owner, std::to_string(std::max<int64_t>(lease.count(), 1))}, job_id,
                  "renewing a job's lease");
  }

  Status SetRunId(int64_t job_id, const std::string& owner, const std::string& run_id) override {
    return Update("UPDATE jobs SET run_id = $3 WHERE id = $1 AND owner = $2 AND state = 'running'",
                  {std::to_string(job_id), owner, run_id}, job_id, "storing a job's run");
  }

  Status Complete(int64_t job_id, const std::string& owner, const std::string& result,
                  const std::string& run_id) override {
    return Update(
        "UPDATE jobs SET state = 'done', result = $3, run_id = CASE WHEN $4 = '' THEN run_id ELSE $4 END, "
        "owner = NULL, lease_until = 0, updated_at = $5 WHERE id = $1 AND owner = $2 AND state = 'running'",
        {std::to_string(job_id), owner, result, run_id, Now()}, job_id, "completing a job");
  }

  Result<std::string> Fail(int64_t job_id, const std::string& owner, const std::string& error) override {
    std::lock_guard<std::mutex> lock(mu_);
    if (Status s = Ready(); !s.ok()) return s;
    // The backoff: base × 2^(attempts-1), capped (in double: no overflow).
    Result<PgRows> r = conn_->Exec(
        std::string("UPDATE jobs SET state = CASE WHEN attempts >= $3 THEN 'dead' ELSE 'queued' END, "
                    "available_at = CASE WHEN attempts >= $3 THEN 0 ELSE ") +
            kNowMs +
            " + LEAST($4::double precision * power(2, LEAST(GREATEST(attempts - 1, 0), 60)), "
            "$5::double precision)::bigint END, owner = NULL, lease_until = 0, last_error = $6, updated_at = $7 "
            "WHERE id = $1 AND owner = $2 AND state = 'running' RETURNING state",
        {std::to_string(job_id), owner, std::to_string(options_.max_attempts),
         std::to_string(std::max<int64_t>(options_.backoff_base.count(), 0)),
         std::to_string(std::max<int64_t>(options_.backoff_max.count(), 0)), error, Now()},
        "failing a job");
    if (!r.ok()) return r.status();
    if (r->size() == 0) return NotHeld(job_id);
    return r->Text(0, 0);
  }

  Status Release(int64_t job_id, const std::string& owner) override {
    Status s = Update(
        "UPDATE jobs SET state = 'queued', owner = NULL, lease_until = 0, available_at = 0, "
        "attempts = GREATEST(attempts - 1, 0), updated_at = $3 WHERE id = $1 AND owner = $2 AND state = 'running'",
        {std::to_string(job_id), owner, Now()}, job_id, "releasing a job");
    return s.code() == StatusCode::kFailedPrecondition ? Status::OK() : s;
  }

  Result<std::vector<Job>> ListBatch(const std::string& batch_id) override {
    std::lock_guard<std::mutex> lock(mu_);
    if (Status s = Ready(); !s.ok()) return s;
    Result<PgRows> b = conn_->Exec("SELECT 1 FROM job_batches WHERE id = $1", {batch_id}, "reading the batch");
    if (!b.ok()) return b.status();
    if (b->size() == 0) return Missing(batch_id);
    Result<PgRows> r = conn_->Exec(std::string("SELECT ") + kJobColumns +
                                       " FROM jobs WHERE batch_id = $1 ORDER BY case_name COLLATE \"C\"",
                                   {batch_id}, "reading the jobs");
    if (!r.ok()) return r.status();
    std::vector<Job> out;
    for (int i = 0; i < r->size(); ++i) out.push_back(RowToJob(*r, i));
    return out;
  }

  Result<BatchInfo> Batch(const std::string& batch_id) override {
    std::lock_guard<std::mutex> lock(mu_);
    if (Status s = Ready(); !s.ok()) return s;
    Result<PgRows> r = conn_->Exec("SELECT id, label, created_at FROM job_batches WHERE id = $1", {batch_id},
                                   "reading the batch");
    if (!r.ok()) return r.status();
    if (r->size() == 0) return Missing(batch_id);
    return Counts(*r);
  }

  Result<BatchInfo> LatestBatch(const std::string& label) override {
    std::lock_guard<std::mutex> lock(mu_);
    if (Status s = Ready(); !s.ok()) return s;
    Result<PgRows> r = conn_->Exec(
        "SELECT id, label, created_at FROM job_batches WHERE label = $1 ORDER BY n DESC LIMIT 1", {label},
        "reading the batches");
    if (!r.ok()) return r.status();
    if (r->size() == 0) {
      return Status::NotFound("no batch of '" + label + "' in the job queue of " + conn_->Where());
    }
    return Counts(*r);
  }

  Result<int64_t> Pending() override {
    std::lock_guard<std::mutex> lock(mu_);
    if (Status s = Ready(); !s.ok()) return s;
    Result<PgRows> r =
        conn_->Exec("SELECT count(*) FROM jobs WHERE state IN ('queued', 'running')", {}, "counting the jobs");
    if (!r.ok()) return r.status();
    return r->Int(0, 0);
  }

 private:
  // A lost connection is opened again before a call.
  Status Ready() {
    if (conn_->Broken()) return conn_->Reconnect();
    return Status::OK();
  }

  Status NotHeld(int64_t job_id) const {
    return Status::FailedPrecondition("job " + std::to_string(job_id) +
                                      " is no longer held by this worker (its lease expired and it was taken over, "
                                      "or it ended)");
  }

  Status Missing(const std::string& batch_id) const {
    return Status::NotFound("no batch '" + batch_id + "' in the job queue of " + conn_->Where());
  }

  Status Update(const std::string& sql, const std::vector<std::optional<std::string>>& params, int64_t job_id,
                const std::string& what) {
    std::lock_guard<std::mutex> lock(mu_);
    if (Status s = Ready(); !s.ok()) return s;
    Result<PgRows> r = conn_->Exec(sql, params, what);
    if (!r.ok()) return r.status();
    return r->affected() > 0 ? Status::OK() : NotHeld(job_id);
  }

  Result<BatchInfo> Counts(const PgRows& batch) {
    BatchInfo info{.id = batch.Text(0, 0), .label = batch.Text(0, 1), .created_at = batch.Text(0, 2)};
    Result<PgRows> c = conn_->Exec("SELECT state, count(*) FROM jobs WHERE batch_id = $1 GROUP BY state", {info.id},
                                   "counting the jobs");
    if (!c.ok()) return c.status();
    for (int i = 0; i < c->size(); ++i) {
      const std::string state = c->Text(i, 0);
      const int64_t n = c->Int(i, 1);
      info.jobs += n;
      if (state == "queued") info.queued = n;
      if (state == "running") info.running = n;
      if (state == "done") info.done = n;
      if (state == "dead") info.dead = n;
    }
    return info;
  }

  std::mutex mu_;
  std::unique_ptr<PgConnection> conn_;
  JobQueueOptions options_;
};

}  // namespace

Result<std::unique_ptr<JobQueue>> OpenPgJobQueue(const std::string& url, JobQueueOptions options) {
  Result<std::unique_ptr<PgConnection>> conn = PgConnection::Connect(url);
  if (!conn.ok()) return conn.status();
  if (Status s = ApplyPgSchema(**conn); !s.ok()) return s;
  return std::unique_ptr<JobQueue>(new PgJobQueue(std::move(*conn), options));
}

}  // namespace medreact

// JobQueue: a worklist's cases as jobs that worker processes take, on one
// machine (the SQLite run store's file) or many (PostgreSQL) — issue 28.
//
// A batch is a list of jobs (one per case) put in at once (Enqueue), named by
// a batch id and labelled with what it came from (the worklist folder). A
// worker claims the next job that is available (Claim): the job becomes
// `running`, held by the worker (`owner`) until `lease_until`; the worker
// renews the lease while it works (Heartbeat) and ends the job with its
// result (Complete: `done`) or its error (Fail). A failed job is tried again
// after an exponential backoff (`available_at` = now + base × 2^(attempt-1),
// capped), up to max_attempts attempts; then it is `dead` (the dead-letter
// state) with its last error. A job whose worker stopped without a word (a
// kill -9, a lost machine) is taken over once its lease expired — at once
// when its owner was a process on this machine that is gone (RunOwnerGone)
// — and that counts as an attempt: a job that kills its workers ends dead.
// A job given back (Release: a worker asked to stop) is available at once
// and its attempt is not counted.
//
// A job keeps the id of the stored run its first attempt made (SetRunId, as
// soon as the run is stored), so a retry or a takeover goes on with that run
// from its checkpoint (RunStore::ClaimRun / LatestState) instead of starting
// over: tool calls the killed attempt completed are not run again.
//
// Every write of a worker names the owner, and is refused (FailedPrecondition)
// when the job is no longer held by it (its lease expired and another took
// it over): a late worker never overwrites the job's end (fencing).
//
// States: queued (waiting, maybe until available_at) → running → done |
// queued (a retry) | dead. Thread-safe; several processes share one queue.
#ifndef MEDREACT_STORE_JOB_QUEUE_H_
#define MEDREACT_STORE_JOB_QUEUE_H_

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "medreact/cancel.h"
#include "medreact/json.h"
#include "medreact/status.h"

namespace medreact {

struct JobQueueOptions {
  // Attempts before a job is dead (a failure or a worker lost each count
  // one). Default: 3
  int max_attempts = 3;
  // The first retry's wait; each next one doubles it. Default: 2 s
  std::chrono::milliseconds backoff_base{2'000};
  // The longest wait between attempts. Default: 5 min
  std::chrono::milliseconds backoff_max{300'000};
  // SQLite: how long a write waits for another process's. Default: 10 s
  std::chrono::milliseconds busy_timeout{10'000};
};

// One case to put in a batch.
struct JobSpec {
  std::string case_name;          // unique within its batch
  Json inputs = Json::object();   // what a worker needs to run it
};

struct Job {
  int64_t id = 0;
  std::string batch_id;
  std::string case_name;
  Json inputs = Json::object();
  std::string state;        // queued | running | done | dead
  int attempts = 0;         // attempts started (claims)
  std::string owner;        // the worker holding it, "" when none
  int64_t lease_until = 0;  // ms since the epoch; 0 when not held
  int64_t available_at = 0; // ms since the epoch: not claimed before
  std::string run_id;       // the stored run of its first attempt; "" until stored
  std::string result;       // the result's JSON text when done
  std::string last_error;   // the last failure's message ("" when none)
  std::string created_at;   // ISO 8601 UTC
  std::string updated_at;
};

struct BatchInfo {
  std::string id;
  std::string label;        // what it came from (a worklist folder)
  std::string created_at;
  int64_t jobs = 0;
  int64_t queued = 0, running = 0, done = 0, dead = 0;
  bool finished() const { return queued == 0 && running == 0; }
};

class JobQueue {
 public:
  virtual ~JobQueue() = default;

  // Puts the jobs in as one new batch (one transaction) labelled `label`;
  // returns its id. InvalidArgument: no job, an empty or repeated case name.
  virtual Result<std::string> Enqueue(const std::string& label, const std::vector<JobSpec>& jobs) = 0;
  // Takes the next available job for `owner` (queued and due, or running
  // with its lease expired or its owner gone), oldest first, leased for
  // `lease`; nullopt when none is. A taken-over job past max_attempts goes
  // dead instead.
  virtual Result<std::optional<Job>> Claim(const std::string& owner, std::chrono::milliseconds lease) = 0;
  // Renews the lease. FailedPrecondition when `owner` no longer holds it.
  virtual Status Heartbeat(int64_t job_id, const std::string& owner, std::chrono::milliseconds lease) = 0;
  // Remembers the job's stored run (its first attempt's). FailedPrecondition as above.
  virtual Status SetRunId(int64_t job_id, const std::string& owner, const std::string& run_id) = 0;
  // Ends the job `done` with its result (JSON text). FailedPrecondition as above.
  virtual Status Complete(int64_t job_id, const std::string& owner, const std::string& result,
                          const std::string& run_id) = 0;
  // Records a failed attempt: queued again after the backoff, or dead once
  // max_attempts are used; returns the new state. FailedPrecondition as above.
  virtual Result<std::string> Fail(int64_t job_id, const std::string& owner, const std::string& error) = 0;
  // Gives the job back without counting its attempt (a worker stopping).
  virtual Status Release(int64_t job_id, const std::string& owner) = 0;
  // A batch's jobs by case name. NotFound when there is no such batch.
  virtual Result<std::vector<Job>> ListBatch(const std::string& batch_id) = 0;
  // A batch's counts. NotFound when there is no such batch.
  virtual Result<BatchInfo> Batch(const std::string& batch_id) = 0;
  // The newest batch labelled `label`. NotFound when there is none.
  virtual Result<BatchInfo> LatestBatch(const std::string& label) = 0;
  // How many jobs are queued or running in all batches (a worker's --until-empty).
  virtual Result<int64_t> Pending() = 0;

  // Waits until every job of the batch is done or dead (polling every
  // `poll`), then returns them. Timeout after `timeout` (0: no
  // limit); Cancelled when `cancel` fires.
  Result<std::vector<Job>> WaitBatch(const std::string& batch_id, std::chrono::milliseconds timeout,
                                     std::chrono::milliseconds poll = std::chrono::milliseconds(200),
                                     const CancellationToken& cancel = {});

  // The wait before attempt `attempts` + 1 after a failure: base × 2^(attempts-1), capped.
  static std::chrono::milliseconds Backoff(const JobQueueOptions& options, int attempts);
};

// A new batch id: "b-" and 16 hex digits.
std::string NewBatchId();

// The queue in the SQLite run store at `path` (its tables are part of the
// run store's schema: the file is created and migrated as RunStore::Open does).
Result<std::unique_ptr<JobQueue>> OpenSqliteJobQueue(const std::string& path, JobQueueOptions options = {});
// The queue in the PostgreSQL database at `url` (its tables are version 2
// of the PostgreSQL schema, pg_schema.h: applied when missing).
Result<std::unique_ptr<JobQueue>> OpenPgJobQueue(const std::string& url, JobQueueOptions options = {});
// The queue of a store: PostgreSQL for a postgres:// or postgresql:// URL,
// else the SQLite run store at that path.
Result<std::unique_ptr<JobQueue>> OpenJobQueue(const std::string& store, JobQueueOptions options = {});

}  // namespace medreact

#endif  // MEDREACT_STORE_JOB_QUEUE_H_

// A worklist as a queue across processes and machines (issue 28): its cases
// put in a job queue (job_queue.h) as one batch, taken by worker processes
// (`medreact worker`) that triage them exactly as a local worklist does
// (RunWorklist, one case at a time, each model investigation recorded in the
// run store so a killed worker leaves a checkpoint), and collected by whoever
// waits for the batch into the same result files a local run writes
// (FinishWorklist).
//
//   Result<std::string> batch = EnqueueWorklist(queue, "cases/", "");   // the batch id
//   WorkerReport w = RunWorker(service, queue, settings, {.until_empty = true});
//   Result<std::vector<Job>> jobs = queue.WaitBatch(*batch, timeout);
//   WorklistReport report = CollectWorklist(*jobs, "out/", elapsed_ms);
//
// A job's inputs name the case by its worklist folder's absolute path and
// the case's name: every worker must see the folder at that path (a shared
// or copied file system). A job's result is WorklistCaseToJson's.
//
// A worker holds its job's lease while it works (a heartbeat every third of
// the lease), remembers the case's stored run as soon as it is stored, ends
// the job done (the case triaged: any status, as a local run reports it) or
// failed (the case could not be triaged: retried after a backoff, then
// dead); asked to stop, it stops its cases (they end `interrupted` in the
// store, resumable) and gives their jobs back. A retry or a takeover goes on
// with the job's run from its checkpoint.
#ifndef MEDREACT_SERVICE_WORKLIST_QUEUE_H_
#define MEDREACT_SERVICE_WORKLIST_QUEUE_H_

#include <chrono>
#include <functional>
#include <string>
#include <vector>

#include "apps/triage/worklist.h"
#include "medreact/cancel.h"
#include "service/run_service.h"
#include "service/triage_runs.h"
#include "store/job_queue.h"

namespace medreact::service {

// Puts every case folder of `dir` (ListWorklistCases; `skip` left out) in
// the queue as one batch labelled with the folder's absolute path; returns
// the batch id. Errors: those of ListWorklistCases and the queue.
Result<std::string> EnqueueWorklist(JobQueue& queue, const std::string& dir, const std::string& skip);
// The label a worklist folder's batches get (its absolute, normal path).
std::string WorklistBatchLabel(const std::string& dir);

struct WorkerOptions {
  int concurrency = 1;  // jobs worked on at once (1..64). Default: 1
  // A job's lease; renewed every third of it. Default: 60 s
  std::chrono::milliseconds lease{60'000};
  // How often an idle worker asks for a job. Default: 500 ms
  std::chrono::milliseconds poll{500};
  bool once = false;         // one job, then stop (none available: stop at once). Default: false
  bool until_empty = false;  // stop once no job is queued or running anywhere. Default: false
  CancellationToken stop;    // stop: cases stopped (resumable) and their jobs given back
  std::function<void(const std::string&)> warn;
  // After each job (serialised): the job, and "done", "failed", "dead",
  // "released" or "lost" (its lease was taken over).
  std::function<void(const Job&, const std::string& outcome)> on_job_end;
};

struct WorkerReport {
  int done = 0, failed = 0, released = 0, lost = 0;
  Status error;  // the queue failed (the worker stopped early)
};

// Works on jobs until told to stop (options.stop), or as once / until_empty
// say. The queue's owner id is the store's (RunStore::owner; a new one
// without a store), so a worker killed on this machine is seen gone at once.
WorkerReport RunWorker(RunService& service, JobQueue& queue, const TriageSettings& settings,
                       const WorkerOptions& options);

// The batch's jobs as a worklist, written into `out_dir` as a local run's
// (FinishWorklist): a done job's case as its worker reported it, a dead
// job's as a failed case naming its attempts and last error.
WorklistReport CollectWorklist(const std::vector<Job>& jobs, const std::string& out_dir, double elapsed_ms);

}  // namespace medreact::service

#endif  // MEDREACT_SERVICE_WORKLIST_QUEUE_H_

// What every JobQueue shares: the wait for a batch, the backoff, batch ids.
// The SQLite queue is in job_queue_sqlite.cc, PostgreSQL's in job_queue_pg.cc.
#include "store/job_queue.h"

#include <algorithm>
#include <cstdio>
#include <random>

#include "store/pg_conn.h"

namespace medreact {

Result<std::vector<Job>> JobQueue::WaitBatch(const std::string& batch_id, std::chrono::milliseconds timeout,
                                             std::chrono::milliseconds poll, const CancellationToken& cancel) {
  const Deadline deadline = Deadline::In(timeout);
  for (;;) {
    Result<BatchInfo> info = Batch(batch_id);
    if (!info.ok()) return info.status();
    if (info->finished()) return ListBatch(batch_id);
    if (cancel.cancelled()) return Status::Cancelled("stopped waiting for batch " + batch_id);
    if (deadline.expired()) {
      return Status::Timeout("batch " + batch_id + " not finished in time: " + std::to_string(info->done) +
                                      " done, " + std::to_string(info->dead) + " dead, " +
                                      std::to_string(info->running) + " running, " + std::to_string(info->queued) +
                                      " queued");
    }
    cancel.WaitFor(std::min(poll, std::max(Millis(1), deadline.remaining())));
  }
}

std::chrono::milliseconds JobQueue::Backoff(const JobQueueOptions& options, int attempts) {
  const int shift = std::clamp(attempts - 1, 0, 30);
  const int64_t base = std::max<int64_t>(options.backoff_base.count(), 0);
  const int64_t cap = std::max<int64_t>(options.backoff_max.count(), 0);
  if (base == 0) return Millis(0);
  // base × 2^shift without overflow: stop doubling at the cap.
  int64_t wait = base;
  for (int i = 0; i < shift && wait < cap; ++i) wait *= 2;
  return Millis(std::min(wait, cap));
}

std::string NewBatchId() {
  std::random_device rd;
  const uint64_t v = (static_cast<uint64_t>(rd()) << 32) ^ rd();
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(v));
  return std::string("b-") + hex;
}

Result<std::unique_ptr<JobQueue>> OpenJobQueue(const std::string& store, JobQueueOptions options) {
  if (store.empty()) return Status::InvalidArgument("the job queue needs a store: a file path or a postgres:// URL");
  if (IsPostgresUrl(store)) return OpenPgJobQueue(store, options);
  return OpenSqliteJobQueue(store, options);
}

}  // namespace medreact

// The job queue's backends for the queue's behaviour tests (job_queue_test.cc):
// "sqlite" (a run store file in a temporary folder) and, when the build has
// it, "postgres" (a fresh database on the test harness's PostgreSQL server;
// not available — the test skips, saying why — when the server cannot start).
#ifndef MEDREACT_TESTS_TESTING_JOB_QUEUE_BACKEND_H_
#define MEDREACT_TESTS_TESTING_JOB_QUEUE_BACKEND_H_

#include <memory>
#include <string>
#include <vector>

#include "store/job_queue.h"

namespace medreact::testing {

class JobQueueBackend {
 public:
  virtual ~JobQueueBackend() = default;
  virtual bool available() const { return true; }
  virtual std::string skip_reason() const { return ""; }
  // The --store value a worker process would be given (a path or a URL).
  virtual std::string store() const = 0;
  // A new queue (a connection of its own) on the backend's one store.
  virtual Result<std::unique_ptr<JobQueue>> Open(const JobQueueOptions& options) const = 0;
};

std::vector<std::string> JobQueueBackendNames();
std::unique_ptr<JobQueueBackend> MakeJobQueueBackend(const std::string& name);

}  // namespace medreact::testing

#endif  // MEDREACT_TESTS_TESTING_JOB_QUEUE_BACKEND_H_

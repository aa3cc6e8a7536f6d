#include "testing/job_queue_backend.h"

#include "testing/postgres_server.h"
#include "testing/subprocess.h"

namespace medreact::testing {
namespace {

class SqliteBackend : public JobQueueBackend {
 public:
  std::string store() const override { return dir_.File("runs.sqlite"); }
  Result<std::unique_ptr<JobQueue>> Open(const JobQueueOptions& options) const override {
    return OpenSqliteJobQueue(store(), options);
  }

 private:
  TempDir dir_;
};

// A fresh database on the process's PostgreSQL server (postgres_server.h).
class PostgresBackend : public JobQueueBackend {
 public:
  PostgresBackend() {
    PostgresServer* server = PostgresServer::Shared(&why_not_);
    if (server) url_ = server->NewDatabase(&why_not_);
  }
  bool available() const override { return !url_.empty(); }
  std::string skip_reason() const override { return "PostgreSQL is not available for this test: " + why_not_; }
  std::string store() const override { return url_; }
  Result<std::unique_ptr<JobQueue>> Open(const JobQueueOptions& options) const override {
    return OpenPgJobQueue(url_, options);
  }

 private:
  std::string url_;
  std::string why_not_;
};

}  // namespace

std::vector<std::string> JobQueueBackendNames() { return {"sqlite", "postgres"}; }

std::unique_ptr<JobQueueBackend> MakeJobQueueBackend(const std::string& name) {
  if (name == "postgres") return std::make_unique<PostgresBackend>();
  return std::make_unique<SqliteBackend>();
}

}  // namespace medreact::testing

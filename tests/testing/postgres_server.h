// A real PostgreSQL 15 server for the tests: the run store's and the job
// queue's PostgreSQL code is tested against the server, not a fake.
//
// One server per test process, started at the first SharedPostgres() call in
// a temporary folder on 127.0.0.1 with a free port (its unix socket in the
// same folder), trust authentication for loopback, fsync off; stopped (fast
// shutdown) and the folder removed when the process ends. ctest runs each
// test in its own process, so the cluster is not made per process: initdb
// runs once into a template folder under the build folder (build/pg-template,
// made under a file lock so parallel tests wait for one initdb) and each
// process copies it (~40 MB, tens of milliseconds) and starts a postmaster on
// the copy. Each test takes a fresh database of its own (NewDatabase: CREATE
// DATABASE, a few tens of milliseconds).
//
// When running as root (initdb and postgres refuse it) the server runs as the
// `postgres` system user, the folders given to it. When PostgreSQL cannot
// start (not installed, no `postgres` user), MEDREACT_REQUIRE_POSTGRES skips
// the test with the reason and initdb's or postgres's output.
//
// The postmaster dies with the test process (the parent-death signal), so a
// test process killed outright leaves no server behind (its folder under
// /tmp stays).
#ifndef MEDREACT_TESTS_TESTING_POSTGRES_SERVER_H_
#define MEDREACT_TESTS_TESTING_POSTGRES_SERVER_H_

#include <sys/types.h>

#include <string>

namespace medreact::testing {

class PostgresServer {
 public:
  // The process's server, started at the first call; nullptr when it cannot
  // start, with the reason in `why_not`.
  static PostgresServer* Shared(std::string* why_not);

  ~PostgresServer();
  PostgresServer(const PostgresServer&) = delete;
  PostgresServer& operator=(const PostgresServer&) = delete;

  int port() const { return port_; }
  // postgres://postgres@127.0.0.1:PORT/<database>
  std::string Url(const std::string& database = "postgres") const;
  // A new empty database, its URL; "" with the reason in `why_not` on failure.
  std::string NewDatabase(std::string* why_not);
  // The folder holding the cluster and its socket.
  const std::string& dir() const { return dir_; }
  // Stops the server (fast shutdown) and waits for it. Idempotent.
  void Stop();
  // Restarts it on the same port and data (a connection-loss test).
  bool Restart(std::string* why_not);
  // Stops accepting and kills the backends (a network cut seen by a client):
  // pg_terminate_backend on every other connection.
  bool TerminateConnections(std::string* why_not);

 private:
  PostgresServer() = default;
  bool Start(std::string* why_not);
  std::string dir_;
  int port_ = 0;
  pid_t pid_ = -1;
  int counter_ = 0;
};

}  // namespace medreact::testing

// Declares `std::string url` = a fresh database on the shared server, or
// skips the test saying why PostgreSQL could not start.
#define MEDREACT_REQUIRE_POSTGRES(url)                                                              \
  std::string url;                                                                                  \
  {                                                                                                 \
    std::string why_not_;                                                                           \
    auto* server_ = ::medreact::testing::PostgresServer::Shared(&why_not_);                         \
    if (server_) url = server_->NewDatabase(&why_not_);                                             \
    if (url.empty()) GTEST_SKIP() << "PostgreSQL is not available for this test: " << why_not_;     \
  }

#endif  // MEDREACT_TESTS_TESTING_POSTGRES_SERVER_H_

// The run store's behaviour tests run on both backends: a SQLite file and a
// PostgreSQL database (tests/testing/postgres_server.h). A suite derives its
// fixture from StoreBackendTest, writes TEST_P, takes its store's path from
// Store("name") (a file in a temporary folder, or a fresh database per name
// on the shared server: the same name is the same store), and is
// instantiated with MEDREACT_STORE_BACKENDS(Suite): each test runs as
// Suite.Test/Sqlite and Suite.Test/Postgres. The PostgreSQL run is skipped,
// saying why, when the server cannot start.
#ifndef MEDREACT_TESTS_TESTING_STORE_BACKENDS_H_
#define MEDREACT_TESTS_TESTING_STORE_BACKENDS_H_

#include <gtest/gtest.h>

#include <map>
#include <string>

#include "testing/postgres_server.h"
#include "testing/subprocess.h"

namespace medreact::testing {

enum class StoreBackend { kSqlite, kPostgres };

class StoreBackendTest : public ::testing::TestWithParam<StoreBackend> {
 protected:
  void SetUp() override {
    if (GetParam() == StoreBackend::kPostgres) {
      std::string why;
      if (!PostgresServer::Shared(&why)) GTEST_SKIP() << "PostgreSQL is not available for this test: " << why;
    }
  }
  bool IsPostgres() const { return GetParam() == StoreBackend::kPostgres; }
  // The store named `name`: dir.File(name), or a database of its own.
  std::string Store(const std::string& name = "runs.sqlite") {
    if (!IsPostgres()) return dir.File(name);
    auto it = urls_.find(name);
    if (it != urls_.end()) return it->second;
    std::string why;
    PostgresServer* server = PostgresServer::Shared(&why);
    std::string url = server ? server->NewDatabase(&why) : "";
    EXPECT_FALSE(url.empty()) << why;
    urls_[name] = url;
    return url;
  }
  TempDir dir;

 private:
  std::map<std::string, std::string> urls_;
};

inline std::string StoreBackendName(const ::testing::TestParamInfo<StoreBackend>& info) {
  return info.param == StoreBackend::kSqlite ? "Sqlite" : "Postgres";
}

}  // namespace medreact::testing

#define MEDREACT_STORE_BACKENDS(Suite)                                                                           \
  INSTANTIATE_TEST_SUITE_P(Backends, Suite,                                                                      \
                           ::testing::Values(::medreact::testing::StoreBackend::kSqlite,                         \
                                             ::medreact::testing::StoreBackend::kPostgres),                      \
                           ::medreact::testing::StoreBackendName)

#endif  // MEDREACT_TESTS_TESTING_STORE_BACKENDS_H_

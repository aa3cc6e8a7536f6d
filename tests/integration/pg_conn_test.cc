// The libpq wrapper and the PostgreSQL schema's migrations, against a real
// PostgreSQL 15 (tests/testing/postgres_server.h; skipped, saying why, when
// it cannot start).
#include <gtest/gtest.h>

#include <string>
#include <thread>
#include <vector>

#include "store/pg_conn.h"
#include "store/pg_schema.h"
#include "testing/postgres_server.h"

namespace medreact {
namespace {

TEST(PgUrlTest, RecognisesBothSchemesInAnyCase) {
  EXPECT_TRUE(IsPostgresUrl("postgres://h/db"));
  EXPECT_TRUE(IsPostgresUrl("postgresql://h/db"));
  EXPECT_TRUE(IsPostgresUrl("PostgreSQL://h/db"));
  EXPECT_FALSE(IsPostgresUrl("/tmp/postgres://x"));
  EXPECT_FALSE(IsPostgresUrl("runs.sqlite"));
  EXPECT_FALSE(IsPostgresUrl("postgres:/h"));
}

TEST(PgUrlTest, RedactsThePasswordOnly) {
  EXPECT_EQ(RedactPostgresUrl("postgres://ann:s3cret@db.example:5433/runs"), "postgres://ann:***@db.example:5433/runs");
  EXPECT_EQ(RedactPostgresUrl("postgres://ann@db/runs"), "postgres://ann@db/runs");
  EXPECT_EQ(RedactPostgresUrl("postgresql://db/runs?sslmode=require&password=hunter2&x=1"),
            "postgresql://db/runs?sslmode=require&password=***&x=1");
  EXPECT_EQ(RedactPostgresUrl("postgres://a:p%40ss@h/d"), "postgres://a:***@h/d");
}

TEST(PgConnectionTest, ConnectErrorNamesTheServerWithoutThePassword) {
  // A port nothing listens on (the test server's port + nothing: 1 is reserved).
  auto c = PgConnection::Connect("postgres://ann:topsecret@127.0.0.1:1/runs",
                                 {.connect_timeout = std::chrono::seconds(2)});
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.status().code(), StatusCode::kUnavailable);
  EXPECT_NE(c.status().message().find("postgres://ann:***@127.0.0.1:1/runs"), std::string::npos)
      << c.status().message();
  EXPECT_EQ(c.status().message().find("topsecret"), std::string::npos) << c.status().message();
}

TEST(PgConnectionTest, ExecParamsNullsErrorsAndTransactions) {
  MEDREACT_REQUIRE_POSTGRES(url);
  auto c = PgConnection::Connect(url);
  ASSERT_TRUE(c.ok()) << c.status().message();
  PgConnection& db = **c;
  ASSERT_TRUE(db.Exec("CREATE TABLE t (k TEXT PRIMARY KEY, v BIGINT)").ok());
  ASSERT_TRUE(db.Exec("INSERT INTO t VALUES ($1, $2), ($3, $4)", {"a", "1", "b'; DROP TABLE t; --", std::nullopt}).ok());
  auto rows = db.Exec("SELECT k, v FROM t ORDER BY k");
  ASSERT_TRUE(rows.ok()) << rows.status().message();
  ASSERT_EQ(rows->size(), 2);
  EXPECT_EQ(rows->Text(0, 0), "a");
  EXPECT_EQ(rows->Int(0, 1), 1);
  EXPECT_EQ(rows->Text(1, 0), "b'; DROP TABLE t; --");
  EXPECT_TRUE(rows->Null(1, 1));
  EXPECT_EQ(rows->Get(1, 1), std::nullopt);
  EXPECT_EQ(rows->Get(5, 0), std::nullopt);  // out of range: no crash

  auto dup = db.Exec("INSERT INTO t VALUES ('a', 2)", {}, "adding a row");
  ASSERT_FALSE(dup.ok());
  EXPECT_EQ(db.sqlstate(), kPgUniqueViolation);
  EXPECT_NE(dup.status().message().find("adding a row"), std::string::npos) << dup.status().message();
  EXPECT_NE(dup.status().message().find("SQLSTATE 23505"), std::string::npos) << dup.status().message();

  // Rolled back: nothing of it stays; a failed transaction does not commit.
  ASSERT_TRUE(db.Begin().ok());
  ASSERT_TRUE(db.Exec("INSERT INTO t VALUES ('c', 3)").ok());
  ASSERT_TRUE(db.Rollback().ok());
  ASSERT_TRUE(db.Begin().ok());
  ASSERT_TRUE(db.Exec("INSERT INTO t VALUES ('d', 4)").ok());
  EXPECT_FALSE(db.Exec("INSERT INTO t VALUES ('a', 5)").ok());
  EXPECT_FALSE(db.Commit().ok());
  EXPECT_FALSE(db.InTransaction());
  auto n = db.Exec("SELECT count(*) FROM t");
  ASSERT_TRUE(n.ok());
  EXPECT_EQ(n->Int(0, 0), 2);
}

TEST(PgConnectionTest, ReadOnlySessionRefusesWrites) {
  MEDREACT_REQUIRE_POSTGRES(url);
  auto w = PgConnection::Connect(url);
  ASSERT_TRUE(w.ok());
  ASSERT_TRUE((*w)->Exec("CREATE TABLE t (k TEXT)").ok());
  auto r = PgConnection::Connect(url, {.read_only = true});
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_TRUE((*r)->Exec("SELECT count(*) FROM t").ok());
  auto write = (*r)->Exec("INSERT INTO t VALUES ('x')");
  ASSERT_FALSE(write.ok());
  EXPECT_EQ((*r)->sqlstate(), "25006");
}

TEST(PgConnectionTest, ALostConnectionIsBrokenAndReconnects) {
  MEDREACT_REQUIRE_POSTGRES(url);
  std::string why;
  auto* server = testing::PostgresServer::Shared(&why);
  ASSERT_NE(server, nullptr) << why;
  auto c = PgConnection::Connect(url);
  ASSERT_TRUE(c.ok());
  ASSERT_TRUE(server->TerminateConnections(&why)) << why;
  auto r = (*c)->Exec("SELECT 1", {}, "asking");
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE((*c)->Broken());
  ASSERT_TRUE((*c)->Reconnect().ok());
  EXPECT_FALSE((*c)->Broken());
  auto again = (*c)->Exec("SELECT 41 + 1");
  ASSERT_TRUE(again.ok()) << again.status().message();
  EXPECT_EQ(again->Int(0, 0), 42);
}

TEST(PgSchemaTest, AnEmptyDatabaseAndAVersionOneDatabaseBothReachTheCurrentVersion) {
  MEDREACT_REQUIRE_POSTGRES(url);
  std::string why;
  auto* server = testing::PostgresServer::Shared(&why);
  ASSERT_NE(server, nullptr);
  auto c = PgConnection::Connect(url);
  ASSERT_TRUE(c.ok());
  auto v0 = ReadPgSchemaVersion(**c);
  ASSERT_TRUE(v0.ok());
  EXPECT_EQ(*v0, 0);
  ASSERT_TRUE(ApplyPgSchema(**c).ok());
  EXPECT_EQ(*ReadPgSchemaVersion(**c), PgSchemaVersion());
  ASSERT_TRUE(ApplyPgSchema(**c).ok());  // again: nothing to do
  EXPECT_EQ(*ReadPgSchemaVersion(**c), PgSchemaVersion());

  // Each earlier version: migrated there first, with a row, then to the current one.
  for (const PgMigration& step : PgMigrations()) {
    const std::string db_url = server->NewDatabase(&why);
    ASSERT_FALSE(db_url.empty()) << why;
    auto d = PgConnection::Connect(db_url);
    ASSERT_TRUE(d.ok());
    ASSERT_TRUE(ApplyPgSchema(**d, step.version).ok());
    EXPECT_EQ(*ReadPgSchemaVersion(**d), step.version);
    ASSERT_TRUE((*d)->Exec("INSERT INTO runs(id, app, inputs, model, status, created_at, updated_at) "
                           "VALUES ('r1', 'chat', '{}', '{}', 'finished', 'x', 'x')")
                    .ok());
    Status s = ApplyPgSchema(**d);
    ASSERT_TRUE(s.ok()) << s.message();
    EXPECT_EQ(*ReadPgSchemaVersion(**d), PgSchemaVersion());
    auto kept = (*d)->Exec("SELECT count(*) FROM runs");
    ASSERT_TRUE(kept.ok());
    EXPECT_EQ(kept->Int(0, 0), 1) << "migrating from version " << step.version << " kept the rows";
  }
}

TEST(PgSchemaTest, ANewerVersionIsRefusedAndLeftAlone) {
  MEDREACT_REQUIRE_POSTGRES(url);
  auto c = PgConnection::Connect(url);
  ASSERT_TRUE(c.ok());
  ASSERT_TRUE(ApplyPgSchema(**c).ok());
  const std::string newer = std::to_string(PgSchemaVersion() + 1);
  ASSERT_TRUE((*c)->Exec("INSERT INTO medreact_schema(version) VALUES ($1)", {newer}).ok());
  Status s = ApplyPgSchema(**c);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.code(), StatusCode::kFailedPrecondition);
  EXPECT_NE(s.message().find("newer medreact (schema version " + newer), std::string::npos) << s.message();
  EXPECT_EQ(*ReadPgSchemaVersion(**c), PgSchemaVersion() + 1);
}

TEST(PgSchemaTest, ConcurrentOpenersMigrateOnce) {
  MEDREACT_REQUIRE_POSTGRES(url);
  std::vector<std::thread> threads;
  std::vector<Status> results(4);
  for (int i = 0; i < 4; ++i) {
    threads.emplace_back([&, i] {
      auto c = PgConnection::Connect(url);
      results[i] = c.ok() ? ApplyPgSchema(**c) : c.status();
    });
  }
  for (auto& t : threads) t.join();
  for (const Status& s : results) EXPECT_TRUE(s.ok()) << s.message();
  auto c = PgConnection::Connect(url);
  ASSERT_TRUE(c.ok());
  auto rows = (*c)->Exec("SELECT count(*), count(DISTINCT version) FROM medreact_schema");
  ASSERT_TRUE(rows.ok());
  EXPECT_EQ(rows->Int(0, 0), PgSchemaVersion());
  EXPECT_EQ(rows->Int(0, 1), PgSchemaVersion());
}

}  // namespace
}  // namespace medreact

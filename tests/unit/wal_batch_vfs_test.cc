// The run store's VFS (src/store/wal_batch_vfs.h): WAL writes gathered into
// one per commit. A commit is on its way to the disk when it returns: another
// connection sees it at once, and a process that ends without closing (as a
// killed one does) leaves every commit it made readable, whatever its shape
// (one frame, many, a transaction larger than the gathered limit that spills
// and rewrites its frames' checksums, one rolled back after spilling, and
// another writer's commit right after such a rollback).
#include "store/wal_batch_vfs.h"

#include <gtest/gtest.h>
#include <sqlite3.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <string>

#include "testing/subprocess.h"

namespace medreact {
namespace {

int64_t Scalar(sqlite3* db, const char* sql) {
  sqlite3_stmt* s = nullptr;
  int64_t v = -1;
  if (sqlite3_prepare_v2(db, sql, -1, &s, nullptr) == SQLITE_OK && sqlite3_step(s) == SQLITE_ROW) {
    v = sqlite3_column_int64(s, 0);
  }
  sqlite3_finalize(s);
  return v;
}

std::string Text(sqlite3* db, const char* sql) {
  sqlite3_stmt* s = nullptr;
  std::string v;
  if (sqlite3_prepare_v2(db, sql, -1, &s, nullptr) == SQLITE_OK && sqlite3_step(s) == SQLITE_ROW &&
      sqlite3_column_text(s, 0)) {
    v = reinterpret_cast<const char*>(sqlite3_column_text(s, 0));
  }
  sqlite3_finalize(s);
  return v;
}

// The child's work: commits of every shape, each checked through a second
// connection (the default VFS) as soon as it returns. Its exit code says
// which check failed (0: none).
int WriteCommitsAndVanish(const std::string& path) {
  sqlite3* db = nullptr;
  if (sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, WalBatchVfsName()) !=
      SQLITE_OK) {
    return 10;
  }
  auto exec = [db](const char* sql) {
    if (sqlite3_exec(db, sql, nullptr, nullptr, nullptr) == SQLITE_OK) return true;
    fprintf(stderr, "child: %s (extended code %d)\n", sqlite3_errmsg(db), sqlite3_extended_errcode(db));
    return false;
  };
  // A small page cache: the large transaction spills frames before its
  // commit and writes some pages again (their checksums rewritten).
  if (!exec("PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA cache_size = 8; PRAGMA wal_autocheckpoint = 0; "
            "CREATE TABLE t (k INTEGER PRIMARY KEY, v TEXT NOT NULL);")) {
    return 11;
  }
  sqlite3* reader = nullptr;
  if (sqlite3_open_v2(path.c_str(), &reader, SQLITE_OPEN_READONLY, nullptr) != SQLITE_OK) return 12;
  // One-frame commits.
  for (int i = 1; i <= 20; ++i) {
    const std::string sql = "INSERT INTO t VALUES (" + std::to_string(i) + ", 'small')";
    if (!exec(sql.c_str())) return 13;
    if (Scalar(reader, "SELECT count(*) FROM t") != i) return 14;
  }
  // A transaction of ~3 MiB (many times the 64 KiB gathered at most), rows
  // updated again after their pages spilled.
  if (!exec("BEGIN; WITH RECURSIVE n(i) AS (SELECT 1000 UNION ALL SELECT i + 1 FROM n WHERE i < 3999) "
            "INSERT INTO t SELECT i, printf('%.1000c', 'x') FROM n; "
            "UPDATE t SET v = printf('%.1000c', 'y') WHERE k BETWEEN 1000 AND 1500; "
            "UPDATE t SET v = 'changed' WHERE k = 1; COMMIT;")) {
    return 15;
  }
  if (Scalar(reader, "SELECT count(*) FROM t") != 3020) return 16;
  // Spilled, then rolled back: none of it is there.
  if (!exec("BEGIN; WITH RECURSIVE n(i) AS (SELECT 5000 UNION ALL SELECT i + 1 FROM n WHERE i < 6999) "
            "INSERT INTO t SELECT i, printf('%.1000c', 'z') FROM n; ROLLBACK;")) {
    return 17;
  }
  // Several frames a commit, the last one of the run.
  if (!exec("BEGIN; UPDATE t SET v = 'last' WHERE k IN (2, 1200, 2500, 3900); "
            "INSERT INTO t VALUES (9000, 'the end'); COMMIT;")) {
    return 18;
  }
  if (Text(reader, "SELECT v FROM t WHERE k = 9000") != "the end") return 19;
  // Spilled and rolled back, then another writer commits where those
  // frames went, then this connection reads and writes on: the frames it
  // gathered must not land on the other writer's. (Here SQLite's rollback
  // reads the WAL, which writes them first; the VFS also writes them before
  // the write lock is let go, which is what guarantees it.)
  if (!exec("BEGIN; WITH RECURSIVE n(i) AS (SELECT 20000 UNION ALL SELECT i + 1 FROM n WHERE i < 20099) "
            "INSERT INTO t SELECT i, printf('%.1000c', 'w') FROM n; ROLLBACK;")) {
    return 20;
  }
  sqlite3* other = nullptr;
  if (sqlite3_open_v2(path.c_str(), &other, SQLITE_OPEN_READWRITE, nullptr) != SQLITE_OK) return 21;
  if (sqlite3_exec(other,
                   "BEGIN; WITH RECURSIVE n(i) AS (SELECT 30000 UNION ALL SELECT i + 1 FROM n WHERE i < 30099) "
                   "INSERT INTO t SELECT i, 'other writer' FROM n; COMMIT;",
                   nullptr, nullptr, nullptr) != SQLITE_OK) {
    return 22;
  }
  if (Scalar(db, "SELECT count(*) FROM t WHERE v = 'other writer'") != 100) return 23;
  if (!exec("INSERT INTO t VALUES (9001, 'after the other')")) return 24;
  _exit(0);  // no close: the WAL stays as a killed process leaves it
}

TEST(WalBatchVfsTest, EveryCommitIsThereAfterTheProcessVanishes) {
  ASSERT_NE(WalBatchVfsName(), nullptr);
  testing::TempDir dir;
  const std::string path = dir.File("wal.sqlite");
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) _exit(WriteCommitsAndVanish(path));
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status));
  ASSERT_EQ(WEXITSTATUS(status), 0) << "the child's check " << WEXITSTATUS(status) << " failed";

  // Read back with the default VFS: the WAL is recovered (its checksums
  // checked frame by frame), every commit in it.
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READWRITE, nullptr), SQLITE_OK);
  EXPECT_EQ(Text(db, "PRAGMA integrity_check"), "ok");
  EXPECT_EQ(Scalar(db, "SELECT count(*) FROM t"), 3122);
  EXPECT_EQ(Scalar(db, "SELECT count(*) FROM t WHERE v = 'other writer'"), 100);
  EXPECT_EQ(Scalar(db, "SELECT count(*) FROM t WHERE k BETWEEN 20000 AND 21999"), 0);
  EXPECT_EQ(Text(db, "SELECT v FROM t WHERE k = 9001"), "after the other");
  EXPECT_EQ(Scalar(db, "SELECT count(*) FROM t WHERE k BETWEEN 5000 AND 6999"), 0);
  EXPECT_EQ(Text(db, "SELECT v FROM t WHERE k = 1"), "changed");
  EXPECT_EQ(Text(db, "SELECT v FROM t WHERE k = 1200"), "last");
  EXPECT_EQ(Text(db, "SELECT substr(v, 1, 3) FROM t WHERE k = 1499"), "yyy");
  EXPECT_EQ(Text(db, "SELECT substr(v, 1, 3) FROM t WHERE k = 1501"), "xxx");
  EXPECT_EQ(Text(db, "SELECT v FROM t WHERE k = 9000"), "the end");
  sqlite3_close(db);
}

}  // namespace
}  // namespace medreact

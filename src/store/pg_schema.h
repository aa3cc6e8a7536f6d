// The PostgreSQL schema of medreact (the run store's tables, the job
// queue's) as one ordered list of migrations: step i brings a database from
// version i - 1 to i. The version is kept in the `medreact_schema` table
// (a row per step applied). ApplyPgSchema runs the missing steps, each in the transaction
// that sets its version, under a transaction-level advisory lock
// (kPgSchemaLock), so several processes opening one new database at once
// migrate it once; a database of a newer version than this build knows is
// refused (FailedPrecondition naming both versions), never written.
//
// The list is kPgMigrations in pg_schema.cc: the run store's tables are
// version 1; the job queue appends its own versions after it. A step only
// adds (tables, columns, indexes): a database migrated by an older build
// keeps its rows. The SQLite run store keeps its own migrations
// (run_store_db.h).
#ifndef MEDREACT_STORE_PG_SCHEMA_H_
#define MEDREACT_STORE_PG_SCHEMA_H_

#include <cstdint>
#include <span>

#include "medreact/status.h"
#include "store/pg_conn.h"

namespace medreact {

struct PgMigration {
  int version;       // the version this step brings the database to
  const char* what;  // what it adds, for messages ("the run store's tables")
  const char* sql;   // one or more statements
};

// The steps, in order (versions 1, 2, ...).
std::span<const PgMigration> PgMigrations();
// The version this build brings a database to (the last step's).
int PgSchemaVersion();

// The advisory lock key the migration takes (pg_advisory_xact_lock): "MRSC".
inline constexpr int64_t kPgSchemaLock = 0x4D525343;

// The database's version: 0 when it has no medreact_schema table (a new
// database). Unavailable when it cannot be read.
Result<int> ReadPgSchemaVersion(PgConnection& conn);

// Brings the database to `target` (default: PgSchemaVersion()) by the
// missing steps. FailedPrecondition when it is newer than this build knows
// (or than `target`); Unavailable naming the step that failed and
// PostgreSQL's message. The connection must not be in a transaction.
Status ApplyPgSchema(PgConnection& conn, int target = 0);

}  // namespace medreact

#endif  // MEDREACT_STORE_PG_SCHEMA_H_

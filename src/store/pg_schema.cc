// The PostgreSQL schema's migrations (see pg_schema.h).
#include "store/pg_schema.h"

#include <iterator>
#include <string>

namespace medreact {

namespace {

// The steps, in order. Append only: a released step is never edited (a
// database that ran it would not run it again).
constexpr PgMigration kPgMigrations[] = {
    // 1: the run store (run_store.h, run_store_pg.cc): the SQLite store's
    // tables at its version 4, with PostgreSQL's types. `events.id` is the
    // store-wide cursor, taken from `events_cursor` under an advisory lock
    // held to the commit (see run_store_pg.cc), so cursors follow commit order.
    // Times: the runs' and events' ISO 8601 text (as in SQLite, they sort
    // as text); lease_until in ms since the epoch by the server's clock.
    {1, "the run store's tables", R"sql(
CREATE TABLE runs (
  id          TEXT PRIMARY KEY,
  app         TEXT NOT NULL,
  inputs      TEXT NOT NULL,
  model       TEXT NOT NULL,
  status      TEXT NOT NULL,
  created_at  TEXT NOT NULL,
  updated_at  TEXT NOT NULL,
  result      TEXT,
  owner       TEXT,
  lease_until BIGINT
);
CREATE INDEX runs_updated ON runs(updated_at);
CREATE TABLE checkpoints (
  run_id      TEXT PRIMARY KEY,
  seq         BIGINT NOT NULL,
  phase       TEXT NOT NULL,
  step        BIGINT NOT NULL,
  messages    BIGINT NOT NULL,
  steps       BIGINT NOT NULL,
  state       TEXT NOT NULL,
  saved_at    TEXT NOT NULL,
  trace_input TEXT
);
CREATE TABLE messages (
  run_id  TEXT NOT NULL,
  idx     BIGINT NOT NULL,
  message TEXT NOT NULL,
  PRIMARY KEY (run_id, idx)
);
CREATE TABLE steps (
  run_id TEXT NOT NULL,
  idx    BIGINT NOT NULL,
  record TEXT NOT NULL,
  PRIMARY KEY (run_id, idx)
);
CREATE SEQUENCE events_cursor;
CREATE TABLE events (
  id           BIGINT PRIMARY KEY,
  run_id       TEXT NOT NULL,
  seq          BIGINT NOT NULL,
  type         TEXT NOT NULL,
  step         BIGINT NOT NULL,
  tool_call_id TEXT NOT NULL,
  elapsed_ms   DOUBLE PRECISION NOT NULL,
  event        TEXT NOT NULL,
  at           TEXT NOT NULL DEFAULT '',
  UNIQUE (run_id, seq)
);
CREATE TABLE model_info (
  url            TEXT NOT NULL,
  model          TEXT NOT NULL,
  context_tokens BIGINT NOT NULL,
  probed_at      TEXT NOT NULL,
  PRIMARY KEY (url, model)
);
)sql"},
    // 2: the job queue (job_queue.h, job_queue_pg.cc): batches and their
    // jobs, claimed with FOR UPDATE SKIP LOCKED; lease_until and
    // available_at in ms since the epoch by the server's clock.
    {2, "the job queue's tables", R"sql(
CREATE TABLE job_batches (
  id         TEXT PRIMARY KEY,
  n          BIGSERIAL,
  label      TEXT NOT NULL,
  created_at TEXT NOT NULL
);
CREATE INDEX job_batches_label ON job_batches(label, n);
CREATE TABLE jobs (
  id           BIGSERIAL PRIMARY KEY,
  batch_id     TEXT NOT NULL REFERENCES job_batches(id) ON DELETE CASCADE,
  case_name    TEXT NOT NULL,
  inputs       TEXT NOT NULL,
  state        TEXT NOT NULL,
  attempts     INTEGER NOT NULL DEFAULT 0,
  owner        TEXT,
  lease_until  BIGINT NOT NULL DEFAULT 0,
  available_at BIGINT NOT NULL DEFAULT 0,
  run_id       TEXT NOT NULL DEFAULT '',
  result       TEXT,
  last_error   TEXT NOT NULL DEFAULT '',
  created_at   TEXT NOT NULL,
  updated_at   TEXT NOT NULL,
  UNIQUE (batch_id, case_name)
);
CREATE INDEX jobs_claim ON jobs(state, available_at, id);
)sql"},
};

}  // namespace

std::span<const PgMigration> PgMigrations() { return kPgMigrations; }

int PgSchemaVersion() { return kPgMigrations[std::size(kPgMigrations) - 1].version; }

Result<int> ReadPgSchemaVersion(PgConnection& conn) {
  Result<PgRows> exists = conn.Exec("SELECT to_regclass('medreact_schema') IS NOT NULL", {}, "reading the schema version");
  if (!exists.ok()) return exists.status();
  if (exists->Text(0, 0) != "t") return 0;
  Result<PgRows> v = conn.Exec("SELECT COALESCE(MAX(version), 0) FROM medreact_schema", {}, "reading the schema version");
  if (!v.ok()) return v.status();
  return static_cast<int>(v->Int(0, 0));
}

Status ApplyPgSchema(PgConnection& conn, int target) {
  if (target <= 0) target = PgSchemaVersion();
  auto newer = [&](int version) {
    return Status::FailedPrecondition(conn.Where() + " was written by a newer medreact (schema version " +
                                      std::to_string(version) + "; this one knows up to " +
                                      std::to_string(PgSchemaVersion()) +
                                      "): use that medreact, or another database");
  };
  // A quick look first: an up-to-date database takes no lock.
  Result<int> seen = ReadPgSchemaVersion(conn);
  if (!seen.ok()) return seen.status();
  if (*seen > PgSchemaVersion()) return newer(*seen);
  if (*seen >= target) return Status::OK();
  for (const PgMigration& step : PgMigrations()) {
    if (step.version > target) break;
    if (Status s = conn.Begin(); !s.ok()) return s;
    auto fail = [&](const Status& s) {
      conn.Rollback();
      return s;
    };
    Result<PgRows> lock = conn.Exec("SELECT pg_advisory_xact_lock($1)", {std::to_string(kPgSchemaLock)},
                                    "waiting for the schema lock");
    if (!lock.ok()) return fail(lock.status());
    if (Status s = conn.ExecScript("CREATE TABLE IF NOT EXISTS medreact_schema (version INTEGER NOT NULL, "
                                   "applied_at TIMESTAMPTZ NOT NULL DEFAULT now())",
                                   "creating the schema table");
        !s.ok()) {
      return fail(s);
    }
    Result<int> version = ReadPgSchemaVersion(conn);  // under the lock: another process may have migrated
    if (!version.ok()) return fail(version.status());
    if (*version > PgSchemaVersion()) return fail(newer(*version));
    if (*version >= step.version) {
      if (Status s = conn.Commit(); !s.ok()) return s;
      continue;
    }
    if (Status s = conn.ExecScript(step.sql, std::string("migrating to schema version ") +
                                                 std::to_string(step.version) + " (" + step.what + ")");
        !s.ok()) {
      return fail(s);
    }
    Result<PgRows> set = conn.Exec("INSERT INTO medreact_schema(version) VALUES ($1)", {std::to_string(step.version)},
                                   "recording the schema version");
    if (!set.ok()) return fail(set.status());
    if (Status s = conn.Commit(); !s.ok()) return s;
  }
  return Status::OK();
}

}  // namespace medreact

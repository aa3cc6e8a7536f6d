// The run store's PostgreSQL backend (RunStore::Pg): what RunStore does on a
// `postgres://` / `postgresql://` URL instead of a SQLite file. Internal to
// src/store; see run_store.h for the semantics, the same on both.
//
// Tables: the SQLite store's (runs, checkpoints, messages, steps, events,
// model_info), made by version 1 of the PostgreSQL schema (pg_schema.h).
//
// Transactions. Every write is one transaction at READ COMMITTED. Fencing:
// a checkpoint, an append of events and an end lock the run's row first
// (`SELECT … FOR UPDATE`) and write only when this store is its owner (or it
// has none); ClaimRun reads the lease under the same lock, so a takeover and
// the old owner's next checkpoint are ordered: the one that comes second
// sees the other's owner. Leases are in ms since the epoch by the server's
// clock (clock_timestamp()), so stores on machines whose clocks differ
// agree on when a lease ends.
//
// Event cursors. `events.id` (the store-wide cursor, StoreEvent::cursor)
// comes from the sequence `events_cursor`, but a sequence alone does not
// give commit order on PostgreSQL: two transactions may take 7 and 8 and
// commit 8 first, and a follower that read 8 would never see 7. So the
// events are inserted last in their transaction under a transaction-level
// advisory lock (pg_advisory_xact_lock(kPgEventLock)), held until the
// commit: the writers of events are serialised from their first cursor to
// their commit, and a cursor is only ever handed out above every committed
// one. A follower that read up to N never later finds a new event below N.
// The cost: writers of events (every checkpoint with events) queue for one
// commit at a time; a checkpoint without events takes no lock.
//
// Connections. One connection behind the store's mutex. A call that finds
// it lost reconnects once and runs again (a whole transaction: nothing half
// done is repeated); a second loss, or a server still gone, is Unavailable
// naming the redacted URL. A loss during COMMIT is not retried: the write may
// have been stored; the error says so. Serialisation failures and deadlocks
// are retried (up to 5 times).
//
// Writes from other processes are not signalled (no LISTEN/NOTIFY): a
// follower polls LastEventCursor, as for a SQLite store written by another
// process.
#ifndef MEDREACT_STORE_RUN_STORE_PG_H_
#define MEDREACT_STORE_RUN_STORE_PG_H_

#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include "store/pg_conn.h"
#include "store/run_store.h"

namespace medreact {

// The advisory lock key serialising the events' cursors: "MREV".
inline constexpr int64_t kPgEventLock = 0x4D524556;

struct RunStore::Pg {
  static Result<std::unique_ptr<Pg>> Open(const std::string& url, const RunStoreOptions& options);
  ~Pg();

  std::string Where() const { return "run store '" + redacted + "'"; }

  Status CreateRun(const RunRecord& run, const RunState* first);
  Status SaveCheckpoint(const std::string& run_id, const RunState& state, const std::vector<RunEvent>& events,
                        const std::string& status);
  Status AppendEvents(const std::string& run_id, const std::vector<RunEvent>& events);
  Status FinishRun(const std::string& run_id, const std::string& status, const Json& result,
                   const std::vector<StepRecord>& steps, const std::vector<RunEvent>& events);
  Status ClaimRun(const std::string& run_id);
  Status ReleaseRun(const std::string& run_id);
  Result<std::optional<int64_t>> ModelContextTokens(const std::string& url, const std::string& model);
  Status PutModelContextTokens(const std::string& url, const std::string& model, int64_t tokens);
  Result<RunRecord> Get(const std::string& run_id);
  Result<std::vector<RunRecord>> List(const RunFilter& filter);
  Result<std::vector<StepRecord>> Steps(const std::string& run_id);
  Result<std::vector<RunEvent>> Events(const std::string& run_id);
  Result<std::vector<StoreEvent>> EventsSince(int64_t cursor, const EventQuery& query);
  Result<std::vector<RunStore::RunCount>> CountRuns();
  Result<int64_t> LastEventCursor();
  void SetWriteListener(std::function<void()> listener);
  Result<std::optional<RunState>> LatestState(const std::string& run_id);
  Result<std::vector<std::string>> Prune(const PruneFilter& filter);
  Result<bool> Mentions(const char* sql, const std::string& text, const std::string& what);
  Status IntegrityCheck();

  // What this store wrote of a run it holds without a break (as
  // RunStore::Db::Written): a checkpoint then reads no count back.
  struct Written {
    int64_t messages = 0;
    int64_t steps = 0;
    int64_t events = 0;  // the last event's seq
    bool input = false;  // the checkpoint row holds the trace input
  };

  std::string redacted;  // the URL without its password
  std::string owner;
  std::chrono::milliseconds ttl{};
  std::mutex mu;                       // guards conn, written, on_write
  std::unique_ptr<PgConnection> conn;
  std::unordered_map<std::string, Written> written;
  std::function<void()> on_write;

  // The heartbeat (as RunStore::Heartbeat).
  std::mutex hb_mu;
  std::condition_variable hb_cv;
  std::set<std::string> held;  // guarded by hb_mu
  bool stop = false;           // guarded by hb_mu
  std::thread heartbeat;

 private:
  void Hold(const std::string& run_id);
  void Unhold(const std::string& run_id);
  void Wrote() {
    if (on_write) on_write();
  }
  std::optional<Written> Take(const std::string& run_id);
  void Keep(const std::string& run_id, Written w);
  // Runs `body` (a whole transaction or one statement) with the connection,
  // reconnecting once when it was lost and retrying serialisation failures.
  // REQUIRES: mu held.
  Status Run(const std::function<Status(PgConnection&)>& body);
  Status PutCheckpoint(PgConnection& c, const std::string& run_id, const RunState& state, const std::string& now,
                       Written& w, bool known);
  Status SyncRows(PgConnection& c, bool steps, const std::string& run_id, int64_t size,
                  const std::function<std::string(size_t)>& text, int64_t* stored_known);
  Status PutEvents(PgConnection& c, const std::string& run_id, const std::vector<RunEvent>& events,
                   int64_t* last_seq, bool known);
  // The run's row locked (FOR UPDATE) and written by this store: NotFound or
  // FailedPrecondition (another owner) otherwise. `was_owned`: it was this
  // store's before (not free).
  Status LockOwned(PgConnection& c, const std::string& run_id, bool* was_owned);
  Result<RunRecord> ReadRun(const PgRows& rows, int row) const;
  Result<Json> JsonText(const std::optional<std::string>& text, const std::string& what) const;
  Status Damaged(const std::string& what) const {
    return Status::FailedPrecondition(Where() + " is damaged: " + what);
  }
  bool committing_ = false;  // a COMMIT is under way (its loss is not retried)
  Status Commit(PgConnection& c);
};

}  // namespace medreact

#endif  // MEDREACT_STORE_RUN_STORE_PG_H_

// RunStore: the durable record of agent runs (issue 14), one SQLite file.
//
// Five tables. `runs`: one row per run (id = the trace's run_id, the app,
// the inputs that rebuild it, the model it used, its status, timestamps, and
// its result once it ended). `checkpoints`: the latest RunState of each run,
// without its conversation and steps, and how many checkpoints were taken;
// only the latest is kept, because a RunState is cumulative, so an older one
// adds nothing a resume needs. `messages`: the run's conversation, one row
// per message; `steps`: one row per completed step (the trace's step
// record). Both only grow at their end, so a checkpoint appends the rows that
// are new and rewrites only the small rest: its cost does not grow with the
// run. `runs show` reads steps without parsing a state. `events`: the run's
// events (events.h) in order, each as the JSON line `--events` writes, but
// for `model_delta` (streamed text fragments: many, and the whole text is in
// the step); the recorder buffers them and they are appended in the next
// checkpoint's (or the end's) transaction, never a commit of their own.
// Every SaveCheckpoint is one transaction: a run's state, its new rows and
// its `updated_at` change together or not at all.
//
// Durability. The file is in WAL mode with `synchronous=NORMAL`: a commit is
// in the operating system's hands when SaveCheckpoint returns, so a killed
// process (kill -9, a crash) loses nothing committed and never leaves the
// file damaged. It is NOT durable against power loss or an OS crash: the
// last commits may be lost (the file stays consistent). RunStoreOptions::
// sync_full (`synchronous=FULL`, an fsync per commit) makes it so, at the
// cost of the disk's sync latency per checkpoint.
//
// Privacy. States and steps hold the conversation, so patient data: the file
// and its folders are created private (0600 / 0700; SQLite gives the -wal and
// -shm files the database's mode). The inputs a caller stores must never
// hold an API key.
//
// Ownership. A run is run by one process at a time: its row holds a lease
// (`owner`, `lease_until`). CreateRun and ClaimRun take it; a checkpoint
// once a third of the lease's time has passed since it was renewed, and a
// heartbeat thread (every third of the lease's time, started when the store
// first holds a run), renew it; FinishRun and ReleaseRun give it back,
// and so does the store's destructor for the runs it still holds. Every
// checkpoint checks the owner: one or an end from a process that lost the
// lease is refused (fencing), so a run taken over never gets two writers.
// ClaimRun refuses a run whose holder is alive, naming it; it takes over a
// run whose lease expired, or whose holder was on this machine and its
// process is gone (a kill -9 frees a run at once, not after the lease time).
//
// Schema (version 5: the job queue's tables, job_queue.h; version 4: the
// events' store-wide cursor; version 3: leases, the events' wall-clock time and the model
// servers' context sizes; version 2 had no leases, version 1 no `events`). `PRAGMA user_version` is
// the schema version, `application_id`
// marks the file as a run store; Open() brings an older file up to date by
// the steps of a migration table (run_store.cc) and refuses a newer one or a
// database that is not a run store.
//
// PostgreSQL. Open() with a `postgres://` or `postgresql://` URL keeps the
// same tables, semantics and API in a PostgreSQL database instead
// (run_store_pg.h: fencing under the run row's lock, leases by the server's
// clock, event cursors handed out in commit order under an advisory lock);
// path() is then the URL with its password replaced by "***", and what is
// said here of the file (WAL, modes, busy timeout) is the server's matter.
//
// Errors are values naming the file and SQLite's message; a damaged or
// foreign file is a clear FailedPrecondition, never a crash. Thread-safe: one
// connection behind a mutex. Several processes may use one file at once
// (SQLite's locking; a writer waits up to busy_timeout for another).
#ifndef MEDREACT_STORE_RUN_STORE_H_
#define MEDREACT_STORE_RUN_STORE_H_

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "medreact/json.h"
#include "medreact/openai.h"
#include "medreact/run_state.h"
#include "medreact/status.h"
#include "medreact/trace.h"

namespace medreact {

struct RunStoreOptions {
  // synchronous=FULL (an fsync per commit: durable against power loss)
  // instead of NORMAL (durable against a killed process). Default: false
  bool sync_full = false;
  // How long a write waits for another connection's. Default: 10 s
  std::chrono::milliseconds busy_timeout{10'000};
  // Create the file (and its folders) when missing; false: NotFound
  // instead (the read-only commands: list, show). Default: true
  bool create_if_missing = true;
  // Open to read only (the commands that only read: list, show): SQLite's
  // read-only mode, no journal-mode change, no migration, nothing written;
  // a store on read-only media is read as it stands (a store of an older
  // schema is migrated first where it can be written, else refused saying why).
  // Every write fails. Default: false
  bool read_only = false;
  // Who this store writes as (the runs' lease holder). Default: "" = a new
  // id for this store: host/pid/process start/instance (RunOwnerId)
  std::string owner;
  // How long a lease lasts without a renewal; the heartbeat renews it every
  // third of it. 0 = no heartbeat (checkpoints still renew). Default: 60 s
  std::chrono::milliseconds lease_ttl{60'000};
};

// A run's row, with the counts `runs list` shows.
struct RunRecord {
  std::string id;                 // the trace's run_id
  std::string app;                // "chat", "triage", ...
  Json inputs = Json::object();   // what rebuilds the run (message, packs, paths, options); never an API key
  Json model = Json::object();    // the model it ran with ({"url","name","protocol",...}); never an API key
  // running | interrupted (stopped by a signal: resumable) |
  // awaiting_approval (paused before a tool call a person must decide:
  // `runs approve` / `runs reject`) | finished | max_steps | stuck | timeout
  // | budget | error. A process killed outright leaves its run `running`.
  std::string status = "running";
  std::string created_at;         // ISO 8601 UTC; set by CreateRun
  std::string updated_at;         // the last checkpoint or the end
  Json result;                    // null until the run ended
  int64_t steps = 0;              // steps stored (read only)
  int64_t checkpoints = 0;        // checkpoints taken (read only)
  int64_t events = 0;             // events stored (read only)
  std::string owner;              // the lease's holder, "" when none (read only)
  std::string lease_until;        // when its lease ends (ISO 8601 UTC, ms), "" when none (read only)
};

// One stored event of a run (the `events` table).
struct RunEvent {
  int64_t seq = 0;           // 1, 2, ... within the run, across resumes; set by the store
  std::string type;          // "tool_started", ... (EventTypeName)
  int64_t step = 0;          // the event's step (0: before the first)
  std::string tool_call_id;  // "" when the event is not about a call
  double elapsed_ms = 0;     // the event's elapsed_ms (0 when it has none)
  std::string at;            // wall-clock time it was emitted (ISO 8601 UTC, ms); "" for events stored before v3
  std::string json;          // the event as one `--events` line, without its newline
  int64_t cursor = 0;        // its store-wide position (StoreEvent::cursor); read only: set by Events()
};

// A stored event with where it is in the whole store: what a stream that
// follows many runs (a page's) reads (RunStore::EventsSince).
struct StoreEvent {
  int64_t cursor = 0;  // the store-wide position: increasing in commit order, never reused
  std::string run_id;
  std::string app;     // the run's app
  RunEvent event;
};
struct EventQuery {
  std::vector<std::string> runs;  // only these runs; empty = any
  std::string app;                // only runs of this app; "" = any
  int64_t limit = 1000;           // at most this many, oldest first. Default: 1000
};

struct RunFilter {
  std::string app;          // "" = any
  std::string status;       // "" = any
  std::string id_contains;  // runs whose id holds this text, ignoring ASCII case; "" = any
  int64_t limit = 0;        // newest first; 0 = all
};

struct PruneFilter {
  // Runs last updated at or before this (to the second). Default: now
  // (every run of the statuses).
  std::chrono::system_clock::time_point updated_before = std::chrono::system_clock::now();
  // The statuses to prune; empty = every status but `running` (a run that
  // may still be going, or was killed and can be resumed) and
  // `awaiting_approval` (a pause waiting for a person).
  std::vector<std::string> statuses;
  bool dry_run = false;  // list what would go, delete nothing
};

class RunStore {
 public:
  static constexpr int kSchemaVersion = 5;

  // `path` may be a postgres:// URL (see "PostgreSQL" above: NotFound for a
  // database without a store when !create_if_missing; Unavailable naming the
  // redacted URL when the server cannot be reached).
  // Opens (creating when allowed) the store at `path`, applying the schema's
  // migrations. InvalidArgument: an empty path, a folder; NotFound: missing
  // and !create_if_missing; FailedPrecondition: not a SQLite file, damaged,
  // not a run store, or written by a newer medreact; Unavailable: cannot be
  // created or opened (the OS's or SQLite's reason).
  static Result<std::unique_ptr<RunStore>> Open(const std::string& path, RunStoreOptions options = {});
  ~RunStore();
  RunStore(const RunStore&) = delete;
  RunStore& operator=(const RunStore&) = delete;

  const std::string& path() const { return path_; }
  // The owner id this store writes as.
  const std::string& owner() const;

  // Adds a run (status as given, created_at = updated_at = now), held by
  // this store (its lease), and, when `first` is given, its first checkpoint
  // in the same transaction. InvalidArgument when the id is empty or already
  // stored.
  Status CreateRun(const RunRecord& run, const RunState* first = nullptr);
  // Replaces the run's checkpoint with `state` (appending the messages and
  // steps not stored yet, and `events` after the run's last) and sets the
  // run's status (`running`, or `awaiting_approval` when a reviewer's
  // partial decisions are stored); one transaction. NotFound when the run
  // is not stored; FailedPrecondition when another owner holds the run (the
  // lease was lost: it expired and was taken over). Renews the lease once a
  // third of it has passed.
  Status SaveCheckpoint(const std::string& run_id, const RunState& state, const std::vector<RunEvent>& events = {},
                        const std::string& status = "running");
  // Appends `events` after the run's last, alone in a small transaction
  // (a run between checkpoints that starts a long wait: RunRecorder).
  // NotFound; FailedPrecondition when this store does not hold the run.
  Status AppendEvents(const std::string& run_id, const std::vector<RunEvent>& events);
  // Records the end: status, result, updated_at, the final trace's steps
  // (replacing those stored: the end adds notes and the fallback step) and
  // the last `events`. The checkpoint and the conversation are dropped
  // unless the status is `interrupted` or `awaiting_approval` (a pause:
  // `runs approve` goes on from the checkpoint); nothing resumes an ended
  // run, its steps, events and result stay. An `error` end keeps its
  // checkpoint too: a model or tool outage can be resumed once it is over.
  // Gives the lease back. NotFound and FailedPrecondition as above.
  Status FinishRun(const std::string& run_id, const std::string& status, const Json& result,
                   const std::vector<StepRecord>& steps, const std::vector<RunEvent>& events = {});

  // Takes the run's lease for this store (to resume it or to store a
  // decision). OK when it is free, already this store's, expired, or its
  // holder's process on this machine is gone; Unavailable naming the holder
  // and until when otherwise; NotFound when the run is not stored.
  Status ClaimRun(const std::string& run_id);
  // Gives the lease back (a no-op when this store does not hold it).
  Status ReleaseRun(const std::string& run_id);

  // The context size (tokens) a model server reported for a model, cached
  // so that it is asked once per server and model, not before every run
  // (OpenAIOptions::context_cache); nullopt when not known yet.
  Result<std::optional<int64_t>> ModelContextTokens(const std::string& url, const std::string& model) const;
  Status PutModelContextTokens(const std::string& url, const std::string& model, int64_t tokens);

  // NotFound naming the id and the file when the run is not stored.
  Result<RunRecord> Get(const std::string& run_id) const;
  Result<std::vector<RunRecord>> List(const RunFilter& filter = {}) const;
  Result<std::vector<StepRecord>> Steps(const std::string& run_id) const;
  // The run's stored events in order (none for an unknown run).
  Result<std::vector<RunEvent>> Events(const std::string& run_id) const;
  // The events stored after `cursor` (0: from the first) that `query`
  // selects, in commit order: a writer's transaction takes its positions
  // under the write lock, so a reader that saw position N never later sees
  // a new event below N.
  Result<std::vector<StoreEvent>> EventsSince(int64_t cursor, const EventQuery& query = {}) const;
  // How many runs each (app, status) has, for a server's metrics.
  struct RunCount {
    std::string app;
    std::string status;
    int64_t runs = 0;
  };
  Result<std::vector<RunCount>> CountRuns() const;
  // The position of the newest stored event (0: none yet).
  Result<int64_t> LastEventCursor() const;
  // Called after each write this store commits (a run added, a checkpoint,
  // an end), from the writing thread with the store's lock held: it must
  // only signal (a condition variable), never call the store. Writers in
  // other processes are not seen: a follower polls LastEventCursor too.
  void SetWriteListener(std::function<void()> listener);
  // The run's latest checkpoint, nullopt when it has none.
  Result<std::optional<RunState>> LatestState(const std::string& run_id) const;
  // Deletes the runs the filter selects (with their checkpoints, steps and events)
  // and returns their ids; with dry_run only returns them.
  Result<std::vector<std::string>> Prune(const PruneFilter& filter);
  // Whether any run's latest checkpoint holds `text` (in its stored state:
  // an app's own part included), e.g. an image's hash a resume needs.
  Result<bool> CheckpointsMention(const std::string& text) const;
  // Whether any run's stored inputs hold `text` (e.g. an upload's file name).
  Result<bool> InputsMention(const std::string& text) const;
  // Whether any run's stored result holds `text` (e.g. the hash of an image an
  // ended cxr run lists for the run that continues it).
  Result<bool> ResultsMention(const std::string& text) const;
  // PRAGMA integrity_check: OK, or FailedPrecondition with its findings.
  Status IntegrityCheck() const;

 private:
  struct Db;
  struct Pg;  // the PostgreSQL backend (run_store_pg.h)
  struct Heartbeat;
  RunStore(std::string path, std::unique_ptr<Db> db);
  explicit RunStore(std::unique_ptr<Pg> pg);
  static Result<std::unique_ptr<RunStore>> OpenToRead(const std::string& path, const RunStoreOptions& options);
  void Hold(const std::string& run_id);
  void StartHeartbeat();
  void Unhold(const std::string& run_id);
  std::string path_;
  mutable std::mutex mu_;
  std::unique_ptr<Db> db_;
  std::unique_ptr<Heartbeat> heartbeat_;  // renews the leases this store holds
  std::function<void()> on_write_;         // SetWriteListener; guarded by mu_
  // Set on a postgres:// store: every call goes to it (db_ is then null).
  std::unique_ptr<Pg> pg_;
  void Wrote() const {
    if (on_write_) on_write_();
  }
};

// A new owner id for a store in this process: "host/pid/start/n" (start: the
// process's start time in clock ticks since boot, so a reused pid is another
// owner; n: this process's n-th store).
std::string NewRunOwnerId();
// Whether the owner named by `owner` is known to be gone: its process on
// this machine no longer runs, or it is a store of this process that was
// closed. False when it may be alive (another machine, or not an owner id).
bool RunOwnerGone(const std::string& owner);
// "pid 123 on host h" for an owner id; the id itself when it is not one.
std::string DescribeRunOwner(const std::string& owner);

// A URL as the store may keep it: without user:password@ and without its
// query and fragment (either may hold a key). "" stays "".
std::string UrlForStore(const std::string& url);

// The store as the model clients' context-size cache (OpenAIOptions::
// context_cache): a failing store answers "not known" and keeps nothing.
std::shared_ptr<ContextSizeCache> StoreContextCache(std::shared_ptr<RunStore> store);

// "2026-11-25T03:04:05.123Z": the events' and leases' times.
std::string StoreTimestampMillis(std::chrono::system_clock::time_point t);

// Where the store lives when no --store is given: MEDREACT_STORE, else
// $XDG_DATA_HOME/medreact/runs.sqlite, else ~/.local/share/medreact/runs.sqlite
// (relative XDG_DATA_HOME or HOME values are ignored, as the XDG spec says).
// FailedPrecondition when none applies. `getenv` defaults to std::getenv.
Result<std::string> DefaultRunStorePath(const std::function<const char*(const char*)>& getenv = nullptr);

// Where the files kept beside a store go (its images and uploads: `<base>.images`,
// `<base>.uploads`): a SQLite store's path itself; for a PostgreSQL store
// (a URL) a local folder under the data folder named by its server, port
// and database ($XDG_DATA_HOME/medreact/postgres/<host>_<port>_<db>): those
// files are on this machine only, not in the database.
std::string RunStoreFilesBase(const std::string& path);

// "2026-11-25T03:04:05Z", the store's timestamps (they sort as text).
std::string StoreTimestamp(std::chrono::system_clock::time_point t);

}  // namespace medreact

#endif  // MEDREACT_STORE_RUN_STORE_H_

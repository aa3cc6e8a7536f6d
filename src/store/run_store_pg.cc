// The run store on PostgreSQL (RunStore::Pg; see run_store_pg.h and
// run_store.h). The statements mirror the SQLite store's (run_store.cc,
// run_store_reads.cc, run_store_db.h), one round trip for each where the
// SQLite store runs several.
#include "store/run_store_pg.h"

#include <algorithm>
#include <filesystem>
#include <utility>

#include "core/file_io.h"
#include "medreact/run_state.h"
#include "store/pg_schema.h"
#include "store/run_owner.h"

namespace medreact {

namespace {

// Now in ms since the epoch, by the server's clock.
constexpr const char* kNowMs = "(extract(epoch from clock_timestamp()) * 1000)::bigint";

// A text[] literal for `= ANY($n::text[])`.
std::string TextArray(const std::vector<std::string>& items) {
  std::string out = "{";
  for (size_t i = 0; i < items.size(); ++i) {
    if (i) out += ',';
    out += '"';
    for (char ch : items[i]) {
      if (ch == '"' || ch == '\\') out += '\\';
      out += ch;
    }
    out += '"';
  }
  return out + "}";
}

std::string Str(int64_t v) { return std::to_string(v); }

std::string PhaseName(const RunState& state) {
  return state.phase == RunState::Phase::kInTurn ? "in_turn" : "between_steps";
}

// Rows per multi-row INSERT (PostgreSQL takes up to 65535 parameters).
constexpr size_t kRowsPerInsert = 200;

constexpr const char* kRunColumns =
    "SELECT r.id, r.app, r.inputs, r.model, r.status, r.created_at, r.updated_at, r.result, "
    "(SELECT count(*) FROM steps s WHERE s.run_id = r.id), "
    "COALESCE((SELECT c.seq FROM checkpoints c WHERE c.run_id = r.id), 0), "
    "(SELECT count(*) FROM events e WHERE e.run_id = r.id), r.owner, r.lease_until FROM runs r ";

}  // namespace

Result<std::unique_ptr<RunStore::Pg>> RunStore::Pg::Open(const std::string& url, const RunStoreOptions& options) {
  auto pg = std::make_unique<Pg>();
  pg->redacted = RedactPostgresUrl(url);
  pg->owner = options.owner.empty() ? NewRunOwnerId() : options.owner;
  pg->ttl = options.read_only ? std::chrono::milliseconds(0) : options.lease_ttl;
  const PgConnectOptions connect{.connect_timeout = options.busy_timeout};
  Result<std::unique_ptr<PgConnection>> conn = PgConnection::Connect(url, connect);
  if (!conn.ok()) return conn.status();
  Result<int> version = ReadPgSchemaVersion(**conn);
  if (!version.ok()) return version.status();
  if (*version == 0 && (options.read_only || !options.create_if_missing)) {
    return Status::NotFound("no run store at '" + pg->redacted +
                            "' (no run has been recorded there: the database has no medreact tables)");
  }
  // The schema brought up to date (the one write a reading command makes,
  // as on SQLite), or a newer one refused.
  if (Status s = ApplyPgSchema(**conn); !s.ok()) return s;
  if (options.read_only) {
    conn = PgConnection::Connect(url, PgConnectOptions{.connect_timeout = options.busy_timeout, .read_only = true});
    if (!conn.ok()) return conn.status();
  }
  pg->conn = std::move(*conn);
  if (!options.read_only) {
    // The local folder of the store's images and uploads (RunStoreFilesBase),
    // private as a SQLite store's folders are; made again by its users when
    // this fails.
    MakePrivateFolders(std::filesystem::path(RunStoreFilesBase(url)).parent_path().string());
  }
  return pg;
}

RunStore::Pg::~Pg() {
  {
    std::lock_guard<std::mutex> lock(hb_mu);
    stop = true;
  }
  hb_cv.notify_all();
  if (heartbeat.joinable()) heartbeat.join();
  // The runs still held are given back (as the SQLite store does).
  if (!held.empty() && conn && !conn->Broken()) {
    conn->Exec("UPDATE runs SET owner = NULL, lease_until = NULL WHERE id = ANY($1::text[]) AND owner = $2",
               {TextArray(std::vector<std::string>(held.begin(), held.end())), owner});
  }
  ForgetOwner(owner);
}

void RunStore::Pg::Hold(const std::string& run_id) {
  std::lock_guard<std::mutex> lock(hb_mu);
  held.insert(run_id);
  if (ttl.count() <= 0 || heartbeat.joinable()) return;
  heartbeat = std::thread([this] {
    const auto period = std::max<std::chrono::milliseconds>(ttl / 3, std::chrono::milliseconds(1));
    std::unique_lock<std::mutex> hb(hb_mu);
    while (!stop) {
      hb_cv.wait_for(hb, period, [this] { return stop; });
      if (stop) break;
      const std::vector<std::string> ids(held.begin(), held.end());
      hb.unlock();
      if (!ids.empty()) {
        std::lock_guard<std::mutex> db(mu);
        // A failure is retried next beat; the next checkpoint reports a lost lease.
        Run([&](PgConnection& c) {
          return c
              .Exec(std::string("UPDATE runs SET lease_until = ") + kNowMs +
                        " + $3 WHERE id = ANY($1::text[]) AND owner = $2",
                    {TextArray(ids), owner, Str(std::max<int64_t>(ttl.count(), 1))}, "renewing the leases")
              .status();
        });
      }
      hb.lock();
    }
  });
}

void RunStore::Pg::Unhold(const std::string& run_id) {
  std::lock_guard<std::mutex> lock(hb_mu);
  held.erase(run_id);
}

std::optional<RunStore::Pg::Written> RunStore::Pg::Take(const std::string& run_id) {
  auto it = written.find(run_id);
  if (it == written.end()) return std::nullopt;
  Written w = it->second;
  written.erase(it);
  return w;
}

void RunStore::Pg::Keep(const std::string& run_id, Written w) {
  if (written.size() > 4096) written.clear();
  written[run_id] = w;
}

Status RunStore::Pg::Commit(PgConnection& c) {
  committing_ = true;
  Status s = c.Commit();
  committing_ = false;
  if (!s.ok() && c.Broken()) {
    return Status::Unavailable(s.message() +
                               "; the connection was lost while committing, so this write may or may not be stored");
  }
  return s;
}

Status RunStore::Pg::Run(const std::function<Status(PgConnection&)>& body) {
  bool reconnected = false;
  for (int attempt = 0;; ++attempt) {
    if (conn->Broken()) {
      if (reconnected) return Status::Unavailable(Where() + ": the connection to the server was lost");
      reconnected = true;
      if (Status s = conn->Reconnect(); !s.ok()) return s;
    }
    committing_ = false;
    Status s = body(*conn);
    if (s.ok()) return s;
    const bool lost_in_commit = committing_ || s.message().find("may or may not be stored") != std::string::npos;
    const std::string sqlstate = conn->sqlstate();  // before the rollback's own call clears it
    if (!conn->Broken()) conn->Rollback();
    if (conn->Broken() && !reconnected && !lost_in_commit) continue;  // reconnected at the top
    if (IsRetryableSqlState(sqlstate) && attempt < 5) continue;
    return s;
  }
}

Status RunStore::Pg::LockOwned(PgConnection& c, const std::string& run_id, bool* was_owned) {
  Result<PgRows> r = c.Exec("SELECT owner FROM runs WHERE id = $1 FOR UPDATE", {run_id}, "reading the run");
  if (!r.ok()) return r.status();
  if (r->size() == 0) return Status::NotFound("no run '" + run_id + "' in the " + Where());
  const std::optional<std::string> holder = r->Get(0, 0);
  if (holder && *holder != owner) {
    return Status::FailedPrecondition("run '" + run_id + "' is now run by " + DescribeRunOwner(*holder) +
                                      " (this process's lease ended and was taken over); this process stops "
                                      "writing it");
  }
  if (was_owned) *was_owned = holder.has_value();
  return Status::OK();
}

Status RunStore::Pg::CreateRun(const RunRecord& run, const RunState* first) {
  std::lock_guard<std::mutex> lock(mu);
  Take(run.id);
  Written w;
  Status s = Run([&](PgConnection& c) -> Status {
    w = Written{};
    if (Status b = c.Begin(); !b.ok()) return b;
    const std::string now = StoreTimestamp(std::chrono::system_clock::now());
    std::optional<std::string> result;
    if (!run.result.is_null()) result = DumpJson(run.result);
    Result<PgRows> ins = c.Exec(
        std::string("INSERT INTO runs(id, app, inputs, model, status, created_at, updated_at, result, owner, "
                    "lease_until) VALUES ($1, $2, $3, $4, $5, $6, $6, $7, $8, ") +
            kNowMs + " + $9)",
        {run.id, run.app, DumpJson(run.inputs), DumpJson(run.model), run.status.empty() ? "running" : run.status, now,
         result, owner, Str(std::max<int64_t>(ttl.count(), 1))},
        "adding the run");
    if (!ins.ok()) {
      if (c.sqlstate() == kPgUniqueViolation) {
        return Status::InvalidArgument("run '" + run.id + "' is already in the " + Where());
      }
      return ins.status();
    }
    if (first) {
      if (Status p = PutCheckpoint(c, run.id, *first, now, w, /*known=*/true); !p.ok()) return p;
    }
    return Commit(c);
  });
  if (!s.ok()) return s;
  Keep(run.id, w);
  Hold(run.id);
  Wrote();
  return Status::OK();
}

Status RunStore::Pg::SaveCheckpoint(const std::string& run_id, const RunState& state,
                                    const std::vector<RunEvent>& events, const std::string& status) {
  std::lock_guard<std::mutex> lock(mu);
  std::optional<Written> cached = Take(run_id);  // back after the commit
  Written w;
  Status s = Run([&](PgConnection& c) -> Status {
    std::optional<Written> known = cached;
    if (Status b = c.Begin(); !b.ok()) return b;
    bool was_owned = false;
    if (Status o = LockOwned(c, run_id, &was_owned); !o.ok()) return o;
    if (!was_owned) known.reset();  // it was free: another store may have written it since
    const std::string now = StoreTimestamp(std::chrono::system_clock::now());
    Result<PgRows> up = c.Exec(std::string("UPDATE runs SET status = $2, updated_at = $3, owner = $4, lease_until = ") +
                                   kNowMs + " + $5 WHERE id = $1",
                               {run_id, status, now, owner, Str(std::max<int64_t>(ttl.count(), 1))}, "updating the run");
    if (!up.ok()) return up.status();
    w = known.value_or(Written{});
    if (Status p = PutCheckpoint(c, run_id, state, now, w, known.has_value()); !p.ok()) return p;
    // Last: the events' lock is held from here to the commit.
    if (Status e = PutEvents(c, run_id, events, &w.events, known.has_value()); !e.ok()) return e;
    cached.reset();  // a retry reads the counts back
    return Commit(c);
  });
  if (!s.ok()) return s;
  Keep(run_id, w);
  Hold(run_id);
  Wrote();
  return Status::OK();
}

Status RunStore::Pg::AppendEvents(const std::string& run_id, const std::vector<RunEvent>& events) {
  if (events.empty()) return Status::OK();
  std::lock_guard<std::mutex> lock(mu);
  std::optional<Written> cached = Take(run_id);
  std::optional<Written> after;
  Status s = Run([&](PgConnection& c) -> Status {
    std::optional<Written> known = cached;
    if (Status b = c.Begin(); !b.ok()) return b;
    Result<PgRows> r = c.Exec("SELECT owner FROM runs WHERE id = $1 FOR UPDATE", {run_id}, "reading the run");
    if (!r.ok()) return r.status();
    if (r->size() == 0) return Status::NotFound("no run '" + run_id + "' in the " + Where());
    if (r->Get(0, 0) != std::optional<std::string>(owner)) {
      return Status::FailedPrecondition("run '" + run_id + "' is not held by this process (" +
                                        DescribeRunOwner(r->Text(0, 0)) + "); its events are not written");
    }
    int64_t last_seq = known ? known->events : 0;
    if (Status e = PutEvents(c, run_id, events, &last_seq, known.has_value()); !e.ok()) return e;
    if (known) {
      known->events = last_seq;
      after = known;
    }
    cached.reset();
    return Commit(c);
  });
  if (!s.ok()) return s;
  if (after) Keep(run_id, *after);
  Wrote();
  return Status::OK();
}

Status RunStore::Pg::FinishRun(const std::string& run_id, const std::string& status, const Json& result,
                               const std::vector<StepRecord>& steps, const std::vector<RunEvent>& events) {
  std::lock_guard<std::mutex> lock(mu);
  std::optional<Written> cached = Take(run_id);  // the run ends: not put back
  Status s = Run([&](PgConnection& c) -> Status {
    std::optional<Written> known = cached;
    if (Status b = c.Begin(); !b.ok()) return b;
    bool was_owned = false;
    if (Status o = LockOwned(c, run_id, &was_owned); !o.ok()) return o;
    if (!was_owned) known.reset();
    const std::string now = StoreTimestamp(std::chrono::system_clock::now());
    Result<PgRows> up = c.Exec(
        "UPDATE runs SET status = $2, updated_at = $3, result = $4, owner = NULL, lease_until = NULL WHERE id = $1",
        {run_id, status, now, DumpJson(result)}, "storing the result");
    if (!up.ok()) return up.status();
    // The final steps replace those stored, writing only the rows that differ.
    {
      Result<PgRows> stored = c.Exec("SELECT idx, record FROM steps WHERE run_id = $1 AND idx <= $2 ORDER BY idx",
                                     {run_id, Str(static_cast<int64_t>(steps.size()))}, "reading the steps");
      if (!stored.ok()) return stored.status();
      std::vector<std::optional<std::string>> have(steps.size());
      for (int i = 0; i < stored->size(); ++i) {
        const int64_t idx = stored->Int(i, 0);
        if (idx >= 1 && idx <= static_cast<int64_t>(steps.size())) have[static_cast<size_t>(idx - 1)] = stored->Get(i, 1);
      }
      Result<PgRows> cut = c.Exec("DELETE FROM steps WHERE run_id = $1 AND idx > $2",
                                  {run_id, Str(static_cast<int64_t>(steps.size()))}, "storing the steps");
      if (!cut.ok()) return cut.status();
      std::vector<std::optional<std::string>> params;
      std::string values;
      auto flush = [&]() -> Status {
        if (params.empty()) return Status::OK();
        Result<PgRows> put = c.Exec("INSERT INTO steps(run_id, idx, record) VALUES " + values +
                                        " ON CONFLICT (run_id, idx) DO UPDATE SET record = excluded.record",
                                    params, "storing the steps");
        params.clear();
        values.clear();
        return put.status();
      };
      for (size_t i = 0; i < steps.size(); ++i) {
        std::string text = StepRecordToStateJsonText(steps[i]);
        if (have[i] && *have[i] == text) continue;
        const size_t n = params.size();
        values += std::string(values.empty() ? "" : ", ") + "($" + Str(n + 1) + ", $" + Str(n + 2) + "::bigint, $" +
                  Str(n + 3) + ")";
        params.push_back(run_id);
        params.push_back(Str(static_cast<int64_t>(i + 1)));
        params.push_back(std::move(text));
        if (params.size() >= kRowsPerInsert * 3) {
          if (Status f = flush(); !f.ok()) return f;
        }
      }
      if (Status f = flush(); !f.ok()) return f;
    }
    if (status != "interrupted" && status != "awaiting_approval" && status != "error") {
      for (const char* sql : {"DELETE FROM checkpoints WHERE run_id = $1", "DELETE FROM messages WHERE run_id = $1"}) {
        Result<PgRows> d = c.Exec(sql, {run_id}, "dropping the checkpoint");
        if (!d.ok()) return d.status();
      }
    }
    int64_t last_seq = known ? known->events : 0;
    if (Status e = PutEvents(c, run_id, events, &last_seq, known.has_value()); !e.ok()) return e;
    cached.reset();
    return Commit(c);
  });
  if (!s.ok()) return s;
  Unhold(run_id);
  Wrote();
  return Status::OK();
}

Status RunStore::Pg::ClaimRun(const std::string& run_id) {
  std::lock_guard<std::mutex> lock(mu);
  Take(run_id);  // another process may have written it since
  Status s = Run([&](PgConnection& c) -> Status {
    if (Status b = c.Begin(); !b.ok()) return b;
    Result<PgRows> r = c.Exec(std::string("SELECT owner, lease_until, ") + kNowMs + " FROM runs WHERE id = $1 FOR UPDATE",
                              {run_id}, "reading run '" + run_id + "'");
    if (!r.ok()) return r.status();
    if (r->size() == 0) return Status::NotFound("no run '" + run_id + "' in the " + Where());
    const std::string holder = r->Text(0, 0);
    const int64_t until = r->Int(0, 1), now = r->Int(0, 2);
    if (!holder.empty() && holder != owner && until > now && !RunOwnerGone(holder)) {
      using Ms = std::chrono::milliseconds;
      return Status::Unavailable("run '" + run_id + "' is being run by " + DescribeRunOwner(holder) +
                                 " (its lease runs until " +
                                 StoreTimestampMillis(std::chrono::system_clock::time_point(Ms(until))) +
                                 " and is renewed while it runs); wait for it to end, or stop that process");
    }
    Result<PgRows> up = c.Exec(std::string("UPDATE runs SET owner = $2, lease_until = ") + kNowMs +
                                   " + $3 WHERE id = $1",
                               {run_id, owner, Str(std::max<int64_t>(ttl.count(), 1))}, "taking run '" + run_id + "'");
    if (!up.ok()) return up.status();
    return Commit(c);
  });
  if (!s.ok()) return s;
  Hold(run_id);
  return Status::OK();
}

Status RunStore::Pg::ReleaseRun(const std::string& run_id) {
  std::lock_guard<std::mutex> lock(mu);
  Unhold(run_id);
  Take(run_id);
  return Run([&](PgConnection& c) {
    return c
        .Exec("UPDATE runs SET owner = NULL, lease_until = NULL WHERE id = $1 AND owner = $2", {run_id, owner},
              "giving back run '" + run_id + "'")
        .status();
  });
}

Result<std::optional<int64_t>> RunStore::Pg::ModelContextTokens(const std::string& url, const std::string& model) {
  std::lock_guard<std::mutex> lock(mu);
  std::optional<int64_t> out;
  Status s = Run([&](PgConnection& c) -> Status {
    Result<PgRows> r = c.Exec("SELECT context_tokens FROM model_info WHERE url = $1 AND model = $2",
                              {UrlForStore(url), model}, "reading a model's context size");
    if (!r.ok()) return r.status();
    out = r->size() ? std::optional<int64_t>(r->Int(0, 0)) : std::nullopt;
    return Status::OK();
  });
  if (!s.ok()) return s;
  return out;
}

Status RunStore::Pg::PutModelContextTokens(const std::string& url, const std::string& model, int64_t tokens) {
  std::lock_guard<std::mutex> lock(mu);
  return Run([&](PgConnection& c) {
    return c
        .Exec("INSERT INTO model_info(url, model, context_tokens, probed_at) VALUES ($1, $2, $3, $4) "
              "ON CONFLICT (url, model) DO UPDATE SET context_tokens = excluded.context_tokens, "
              "probed_at = excluded.probed_at",
              {UrlForStore(url), model, Str(tokens), StoreTimestamp(std::chrono::system_clock::now())},
              "storing a model's context size")
        .status();
  });
}

void RunStore::Pg::SetWriteListener(std::function<void()> listener) {
  std::lock_guard<std::mutex> lock(mu);
  on_write = std::move(listener);
}

// The messages or steps of a run made rows 1..size (as RunStore::Db::SyncRows).
Status RunStore::Pg::SyncRows(PgConnection& c, bool steps, const std::string& run_id, int64_t size,
                              const std::function<std::string(size_t)>& text, int64_t* stored_known) {
  const std::string table = steps ? "steps" : "messages";
  const std::string column = steps ? "record" : "message";
  int64_t stored = 0;
  if (stored_known) {
    stored = *stored_known;
  } else {
    Result<PgRows> r = c.Exec("SELECT COALESCE(MAX(idx), 0) FROM " + table + " WHERE run_id = $1", {run_id},
                              "counting the " + table);
    if (!r.ok()) return r.status();
    stored = r->Int(0, 0);
  }
  if (stored > size) {
    Result<PgRows> cut =
        c.Exec("DELETE FROM " + table + " WHERE run_id = $1 AND idx > $2", {run_id, Str(size)}, "storing the " + table);
    if (!cut.ok()) return cut.status();
    stored = size;
  }
  std::vector<std::optional<std::string>> params;
  std::string values;
  for (int64_t i = stored; i < size; ++i) {
    const size_t n = params.size();
    values += std::string(values.empty() ? "" : ", ") + "($" + Str(n + 1) + ", $" + Str(n + 2) + "::bigint, $" +
              Str(n + 3) + ")";
    params.push_back(run_id);
    params.push_back(Str(i + 1));
    params.push_back(text(static_cast<size_t>(i)));
    if (params.size() >= kRowsPerInsert * 3 || i + 1 == size) {
      Result<PgRows> add = c.Exec("INSERT INTO " + table + "(run_id, idx, " + column + ") VALUES " + values +
                                      " ON CONFLICT (run_id, idx) DO UPDATE SET " + column + " = excluded." + column,
                                  params, "storing the " + table);
      if (!add.ok()) return add.status();
      params.clear();
      values.clear();
    }
  }
  return Status::OK();
}

Status RunStore::Pg::PutCheckpoint(PgConnection& c, const std::string& run_id, const RunState& state,
                                   const std::string& now, Written& w, bool known) {
  const auto messages = static_cast<int64_t>(state.messages.size());
  const auto step_count = static_cast<int64_t>(state.trace.steps.size());
  if (Status s = SyncRows(c, false, run_id, messages,
                          [&](size_t i) { return MessageToStateJsonText(state.messages[i]); },
                          known ? &w.messages : nullptr);
      !s.ok()) {
    return s;
  }
  if (Status s = SyncRows(c, true, run_id, step_count,
                          [&](size_t i) { return StepRecordToStateJsonText(state.trace.steps[i]); },
                          known ? &w.steps : nullptr);
      !s.ok()) {
    return s;
  }
  w.messages = messages;
  w.steps = step_count;
  // The trace's input is the same at every checkpoint of a run: sent once
  // per run and store (NULL keeps the stored one).
  std::optional<std::string> input;
  if (!(known && w.input)) input = DumpJson(state.trace.input);
  Result<PgRows> r = c.Exec(
      "INSERT INTO checkpoints(run_id, seq, phase, step, messages, steps, state, saved_at, trace_input) "
      "VALUES ($1, 1, $2, $3, $4, $5, $6, $7, $8) "
      "ON CONFLICT (run_id) DO UPDATE SET seq = checkpoints.seq + 1, phase = excluded.phase, step = excluded.step, "
      "messages = excluded.messages, steps = excluded.steps, state = excluded.state, saved_at = excluded.saved_at, "
      "trace_input = COALESCE(excluded.trace_input, checkpoints.trace_input)",
      {run_id, PhaseName(state), Str(state.step), Str(messages), Str(step_count),
       RunStateHeaderToJsonText(state, /*with_trace_input=*/false), now, input},
      "saving the checkpoint");
  if (!r.ok()) return r.status();
  w.input = true;
  return Status::OK();
}

Status RunStore::Pg::PutEvents(PgConnection& c, const std::string& run_id, const std::vector<RunEvent>& events,
                               int64_t* last_seq, bool known) {
  if (events.empty() && (!last_seq || known)) return Status::OK();
  int64_t seq = 0;
  if (known && last_seq) {
    seq = *last_seq;
  } else {
    Result<PgRows> r = c.Exec("SELECT COALESCE(MAX(seq), 0) FROM events WHERE run_id = $1", {run_id},
                              "counting the events");
    if (!r.ok()) return r.status();
    seq = r->Int(0, 0);
  }
  if (!events.empty()) {
    // The cursors in commit order (run_store_pg.h): held to the commit.
    Result<PgRows> lock = c.Exec("SELECT pg_advisory_xact_lock($1)", {Str(kPgEventLock)}, "waiting for the events' lock");
    if (!lock.ok()) return lock.status();
    std::vector<std::optional<std::string>> params;
    std::string values;
    for (size_t i = 0; i < events.size(); ++i) {
      const RunEvent& e = events[i];
      const size_t n = params.size();
      values += std::string(values.empty() ? "" : ", ") + "(nextval('events_cursor'), $" + Str(n + 1) + ", $" +
                Str(n + 2) + "::bigint, $" + Str(n + 3) + ", $" + Str(n + 4) + "::bigint, $" + Str(n + 5) + ", $" +
                Str(n + 6) + "::double precision, $" + Str(n + 7) + ", $" + Str(n + 8) + ")";
      params.push_back(run_id);
      params.push_back(Str(++seq));
      params.push_back(e.type);
      params.push_back(Str(e.step));
      params.push_back(e.tool_call_id);
      char ms[64];
      std::snprintf(ms, sizeof ms, "%.17g", e.elapsed_ms);
      params.push_back(std::string(ms));
      params.push_back(e.json);
      params.push_back(e.at);
      if (params.size() >= kRowsPerInsert * 8 || i + 1 == events.size()) {
        Result<PgRows> add = c.Exec(
            "INSERT INTO events(id, run_id, seq, type, step, tool_call_id, elapsed_ms, event, at) VALUES " + values,
            params, "storing the events");
        if (!add.ok()) return add.status();
        params.clear();
        values.clear();
      }
    }
  }
  if (last_seq) *last_seq = seq;
  return Status::OK();
}

Result<Json> RunStore::Pg::JsonText(const std::optional<std::string>& text, const std::string& what) const {
  if (!text) return Json();
  Result<Json> j = ParseJson(*text);
  if (!j.ok()) return Damaged(what + " is not JSON (" + j.status().message() + ")");
  return j;
}

Result<RunRecord> RunStore::Pg::ReadRun(const PgRows& rows, int i) const {
  RunRecord r;
  r.id = rows.Text(i, 0);
  r.app = rows.Text(i, 1);
  const std::string what = "run '" + r.id + "'";
  Result<Json> inputs = JsonText(rows.Get(i, 2), what + "'s inputs");
  if (!inputs.ok()) return inputs.status();
  Result<Json> model = JsonText(rows.Get(i, 3), what + "'s model");
  if (!model.ok()) return model.status();
  Result<Json> result = JsonText(rows.Get(i, 7), what + "'s result");
  if (!result.ok()) return result.status();
  r.inputs = std::move(*inputs);
  r.model = std::move(*model);
  r.status = rows.Text(i, 4);
  r.created_at = rows.Text(i, 5);
  r.updated_at = rows.Text(i, 6);
  r.result = std::move(*result);
  r.steps = rows.Int(i, 8);
  r.checkpoints = rows.Int(i, 9);
  r.events = rows.Int(i, 10);
  r.owner = rows.Text(i, 11);
  if (!rows.Null(i, 12)) {
    using Ms = std::chrono::milliseconds;
    r.lease_until = StoreTimestampMillis(std::chrono::system_clock::time_point(Ms(rows.Int(i, 12))));
  }
  return r;
}

Result<RunRecord> RunStore::Pg::Get(const std::string& run_id) {
  std::lock_guard<std::mutex> lock(mu);
  std::optional<RunRecord> out;
  Status s = Run([&](PgConnection& c) -> Status {
    Result<PgRows> r = c.Exec(std::string(kRunColumns) + "WHERE r.id = $1", {run_id}, "reading run '" + run_id + "'");
    if (!r.ok()) return r.status();
    if (r->size() == 0) return Status::NotFound("no run '" + run_id + "' in the " + Where());
    Result<RunRecord> rec = ReadRun(*r, 0);
    if (!rec.ok()) return rec.status();
    out = std::move(*rec);
    return Status::OK();
  });
  if (!s.ok()) return s;
  return std::move(*out);
}

Result<std::vector<RunRecord>> RunStore::Pg::List(const RunFilter& filter) {
  std::lock_guard<std::mutex> lock(mu);
  std::vector<RunRecord> out;
  Status s = Run([&](PgConnection& c) -> Status {
    out.clear();
    std::optional<std::string> limit;
    if (filter.limit > 0) limit = Str(filter.limit);
    Result<PgRows> r = c.Exec(std::string(kRunColumns) +
                                  "WHERE ($1 = '' OR r.app = $1) AND ($2 = '' OR r.status = $2) "
                                  "AND ($4 = '' OR strpos(lower(r.id), lower($4)) > 0) "
                                  "ORDER BY r.updated_at COLLATE \"C\" DESC, r.id COLLATE \"C\" LIMIT $3::bigint",
                              {filter.app, filter.status, limit, filter.id_contains}, "listing runs");
    if (!r.ok()) return r.status();
    for (int i = 0; i < r->size(); ++i) {
      Result<RunRecord> rec = ReadRun(*r, i);
      if (!rec.ok()) return rec.status();
      out.push_back(std::move(*rec));
    }
    return Status::OK();
  });
  if (!s.ok()) return s;
  return out;
}

Result<std::vector<StepRecord>> RunStore::Pg::Steps(const std::string& run_id) {
  std::lock_guard<std::mutex> lock(mu);
  std::vector<StepRecord> out;
  Status s = Run([&](PgConnection& c) -> Status {
    out.clear();
    Result<PgRows> r = c.Exec("SELECT idx, record FROM steps WHERE run_id = $1 ORDER BY idx", {run_id},
                              "reading the steps of run '" + run_id + "'");
    if (!r.ok()) return r.status();
    for (int i = 0; i < r->size(); ++i) {
      const std::string what = "step " + r->Text(i, 0) + " of run '" + run_id + "'";
      Result<Json> j = JsonText(r->Get(i, 1), what);
      if (!j.ok()) return j.status();
      Result<StepRecord> step = StepRecordFromStateJson(*j);
      if (!step.ok()) return Damaged(what + ": " + step.status().message());
      out.push_back(std::move(*step));
    }
    return Status::OK();
  });
  if (!s.ok()) return s;
  return out;
}

Result<std::vector<RunEvent>> RunStore::Pg::Events(const std::string& run_id) {
  std::lock_guard<std::mutex> lock(mu);
  std::vector<RunEvent> out;
  Status s = Run([&](PgConnection& c) -> Status {
    out.clear();
    Result<PgRows> r = c.Exec(
        "SELECT seq, type, step, tool_call_id, elapsed_ms, event, at, id FROM events WHERE run_id = $1 ORDER BY seq",
        {run_id}, "reading the events of run '" + run_id + "'");
    if (!r.ok()) return r.status();
    for (int i = 0; i < r->size(); ++i) {
      out.push_back({.seq = r->Int(i, 0),
                     .type = r->Text(i, 1),
                     .step = r->Int(i, 2),
                     .tool_call_id = r->Text(i, 3),
                     .elapsed_ms = r->Double(i, 4),
                     .at = r->Text(i, 6),
                     .json = r->Text(i, 5),
                     .cursor = r->Int(i, 7)});
    }
    return Status::OK();
  });
  if (!s.ok()) return s;
  return out;
}

Result<std::vector<StoreEvent>> RunStore::Pg::EventsSince(int64_t cursor, const EventQuery& query) {
  std::lock_guard<std::mutex> lock(mu);
  std::vector<StoreEvent> out;
  Status s = Run([&](PgConnection& c) -> Status {
    out.clear();
    std::optional<std::string> runs, limit;
    if (!query.runs.empty()) runs = TextArray(query.runs);
    if (query.limit > 0) limit = Str(query.limit);
    Result<PgRows> r = c.Exec(
        "SELECT e.id, e.run_id, r.app, e.seq, e.type, e.step, e.tool_call_id, e.elapsed_ms, e.event, e.at "
        "FROM events e JOIN runs r ON r.id = e.run_id "
        "WHERE e.id > $1 AND ($2 = '' OR r.app = $2) AND ($3::text[] IS NULL OR e.run_id = ANY($3::text[])) "
        "ORDER BY e.id LIMIT $4::bigint",
        {Str(cursor), query.app, runs, limit}, "reading the events after position " + Str(cursor));
    if (!r.ok()) return r.status();
    for (int i = 0; i < r->size(); ++i) {
      out.push_back({.cursor = r->Int(i, 0),
                     .run_id = r->Text(i, 1),
                     .app = r->Text(i, 2),
                     .event = {.seq = r->Int(i, 3),
                               .type = r->Text(i, 4),
                               .step = r->Int(i, 5),
                               .tool_call_id = r->Text(i, 6),
                               .elapsed_ms = r->Double(i, 7),
                               .at = r->Text(i, 9),
                               .json = r->Text(i, 8)}});
    }
    return Status::OK();
  });
  if (!s.ok()) return s;
  return out;
}

Result<std::vector<RunStore::RunCount>> RunStore::Pg::CountRuns() {
  std::lock_guard<std::mutex> lock(mu);
  std::vector<RunCount> out;
  Status s = Run([&](PgConnection& c) -> Status {
    out.clear();
    Result<PgRows> r = c.Exec(
        "SELECT app, status, count(*) FROM runs GROUP BY app, status ORDER BY app COLLATE \"C\", status COLLATE \"C\"",
        {}, "counting the runs");
    if (!r.ok()) return r.status();
    for (int i = 0; i < r->size(); ++i) out.push_back({.app = r->Text(i, 0), .status = r->Text(i, 1), .runs = r->Int(i, 2)});
    return Status::OK();
  });
  if (!s.ok()) return s;
  return out;
}

Result<int64_t> RunStore::Pg::LastEventCursor() {
  std::lock_guard<std::mutex> lock(mu);
  int64_t out = 0;
  Status s = Run([&](PgConnection& c) -> Status {
    Result<PgRows> r = c.Exec("SELECT COALESCE(MAX(id), 0) FROM events", {}, "reading the newest event's position");
    if (!r.ok()) return r.status();
    out = r->Int(0, 0);
    return Status::OK();
  });
  if (!s.ok()) return s;
  return out;
}

Result<std::optional<RunState>> RunStore::Pg::LatestState(const std::string& run_id) {
  std::lock_guard<std::mutex> lock(mu);
  const std::string what = "the checkpoint of run '" + run_id + "'";
  std::optional<RunState> out;
  Status s = Run([&](PgConnection& c) -> Status {
    out.reset();
    // One snapshot for the three reads: a checkpoint committing between
    // them would otherwise mix two states.
    if (Status b = c.Begin("ISOLATION LEVEL REPEATABLE READ READ ONLY"); !b.ok()) return b;
    Result<PgRows> cp = c.Exec("SELECT state, messages, steps, trace_input FROM checkpoints WHERE run_id = $1",
                               {run_id}, "reading " + what);
    if (!cp.ok()) return cp.status();
    if (cp->size() == 0) return c.Rollback();
    Result<Json> header = JsonText(cp->Get(0, 0), what);
    if (!header.ok()) return header.status();
    if (!header->is_object() || !(*header)["trace"].is_object()) return Damaged(what + " is not a run state");
    Json j = std::move(*header);
    const int64_t count = cp->Int(0, 1), step_count = cp->Int(0, 2);
    if (!cp->Null(0, 3)) {
      Result<Json> input = JsonText(cp->Get(0, 3), what + "'s trace input");
      if (!input.ok()) return input.status();
      j["trace"]["input"] = std::move(*input);
    }
    Json messages = Json::array();
    Result<PgRows> m = c.Exec("SELECT message FROM messages WHERE run_id = $1 AND idx <= $2 ORDER BY idx",
                              {run_id, Str(count)}, "reading the conversation of run '" + run_id + "'");
    if (!m.ok()) return m.status();
    for (int i = 0; i < m->size(); ++i) {
      Result<Json> one = JsonText(m->Get(i, 0), "a message of run '" + run_id + "'");
      if (!one.ok()) return one.status();
      messages.push_back(std::move(*one));
    }
    if (static_cast<int64_t>(messages.size()) != count) {
      return Damaged(what + " has " + Str(static_cast<int64_t>(messages.size())) + " of its " + Str(count) +
                     " messages");
    }
    Json steps = Json::array();
    Result<PgRows> st = c.Exec("SELECT record FROM steps WHERE run_id = $1 AND idx <= $2 ORDER BY idx",
                               {run_id, Str(step_count)}, "reading the steps of run '" + run_id + "'");
    if (!st.ok()) return st.status();
    for (int i = 0; i < st->size(); ++i) {
      Result<Json> one = JsonText(st->Get(i, 0), "a step of run '" + run_id + "'");
      if (!one.ok()) return one.status();
      steps.push_back(std::move(*one));
    }
    if (static_cast<int64_t>(steps.size()) != step_count) {
      return Damaged(what + " has " + Str(static_cast<int64_t>(steps.size())) + " of its " + Str(step_count) +
                     " steps");
    }
    if (Status e = c.Commit(); !e.ok()) return e;
    j["messages"] = std::move(messages);
    j["trace"]["steps"] = std::move(steps);
    Result<RunState> state = RunStateFromJson(j);
    if (!state.ok()) return Damaged(what + ": " + state.status().message());
    out = std::move(*state);
    return Status::OK();
  });
  if (!s.ok()) return s;
  return out;
}

Result<std::vector<std::string>> RunStore::Pg::Prune(const PruneFilter& filter) {
  std::lock_guard<std::mutex> lock(mu);
  std::vector<std::string> ids;
  Status s = Run([&](PgConnection& c) -> Status {
    ids.clear();
    if (Status b = c.Begin(); !b.ok()) return b;
    Result<PgRows> r = c.Exec(
        "SELECT id, status FROM runs WHERE updated_at <= $1 ORDER BY updated_at COLLATE \"C\", id COLLATE \"C\" "
        "FOR UPDATE",
        {StoreTimestamp(filter.updated_before)}, "listing runs to prune");
    if (!r.ok()) return r.status();
    for (int i = 0; i < r->size(); ++i) {
      const std::string status = r->Text(i, 1);
      const bool chosen = filter.statuses.empty()
                              ? status != "running" && status != "awaiting_approval"
                              : std::find(filter.statuses.begin(), filter.statuses.end(), status) !=
                                    filter.statuses.end();
      if (chosen) ids.push_back(r->Text(i, 0));
    }
    if (filter.dry_run || ids.empty()) return c.Rollback();
    const std::string list = TextArray(ids);
    for (const char* sql : {"DELETE FROM steps WHERE run_id = ANY($1::text[])",
                            "DELETE FROM checkpoints WHERE run_id = ANY($1::text[])",
                            "DELETE FROM messages WHERE run_id = ANY($1::text[])",
                            "DELETE FROM events WHERE run_id = ANY($1::text[])",
                            "DELETE FROM runs WHERE id = ANY($1::text[])"}) {
      Result<PgRows> d = c.Exec(sql, {list}, "pruning runs");
      if (!d.ok()) return d.status();
    }
    return Commit(c);
  });
  if (!s.ok()) return s;
  for (const std::string& id : ids) Take(id);
  return ids;
}

Result<bool> RunStore::Pg::Mentions(const char* sql, const std::string& text, const std::string& what) {
  std::lock_guard<std::mutex> lock(mu);
  bool found = false;
  Status s = Run([&](PgConnection& c) -> Status {
    Result<PgRows> r = c.Exec(sql, {text}, what);
    if (!r.ok()) return r.status();
    found = r->size() > 0;
    return Status::OK();
  });
  if (!s.ok()) return s;
  return found;
}

// PostgreSQL checks its own pages (and has no PRAGMA integrity_check): what
// is checked here is the store's own consistency, the one a resume relies
// on: every checkpoint has the messages and steps it counts, and no row
// belongs to a run that is not stored.
Status RunStore::Pg::IntegrityCheck() {
  std::lock_guard<std::mutex> lock(mu);
  std::vector<std::string> findings;
  Status s = Run([&](PgConnection& c) -> Status {
    findings.clear();
    Result<PgRows> r = c.Exec(
        "SELECT 'checkpoint of run ''' || c.run_id || ''' counts ' || c.messages || ' messages, ' || "
        "(SELECT count(*) FROM messages m WHERE m.run_id = c.run_id AND m.idx <= c.messages) || ' stored' "
        "FROM checkpoints c WHERE (SELECT count(*) FROM messages m WHERE m.run_id = c.run_id AND m.idx <= c.messages) "
        "<> c.messages "
        "UNION ALL SELECT 'checkpoint of run ''' || c.run_id || ''' counts ' || c.steps || ' steps, ' || "
        "(SELECT count(*) FROM steps s WHERE s.run_id = c.run_id AND s.idx <= c.steps) || ' stored' "
        "FROM checkpoints c WHERE (SELECT count(*) FROM steps s WHERE s.run_id = c.run_id AND s.idx <= c.steps) "
        "<> c.steps "
        "UNION ALL SELECT t || ' rows of no stored run: ' || n FROM ("
        "  SELECT 'checkpoints' AS t, count(*) AS n FROM checkpoints x WHERE NOT EXISTS "
        "    (SELECT 1 FROM runs r WHERE r.id = x.run_id) "
        "  UNION ALL SELECT 'messages', count(*) FROM messages x WHERE NOT EXISTS "
        "    (SELECT 1 FROM runs r WHERE r.id = x.run_id) "
        "  UNION ALL SELECT 'steps', count(*) FROM steps x WHERE NOT EXISTS (SELECT 1 FROM runs r WHERE r.id = x.run_id) "
        "  UNION ALL SELECT 'events', count(*) FROM events x WHERE NOT EXISTS "
        "    (SELECT 1 FROM runs r WHERE r.id = x.run_id)) o WHERE n > 0",
        {}, "checking integrity");
    if (!r.ok()) return r.status();
    for (int i = 0; i < r->size(); ++i) findings.push_back(r->Text(i, 0));
    return Status::OK();
  });
  if (!s.ok()) return s;
  if (findings.empty()) return Status::OK();
  std::string text;
  for (size_t i = 0; i < findings.size() && i < 5; ++i) text += (i ? "; " : "") + findings[i];
  return Status::FailedPrecondition(Where() + " fails its integrity check (" + Str(static_cast<int64_t>(findings.size())) +
                                    " finding(s): " + text + ")");
}

}  // namespace medreact

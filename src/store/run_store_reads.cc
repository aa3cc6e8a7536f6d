// The run store's reads (see run_store.h): a run, the runs, a run's steps,
// events and latest checkpoint, the events across runs for a follower, the
// counts for metrics, and the lookups the sweeps of `runs prune` make. The
// writes, opening and leases are in run_store.cc.
#include <sqlite3.h>

#include <string>
#include <vector>

#include "core/sqlite_stmt.h"
#include "store/run_store.h"
#include "store/run_store_db.h"
#include "store/run_store_pg.h"

namespace medreact {

namespace {

constexpr const char* kRunColumns =
    "SELECT r.id, r.app, r.inputs, r.model, r.status, r.created_at, r.updated_at, r.result, "
    "(SELECT count(*) FROM steps s WHERE s.run_id = r.id), "
    "COALESCE((SELECT c.seq FROM checkpoints c WHERE c.run_id = r.id), 0), "
    "(SELECT count(*) FROM events e WHERE e.run_id = r.id), r.owner, r.lease_until FROM runs r ";

}  // namespace

Result<RunRecord> RunStore::Get(const std::string& run_id) const {
  if (pg_) return pg_->Get(run_id);
  std::lock_guard<std::mutex> lock(mu_);
  Stmt s(db_->db, (std::string(kRunColumns) + "WHERE r.id = ?1").c_str());
  if (!s.ok()) return db_->Error("preparing a statement");
  s.Text(1, run_id);
  const int rc = s.Step();
  if (rc == SQLITE_DONE) return Status::NotFound("no run '" + run_id + "' in the " + db_->Where());
  if (rc != SQLITE_ROW) return db_->Error("reading run '" + run_id + "'");
  return db_->ReadRun(s);
}

Result<RunRecord> RunStore::Db::ReadRun(const Stmt& s) const {
  const Db& d = *this;
  RunRecord r;
  r.id = s.ColText(0);
  r.app = s.ColText(1);
  const std::string what = "run '" + r.id + "'";
  Result<Json> inputs = d.JsonColumn(s, 2, what + "'s inputs");
  if (!inputs.ok()) return inputs.status();
  Result<Json> model = d.JsonColumn(s, 3, what + "'s model");
  if (!model.ok()) return model.status();
  Result<Json> result = d.JsonColumn(s, 7, what + "'s result");
  if (!result.ok()) return result.status();
  r.inputs = std::move(*inputs);
  r.model = std::move(*model);
  r.status = s.ColText(4);
  r.created_at = s.ColText(5);
  r.updated_at = s.ColText(6);
  r.result = std::move(*result);
  r.steps = s.ColInt(8);
  r.checkpoints = s.ColInt(9);
  r.events = s.ColInt(10);
  if (!s.ColNull(11)) r.owner = s.ColText(11);
  if (!s.ColNull(12)) {
    using Ms = std::chrono::milliseconds;
    r.lease_until = StoreTimestampMillis(std::chrono::system_clock::time_point(Ms(s.ColInt(12))));
  }
  return r;
}

Result<std::vector<RunRecord>> RunStore::List(const RunFilter& filter) const {
  if (pg_) return pg_->List(filter);
  std::lock_guard<std::mutex> lock(mu_);
  Stmt s(db_->db, (std::string(kRunColumns) +
                   "WHERE (?1 = '' OR r.app = ?1) AND (?2 = '' OR r.status = ?2) "
                   "AND (?4 = '' OR instr(lower(r.id), lower(?4)) > 0) "
                   "ORDER BY r.updated_at DESC, r.id LIMIT ?3")
                      .c_str());
  if (!s.ok()) return db_->Error("preparing a statement");
  s.Text(1, filter.app);
  s.Text(2, filter.status);
  s.Int(3, filter.limit > 0 ? filter.limit : -1);
  s.Text(4, filter.id_contains);
  std::vector<RunRecord> out;
  for (int rc = s.Step();; rc = s.Step()) {
    if (rc == SQLITE_DONE) break;
    if (rc != SQLITE_ROW) return db_->Error("listing runs");
    Result<RunRecord> r = db_->ReadRun(s);
    if (!r.ok()) return r.status();
    out.push_back(std::move(*r));
  }
  return out;
}

Result<std::vector<StepRecord>> RunStore::Steps(const std::string& run_id) const {
  if (pg_) return pg_->Steps(run_id);
  std::lock_guard<std::mutex> lock(mu_);
  Stmt s(db_->db, "SELECT idx, record FROM steps WHERE run_id = ?1 ORDER BY idx");
  if (!s.ok()) return db_->Error("preparing a statement");
  s.Text(1, run_id);
  std::vector<StepRecord> out;
  for (int rc = s.Step();; rc = s.Step()) {
    if (rc == SQLITE_DONE) break;
    if (rc != SQLITE_ROW) return db_->Error("reading the steps of run '" + run_id + "'");
    const std::string what = "step " + std::to_string(s.ColInt(0)) + " of run '" + run_id + "'";
    Result<Json> j = db_->JsonColumn(s, 1, what);
    if (!j.ok()) return j.status();
    Result<StepRecord> step = StepRecordFromStateJson(*j);
    if (!step.ok()) return db_->Damaged(what + ": " + step.status().message());
    out.push_back(std::move(*step));
  }
  return out;
}

Result<std::vector<RunEvent>> RunStore::Events(const std::string& run_id) const {
  if (pg_) return pg_->Events(run_id);
  std::lock_guard<std::mutex> lock(mu_);
  Stmt s(db_->db,
         "SELECT seq, type, step, tool_call_id, elapsed_ms, event, at, id FROM events WHERE run_id = ?1 ORDER BY seq");
  if (!s.ok()) return db_->Error("preparing a statement");
  s.Text(1, run_id);
  std::vector<RunEvent> out;
  for (int rc = s.Step();; rc = s.Step()) {
    if (rc == SQLITE_DONE) break;
    if (rc != SQLITE_ROW) return db_->Error("reading the events of run '" + run_id + "'");
    out.push_back({.seq = s.ColInt(0),
                   .type = s.ColText(1),
                   .step = s.ColInt(2),
                   .tool_call_id = s.ColText(3),
                   .elapsed_ms = s.ColDouble(4),
                   .at = s.ColText(6),
                   .json = s.ColText(5),
                   .cursor = s.ColInt(7)});
  }
  return out;
}

Result<std::vector<StoreEvent>> RunStore::EventsSince(int64_t cursor, const EventQuery& query) const {
  if (pg_) return pg_->EventsSince(cursor, query);
  std::lock_guard<std::mutex> lock(mu_);
  // The runs as a JSON array (json_each): one statement whatever their number.
  Stmt s(db_->db,
         "SELECT e.rowid, e.run_id, r.app, e.seq, e.type, e.step, e.tool_call_id, e.elapsed_ms, e.event, e.at "
         "FROM events e JOIN runs r ON r.id = e.run_id "
         "WHERE e.rowid > ?1 AND (?2 = '' OR r.app = ?2) "
         "AND (?3 IS NULL OR e.run_id IN (SELECT value FROM json_each(?3))) "
         "ORDER BY e.rowid LIMIT ?4");
  if (!s.ok()) return db_->Error("preparing a statement");
  s.Int(1, cursor);
  s.Text(2, query.app);
  if (!query.runs.empty()) s.Text(3, DumpJson(Json(query.runs)));
  s.Int(4, query.limit > 0 ? query.limit : -1);
  std::vector<StoreEvent> out;
  for (int rc = s.Step();; rc = s.Step()) {
    if (rc == SQLITE_DONE) break;
    if (rc != SQLITE_ROW) return db_->Error("reading the events after position " + std::to_string(cursor));
    out.push_back({.cursor = s.ColInt(0),
                   .run_id = s.ColText(1),
                   .app = s.ColText(2),
                   .event = {.seq = s.ColInt(3),
                             .type = s.ColText(4),
                             .step = s.ColInt(5),
                             .tool_call_id = s.ColText(6),
                             .elapsed_ms = s.ColDouble(7),
                             .at = s.ColText(9),
                             .json = s.ColText(8)}});
  }
  return out;
}

Result<std::vector<RunStore::RunCount>> RunStore::CountRuns() const {
  if (pg_) return pg_->CountRuns();
  std::lock_guard<std::mutex> lock(mu_);
  Stmt s(db_->db, "SELECT app, status, COUNT(*) FROM runs GROUP BY app, status ORDER BY app, status");
  if (!s.ok()) return db_->Error("preparing a statement");
  std::vector<RunCount> out;
  for (int rc = s.Step();; rc = s.Step()) {
    if (rc == SQLITE_DONE) break;
    if (rc != SQLITE_ROW) return db_->Error("counting the runs");
    out.push_back({.app = s.ColText(0), .status = s.ColText(1), .runs = s.ColInt(2)});
  }
  return out;
}

Result<int64_t> RunStore::LastEventCursor() const {
  if (pg_) return pg_->LastEventCursor();
  std::lock_guard<std::mutex> lock(mu_);
  Stmt s(db_->db, "SELECT COALESCE(MAX(rowid), 0) FROM events");
  if (!s.ok()) return db_->Error("preparing a statement");
  if (s.Step() != SQLITE_ROW) return db_->Error("reading the newest event's position");
  return s.ColInt(0);
}

Result<std::optional<RunState>> RunStore::LatestState(const std::string& run_id) const {
  if (pg_) return pg_->LatestState(run_id);
  std::lock_guard<std::mutex> lock(mu_);
  const std::string what = "the checkpoint of run '" + run_id + "'";
  Json j;
  int64_t count = 0, step_count = 0;
  {
    Stmt s(db_->db, "SELECT state, messages, steps, trace_input FROM checkpoints WHERE run_id = ?1");
    if (!s.ok()) return db_->Error("preparing a statement");
    s.Text(1, run_id);
    const int rc = s.Step();
    if (rc == SQLITE_DONE) return std::optional<RunState>();
    if (rc != SQLITE_ROW) return db_->Error("reading " + what);
    Result<Json> header = db_->JsonColumn(s, 0, what);
    if (!header.ok()) return header.status();
    if (!header->is_object() || !(*header)["trace"].is_object()) return db_->Damaged(what + " is not a run state");
    j = std::move(*header);
    count = s.ColInt(1);
    step_count = s.ColInt(2);
    if (!s.ColNull(3)) {  // kept once per run (schema 3); older rows hold it in the header
      Result<Json> input = db_->JsonColumn(s, 3, what + "'s trace input");
      if (!input.ok()) return input.status();
      j["trace"]["input"] = std::move(*input);
    }
  }
  // The conversation and the steps back in, as RunStateFromJson reads them.
  Json messages = Json::array();
  {
    Stmt s(db_->db, "SELECT message FROM messages WHERE run_id = ?1 AND idx <= ?2 ORDER BY idx");
    if (!s.ok()) return db_->Error("preparing a statement");
    s.Text(1, run_id);
    s.Int(2, count);
    for (int rc = s.Step();; rc = s.Step()) {
      if (rc == SQLITE_DONE) break;
      if (rc != SQLITE_ROW) return db_->Error("reading the conversation of run '" + run_id + "'");
      Result<Json> m = db_->JsonColumn(s, 0, "a message of run '" + run_id + "'");
      if (!m.ok()) return m.status();
      messages.push_back(std::move(*m));
    }
  }
  if (static_cast<int64_t>(messages.size()) != count) {
    return db_->Damaged(what + " has " + std::to_string(messages.size()) + " of its " + std::to_string(count) +
                        " messages");
  }
  Json steps = Json::array();
  {
    Stmt s(db_->db, "SELECT record FROM steps WHERE run_id = ?1 AND idx <= ?2 ORDER BY idx");
    if (!s.ok()) return db_->Error("preparing a statement");
    s.Text(1, run_id);
    s.Int(2, step_count);
    for (int rc = s.Step();; rc = s.Step()) {
      if (rc == SQLITE_DONE) break;
      if (rc != SQLITE_ROW) return db_->Error("reading the steps of run '" + run_id + "'");
      Result<Json> step = db_->JsonColumn(s, 0, "a step of run '" + run_id + "'");
      if (!step.ok()) return step.status();
      steps.push_back(std::move(*step));
    }
  }
  if (static_cast<int64_t>(steps.size()) != step_count) {
    return db_->Damaged(what + " has " + std::to_string(steps.size()) + " of its " + std::to_string(step_count) +
                        " steps");
  }
  j["messages"] = std::move(messages);
  j["trace"]["steps"] = std::move(steps);
  Result<RunState> state = RunStateFromJson(j);
  if (!state.ok()) return db_->Damaged(what + ": " + state.status().message());
  return std::optional<RunState>(std::move(*state));
}

Result<bool> RunStore::CheckpointsMention(const std::string& text) const {
  if (pg_) {
    return pg_->Mentions("SELECT 1 FROM checkpoints WHERE strpos(state, $1) > 0 LIMIT 1", text,
                         "reading the checkpoints");
  }
  std::lock_guard<std::mutex> lock(mu_);
  Stmt s(db_->db, "SELECT 1 FROM checkpoints WHERE instr(state, ?1) > 0 LIMIT 1");
  if (!s.ok()) return db_->Error("preparing a statement");
  s.Text(1, text);
  const int rc = s.Step();
  if (rc == SQLITE_ROW) return true;
  if (rc != SQLITE_DONE) return db_->Error("reading the checkpoints");
  return false;
}

Result<bool> RunStore::InputsMention(const std::string& text) const {
  if (pg_) return pg_->Mentions("SELECT 1 FROM runs WHERE strpos(inputs, $1) > 0 LIMIT 1", text, "reading the runs' inputs");
  std::lock_guard<std::mutex> lock(mu_);
  Stmt s(db_->db, "SELECT 1 FROM runs WHERE instr(inputs, ?1) > 0 LIMIT 1");
  if (!s.ok()) return db_->Error("preparing a statement");
  s.Text(1, text);
  const int rc = s.Step();
  if (rc == SQLITE_ROW) return true;
  if (rc != SQLITE_DONE) return db_->Error("reading the runs' inputs");
  return false;
}

Result<bool> RunStore::ResultsMention(const std::string& text) const {
  if (pg_) {
    return pg_->Mentions("SELECT 1 FROM runs WHERE result IS NOT NULL AND strpos(result, $1) > 0 LIMIT 1", text,
                         "reading the runs' results");
  }
  std::lock_guard<std::mutex> lock(mu_);
  Stmt s(db_->db, "SELECT 1 FROM runs WHERE result IS NOT NULL AND instr(result, ?1) > 0 LIMIT 1");
  if (!s.ok()) return db_->Error("preparing a statement");
  s.Text(1, text);
  const int rc = s.Step();
  if (rc == SQLITE_ROW) return true;
  if (rc != SQLITE_DONE) return db_->Error("reading the runs' results");
  return false;
}

}  // namespace medreact

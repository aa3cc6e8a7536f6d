// The run store's schema version 4 (issue 22): the conversation (messages)
// rebuilt as a WITHOUT ROWID table. A version-3 file, as an older medreact left
// it on disk (every table holding rows: a finished run, an interrupted run
// with its checkpoint, conversation, steps and events, a lease, a model's
// context size), opens, is migrated in place with every row kept, resumes its
// interrupted run, and opens again as it is; a file of a later version is
// still refused and left untouched.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <string>
#include <vector>

#include "store/run_recorder.h"
#include "store/run_store.h"
#include "testing/subprocess.h"

namespace medreact {
namespace {

using ::testing::HasSubstr;

// The schema as medreact wrote it at version 3 (the first three steps of
// run_store_db.h's migrations, copied as they were).
constexpr char kVersion3Schema[] = R"sql(
CREATE TABLE runs (
  id         TEXT PRIMARY KEY,
  app        TEXT NOT NULL,
  inputs     TEXT NOT NULL,
  model      TEXT NOT NULL,
  status     TEXT NOT NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  result     TEXT
);
CREATE INDEX runs_updated ON runs(updated_at);
CREATE TABLE checkpoints (
  run_id   TEXT PRIMARY KEY,
  seq      INTEGER NOT NULL,
  phase    TEXT NOT NULL,
  step     INTEGER NOT NULL,
  messages INTEGER NOT NULL,
  steps    INTEGER NOT NULL,
  state    TEXT NOT NULL,
  saved_at TEXT NOT NULL
);
CREATE TABLE messages (
  run_id  TEXT NOT NULL,
  idx     INTEGER NOT NULL,
  message TEXT NOT NULL,
  PRIMARY KEY (run_id, idx)
);
CREATE TABLE steps (
  run_id TEXT NOT NULL,
  idx    INTEGER NOT NULL,
  record TEXT NOT NULL,
  PRIMARY KEY (run_id, idx)
);
CREATE TABLE events (
  run_id       TEXT NOT NULL,
  seq          INTEGER NOT NULL,
  type         TEXT NOT NULL,
  step         INTEGER NOT NULL,
  tool_call_id TEXT NOT NULL,
  elapsed_ms   REAL NOT NULL,
  event        TEXT NOT NULL,
  PRIMARY KEY (run_id, seq)
);
ALTER TABLE runs ADD COLUMN owner TEXT;
ALTER TABLE runs ADD COLUMN lease_until INTEGER;
ALTER TABLE events ADD COLUMN at TEXT NOT NULL DEFAULT '';
ALTER TABLE checkpoints ADD COLUMN trace_input TEXT;
CREATE TABLE model_info (
  url            TEXT NOT NULL,
  model          TEXT NOT NULL,
  context_tokens INTEGER NOT NULL,
  probed_at      TEXT NOT NULL,
  PRIMARY KEY (url, model)
);
PRAGMA user_version = 3;
PRAGMA application_id = 1297240659;
)sql";

// Runs `sql` on the file (creating it); "" when it worked, else SQLite's message.
std::string Exec(const std::string& path, const std::string& sql) {
  sqlite3* db = nullptr;
  std::string error;
  if (sqlite3_open(path.c_str(), &db) != SQLITE_OK) return "cannot open";
  char* msg = nullptr;
  if (sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &msg) != SQLITE_OK) error = msg ? msg : "failed";
  sqlite3_free(msg);
  sqlite3_close(db);
  return error;
}

// The first column of the first row as text ("" when none).
std::string Scalar(const std::string& path, const std::string& sql) {
  sqlite3* db = nullptr;
  std::string v;
  if (sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr) == SQLITE_OK) {
    sqlite3_stmt* s = nullptr;
    if (sqlite3_prepare_v2(db, sql.c_str(), -1, &s, nullptr) == SQLITE_OK && sqlite3_step(s) == SQLITE_ROW &&
        sqlite3_column_text(s, 0)) {
      v = reinterpret_cast<const char*>(sqlite3_column_text(s, 0));
    }
    sqlite3_finalize(s);
  }
  sqlite3_close(db);
  return v;
}

std::string Quoted(const std::string& text) {
  std::string out = "'";
  for (char c : text) out += c == '\'' ? std::string("''") : std::string(1, c);
  return out + "'";
}

// A state after `steps` steps of one calculator call each.
RunState StateAfter(const std::string& run_id, int steps) {
  RunState s;
  s.messages = {Message::System("You are helpful."), Message::User("add things up")};
  s.trace.run_id = run_id;
  s.trace.model = "m";
  s.trace.input = Json{{"message", "add things up"}, {"system_prompt", "You are helpful."}};
  s.step = steps;
  for (int i = 1; i <= steps; ++i) {
    ToolCall call{"c" + std::to_string(i), "add", R"({"a":1,"b":2})"};
    s.messages.push_back(Message::Assistant("", {call}));
    s.messages.push_back(Message::Tool(call.id, "add", R"({"sum":3})"));
    StepRecord rec;
    rec.index = i;
    rec.assistant = Message::Assistant("", {call});
    rec.tool_results.push_back({call.id, "add", true, R"({"sum":3})", "", 0.1});
    s.trace.steps.push_back(rec);
  }
  return s;
}

RunEvent Ev(int step, const std::string& call) {
  return ToRunEvent({.type = EventType::kToolStarted, .step = step, .tool_call_id = call, .elapsed_ms = 2.5});
}

// The SQL that stores `state` as run `id`'s checkpoint, conversation and
// steps the way version 3 did (the header without the trace's input, which
// has a column of its own), and `events` numbered from 1.
std::string Version3Rows(const std::string& id, const RunState& state, const std::vector<RunEvent>& events) {
  std::string sql = "INSERT INTO checkpoints VALUES (" + Quoted(id) + ", 3, 'between_steps', " +
                    std::to_string(state.step) + ", " + std::to_string(state.messages.size()) + ", " +
                    std::to_string(state.trace.steps.size()) + ", " +
                    Quoted(DumpJson(RunStateHeaderToJson(state, /*with_trace_input=*/false))) +
                    ", '2026-11-01T00:01:00Z', " + Quoted(DumpJson(state.trace.input)) + ");\n";
  for (size_t i = 0; i < state.messages.size(); ++i) {
    sql += "INSERT INTO messages VALUES (" + Quoted(id) + ", " + std::to_string(i + 1) + ", " +
           Quoted(DumpJson(MessageToStateJson(state.messages[i]))) + ");\n";
  }
  for (size_t i = 0; i < state.trace.steps.size(); ++i) {
    sql += "INSERT INTO steps VALUES (" + Quoted(id) + ", " + std::to_string(i + 1) + ", " +
           Quoted(DumpJson(StepRecordToStateJson(state.trace.steps[i]))) + ");\n";
  }
  for (size_t i = 0; i < events.size(); ++i) {
    const RunEvent& e = events[i];
    sql += "INSERT INTO events VALUES (" + Quoted(id) + ", " + std::to_string(i + 1) + ", " + Quoted(e.type) + ", " +
           std::to_string(e.step) + ", " + Quoted(e.tool_call_id) + ", " + std::to_string(e.elapsed_ms) + ", " +
           Quoted(e.json) + ", '2026-11-01T00:00:0" + std::to_string(i) + ".000Z');\n";
  }
  return sql;
}

TEST(RunStoreMigrationTest, AVersion3FileIsRebuiltWithEveryRowKeptAndResumes) {
  testing::TempDir dir;
  const std::string path = dir.File("v3.sqlite");
  const RunState live = StateAfter("run_live", 2);
  const RunState done = StateAfter("run_done", 1);
  ASSERT_EQ(Exec(path, std::string(kVersion3Schema) +
                           "INSERT INTO runs VALUES ('run_done', 'chat', '{\"message\":\"add\"}', '{\"name\":\"m\"}', "
                           "'finished', '2026-11-01T00:00:00Z', '2026-11-01T00:00:05Z', '{\"answer\":\"3\"}', NULL, "
                           "NULL);"
                           "INSERT INTO runs VALUES ('run_live', 'chat', '{\"message\":\"add\"}', '{\"name\":\"m\"}', "
                           "'interrupted', '2026-11-01T00:00:00Z', '2026-11-01T00:01:00Z', NULL, NULL, NULL);"
                           "INSERT INTO model_info VALUES ('http://127.0.0.1:9/v1', 'm', 8192, "
                           "'2026-11-01T00:00:00Z');" +
                           Version3Rows("run_live", live, {Ev(1, "c1"), Ev(2, "c2")}) +
                           // A finished run keeps its steps and events, not its checkpoint or conversation.
                           Version3Rows("run_done", done, {Ev(1, "c1")}) +
                           "DELETE FROM checkpoints WHERE run_id = 'run_done';"
                           "DELETE FROM messages WHERE run_id = 'run_done';"),
            "");
  ASSERT_EQ(Scalar(path, "PRAGMA user_version"), "3");
  ASSERT_EQ(Scalar(path, "SELECT count(*) FROM events"), "3");

  Result<std::unique_ptr<RunStore>> store = RunStore::Open(path);
  ASSERT_TRUE(store.ok()) << store.status().ToString();
  EXPECT_EQ(Scalar(path, "PRAGMA user_version"), std::to_string(RunStore::kSchemaVersion));
  EXPECT_THAT(Scalar(path, "SELECT sql FROM sqlite_master WHERE name = 'messages'"), HasSubstr("WITHOUT ROWID"));
  EXPECT_EQ(Scalar(path, "SELECT count(*) FROM sqlite_master WHERE name LIKE '%_v4'"), "0");
  EXPECT_EQ(Scalar(path, "SELECT count(*) FROM sqlite_master WHERE name LIKE 'sqlite_autoindex_messages%'"), "0");
  EXPECT_TRUE((*store)->IntegrityCheck().ok());

  // The finished run: its row, steps and events as they were.
  Result<RunRecord> old = (*store)->Get("run_done");
  ASSERT_TRUE(old.ok()) << old.status().ToString();
  EXPECT_EQ(old->status, "finished");
  EXPECT_EQ(StringOr(old->result, "answer"), "3");
  EXPECT_EQ(old->steps, 1);
  EXPECT_EQ(old->events, 1);
  EXPECT_EQ((*store)->Steps("run_done").value().at(0).tool_results.at(0).content, R"({"sum":3})");
  // The interrupted run: its checkpoint reads back whole (header, trace
  // input, conversation, steps), its events with their times.
  Result<std::optional<RunState>> state = (*store)->LatestState("run_live");
  ASSERT_TRUE(state.ok()) << state.status().ToString();
  ASSERT_TRUE(state->has_value());
  EXPECT_EQ(DumpJson(ToJson(**state)), DumpJson(ToJson(live)));
  Result<std::vector<RunEvent>> events = (*store)->Events("run_live");
  ASSERT_TRUE(events.ok()) << events.status().ToString();
  ASSERT_EQ(events->size(), 2u);
  EXPECT_EQ((*events)[0].seq, 1);
  EXPECT_EQ((*events)[1].seq, 2);
  EXPECT_EQ((*events)[1].tool_call_id, "c2");
  EXPECT_EQ((*events)[1].json, Ev(2, "c2").json);
  EXPECT_EQ((*events)[1].at, "2026-11-01T00:00:01.000Z");
  EXPECT_DOUBLE_EQ((*events)[1].elapsed_ms, 2.5);
  EXPECT_EQ((*store)->ModelContextTokens("http://127.0.0.1:9/v1", "m").value(), std::optional<int64_t>(8192));

  // The interrupted run resumes: its rows go on from those copied.
  ASSERT_TRUE((*store)->ClaimRun("run_live").ok());
  ASSERT_TRUE((*store)->SaveCheckpoint("run_live", StateAfter("run_live", 3), {Ev(3, "c3")}).ok());
  const RunState ended = StateAfter("run_live", 3);
  ASSERT_TRUE((*store)->FinishRun("run_live", "finished", Json{{"answer", "9"}}, ended.trace.steps, {}).ok());
  EXPECT_EQ((*store)->Get("run_live").value().steps, 3);
  EXPECT_EQ((*store)->Get("run_live").value().events, 3);
  EXPECT_EQ((*store)->Events("run_live").value().at(2).tool_call_id, "c3");
  EXPECT_TRUE((*store)->IntegrityCheck().ok());
  store->reset();

  // Opened again: nothing to migrate, everything there.
  Result<std::unique_ptr<RunStore>> again = RunStore::Open(path, {.create_if_missing = false});
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  EXPECT_EQ((*again)->Get("run_done").value().events, 1);
  EXPECT_EQ((*again)->Get("run_live").value().status, "finished");
  EXPECT_EQ((*again)->Steps("run_live").value().size(), 3u);
}

TEST(RunStoreMigrationTest, AFileOfTheNextVersionIsRefusedAndLeftAsItIs) {
  testing::TempDir dir;
  const std::string path = dir.File("next.sqlite");
  {
    Result<std::unique_ptr<RunStore>> store = RunStore::Open(path);
    ASSERT_TRUE(store.ok()) << store.status().ToString();
    ASSERT_TRUE((*store)->CreateRun({.id = "run_a", .app = "chat"}, nullptr).ok());
  }
  const std::string next = std::to_string(RunStore::kSchemaVersion + 1);
  ASSERT_EQ(Exec(path, "PRAGMA user_version = " + next), "");
  Result<std::unique_ptr<RunStore>> later = RunStore::Open(path);
  EXPECT_EQ(later.status().code(), StatusCode::kFailedPrecondition);
  EXPECT_THAT(later.status().message(), HasSubstr("newer medreact (schema version " + next));
  EXPECT_EQ(Scalar(path, "PRAGMA user_version"), next);
  EXPECT_EQ(Scalar(path, "SELECT count(*) FROM runs"), "1");
}

}  // namespace
}  // namespace medreact

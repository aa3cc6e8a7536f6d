// The run store's events table (schema version 2): a version-1 file is
// migrated with its runs intact; events are appended in order across
// checkpoints, the end and a resume, and pruned with their run; the recorder
// buffers them until the next checkpoint, leaves model_delta out and passes
// every event on to the app's own sink.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <string>
#include <vector>

#include "store/run_recorder.h"
#include "store/run_store.h"
#include "testing/store_backends.h"
#include "testing/subprocess.h"

namespace medreact {
namespace {

class RunStoreEventsTest : public testing::StoreBackendTest {};
MEDREACT_STORE_BACKENDS(RunStoreEventsTest);
class RunRecorderEventsTest : public testing::StoreBackendTest {};
MEDREACT_STORE_BACKENDS(RunRecorderEventsTest);

// The schema as medreact wrote it at version 1 (run_store.cc's first
// migration step, copied: the file this test builds is one an older medreact
// left on disk).
constexpr char kVersion1Schema[] = R"sql(
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
PRAGMA user_version = 1;
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

int64_t Scalar(const std::string& path, const std::string& sql) {
  sqlite3* db = nullptr;
  int64_t v = -1;
  if (sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr) == SQLITE_OK) {
    sqlite3_stmt* s = nullptr;
    if (sqlite3_prepare_v2(db, sql.c_str(), -1, &s, nullptr) == SQLITE_OK && sqlite3_step(s) == SQLITE_ROW) {
      v = sqlite3_column_int64(s, 0);
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

RunState StateAt(const std::string& run_id, int step) {
  RunState s;
  s.messages = {Message::System("You are helpful."), Message::User("add things up")};
  s.trace.run_id = run_id;
  s.step = step;
  return s;
}

RunEvent Ev(const std::string& type, int step, const std::string& call = "") {
  return ToRunEvent({.type = type == "tool_started" ? EventType::kToolStarted : EventType::kStepFinished,
                     .step = step,
                     .tool_call_id = call,
                     .elapsed_ms = 1.5});
}

std::vector<int64_t> Seqs(const std::vector<RunEvent>& events) {
  std::vector<int64_t> out;
  for (const RunEvent& e : events) out.push_back(e.seq);
  return out;
}

TEST(RunStoreEventsFileTest, AVersion1FileIsMigratedWithItsRunsIntact) {
  testing::TempDir dir;
  const std::string path = dir.File("old.sqlite");
  StepRecord step;
  step.index = 1;
  step.assistant = Message::Assistant("it is 3", {});
  const std::string step_text = DumpJson(StepRecordToStateJson(step));
  ASSERT_EQ(Exec(path, std::string(kVersion1Schema) +
                           "INSERT INTO runs VALUES ('run_old', 'chat', '{\"message\":\"add\"}', '{\"name\":\"m\"}', "
                           "'finished', '2026-11-01T00:00:00Z', '2026-11-01T00:00:05Z', '{\"answer\":\"3\"}');"
                           "INSERT INTO steps VALUES ('run_old', 1, " +
                           Quoted(step_text) + ");"),
            "");
  ASSERT_EQ(Scalar(path, "PRAGMA user_version"), 1);
  ASSERT_EQ(Scalar(path, "SELECT count(*) FROM sqlite_master WHERE name = 'events'"), 0);

  Result<std::unique_ptr<RunStore>> store = RunStore::Open(path);
  ASSERT_TRUE(store.ok()) << store.status().ToString();
  EXPECT_EQ(Scalar(path, "PRAGMA user_version"), RunStore::kSchemaVersion);
  EXPECT_EQ(Scalar(path, "SELECT count(*) FROM sqlite_master WHERE name = 'events'"), 1);
  Result<RunRecord> old = (*store)->Get("run_old");
  ASSERT_TRUE(old.ok()) << old.status().ToString();
  EXPECT_EQ(old->status, "finished");
  EXPECT_EQ(old->created_at, "2026-11-01T00:00:00Z");
  EXPECT_EQ(StringOr(old->result, "answer"), "3");
  EXPECT_EQ(StringOr(old->inputs, "message"), "add");
  EXPECT_EQ(old->steps, 1);
  EXPECT_EQ(old->events, 0);
  Result<std::vector<StepRecord>> steps = (*store)->Steps("run_old");
  ASSERT_TRUE(steps.ok());
  ASSERT_EQ(steps->size(), 1u);
  EXPECT_EQ((*steps)[0].assistant.content, "it is 3");
  Result<std::vector<RunEvent>> none = (*store)->Events("run_old");
  ASSERT_TRUE(none.ok());
  EXPECT_TRUE(none->empty());

  // The migrated file takes new runs with events, and opens again as it is.
  ASSERT_TRUE((*store)->CreateRun({.id = "run_new", .app = "chat"}, nullptr).ok());
  ASSERT_TRUE((*store)->SaveCheckpoint("run_new", StateAt("run_new", 1), {Ev("step_finished", 1)}).ok());
  EXPECT_TRUE((*store)->IntegrityCheck().ok());
  store->reset();
  Result<std::unique_ptr<RunStore>> again = RunStore::Open(path, {.create_if_missing = false});
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  EXPECT_EQ((*again)->Get("run_new").value().events, 1);
  EXPECT_EQ((*again)->Get("run_old").value().status, "finished");
}

// `runs list` and `runs show` open a store read-only; a store of an older
// schema is brought up to date first where it can be written (issue 23).
TEST(RunStoreEventsFileTest, AVersion1FileOpenedToReadIsMigratedWhereItCanBeWritten) {
  testing::TempDir dir;
  const std::string path = dir.File("old.sqlite");
  ASSERT_EQ(Exec(path, std::string(kVersion1Schema) +
                           "INSERT INTO runs VALUES ('run_old', 'chat', '{\"message\":\"add\"}', '{\"name\":\"m\"}', "
                           "'finished', '2026-11-01T00:00:00Z', '2026-11-01T00:00:05Z', '{\"answer\":\"3\"}');"),
            "");
  Result<std::unique_ptr<RunStore>> store = RunStore::Open(path, {.create_if_missing = false, .read_only = true});
  ASSERT_TRUE(store.ok()) << store.status().ToString();
  EXPECT_EQ(Scalar(path, "PRAGMA user_version"), RunStore::kSchemaVersion);
  EXPECT_EQ((*store)->Get("run_old").value().status, "finished");
  store->reset();
  // Up to date, it opens read-only as it is: nothing written.
  Result<std::unique_ptr<RunStore>> read = RunStore::Open(path, {.create_if_missing = false, .read_only = true});
  ASSERT_TRUE(read.ok()) << read.status().ToString();
  EXPECT_FALSE((*read)->CreateRun({.id = "run_new", .app = "chat"}).ok());
}

TEST_P(RunStoreEventsTest, EventsFollowCheckpointsAndTheEndInOrderAndGoWithTheirRun) {
  Result<std::unique_ptr<RunStore>> opened = RunStore::Open(Store());
  ASSERT_TRUE(opened.ok()) << opened.status().ToString();
  RunStore& store = **opened;
  ASSERT_TRUE(store.CreateRun({.id = "run_a", .app = "chat"}, nullptr).ok());
  ASSERT_TRUE(store.CreateRun({.id = "run_b", .app = "chat"}, nullptr).ok());
  ASSERT_TRUE(store.SaveCheckpoint("run_a", StateAt("run_a", 1), {Ev("tool_started", 1, "call_1")}).ok());
  ASSERT_TRUE(store.SaveCheckpoint("run_b", StateAt("run_b", 1), {Ev("step_finished", 1)}).ok());
  ASSERT_TRUE(store.SaveCheckpoint("run_a", StateAt("run_a", 1)).ok());  // a checkpoint with no new events
  ASSERT_TRUE(
      store.SaveCheckpoint("run_a", StateAt("run_a", 2), {Ev("step_finished", 1), Ev("step_finished", 2)}).ok());
  // Interrupted, then resumed: the numbering goes on.
  ASSERT_TRUE(store.FinishRun("run_a", "interrupted", Json::object(), {}, {Ev("step_finished", 3)}).ok());
  ASSERT_TRUE(store.SaveCheckpoint("run_a", StateAt("run_a", 3), {Ev("tool_started", 4, "call_4")}).ok());
  ASSERT_TRUE(store.FinishRun("run_a", "finished", Json::object(), {}, {Ev("step_finished", 4)}).ok());

  Result<std::vector<RunEvent>> a = store.Events("run_a");
  ASSERT_TRUE(a.ok()) << a.status().ToString();
  EXPECT_EQ(Seqs(*a), (std::vector<int64_t>{1, 2, 3, 4, 5, 6}));
  EXPECT_EQ((*a)[0].type, "tool_started");
  EXPECT_EQ((*a)[0].tool_call_id, "call_1");
  EXPECT_EQ((*a)[0].step, 1);
  EXPECT_DOUBLE_EQ((*a)[0].elapsed_ms, 1.5);
  Result<Json> line = ParseJson((*a)[0].json);
  ASSERT_TRUE(line.ok());
  EXPECT_EQ(StringOr(*line, "type"), "tool_started");
  EXPECT_EQ(StringOr(*line, "tool_call_id"), "call_1");
  EXPECT_EQ((*a)[4].tool_call_id, "call_4");
  EXPECT_EQ(store.Get("run_a").value().events, 6);  // the finished run keeps them
  EXPECT_EQ(Seqs(store.Events("run_b").value()), (std::vector<int64_t>{1}));
  EXPECT_TRUE(store.Events("run_nope").value().empty());
  EXPECT_FALSE(store.SaveCheckpoint("run_nope", StateAt("run_nope", 1), {Ev("step_finished", 1)}).ok());

  Result<std::vector<std::string>> pruned = store.Prune({.statuses = {"finished"}});
  ASSERT_TRUE(pruned.ok());
  EXPECT_EQ(*pruned, std::vector<std::string>{"run_a"});
  EXPECT_TRUE(store.Events("run_a").value().empty());
  EXPECT_EQ(store.Events("run_b").value().size(), 1u);
  if (!IsPostgres()) EXPECT_EQ(Scalar(Store(), "SELECT count(*) FROM events WHERE run_id = 'run_a'"), 0);
  EXPECT_TRUE(store.IntegrityCheck().ok());
}

TEST_P(RunRecorderEventsTest, KeepsEventsUntilTheNextCheckpointOrWaitWithoutDeltasAndPassesAllOn) {
  Result<std::unique_ptr<RunStore>> opened = RunStore::Open(Store());
  ASSERT_TRUE(opened.ok()) << opened.status().ToString();
  std::shared_ptr<RunStore> store = std::move(*opened);
  std::vector<std::string> warnings;
  RunRecorder recorder(store, {.app = "chat"}, [&](const std::string& w) { warnings.push_back(w); });
  std::vector<std::string> passed_on;
  EventSink sink = recorder.Events([&](const Event& e) { passed_on.push_back(EventTypeName(e.type)); });
  auto hook = recorder.Hook();

  hook(StateAt("run_rec", 0));  // the run's first checkpoint adds it
  sink({.type = EventType::kRunStarted, .data = Json{{"model", "m"}}});
  // Nothing is written per event: the store has none until a checkpoint...
  EXPECT_TRUE(store->Events("run_rec").value().empty());
  // ...or a wait starts (a model request, a tool's start): then at once.
  sink({.type = EventType::kModelRequest, .step = 1});
  EXPECT_EQ(store->Events("run_rec").value().size(), 2u);
  sink({.type = EventType::kModelDelta, .step = 1, .text = "The ans"});
  sink({.type = EventType::kModelDelta, .step = 1, .text = "wer"});
  sink({.type = EventType::kAssistantMessage, .step = 1, .text = "The answer"});
  EXPECT_EQ(store->Events("run_rec").value().size(), 2u);
  hook(StateAt("run_rec", 1));
  Result<std::vector<RunEvent>> after = store->Events("run_rec");
  ASSERT_TRUE(after.ok());
  ASSERT_EQ(after->size(), 3u);  // the two deltas are left out
  EXPECT_EQ((*after)[0].type, "run_started");
  EXPECT_EQ((*after)[1].type, "model_request");
  EXPECT_EQ((*after)[2].type, "assistant_message");
  EXPECT_EQ((*after)[0].json, DumpJson(ToJson(Event{.type = EventType::kRunStarted, .data = Json{{"model", "m"}}})));
  EXPECT_EQ(passed_on.size(), 5u);  // the app's sink sees every event, deltas too

  sink({.type = EventType::kStepFinished, .step = 1, .elapsed_ms = 3});
  sink({.type = EventType::kRunFinished, .step = 1, .text = "The answer"});
  RunResult result;
  result.status = RunStatus::kFinished;
  result.answer = "The answer";
  result.trace = StateAt("run_rec", 1).trace;
  EXPECT_TRUE(recorder.Finish(result, /*interrupted=*/false).ok());
  Result<std::vector<RunEvent>> all = store->Events("run_rec");
  ASSERT_TRUE(all.ok());
  ASSERT_EQ(all->size(), 5u);
  EXPECT_EQ(all->back().type, "run_finished");
  EXPECT_EQ(Seqs(*all), (std::vector<int64_t>{1, 2, 3, 4, 5}));
  EXPECT_TRUE(warnings.empty());

  // Without a store the sink still passes events on.
  RunRecorder none(nullptr, {.app = "chat"}, nullptr);
  int seen = 0;
  none.Events([&](const Event&) { ++seen; })({.type = EventType::kRunStarted});
  EXPECT_EQ(seen, 1);
}

TEST_P(RunRecorderEventsTest, AnAppsEventIsKeptUntilTheNextWriteOrWrittenAtOnceWhenAsked) {
  Result<std::unique_ptr<RunStore>> opened = RunStore::Open(Store());
  ASSERT_TRUE(opened.ok()) << opened.status().ToString();
  std::shared_ptr<RunStore> store = std::move(*opened);
  RunRecorder recorder(store, {.app = "research"}, nullptr);
  recorder.Hook()(StateAt("run_app", 0));  // the run's row
  recorder.KeepEvent({.type = "started", .json = R"({"type":"started"})"});
  EXPECT_EQ(store->Events("run_app").value().size(), 0u);
  recorder.KeepEvent({.type = "search_complete", .json = R"({"type":"search_complete"})"});
  EXPECT_EQ(store->Events("run_app").value().size(), 0u);  // kept for the next write
  recorder.KeepEvent({.type = "judging", .json = R"({"type":"judging"})"}, /*write_now=*/true);
  Result<std::vector<RunEvent>> now = store->Events("run_app");
  ASSERT_TRUE(now.ok());
  ASSERT_EQ(now->size(), 3u);  // at once, with those before it, in order
  EXPECT_EQ((*now)[0].type, "started");
  EXPECT_EQ((*now)[1].type, "search_complete");
  EXPECT_EQ((*now)[2].type, "judging");
  EXPECT_FALSE((*now)[2].at.empty());
  EXPECT_EQ(Seqs(*now), (std::vector<int64_t>{1, 2, 3}));
}

}  // namespace
}  // namespace medreact

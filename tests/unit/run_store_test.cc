// RunStore (src/store): runs, checkpoints and steps — create, list, get,
// checkpoint, finish, prune, two writers at once (RunStoreTest, on SQLite and
// on PostgreSQL: store_backends.h); the SQLite file's own matters (RunStoreFileTest):
// the schema version; files that are damaged, foreign or newer; private file modes.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sqlite3.h>
#include <sys/stat.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <map>
#include <thread>

#include "store/run_recorder.h"
#include "store/run_store.h"
#include "testing/store_backends.h"
#include "testing/subprocess.h"

namespace medreact {
namespace {

using ::testing::HasSubstr;

// A state after `steps` steps of one call and one result each.
RunState StateAfter(const std::string& run_id, int steps) {
  RunState s;
  s.messages = {Message::System("You are helpful."), Message::User("add things up")};
  s.trace.run_id = run_id;
  s.trace.model = "m";
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

RunRecord Chat(const std::string& id) {
  return {.id = id, .app = "chat", .inputs = Json{{"message", "add things up"}}, .model = Json{{"name", "m"}}};
}

std::unique_ptr<RunStore> OpenOk(const std::string& path, RunStoreOptions options = {}) {
  Result<std::unique_ptr<RunStore>> store = RunStore::Open(path, options);
  EXPECT_TRUE(store.ok()) << store.status().ToString();
  return store.ok() ? std::move(*store) : nullptr;
}

class RunStoreTest : public testing::StoreBackendTest {};
MEDREACT_STORE_BACKENDS(RunStoreTest);
class RunRecorderTest : public testing::StoreBackendTest {};
MEDREACT_STORE_BACKENDS(RunRecorderTest);

int64_t Pragma(const std::string& path, const char* sql) {
  sqlite3* db = nullptr;
  int64_t v = -1;
  if (sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr) == SQLITE_OK) {
    sqlite3_stmt* s = nullptr;
    if (sqlite3_prepare_v2(db, sql, -1, &s, nullptr) == SQLITE_OK && sqlite3_step(s) == SQLITE_ROW) {
      v = sqlite3_column_int64(s, 0);
    }
    sqlite3_finalize(s);
  }
  sqlite3_close(db);
  return v;
}

TEST_P(RunStoreTest, CreatesCheckpointsFinishesAndReadsBack) {
  auto store = OpenOk(Store());
  ASSERT_TRUE(store);
  ASSERT_TRUE(store->CreateRun(Chat("run_a"), nullptr).ok());
  EXPECT_THAT(store->CreateRun(Chat("run_a")).message(), HasSubstr("already"));

  // Checkpoints: the latest state is kept, the steps accumulate.
  for (int steps = 0; steps <= 3; ++steps) ASSERT_TRUE(store->SaveCheckpoint("run_a", StateAfter("run_a", steps)).ok());
  Result<RunRecord> run = store->Get("run_a");
  ASSERT_TRUE(run.ok()) << run.status().ToString();
  EXPECT_EQ(run->app, "chat");
  EXPECT_EQ(run->status, "running");
  EXPECT_EQ(run->steps, 3);
  EXPECT_EQ(run->checkpoints, 4);
  EXPECT_EQ(run->inputs, (Json{{"message", "add things up"}}));
  EXPECT_TRUE(run->result.is_null());
  EXPECT_EQ(run->created_at.size(), 20u);  // 2026-11-25T03:04:05Z

  Result<std::optional<RunState>> latest = store->LatestState("run_a");
  ASSERT_TRUE(latest.ok() && latest->has_value());
  EXPECT_EQ(ToJson(**latest), ToJson(StateAfter("run_a", 3)));
  Result<std::vector<StepRecord>> steps = store->Steps("run_a");
  ASSERT_TRUE(steps.ok());
  ASSERT_EQ(steps->size(), 3u);
  EXPECT_EQ((*steps)[2].index, 3);
  EXPECT_EQ((*steps)[2].tool_results[0].content, R"({"sum":3})");

  // The end: status, result, the final steps; the checkpoint goes.
  RunState final_state = StateAfter("run_a", 4);
  final_state.trace.steps.back().notes.push_back("run stopped: testing");
  ASSERT_TRUE(store->FinishRun("run_a", "finished", Json{{"answer", "3"}}, final_state.trace.steps).ok());
  run = store->Get("run_a");
  ASSERT_TRUE(run.ok());
  EXPECT_EQ(run->status, "finished");
  EXPECT_EQ(run->result, (Json{{"answer", "3"}}));
  EXPECT_EQ(run->steps, 4);
  latest = store->LatestState("run_a");
  ASSERT_TRUE(latest.ok());
  EXPECT_FALSE(latest->has_value());
  steps = store->Steps("run_a");
  ASSERT_TRUE(steps.ok() && steps->size() == 4u);
  EXPECT_EQ(steps->back().notes, std::vector<std::string>{"run stopped: testing"});

  EXPECT_EQ(store->Get("run_zz").status().code(), StatusCode::kNotFound);
  EXPECT_THAT(store->Get("run_zz").status().message(), HasSubstr("run_zz"));
  EXPECT_THAT(store->Get("run_zz").status().message(), HasSubstr(Store()));
  EXPECT_EQ(store->SaveCheckpoint("run_zz", StateAfter("run_zz", 1)).code(), StatusCode::kNotFound);
  EXPECT_TRUE(store->IntegrityCheck().ok());
}

TEST_P(RunStoreTest, AnInterruptedRunKeepsItsCheckpoint) {
  auto store = OpenOk(Store());
  ASSERT_TRUE(store);
  RunState first = StateAfter("run_i", 0);
  ASSERT_TRUE(store->CreateRun(Chat("run_i"), &first).ok());
  ASSERT_TRUE(store->SaveCheckpoint("run_i", StateAfter("run_i", 2)).ok());
  ASSERT_TRUE(store->FinishRun("run_i", "interrupted", Json::object(), StateAfter("run_i", 2).trace.steps).ok());
  Result<std::optional<RunState>> latest = store->LatestState("run_i");
  ASSERT_TRUE(latest.ok() && latest->has_value());
  EXPECT_EQ((*latest)->step, 2);
  // Going on marks it running again.
  ASSERT_TRUE(store->SaveCheckpoint("run_i", StateAfter("run_i", 3)).ok());
  EXPECT_EQ(store->Get("run_i")->status, "running");
}

TEST_P(RunStoreTest, ListsNewestFirstWithFiltersAndPrunes) {
  auto store = OpenOk(Store());
  ASSERT_TRUE(store);
  RunRecord triage = Chat("run_t");
  triage.app = "triage";
  ASSERT_TRUE(store->CreateRun(Chat("run_1")).ok());
  ASSERT_TRUE(store->CreateRun(Chat("run_2")).ok());
  ASSERT_TRUE(store->CreateRun(triage).ok());
  ASSERT_TRUE(store->FinishRun("run_1", "finished", Json::object(), {}).ok());
  ASSERT_TRUE(store->FinishRun("run_t", "max_steps", Json::object(), {}).ok());

  Result<std::vector<RunRecord>> all = store->List();
  ASSERT_TRUE(all.ok());
  EXPECT_EQ(all->size(), 3u);
  Result<std::vector<RunRecord>> chats = store->List({.app = "chat"});
  ASSERT_TRUE(chats.ok());
  EXPECT_EQ(chats->size(), 2u);
  Result<std::vector<RunRecord>> running = store->List({.status = "running"});
  ASSERT_TRUE(running.ok() && running->size() == 1u);
  EXPECT_EQ(running->front().id, "run_2");
  EXPECT_EQ(store->List({.limit = 1})->size(), 1u);

  // Nothing is older than a day; everything ended is older than a second from now.
  Result<std::vector<std::string>> none =
      store->Prune({.updated_before = std::chrono::system_clock::now() - std::chrono::hours(24)});
  ASSERT_TRUE(none.ok());
  EXPECT_TRUE(none->empty());
  const auto later = std::chrono::system_clock::now() + std::chrono::seconds(2);
  Result<std::vector<std::string>> dry = store->Prune({.updated_before = later, .dry_run = true});
  ASSERT_TRUE(dry.ok());
  EXPECT_EQ(*dry, (std::vector<std::string>{"run_1", "run_t"}));  // never `running` by default
  EXPECT_EQ(store->List()->size(), 3u);
  Result<std::vector<std::string>> gone = store->Prune({.updated_before = later, .statuses = {"max_steps"}});
  ASSERT_TRUE(gone.ok());
  EXPECT_EQ(*gone, std::vector<std::string>{"run_t"});
  EXPECT_EQ(store->Get("run_t").status().code(), StatusCode::kNotFound);
  EXPECT_EQ(store->List()->size(), 2u);
}

TEST(RunStoreFileTest, TheFileIsPrivateWalAndVersioned) {
  testing::TempDir dir;
  const std::string path = dir.File("deep/er/runs.sqlite");
  {
    auto store = OpenOk(path);
    ASSERT_TRUE(store);
    ASSERT_TRUE(store->CreateRun(Chat("run_m")).ok());
    struct stat st;
    ASSERT_EQ(::stat(path.c_str(), &st), 0);
    EXPECT_EQ(st.st_mode & 0777, 0600u);
    ASSERT_EQ(::stat((path + "-wal").c_str(), &st), 0);
    EXPECT_EQ(st.st_mode & 0777, 0600u);
    ASSERT_EQ(::stat(dir.File("deep").c_str(), &st), 0);
    EXPECT_EQ(st.st_mode & 0777, 0700u);
    ASSERT_EQ(::stat(dir.File("deep/er").c_str(), &st), 0);
    EXPECT_EQ(st.st_mode & 0777, 0700u);
  }
  EXPECT_EQ(Pragma(path, "PRAGMA user_version"), RunStore::kSchemaVersion);
  // Opening again keeps what is there.
  auto again = OpenOk(path);
  ASSERT_TRUE(again);
  EXPECT_TRUE(again->Get("run_m").ok());
}

// A short WAL is left at close for the next process to read back (no fold,
// no syncs at a one-shot's end); a long one is folded into the file and
// deleted, as SQLite does by default. Either way every run is there.
TEST(RunStoreFileTest, AShortWalIsLeftAtCloseALongOneFolded) {
  testing::TempDir dir;
  const std::string path = dir.File("runs.sqlite");
  const std::string wal = path + "-wal";
  {
    auto store = OpenOk(path);
    ASSERT_TRUE(store);
    RunState s = StateAfter("run_short", 2);
    ASSERT_TRUE(store->CreateRun(Chat("run_short"), &s).ok());
    ASSERT_TRUE(store->FinishRun("run_short", "finished", Json{{"answer", "3"}}, s.trace.steps).ok());
  }
  ASSERT_TRUE(std::filesystem::exists(wal));
  EXPECT_GT(std::filesystem::file_size(wal), 0u);
  EXPECT_EQ(Pragma(path, "SELECT count(*) FROM runs WHERE id = 'run_short'"), 1);  // another connection reads it
  {
    auto store = OpenOk(path, {.create_if_missing = false});
    ASSERT_TRUE(store);
    EXPECT_EQ(store->Get("run_short").value().status, "finished");
    EXPECT_EQ(store->Steps("run_short").value().size(), 2u);
    // Runs until the WAL is past 1 MiB (kCloseWalPages) at the last commit.
    for (int i = 0; std::filesystem::file_size(wal) < 1100 * 1024; ++i) {
      ASSERT_LT(i, 2000);
      const std::string id = "run_long_" + std::to_string(i);
      RunState state = StateAfter(id, 5);
      state.messages.push_back(Message::User(std::string(3000, 'x')));  // a few pages a run
      ASSERT_TRUE(store->CreateRun(Chat(id), &state).ok());
    }
  }
  EXPECT_FALSE(std::filesystem::exists(wal));  // folded and deleted
  EXPECT_GT(Pragma(path, "SELECT count(*) FROM runs"), 1);
  auto again = OpenOk(path, {.create_if_missing = false});
  ASSERT_TRUE(again);
  EXPECT_EQ(again->Get("run_short").value().status, "finished");
  EXPECT_TRUE(again->IntegrityCheck().ok());
}

TEST(RunStoreFileTest, RefusesFoldersMissingFilesForeignDatabasesAndNewerSchemas) {
  testing::TempDir dir;
  EXPECT_EQ(RunStore::Open("").status().code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(RunStore::Open(dir.path()).status().message(), HasSubstr("a folder"));
  Result<std::unique_ptr<RunStore>> missing = RunStore::Open(dir.File("none.sqlite"), {.create_if_missing = false});
  EXPECT_EQ(missing.status().code(), StatusCode::kNotFound);
  EXPECT_FALSE(std::filesystem::exists(dir.File("none.sqlite")));

  // A SQLite file of something else.
  {
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open(dir.File("other.sqlite").c_str(), &db), SQLITE_OK);
    sqlite3_exec(db, "CREATE TABLE notes(x TEXT)", nullptr, nullptr, nullptr);
    sqlite3_close(db);
  }
  Result<std::unique_ptr<RunStore>> other = RunStore::Open(dir.File("other.sqlite"));
  EXPECT_EQ(other.status().code(), StatusCode::kFailedPrecondition);
  EXPECT_THAT(other.status().message(), HasSubstr("not a medreact run store"));

  // A store from a newer medreact.
  const std::string newer = dir.File("newer.sqlite");
  ASSERT_TRUE(OpenOk(newer));
  {
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open(newer.c_str(), &db), SQLITE_OK);
    sqlite3_exec(db, "PRAGMA user_version = 99", nullptr, nullptr, nullptr);
    sqlite3_close(db);
  }
  Result<std::unique_ptr<RunStore>> later = RunStore::Open(newer);
  EXPECT_EQ(later.status().code(), StatusCode::kFailedPrecondition);
  EXPECT_THAT(later.status().message(), HasSubstr("newer medreact (schema version 99"));
}

TEST(RunStoreFileTest, ADamagedFileIsAClearErrorNeverACrash) {
  testing::TempDir dir;
  // Not a database at all.
  dir.Write("junk.sqlite", std::string(8192, 'x'));
  Result<std::unique_ptr<RunStore>> junk = RunStore::Open(dir.File("junk.sqlite"));
  EXPECT_EQ(junk.status().code(), StatusCode::kFailedPrecondition);
  EXPECT_THAT(junk.status().message(), HasSubstr("not a SQLite database"));
  EXPECT_THAT(junk.status().message(), HasSubstr(dir.File("junk.sqlite")));

  // A real store with its pages overwritten after the header.
  const std::string path = dir.File("hurt.sqlite");
  {
    auto store = OpenOk(path);
    ASSERT_TRUE(store);
    for (int i = 0; i < 20; ++i) {
      const std::string id = "run_" + std::to_string(i);
      RunState s = StateAfter(id, 5);
      ASSERT_TRUE(store->CreateRun(Chat(id), &s).ok());
    }
  }
  {
    sqlite3* db = nullptr;  // fold the WAL into the file so the damage lands in the data
    ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
    sqlite3_exec(db, "PRAGMA wal_checkpoint(TRUNCATE); PRAGMA journal_mode = DELETE", nullptr, nullptr, nullptr);
    sqlite3_close(db);
  }
  const auto size = std::filesystem::file_size(path);
  ASSERT_GT(size, 8192u);
  {
    std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
    for (std::streamoff at = 4096; at < static_cast<std::streamoff>(size); at += 4096) {
      f.seekp(at + 100);
      const std::string junk = "\xde\xad\xbe\xef garbage garbage garbage";
      f.write(junk.data(), static_cast<std::streamsize>(junk.size()));
    }
  }
  Result<std::unique_ptr<RunStore>> hurt = RunStore::Open(path);
  if (!hurt.ok()) {
    EXPECT_EQ(hurt.status().code(), StatusCode::kFailedPrecondition) << hurt.status().ToString();
    EXPECT_THAT(hurt.status().message(), HasSubstr(path));
    return;
  }
  // Opened: then reading it or checking it says what is wrong.
  Status check = (*hurt)->IntegrityCheck();
  Result<std::vector<RunRecord>> list = (*hurt)->List();
  Result<std::optional<RunState>> state = (*hurt)->LatestState("run_3");
  EXPECT_TRUE(!check.ok() || !list.ok() || !state.ok());
  if (!check.ok()) {
    EXPECT_THAT(check.message(), HasSubstr(path));
  }
}

TEST_P(RunStoreTest, TwoWritersAtOnceLoseNothing) {
  const std::string path = Store();
  auto shared = OpenOk(path);
  auto second = OpenOk(path);  // another connection, as another process would have
  ASSERT_TRUE(shared && second);
  constexpr int kRuns = 4, kSteps = 12;
  auto writer = [&](RunStore* store, const std::string& prefix, std::atomic<int>* failures) {
    for (int r = 0; r < kRuns; ++r) {
      const std::string id = prefix + std::to_string(r);
      RunState first = StateAfter(id, 0);
      if (!store->CreateRun(Chat(id), &first).ok()) ++*failures;
      for (int s = 1; s <= kSteps; ++s) {
        if (!store->SaveCheckpoint(id, StateAfter(id, s)).ok()) ++*failures;
      }
    }
  };
  std::atomic<int> failures{0};
  std::thread a(writer, shared.get(), "run_a", &failures);
  std::thread b(writer, second.get(), "run_b", &failures);
  std::thread c(writer, shared.get(), "run_c", &failures);  // the same connection from two threads
  a.join();
  b.join();
  c.join();
  EXPECT_EQ(failures.load(), 0);
  Result<std::vector<RunRecord>> runs = shared->List();
  ASSERT_TRUE(runs.ok());
  EXPECT_EQ(runs->size(), 3u * kRuns);
  for (const RunRecord& r : *runs) {
    EXPECT_EQ(r.steps, kSteps) << r.id;
    EXPECT_EQ(r.checkpoints, kSteps + 1) << r.id;
  }
  EXPECT_TRUE(shared->IntegrityCheck().ok());
}

TEST(RunStoreFileTest, TheDefaultPathFollowsTheEnvironment) {
  auto env = [](std::map<std::string, std::string> vars) {
    return [vars](const char* name) -> const char* {
      auto it = vars.find(name);
      return it == vars.end() ? nullptr : it->second.c_str();
    };
  };
  EXPECT_EQ(*DefaultRunStorePath(env({{"MEDREACT_STORE", "/s/r.sqlite"}, {"HOME", "/home/u"}})), "/s/r.sqlite");
  EXPECT_EQ(*DefaultRunStorePath(env({{"XDG_DATA_HOME", "/d"}, {"HOME", "/home/u"}})), "/d/medreact/runs.sqlite");
  EXPECT_EQ(*DefaultRunStorePath(env({{"XDG_DATA_HOME", "rel"}, {"HOME", "/home/u"}})),
            "/home/u/.local/share/medreact/runs.sqlite");
  EXPECT_FALSE(DefaultRunStorePath(env({})).ok());
}

TEST_P(RunRecorderTest, AddsTheRunAtItsFirstCheckpointAndRecordsItsEnd) {
  std::shared_ptr<RunStore> store = OpenOk(Store());
  ASSERT_TRUE(store);
  std::vector<std::string> warnings;
  RunRecorder recorder(store, Chat(""), [&](const std::string& w) { warnings.push_back(w); });
  auto hook = recorder.Hook();
  hook(StateAfter("run_r", 0));
  EXPECT_EQ(recorder.run_id(), "run_r");
  hook(StateAfter("run_r", 1));
  hook(StateAfter("run_r", 2));
  RunResult result;
  result.status = RunStatus::kMaxSteps;
  result.answer = "partial";
  result.error = "the step limit (2) was reached";
  result.trace = StateAfter("run_r", 2).trace;
  EXPECT_TRUE(recorder.Finish(result, /*interrupted=*/false).ok());
  Result<RunRecord> run = store->Get("run_r");
  ASSERT_TRUE(run.ok());
  EXPECT_EQ(run->status, "max_steps");
  EXPECT_EQ(StringOr(run->result, "answer"), "partial");
  EXPECT_EQ(run->steps, 2);
  EXPECT_TRUE(warnings.empty());

  // A store that fails warns once and the run goes on.
  RunRecorder clash(store, Chat(""), [&](const std::string& w) { warnings.push_back(w); });
  clash.Hook()(StateAfter("run_r", 0));  // the id is taken
  clash.Hook()(StateAfter("run_r", 1));
  EXPECT_EQ(warnings.size(), 1u);
  EXPECT_FALSE(clash.Finish(result, false).ok());
}

}  // namespace
}  // namespace medreact

// Opening a run store where others open it too, or where nothing may be
// written (issue 23 items 6 and 7):
//  - twenty processes creating one new store at the same instant all open
//    it and record their run (SQLite answers the journal-mode switch of a
//    new file with SQLITE_BUSY without waiting: RunStore::Open retries it
//    and the migration up to the busy timeout);
//  - `runs list` and `runs show` read a store on read-only media, with the
//    log a short-lived process leaves beside it and without one; a command
//    that writes says the folder is read-only.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sqlite3.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "medreact/json.h"
#include "store/run_store.h"
#include "testing/build_paths.h"
#include "testing/subprocess.h"

namespace medreact {
namespace {

using ::testing::HasSubstr;
namespace fs = std::filesystem;

// A child: waits for the start signal (a file), then opens the store and
// records one run. Exit 0 on success, 3 when the store did not open, 4
// when the run was not recorded (the reason on stderr).
TEST(RunStoreOpenChild, DISABLED_OpensAtTheSignal) {
  const char* path = std::getenv("MEDREACT_TEST_OPEN_STORE");
  const char* go = std::getenv("MEDREACT_TEST_OPEN_GO");
  const char* id = std::getenv("MEDREACT_TEST_OPEN_ID");
  if (!path || !go || !id) GTEST_SKIP() << "run by TwentyProcessesCreatingOneNewStoreAllRecordTheirRun only";
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (!fs::exists(go) && std::chrono::steady_clock::now() < give_up) {
    std::this_thread::sleep_for(std::chrono::microseconds(200));
  }
  Result<std::unique_ptr<RunStore>> store = RunStore::Open(path);
  if (!store.ok()) {
    std::fprintf(stderr, "open: %s\n", store.status().ToString().c_str());
    ::_exit(3);
  }
  if (Status s = (*store)->CreateRun({.id = id, .app = "chat"}); !s.ok()) {
    std::fprintf(stderr, "create: %s\n", s.ToString().c_str());
    ::_exit(4);
  }
  store->reset();
  ::_exit(0);
}

std::string SelfPath() {
  char self[4096] = {};
  return ::readlink("/proc/self/exe", self, sizeof self - 1) > 0 ? self : "";
}

TEST(RunStoreOpenTest, TwentyProcessesCreatingOneNewStoreAllRecordTheirRun) {
  const std::string self = SelfPath();
  ASSERT_FALSE(self.empty());
  testing::TempDir dir;
  constexpr int kProcesses = 20;
  for (int round = 0; round < 3; ++round) {
    SCOPED_TRACE("round " + std::to_string(round));
    const std::string store = dir.File("new" + std::to_string(round) + ".sqlite");
    const std::string go = dir.File("go" + std::to_string(round));
    std::vector<std::unique_ptr<testing::BackgroundCommand>> children;
    for (int i = 0; i < kProcesses; ++i) {
      children.push_back(std::make_unique<testing::BackgroundCommand>(
          std::vector<std::string>{self, "--gtest_filter=RunStoreOpenChild.DISABLED_OpensAtTheSignal",
                                   "--gtest_also_run_disabled_tests"},
          testing::EnvList{{"MEDREACT_TEST_OPEN_STORE", store},
                           {"MEDREACT_TEST_OPEN_GO", go},
                           {"MEDREACT_TEST_OPEN_ID", "run_" + std::to_string(round) + "_" + std::to_string(i)}}));
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(300));  // every child waiting at the signal
    std::ofstream(go) << "go";
    for (auto& child : children) {
      testing::ProcessResult r = child->Wait(std::chrono::seconds(60));
      EXPECT_EQ(r.exit_code, 0) << r.err;
    }
    Result<std::unique_ptr<RunStore>> opened = RunStore::Open(store, {.create_if_missing = false});
    ASSERT_TRUE(opened.ok()) << opened.status().ToString();
    Result<std::vector<RunRecord>> runs = (*opened)->List();
    ASSERT_TRUE(runs.ok());
    EXPECT_EQ(runs->size(), static_cast<size_t>(kProcesses));
    EXPECT_TRUE((*opened)->IntegrityCheck().ok());
  }
}

// A store with one run (and its checkpoint) in `folder`, closed as a
// short-lived process closes it (its log left beside it), or folded into
// the main file with no log left (`fold`).
std::string MakeStore(const std::string& folder, bool fold) {
  const std::string path = folder + "/runs.sqlite";
  {
    Result<std::unique_ptr<RunStore>> store = RunStore::Open(path);
    EXPECT_TRUE(store.ok()) << store.status().ToString();
    if (!store.ok()) return path;
    RunState state;
    state.trace.run_id = "run_readonly01";
    state.messages.push_back(Message::User("What is 2+2?"));
    EXPECT_TRUE((*store)->CreateRun({.id = "run_readonly01", .app = "chat", .inputs = {{"message", "What is 2+2?"}}},
                                    &state)
                    .ok());
  }
  if (fold) {
    sqlite3* db = nullptr;
    EXPECT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
    EXPECT_EQ(sqlite3_exec(db, "PRAGMA wal_checkpoint(TRUNCATE)", nullptr, nullptr, nullptr), SQLITE_OK);
    sqlite3_close(db);  // the last connection: the log and -shm removed
    EXPECT_FALSE(fs::exists(path + "-wal"));
  } else {
    EXPECT_TRUE(fs::exists(path + "-wal"));
  }
  return path;
}

// `command` (a medreact argv) run with `folder` read-only: a read-only bind
// mount in a private mount namespace when root (root writes through file
// modes), the folder's mode 0555 otherwise. nullopt when neither can be had.
std::optional<testing::ProcessResult> OnReadOnlyMedia(const std::string& folder,
                                                      const std::vector<std::string>& command) {
  if (::geteuid() != 0) {
    ::chmod(folder.c_str(), 0555);
    testing::ProcessResult r = testing::RunCommand(command);
    ::chmod(folder.c_str(), 0700);
    return r;
  }
  std::string script = "mount --bind \"$1\" \"$1\" && mount -o remount,bind,ro \"$1\" && shift && exec \"$@\"";
  std::vector<std::string> argv = {"/usr/bin/unshare", "-m", "/bin/sh", "-c", script, "sh", folder};
  argv.insert(argv.end(), command.begin(), command.end());
  testing::ProcessResult probe = testing::RunCommand({"/usr/bin/unshare", "-m", "/bin/true"});
  if (probe.exit_code != 0) return std::nullopt;
  return testing::RunCommand(argv);
}

TEST(RunStoreOpenTest, AStoreOnReadOnlyMediaIsListedAndShown) {
  for (bool fold : {false, true}) {
    SCOPED_TRACE(fold ? "folded: no log beside it" : "its log left beside it");
    testing::TempDir dir;
    const std::string media = dir.File("media");
    fs::create_directories(media);
    const std::string store = MakeStore(media, fold);
    std::optional<testing::ProcessResult> list =
        OnReadOnlyMedia(media, {MEDREACT_BINARY, "runs", "list", "--json", "--store", store});
    if (!list) GTEST_SKIP() << "no private mount namespace here, and running as root";
    ASSERT_EQ(list->exit_code, 0) << list->err;
    Result<Json> runs = ParseJson(list->out);
    ASSERT_TRUE(runs.ok() && runs->size() == 1u) << list->out;
    EXPECT_EQ(StringOr((*runs)[0], "id"), "run_readonly01");
    std::optional<testing::ProcessResult> show =
        OnReadOnlyMedia(media, {MEDREACT_BINARY, "runs", "show", "run_readonly01", "--store", store});
    ASSERT_TRUE(show);
    EXPECT_EQ(show->exit_code, 0) << show->err;
    EXPECT_THAT(show->out, HasSubstr("What is 2+2?"));
    // A command that writes is refused, saying why.
    std::optional<testing::ProcessResult> prune =
        OnReadOnlyMedia(media, {MEDREACT_BINARY, "runs", "prune", "--status", "running", "--store", store});
    ASSERT_TRUE(prune);
    EXPECT_EQ(prune->exit_code, 2) << prune->err;
    EXPECT_THAT(prune->err, HasSubstr("read-only"));
    // Nothing was changed: the store reads as it did.
    Result<std::unique_ptr<RunStore>> again = RunStore::Open(store, {.create_if_missing = false});
    ASSERT_TRUE(again.ok());
    EXPECT_EQ((*again)->List()->size(), 1u);
  }
}


// A damaged store, one way or the other (issue 23): one whose damage is met
// only when a run writes goes on without its checkpoints and exits 1 saying
// the record is incomplete (the answer is still written); one whose damage
// is met at open (truncated) is exit 2 before any work. Never exit 0 with a
// run's record lost.
TEST(RunStoreOpenTest, ADamagedStoreNeverLetsARunEndAsIfItWereRecorded) {
  testing::TempDir dir;
  const testing::EnvList env = {{"MEDREACT_LLM_URL", ""}, {"HOME", dir.path()}, {"XDG_CACHE_HOME", dir.path()}};
  auto research = [&](const std::string& store) {
    return testing::RunCommand({MEDREACT_BINARY, "research", "What is the evidence for Keytruda?", "--planner",
                                "rules", "--results", "3", "--cache", dir.File("cache.sqlite"), "--replay",
                                MEDREACT_SOURCE_DIR + "/examples/research/keytruda.jsonl", "--store", store, "-q"},
                               env);
  };
  const std::string good = dir.File("good.sqlite");
  testing::ProcessResult first = research(good);
  ASSERT_EQ(first.exit_code, 0) << first.err;
  // Folded into the main file, then copied twice: one with the runs table's
  // root page overwritten, one cut short.
  {
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open(good.c_str(), &db), SQLITE_OK);
    ASSERT_EQ(sqlite3_exec(db, "PRAGMA wal_checkpoint(TRUNCATE)", nullptr, nullptr, nullptr), SQLITE_OK);
    sqlite3_stmt* stmt = nullptr;
    ASSERT_EQ(sqlite3_prepare_v2(db, "SELECT rootpage FROM sqlite_master WHERE name = 'runs'", -1, &stmt, nullptr),
              SQLITE_OK);
    ASSERT_EQ(sqlite3_step(stmt), SQLITE_ROW);
    const int root = sqlite3_column_int(stmt, 0);
    sqlite3_finalize(stmt);
    sqlite3_close(db);
    const std::string damaged = dir.File("damaged.sqlite"), truncated = dir.File("truncated.sqlite");
    fs::copy_file(good, damaged);
    fs::copy_file(good, truncated);
    {
      std::fstream f(damaged, std::ios::in | std::ios::out | std::ios::binary);
      f.seekp(static_cast<std::streamoff>(root - 1) * 4096);
      const std::string junk(4096, '\xA5');
      f.write(junk.data(), static_cast<std::streamsize>(junk.size()));
    }
    fs::resize_file(truncated, 2 * 4096);
    testing::ProcessResult hurt = research(damaged);
    EXPECT_EQ(hurt.exit_code, 1) << hurt.err;
    EXPECT_THAT(hurt.err, HasSubstr("the run goes on without its checkpoints"));
    EXPECT_THAT(hurt.err, HasSubstr("its record of the run is incomplete"));
    EXPECT_EQ(hurt.out, first.out);  // the answer (the report) is still written
    testing::ProcessResult cut = research(truncated);
    EXPECT_EQ(cut.exit_code, 2) << cut.err;
    EXPECT_THAT(cut.err, HasSubstr("is damaged"));
    EXPECT_EQ(cut.out, "");
  }
}

}  // namespace
}  // namespace medreact

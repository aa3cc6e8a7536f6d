// The CLI on a PostgreSQL run store, end to end: `medreact chat --store
// postgres://…` against the scripted model server, `runs list` and `runs
// show` from the same URL, and a chat killed with SIGKILL mid-run and
// resumed with `runs resume` to the scripted answer, losing no step and
// re-running no finished tool call (the shape of crash_resume_test.cc, at a
// few kill points). Skipped, saying why, when PostgreSQL cannot start.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <signal.h>

#include <set>
#include <thread>

#include "medreact/json.h"
#include "store/run_store.h"
#include "testing/build_paths.h"
#include "testing/event_log.h"
#include "testing/postgres_server.h"
#include "testing/subprocess.h"

namespace medreact {
namespace {

using testing::BackgroundCommand;
using testing::CallIds;
using testing::EventLines;
using ::testing::HasSubstr;
using testing::MockLlmProcess;
using testing::RunCommand;
using testing::TempDir;
using testing::WaitForEvent;

constexpr int kToolSteps = 4;
constexpr int kDelayMs = 150;
constexpr char kAnswer[] = "The four sums are done: 28.";

// The commands' data folder (a PostgreSQL store's local images and uploads
// folder goes there) in a temporary folder, not the user's.
const testing::EnvList& Env() {
  static TempDir* data = new TempDir();
  static const testing::EnvList env = {{"XDG_DATA_HOME", data->path()}};
  return env;
}

std::string Script() {
  Json responses = Json::array();
  for (int s = 1; s <= kToolSteps; ++s) {
    Json calls = Json::array();
    calls.push_back({{"id", "call_" + std::to_string(s)},
                     {"name", "calculator"},
                     {"arguments", DumpJson(Json{{"expression", std::to_string(s) + " * 7"}})}});
    responses.push_back({{"delay_ms", kDelayMs}, {"message", {{"content", nullptr}, {"tool_calls", calls}}}});
  }
  responses.push_back({{"delay_ms", kDelayMs}, {"message", {{"content", kAnswer}}}});
  return DumpJson(Json{{"select", "by_turn"}, {"responses", responses}});
}

TEST(PgCliTest, ChatListShowOnAPostgresStore) {
  MEDREACT_REQUIRE_POSTGRES(url);
  MockLlmProcess mock(R"({"responses": [
    {"message": {"content": null, "tool_calls": [{"id": "call_1", "name": "calculator",
                                                  "arguments": "{\"expression\": \"17*23\"}"}]}},
    {"message": {"content": "17 * 23 = 391"}}]})");
  ASSERT_TRUE(mock.ok());
  testing::ProcessResult chat = RunCommand({MEDREACT_BINARY, "chat", "--llm-url", mock.base_url(), "--model", "mock",
                                            "--api-key", "sk-secret-never-stored", "--store", url, "What is 17*23?"}, Env());
  ASSERT_EQ(chat.exit_code, 0) << chat.err;
  EXPECT_EQ(chat.out, "17 * 23 = 391\n");

  testing::ProcessResult list = RunCommand({MEDREACT_BINARY, "runs", "list", "--store", url}, Env());
  ASSERT_EQ(list.exit_code, 0) << list.err;
  EXPECT_THAT(list.out, HasSubstr("finished"));
  Result<Json> runs = ParseJson(RunCommand({MEDREACT_BINARY, "runs", "list", "--json", "--store", url}, Env()).out);
  ASSERT_TRUE(runs.ok() && runs->is_array() && runs->size() == 1u);
  const std::string id = StringOr((*runs)[0], "id");
  EXPECT_EQ(IntegerOr((*runs)[0], "steps", 0), 2);
  testing::ProcessResult show = RunCommand({MEDREACT_BINARY, "runs", "show", id, "--json", "--store", url}, Env());
  ASSERT_EQ(show.exit_code, 0) << show.err;
  Result<Json> shown = ParseJson(show.out);
  ASSERT_TRUE(shown.ok()) << show.out;
  EXPECT_EQ((*shown)["run"]["inputs"]["message"], "What is 17*23?");
  EXPECT_EQ((*shown)["run"]["result"]["answer"], "17 * 23 = 391");
  EXPECT_EQ(show.out.find("sk-secret-never-stored"), std::string::npos);

  // A wrong database: a clear error naming it, exit 2-ish (not 0), no crash.
  testing::ProcessResult wrong =
      RunCommand({MEDREACT_BINARY, "runs", "list", "--store", "postgres://ann:pw-secret@127.0.0.1:1/runs"}, Env());
  EXPECT_NE(wrong.exit_code, 0);
  EXPECT_EQ(wrong.term_signal, 0);
  EXPECT_THAT(wrong.err, HasSubstr("postgres://ann:***@127.0.0.1:1/runs"));
  EXPECT_EQ(wrong.err.find("pw-secret"), std::string::npos) << wrong.err;
}

TEST(PgCliTest, AChatKilledMidRunResumesFromThePostgresStore) {
  MEDREACT_REQUIRE_POSTGRES(first_url);
  std::string why;
  auto* server = testing::PostgresServer::Shared(&why);
  ASSERT_NE(server, nullptr);
  MockLlmProcess mock(Script());
  ASSERT_TRUE(mock.ok());
  constexpr int kKillPoints = 3;
  int resumed = 0;
  for (int k = 0; k < kKillPoints; ++k) {
    const auto delay = std::chrono::milliseconds((k + 1) * (kToolSteps + 1) * kDelayMs / (kKillPoints + 1));
    SCOPED_TRACE("kill " + std::to_string(delay.count()) + " ms after run_started");
    const std::string url = k == 0 ? first_url : server->NewDatabase(&why);
    ASSERT_FALSE(url.empty()) << why;
    TempDir dir;
    BackgroundCommand chat({MEDREACT_BINARY, "chat", "--llm-url", mock.base_url(), "--model", "mock", "--tools",
                            "util", "--store", url, "--events", dir.File("first.jsonl"), "Add up the products."}, Env());
    ASSERT_TRUE(WaitForEvent(dir.File("first.jsonl"), "run_started", std::chrono::seconds(30)));
    std::this_thread::sleep_for(delay);
    chat.Signal(SIGKILL);
    testing::ProcessResult killed = chat.Wait();
    Result<Json> runs = ParseJson(RunCommand({MEDREACT_BINARY, "runs", "list", "--json", "--store", url}, Env()).out);
    ASSERT_TRUE(runs.ok() && runs->is_array() && runs->size() == 1u);
    const std::string id = StringOr((*runs)[0], "id");
    if (killed.exit_code == 0) continue;  // a slow machine: the kill came after the end
    EXPECT_EQ(StringOr((*runs)[0], "status"), "running");
    // The killed process's lease: its owner is gone on this machine, so the
    // resume takes the run at once.
    testing::ProcessResult again = RunCommand(
        {MEDREACT_BINARY, "runs", "resume", id, "--store", url, "--events", dir.File("second.jsonl")});
    ASSERT_EQ(again.exit_code, 0) << again.err;
    EXPECT_EQ(again.out, std::string(kAnswer) + "\n");
    ++resumed;
    Result<std::unique_ptr<RunStore>> s = RunStore::Open(url, {.create_if_missing = false});
    ASSERT_TRUE(s.ok());
    EXPECT_TRUE((*s)->IntegrityCheck().ok());
    EXPECT_EQ((*s)->Get(id).value().status, "finished");
    Result<std::vector<StepRecord>> steps = (*s)->Steps(id);
    ASSERT_TRUE(steps.ok());
    ASSERT_EQ(steps->size(), static_cast<size_t>(kToolSteps + 1));
    for (int i = 0; i < kToolSteps; ++i) EXPECT_EQ((*steps)[i].index, i + 1);
    const std::set<std::string> finished = CallIds(EventLines(dir.File("first.jsonl")), "tool_finished");
    for (const std::string& call : CallIds(EventLines(dir.File("second.jsonl")), "tool_started")) {
      EXPECT_EQ(finished.count(call), 0u) << call << " finished before the kill and ran again";
    }
  }
  EXPECT_GE(resumed, 1);
}

}  // namespace
}  // namespace medreact

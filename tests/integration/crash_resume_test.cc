// Durable runs (issue 14) end to end: a real `medreact chat` killed with
// SIGKILL at points spread over a multi-step run, then `medreact runs resume`
// to completion. For every kill point: the resumed run gives the scripted
// answer, the store passes integrity_check, no completed step is lost, and no
// tool call that had finished (a tool_finished event in the killed process's
// event log) is started again by the resumed one. Also the `runs` commands'
// other paths: list, show, refusing a finished run, prune, --no-store and the
// default store location.
//
// The scripted server chooses its reply by the number of assistant turns in
// the request ("select": "by_turn"), so the resumed process meets the next
// step's reply; each reply waits `delay_ms`, so a run takes over a second and
// the kills land between and during model calls. Timing decides only where a
// kill lands, never what is asserted.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <signal.h>

#include <filesystem>
#include <iostream>
#include <set>
#include <sstream>
#include <thread>

#include "testing/build_paths.h"
#include "medreact/json.h"
#include "store/run_store.h"
#include "testing/event_log.h"
#include "testing/subprocess.h"

namespace medreact {
namespace {

using testing::BackgroundCommand;
using testing::CallIds;
using testing::EventLines;
using ::testing::HasSubstr;
using testing::MockLlmProcess;
using testing::ReadFileOrEmpty;
using testing::RunCommand;
using testing::TempDir;
using testing::WaitForEvent;

constexpr int kToolSteps = 6;
constexpr int kDelayMs = 150;
constexpr char kAnswer[] = "The six sums are done: 42.";

// kToolSteps replies of two calculator calls each (fixed ids), then the answer.
std::string Script() {
  Json responses = Json::array();
  for (int s = 1; s <= kToolSteps; ++s) {
    Json calls = Json::array();
    for (const char* part : {"a", "b"}) {
      calls.push_back({{"id", "call_" + std::to_string(s) + part},
                       {"name", "calculator"},
                       {"arguments", DumpJson(Json{{"expression", std::to_string(s) + " * 7"}})}});
    }
    responses.push_back({{"delay_ms", kDelayMs}, {"message", {{"content", nullptr}, {"tool_calls", calls}}}});
  }
  responses.push_back({{"delay_ms", kDelayMs}, {"message", {{"content", kAnswer}}}});
  return DumpJson(Json{{"select", "by_turn"}, {"responses", responses}});
}

std::vector<std::string> ChatArgs(const MockLlmProcess& mock, const std::string& store, const std::string& events) {
  return {MEDREACT_BINARY,
          "chat",
          "--llm-url",
          mock.base_url(),
          "--model",
          "mock",
          "--tools",
          "util",
          "--store",
          store,
          "--events",
          events,
          "Add up the six products."};
}

TEST(CrashResumeTest, KilledAtAnyPointTheRunResumesLosingNothingAndRunningNothingTwice) {
  MockLlmProcess mock(Script());
  ASSERT_TRUE(mock.ok());
  constexpr int kKillPoints = 10;
  int resumed = 0, finished_before_kill = 0, steps_lost = 0, duplicate_calls = 0, in_flight_rerun = 0;
  for (int k = 0; k < kKillPoints; ++k) {
    // Spread over the run: from just after the start to just before the last reply.
    const auto delay = std::chrono::milliseconds(k * (kToolSteps + 1) * kDelayMs / kKillPoints);
    SCOPED_TRACE("kill point " + std::to_string(k) + ": " + std::to_string(delay.count()) + " ms after run_started");
    TempDir dir;
    const std::string store = dir.File("runs.sqlite");
    BackgroundCommand chat(ChatArgs(mock, store, dir.File("first.jsonl")));
    ASSERT_TRUE(WaitForEvent(dir.File("first.jsonl"), "run_started", std::chrono::seconds(30)));
    std::this_thread::sleep_for(delay);
    chat.Signal(SIGKILL);
    testing::ProcessResult killed = chat.Wait();

    {  // Whatever the moment, the file is whole.
      Result<std::unique_ptr<RunStore>> s = RunStore::Open(store, {.create_if_missing = false});
      ASSERT_TRUE(s.ok()) << s.status().ToString();
      EXPECT_TRUE((*s)->IntegrityCheck().ok()) << (*s)->IntegrityCheck().ToString();
    }
    testing::ProcessResult list = RunCommand({MEDREACT_BINARY, "runs", "list", "--json", "--store", store});
    ASSERT_EQ(list.exit_code, 0) << list.err;
    Result<Json> runs = ParseJson(list.out);
    ASSERT_TRUE(runs.ok() && runs->is_array() && runs->size() == 1u) << list.out;
    const std::string id = StringOr((*runs)[0], "id");
    ASSERT_FALSE(id.empty());
    if (killed.exit_code == 0) {  // the machine was slow and the kill came after the end
      ++finished_before_kill;
      EXPECT_EQ(StringOr((*runs)[0], "status"), "finished");
      continue;
    }
    EXPECT_EQ(killed.term_signal, SIGKILL);
    EXPECT_EQ(StringOr((*runs)[0], "status"), "running");

    testing::ProcessResult again = RunCommand({MEDREACT_BINARY, "runs", "resume", id, "--store", store, "--events",
                                               dir.File("second.jsonl"), "--trace", dir.File("trace.json")});
    ASSERT_EQ(again.exit_code, 0) << again.err;
    EXPECT_EQ(again.out, std::string(kAnswer) + "\n");
    ++resumed;

    Result<std::unique_ptr<RunStore>> s = RunStore::Open(store, {.create_if_missing = false});
    ASSERT_TRUE(s.ok());
    EXPECT_TRUE((*s)->IntegrityCheck().ok());
    Result<RunRecord> run = (*s)->Get(id);
    ASSERT_TRUE(run.ok());
    EXPECT_EQ(run->status, "finished");
    Result<std::vector<StepRecord>> steps = (*s)->Steps(id);
    ASSERT_TRUE(steps.ok());
    // No completed step lost: every step, in order, each tool step with both results.
    steps_lost += std::max(0, kToolSteps + 1 - static_cast<int>(steps->size()));
    ASSERT_EQ(steps->size(), static_cast<size_t>(kToolSteps + 1));
    for (int i = 0; i < kToolSteps; ++i) {
      EXPECT_EQ((*steps)[i].index, i + 1);
      ASSERT_EQ((*steps)[i].tool_results.size(), 2u);
      EXPECT_EQ(IntegerOr(ParseJson((*steps)[i].tool_results[0].content).value_or(Json()), "result", 0), (i + 1) * 7);
      EXPECT_TRUE((*steps)[i].tool_results[1].ok);
    }
    Result<Json> trace = ParseJson(ReadFileOrEmpty(dir.File("trace.json")));
    ASSERT_TRUE(trace.ok());
    EXPECT_EQ(StringOr(*trace, "run_id"), id);  // the same run, not a new one
    EXPECT_EQ((*trace)["steps"].size(), static_cast<size_t>(kToolSteps + 1));

    // No completed tool call ran twice.
    const std::vector<Json> first = EventLines(dir.File("first.jsonl"));
    const std::vector<Json> second = EventLines(dir.File("second.jsonl"));
    const std::set<std::string> finished = CallIds(first, "tool_finished");
    const std::set<std::string> started_first = CallIds(first, "tool_started");
    for (const std::string& call : CallIds(second, "tool_started")) {
      if (finished.count(call)) {
        ++duplicate_calls;
        ADD_FAILURE() << "tool call " << call << " finished before the kill and ran again after it";
      } else if (started_first.count(call)) {
        ++in_flight_rerun;  // in flight at the kill: the calculator is idempotent, so it runs again
      }
    }
  }
  // The figures docs/reliability.md quotes.
  std::cout << "[crash-resume] kill points " << kKillPoints << ", resumed " << resumed << ", finished before the kill "
            << finished_before_kill << ", steps lost " << steps_lost << ", duplicate calls " << duplicate_calls
            << ", in-flight idempotent calls re-run " << in_flight_rerun << "\n";
  EXPECT_EQ(steps_lost, 0);
  EXPECT_EQ(duplicate_calls, 0);
  EXPECT_GE(resumed, kKillPoints / 2);
}

const char kCalcThenAnswer[] = R"({"responses": [
  {"message": {"content": null, "tool_calls": [{"id": "call_1", "name": "calculator",
                                                "arguments": "{\"expression\": \"17*23\"}"}]}},
  {"message": {"content": "17 * 23 = 391"}}
]})";

TEST(RunsCommandTest, ListShowRefuseAFinishedRunAndPrune) {
  MockLlmProcess mock(kCalcThenAnswer);
  ASSERT_TRUE(mock.ok());
  TempDir dir;
  const std::string store = dir.File("runs.sqlite");
  testing::ProcessResult chat = RunCommand({MEDREACT_BINARY, "chat", "--llm-url", mock.base_url(), "--model", "mock",
                                            "--api-key", "sk-secret-never-stored", "--store", store, "What is 17*23?"});
  ASSERT_EQ(chat.exit_code, 0) << chat.err;
  EXPECT_EQ(ReadFileOrEmpty(store).find("sk-secret-never-stored"), std::string::npos);

  testing::ProcessResult list = RunCommand({MEDREACT_BINARY, "runs", "list", "--store", store});
  ASSERT_EQ(list.exit_code, 0) << list.err;
  EXPECT_THAT(list.out, HasSubstr("chat"));
  EXPECT_THAT(list.out, HasSubstr("finished"));
  Result<Json> runs = ParseJson(RunCommand({MEDREACT_BINARY, "runs", "list", "--json", "--store", store}).out);
  ASSERT_TRUE(runs.ok() && runs->size() == 1u);
  const std::string id = StringOr((*runs)[0], "id");
  EXPECT_EQ(IntegerOr((*runs)[0], "steps", 0), 2);

  testing::ProcessResult show = RunCommand({MEDREACT_BINARY, "runs", "show", id, "--json", "--store", store});
  ASSERT_EQ(show.exit_code, 0) << show.err;
  Result<Json> shown = ParseJson(show.out);
  ASSERT_TRUE(shown.ok());
  EXPECT_EQ((*shown)["run"]["inputs"]["message"], "What is 17*23?");
  EXPECT_EQ((*shown)["run"]["model"]["name"], "mock");
  EXPECT_FALSE((*shown)["run"]["model"].contains("api_key"));
  EXPECT_EQ((*shown)["run"]["result"]["answer"], "17 * 23 = 391");
  EXPECT_THAT(StringOr((*shown)["steps"][0]["tool_results"][0], "content"), HasSubstr("391"));
  testing::ProcessResult text = RunCommand({MEDREACT_BINARY, "runs", "show", id, "--store", store});
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_THAT(text.out, HasSubstr("call:   calculator"));

  testing::ProcessResult refused = RunCommand({MEDREACT_BINARY, "runs", "resume", id, "--store", store});
  EXPECT_EQ(refused.exit_code, 2);
  EXPECT_THAT(refused.err, HasSubstr("ended with status 'finished'; there is nothing to resume"));
  testing::ProcessResult unknown = RunCommand({MEDREACT_BINARY, "runs", "show", "run_nope", "--store", store});
  EXPECT_EQ(unknown.exit_code, 2);
  EXPECT_THAT(unknown.err, HasSubstr("no run 'run_nope'"));
  testing::ProcessResult missing = RunCommand({MEDREACT_BINARY, "runs", "list", "--store", dir.File("none.sqlite")});
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_THAT(missing.err, HasSubstr("no run store at"));
  EXPECT_FALSE(std::filesystem::exists(dir.File("none.sqlite")));

  testing::ProcessResult dry = RunCommand({MEDREACT_BINARY, "runs", "prune", "--dry-run", "--json", "--store", store});
  ASSERT_EQ(dry.exit_code, 0) << dry.err;
  EXPECT_EQ(ParseJson(dry.out).value()["runs"], Json::array({id}));
  // Past what the clock's 64-bit nanoseconds hold (106,751 days) is refused, not overflowed.
  for (const char* days : {"106752", "365000", "1e300"}) {
    testing::ProcessResult far = RunCommand({MEDREACT_BINARY, "runs", "prune", "--older-than", days, "--store", store});
    EXPECT_EQ(far.exit_code, 2) << days << ": " << far.err;
  }
  testing::ProcessResult ancient =
      RunCommand({MEDREACT_BINARY, "runs", "prune", "--older-than", "100000", "--dry-run", "--store", store});
  ASSERT_EQ(ancient.exit_code, 0) << ancient.err;
  EXPECT_THAT(ancient.err, HasSubstr("0 run(s)"));
  testing::ProcessResult old = RunCommand({MEDREACT_BINARY, "runs", "prune", "--older-than", "1", "--store", store});
  ASSERT_EQ(old.exit_code, 0) << old.err;
  EXPECT_THAT(old.err, HasSubstr("0 run(s) deleted"));
  testing::ProcessResult prune = RunCommand({MEDREACT_BINARY, "runs", "prune", "--store", store});
  ASSERT_EQ(prune.exit_code, 0) << prune.err;
  EXPECT_THAT(prune.err, HasSubstr("1 run(s) deleted"));
  EXPECT_EQ(ParseJson(RunCommand({MEDREACT_BINARY, "runs", "list", "--json", "--store", store}).out).value().size(),
            0u);
}

TEST(RunsCommandTest, ChatRecordsIntoTheDefaultStoreUnlessToldNotTo) {
  MockLlmProcess mock(R"({"select": "by_turn", "responses": [{"message": {"content": "hello"}}]})");
  ASSERT_TRUE(mock.ok());
  TempDir dir;
  const std::string default_store = dir.File("data/medreact/runs.sqlite");
  testing::ProcessResult off = RunCommand({MEDREACT_BINARY, "chat", "--llm-url", mock.base_url(), "--no-store", "hi"},
                                          {{"XDG_DATA_HOME", dir.File("data")}});
  ASSERT_EQ(off.exit_code, 0) << off.err;
  EXPECT_FALSE(std::filesystem::exists(default_store));
  testing::ProcessResult on =
      RunCommand({MEDREACT_BINARY, "chat", "--llm-url", mock.base_url(), "hi"}, {{"XDG_DATA_HOME", dir.File("data")}});
  ASSERT_EQ(on.exit_code, 0) << on.err;
  ASSERT_TRUE(std::filesystem::exists(default_store));
  EXPECT_EQ(std::filesystem::status(default_store).permissions() & std::filesystem::perms::all,
            std::filesystem::perms::owner_read | std::filesystem::perms::owner_write);
  // MEDREACT_STORE is the default's override; runs reads the same place.
  testing::ProcessResult env = RunCommand({MEDREACT_BINARY, "chat", "--llm-url", mock.base_url(), "hi"},
                                          {{"MEDREACT_STORE", dir.File("env.sqlite")}});
  ASSERT_EQ(env.exit_code, 0) << env.err;
  testing::ProcessResult list =
      RunCommand({MEDREACT_BINARY, "runs", "list", "--json"}, {{"MEDREACT_STORE", dir.File("env.sqlite")}});
  ASSERT_EQ(list.exit_code, 0) << list.err;
  EXPECT_EQ(ParseJson(list.out).value().size(), 1u);
  // A store the user named that cannot be opened stops the run before it starts.
  dir.Write("junk.sqlite", std::string(4096, 'x'));
  testing::ProcessResult junk =
      RunCommand({MEDREACT_BINARY, "chat", "--llm-url", mock.base_url(), "--store", dir.File("junk.sqlite"), "hi"});
  EXPECT_EQ(junk.exit_code, 2);
  EXPECT_THAT(junk.err, HasSubstr("not a SQLite database"));
  EXPECT_EQ(
      RunCommand({MEDREACT_BINARY, "chat", "--llm-url", mock.base_url(), "--no-store", "--store", "x", "hi"}).exit_code,
      2);
}

TEST(RunsCommandTest, ALiveRunIsNotResumedByASecondProcessAndAKeyInTheUrlIsNeverStored) {
  MockLlmProcess mock(Script());
  ASSERT_TRUE(mock.ok());
  TempDir dir;
  const std::string store = dir.File("runs.sqlite");
  std::vector<std::string> args = ChatArgs(mock, store, dir.File("first.jsonl"));
  // --llm-url with credentials in it (curl sends them as basic auth; the mock ignores them).
  args[3] = "http://user:sk-secret-in-url@" + mock.base_url().substr(std::string("http://").size());
  BackgroundCommand chat(args);
  ASSERT_TRUE(WaitForEvent(dir.File("first.jsonl"), "step_finished", std::chrono::seconds(30)));
  testing::ProcessResult list = RunCommand({MEDREACT_BINARY, "runs", "list", "--json", "--store", store});
  ASSERT_EQ(list.exit_code, 0) << list.err;
  const std::string id = StringOr(ParseJson(list.out).value().at(0), "id");
  testing::ProcessResult second = RunCommand({MEDREACT_BINARY, "runs", "resume", id, "--store", store});
  EXPECT_EQ(second.exit_code, 2);
  EXPECT_THAT(second.err, HasSubstr("is being run by process"));
  testing::ProcessResult shown = RunCommand({MEDREACT_BINARY, "runs", "show", id, "--store", store});
  EXPECT_THAT(shown.out, HasSubstr("held by:  process"));
  testing::ProcessResult first = chat.Wait();
  ASSERT_EQ(first.exit_code, 0) << first.err;
  EXPECT_EQ(first.out, std::string(kAnswer) + "\n");
  // The run executed once: one request per reply of the script.
  EXPECT_EQ(mock.request_lines().size(), static_cast<size_t>(kToolSteps + 1));
  // A key in the query (a server that takes one there): the run fails against
  // the mock, which wants none, but is recorded, and its key is not.
  RunCommand({MEDREACT_BINARY, "chat", "--llm-url", mock.base_url() + "?api_key=sk-query-key", "--max-retries", "0",
              "--store", store, "hi"});
  testing::ProcessResult all = RunCommand({MEDREACT_BINARY, "runs", "list", "--json", "--store", store});
  EXPECT_EQ(ParseJson(all.out).value().size(), 2u) << all.out;
  const std::string bytes = ReadFileOrEmpty(store) + ReadFileOrEmpty(store + "-wal");
  EXPECT_EQ(bytes.find("sk-secret-in-url"), std::string::npos);
  EXPECT_EQ(bytes.find("sk-query-key"), std::string::npos);
  EXPECT_NE(bytes.find(mock.base_url()), std::string::npos);  // the URL without user info or query
}

}  // namespace
}  // namespace medreact

// Durable runs (issue 14): a real `medreact chat` killed with SIGKILL while
// its one tool call is in flight — the literature pack's
// search_clinical_trials, online against the scripted server's route, whose
// first answer is held back 30 s; the kill comes once the server has the
// call's request — then `medreact runs resume`. The resumed run sends the
// idempotent call again exactly once (the route receives two requests in
// all: the killed one and the resumed one), completes, and the store passes
// integrity_check.
//
// The events table across the kill: the store holds the killed process's
// --events lines up to and including its tool_started (a tool's start is
// written at once, so a stream shows the call under way). After the resume
// it holds those, then every event of the resumed process, numbered on —
// the call's start twice (killed, resumed), its end once; `runs show
// --events` prints them.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <signal.h>

#include <iostream>
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
using ::testing::HasSubstr;
using testing::MockLlmProcess;
using testing::ReadFileOrEmpty;
using testing::RunCommand;
using testing::TempDir;
using testing::WaitForEvent;

constexpr char kAnswer[] = "One trial matched: NCT03425643.";

// A ClinicalTrials.gov search reply (the recorded fixture) with no next page,
// so one call is one request.
Json TrialsReply() {
  Result<Json> reply = ParseJson(
      ReadFileOrEmpty(MEDREACT_SOURCE_DIR + "/tests/fixtures/literature/ctgov_v2_search_keytruda_pagesize3.json"));
  if (!reply.ok() || !reply->is_object()) return Json{{"studies", Json::array()}};
  reply->erase("nextPageToken");
  return *reply;
}

// Turn 0: one search_clinical_trials call; turn 1: the answer. The route's
// first reply waits 30 s (the killed call), the second answers at once.
std::string Script() {
  Json call = {{"id", "call_trials"},
               {"name", "search_clinical_trials"},
               {"arguments", DumpJson(Json{{"query", "pembrolizumab"}, {"max_results", 3}})}};
  Json responses = Json::array({Json{{"message", {{"content", nullptr}, {"tool_calls", Json::array({call})}}}},
                                Json{{"message", {{"content", kAnswer}}}}});
  Json route = {
      {"responses", Json::array({Json{{"delay_ms", 30'000}, {"json", TrialsReply()}}, Json{{"json", TrialsReply()}}})}};
  return DumpJson(Json{{"select", "by_turn"}, {"responses", responses}, {"routes", {{"/ctgov/studies", route}}}});
}

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> out;
  std::stringstream ss(text);
  for (std::string line; std::getline(ss, line);) {
    if (ParseJson(line).ok()) out.push_back(line);  // a line cut by the kill is not an event
  }
  return out;
}

std::string TypeOf(const std::string& line) { return StringOr(ParseJson(line).value_or(Json()), "type"); }

int Count(const std::vector<std::string>& lines, const std::string& type) {
  int n = 0;
  for (const std::string& l : lines) n += TypeOf(l) == type;
  return n;
}

int RouteRequests(const MockLlmProcess& mock, const std::string& path) {
  int n = 0;
  for (const std::string& line : mock.request_lines()) {
    n += StringOr(ParseJson(line).value_or(Json()), "path") == path;
  }
  return n;
}

std::vector<std::string> StoredEvents(const std::string& store, const std::string& id) {
  Result<std::unique_ptr<RunStore>> s = RunStore::Open(store, {.create_if_missing = false});
  if (!s.ok()) return {};
  EXPECT_TRUE((*s)->IntegrityCheck().ok()) << (*s)->IntegrityCheck().ToString();
  std::vector<std::string> out;
  for (const RunEvent& e : (*s)->Events(id).value_or(std::vector<RunEvent>())) out.push_back(e.json);
  return out;
}

TEST(CrashSlowToolTest, KilledDuringASlowToolCallTheResumeRunsItOnceMoreAndTheEventsCarryOn) {
  MockLlmProcess mock(Script());
  ASSERT_TRUE(mock.ok());
  TempDir dir;
  const std::string store = dir.File("runs.sqlite");
  std::string root = mock.base_url();
  root = root.substr(0, root.rfind("/v1")) + "/ctgov";
  // The literature pack online against the route; its cache in the test's folder.
  const testing::EnvList env = {{"MEDREACT_CTGOV_URL", root}, {"XDG_CACHE_HOME", dir.File("cache")}};

  BackgroundCommand chat(
      {MEDREACT_BINARY, "chat", "--llm-url", mock.base_url(), "--model", "mock", "--tools", "literature", "--store",
       store, "--events", dir.File("first.jsonl"), "Which trials test pembrolizumab?"},
      env);
  ASSERT_TRUE(WaitForEvent(dir.File("first.jsonl"), "tool_started", std::chrono::seconds(60)));
  // In flight: the server has the request (its reply is 30 s away).
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (RouteRequests(mock, "/ctgov/studies") == 0 && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  ASSERT_EQ(RouteRequests(mock, "/ctgov/studies"), 1);
  chat.Signal(SIGKILL);
  testing::ProcessResult killed = chat.Wait();
  ASSERT_EQ(killed.term_signal, SIGKILL) << killed.err;

  testing::ProcessResult list = RunCommand({MEDREACT_BINARY, "runs", "list", "--json", "--store", store});
  ASSERT_EQ(list.exit_code, 0) << list.err;
  Result<Json> runs = ParseJson(list.out);
  ASSERT_TRUE(runs.ok() && runs->is_array() && runs->size() == 1u) << list.out;
  const std::string id = StringOr((*runs)[0], "id");
  EXPECT_EQ(StringOr((*runs)[0], "status"), "running");

  // The events table at the kill: the killed process's lines up to its
  // tool_started, written when the call started.
  const std::vector<std::string> first = Lines(ReadFileOrEmpty(dir.File("first.jsonl")));
  const std::vector<std::string> at_kill = StoredEvents(store, id);
  ASSERT_FALSE(at_kill.empty());
  ASSERT_LE(at_kill.size(), first.size());
  EXPECT_EQ(at_kill, std::vector<std::string>(first.begin(), first.begin() + at_kill.size()));
  EXPECT_EQ(TypeOf(at_kill.back()), "tool_started");
  EXPECT_EQ(Count(at_kill, "tool_started"), 1);
  EXPECT_EQ(Count(first, "tool_started"), 1);
  EXPECT_EQ(Count(first, "tool_finished"), 0);

  testing::ProcessResult again =
      RunCommand({MEDREACT_BINARY, "runs", "resume", id, "--store", store, "--events", dir.File("second.jsonl")}, env);
  ASSERT_EQ(again.exit_code, 0) << again.err;
  EXPECT_EQ(again.out, std::string(kAnswer) + "\n");

  // The in-flight call ran again exactly once, and nothing else was called.
  EXPECT_EQ(RouteRequests(mock, "/ctgov/studies"), 2);
  const std::vector<std::string> second = Lines(ReadFileOrEmpty(dir.File("second.jsonl")));
  EXPECT_EQ(Count(second, "tool_started"), 1);
  ASSERT_EQ(Count(second, "tool_finished"), 1);
  for (const std::string& line : second) {
    if (TypeOf(line) != "tool_finished") continue;
    Result<Json> finished = ParseJson(line);
    ASSERT_TRUE(finished.ok());
    EXPECT_EQ(StringOr(*finished, "tool_call_id"), "call_trials");
    EXPECT_TRUE(BoolOr(*finished, "ok", false)) << line;
  }

  Result<std::unique_ptr<RunStore>> s = RunStore::Open(store, {.create_if_missing = false});
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_TRUE((*s)->IntegrityCheck().ok()) << (*s)->IntegrityCheck().ToString();
  Result<RunRecord> run = (*s)->Get(id);
  ASSERT_TRUE(run.ok());
  EXPECT_EQ(run->status, "finished");
  Result<std::vector<StepRecord>> steps = (*s)->Steps(id);
  ASSERT_TRUE(steps.ok());
  ASSERT_EQ(steps->size(), 2u);
  ASSERT_EQ((*steps)[0].tool_results.size(), 1u);
  EXPECT_TRUE((*steps)[0].tool_results[0].ok) << (*steps)[0].tool_results[0].error;
  EXPECT_THAT((*steps)[0].tool_results[0].content, HasSubstr("NCT"));

  // The events after the resume: those kept at the kill, then the resumed
  // process's, in order, numbered on; `runs show --events` prints the same.
  std::vector<std::string> expected = at_kill;
  expected.insert(expected.end(), second.begin(), second.end());
  const std::vector<std::string> after = StoredEvents(store, id);
  EXPECT_EQ(after, expected);
  EXPECT_EQ(run->events, static_cast<int64_t>(expected.size()));
  std::vector<int64_t> seqs;
  Result<std::vector<RunEvent>> stored = (*s)->Events(id);
  ASSERT_TRUE(stored.ok());
  for (const RunEvent& e : *stored) seqs.push_back(e.seq);
  for (size_t i = 0; i < seqs.size(); ++i) EXPECT_EQ(seqs[i], static_cast<int64_t>(i + 1));
  EXPECT_EQ(Count(after, "tool_started"), 2);  // the killed process's call, and the resumed one's
  EXPECT_EQ(Count(after, "tool_finished"), 1);
  EXPECT_EQ(TypeOf(after.back()), "run_finished");
  testing::ProcessResult shown = RunCommand({MEDREACT_BINARY, "runs", "show", id, "--events", "--store", store});
  ASSERT_EQ(shown.exit_code, 0) << shown.err;
  EXPECT_EQ(Lines(shown.out), expected);
  testing::ProcessResult json = RunCommand({MEDREACT_BINARY, "runs", "show", id, "--json", "--store", store});
  ASSERT_EQ(json.exit_code, 0) << json.err;
  EXPECT_EQ(IntegerOr(ParseJson(json.out).value_or(Json())["run"], "events", -1),
            static_cast<int64_t>(expected.size()));

  // The figures docs/reliability.md quotes.
  std::cout << "[slow-tool-kill] events in the killed process's log " << first.size() << ", kept by the store "
            << at_kill.size() << ", lost " << first.size() - at_kill.size() << "; route requests "
            << RouteRequests(mock, "/ctgov/studies") << "; resumed run's events " << second.size()
            << ", stored after the resume " << after.size() << "\n";
}

}  // namespace
}  // namespace medreact

// Human approval end to end (issue 14): a real `medreact chat` whose
// calculator calls need approval pauses (exit 3, status awaiting_approval,
// the waiting call stored with its arguments); later processes decide it
// (`runs approve`, with or without edited arguments, or `runs reject
// --reason`), each a restart, and the run goes on in the same run id; the
// model (the scripted server) reads what was decided. Also: deciding one of
// two waiting calls, the inline terminal prompt, and the refusals (a rule
// naming no tool, approval without a store, bad edited arguments, resuming
// a paused run).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <thread>
#include <vector>

#include "testing/build_paths.h"
#include "medreact/json.h"
#include "store/run_store.h"
#include "testing/subprocess.h"

namespace medreact {
namespace {

using ::testing::HasSubstr;
using testing::MockLlmProcess;
using ::testing::Not;
using testing::ProcessResult;
using testing::RunCommand;
using testing::TempDir;

// By turn: one calculator call (or two), then the answer.
std::string Script(bool two_calls = false) {
  Json calls =
      Json::array({Json{{"id", "call_a"}, {"name", "calculator"}, {"arguments", R"({"expression": "17*23"})"}}});
  if (two_calls) {
    calls.push_back(Json{{"id", "call_b"}, {"name", "calculator"}, {"arguments", R"({"expression": "2+2"})"}});
  }
  return DumpJson(Json{{"select", "by_turn"},
                       {"responses", Json::array({Json{{"message", {{"content", nullptr}, {"tool_calls", calls}}}},
                                                  Json{{"message", {{"content", "Done."}}}}})}});
}

std::vector<std::string> Chat(const MockLlmProcess& mock, const std::string& store,
                              std::vector<std::string> extra = {}) {
  std::vector<std::string> argv = {MEDREACT_BINARY, "chat",
                                   "--llm-url",     mock.base_url(),
                                   "--model",       "mock",
                                   "--tools",       "util",
                                   "--store",       store,
                                   "--json",        "--require-approval",
                                   "calculator",    "--approval-prompt",
                                   "never"};
  argv.insert(argv.end(), extra.begin(), extra.end());
  argv.push_back("What is 17*23?");
  return argv;
}

// The tool results the model was sent in the last chat request.
std::vector<std::string> LastToolResults(const MockLlmProcess& mock) {
  std::vector<std::string> out;
  const std::vector<std::string> lines = mock.request_lines();
  for (auto line = lines.rbegin(); line != lines.rend(); ++line) {
    Result<Json> j = ParseJson(*line);  // {"method", "path", "headers", "body"}
    if (!j.ok() || !j->contains("body") || !(*j)["body"].is_object() || !(*j)["body"].contains("messages")) continue;
    for (const Json& m : (*j)["body"]["messages"]) {
      if (StringOr(m, "role") == "tool") out.push_back(StringOr(m, "content"));
    }
    break;
  }
  return out;
}

std::string RunStatus(const std::string& store, const std::string& id) {
  Result<std::unique_ptr<RunStore>> s = RunStore::Open(store, {.create_if_missing = false});
  if (!s.ok()) return "(no store)";
  Result<RunRecord> r = (*s)->Get(id);
  return r.ok() ? r->status : "(no run)";
}

// Starts a run that pauses; returns its id.
std::string PausedRun(const MockLlmProcess& mock, const std::string& store) {
  ProcessResult chat = RunCommand(Chat(mock, store));
  EXPECT_EQ(chat.exit_code, 3) << chat.err;
  Result<Json> out = ParseJson(chat.out);
  EXPECT_TRUE(out.ok()) << chat.out;
  if (!out.ok()) return "";
  EXPECT_EQ(StringOr(*out, "status"), "awaiting_approval");
  EXPECT_THAT(chat.err, HasSubstr("medreact runs approve " + StringOr(*out, "run_id")));
  return StringOr(*out, "run_id");
}

TEST(ApprovalCliTest, APausedRunIsStoredWithItsCallAndApprovedByAnotherProcess) {
  MockLlmProcess mock(Script());
  ASSERT_TRUE(mock.ok());
  TempDir dir;
  const std::string store = dir.File("runs.sqlite");
  ProcessResult chat = RunCommand(Chat(mock, store));
  ASSERT_EQ(chat.exit_code, 3) << chat.err;
  Result<Json> out = ParseJson(chat.out);
  ASSERT_TRUE(out.ok()) << chat.out;
  const std::string id = StringOr(*out, "run_id");
  ASSERT_EQ((*out)["awaiting_approval"].size(), 1u);
  EXPECT_EQ(StringOr((*out)["awaiting_approval"][0], "id"), "call_a");
  EXPECT_EQ(StringOr((*out)["awaiting_approval"][0], "name"), "calculator");
  EXPECT_EQ(RunStatus(store, id), "awaiting_approval");

  // Listed and shown with what is to be decided.
  ProcessResult list = RunCommand({MEDREACT_BINARY, "runs", "list", "--store", store, "--status", "awaiting_approval"});
  EXPECT_THAT(list.out, HasSubstr(id));
  ProcessResult show = RunCommand({MEDREACT_BINARY, "runs", "show", id, "--store", store});
  ASSERT_EQ(show.exit_code, 0) << show.err;
  EXPECT_THAT(show.out, HasSubstr("waiting for approval"));
  EXPECT_THAT(show.out, HasSubstr("call call_a: calculator"));
  EXPECT_THAT(show.out, HasSubstr("17*23"));
  // A paused run is decided, not resumed; the default prune keeps it.
  ProcessResult resume = RunCommand({MEDREACT_BINARY, "runs", "resume", id, "--store", store});
  EXPECT_EQ(resume.exit_code, 2);
  EXPECT_THAT(resume.err, HasSubstr("runs approve|reject " + id));
  ProcessResult prune = RunCommand({MEDREACT_BINARY, "runs", "prune", "--store", store});
  EXPECT_EQ(prune.exit_code, 0) << prune.err;
  EXPECT_EQ(RunStatus(store, id), "awaiting_approval");
  const size_t requests_before = mock.request_lines().size();

  ProcessResult approve = RunCommand({MEDREACT_BINARY, "runs", "approve", id, "--store", store, "--json"});
  ASSERT_EQ(approve.exit_code, 0) << approve.err;
  Result<Json> done = ParseJson(approve.out);
  ASSERT_TRUE(done.ok()) << approve.out;
  EXPECT_EQ(StringOr(*done, "run_id"), id);
  EXPECT_EQ(StringOr(*done, "answer"), "Done.");
  EXPECT_EQ(RunStatus(store, id), "finished");
  EXPECT_EQ(mock.request_lines().size(), requests_before + 1);  // the paused step's model call is not repeated
  ASSERT_EQ(LastToolResults(mock).size(), 1u);
  EXPECT_THAT(LastToolResults(mock)[0], HasSubstr("391"));
  ProcessResult steps = RunCommand({MEDREACT_BINARY, "runs", "show", id, "--store", store});
  EXPECT_THAT(steps.out, HasSubstr("approved by the reviewer"));
  // Decided once: a second approve is refused.
  ProcessResult twice = RunCommand({MEDREACT_BINARY, "runs", "approve", id, "--store", store});
  EXPECT_EQ(twice.exit_code, 2);
  EXPECT_THAT(twice.err, HasSubstr("is not waiting for approval"));
}

TEST(ApprovalCliTest, ARejectionReachesTheModelAsTheCallsResult) {
  MockLlmProcess mock(Script());
  ASSERT_TRUE(mock.ok());
  TempDir dir;
  const std::string store = dir.File("runs.sqlite");
  const std::string id = PausedRun(mock, store);
  ASSERT_FALSE(id.empty());
  ProcessResult reject =
      RunCommand({MEDREACT_BINARY, "runs", "reject", id, "--store", store, "--reason", "use the lab value instead"});
  ASSERT_EQ(reject.exit_code, 0) << reject.err;
  EXPECT_EQ(reject.out, "Done.\n");
  ASSERT_EQ(LastToolResults(mock).size(), 1u);
  EXPECT_EQ(LastToolResults(mock)[0],
            "Error: the reviewer did not approve this call, so it was not run: use the lab value instead");
  EXPECT_EQ(RunStatus(store, id), "finished");
}

TEST(ApprovalCliTest, EditedArgumentsAreCheckedThenRun) {
  MockLlmProcess mock(Script());
  ASSERT_TRUE(mock.ok());
  TempDir dir;
  const std::string store = dir.File("runs.sqlite");
  const std::string id = PausedRun(mock, store);
  ASSERT_FALSE(id.empty());
  // Arguments the tool's schema refuses: nothing stored, nothing run.
  ProcessResult bad =
      RunCommand({MEDREACT_BINARY, "runs", "approve", id, "--store", store, "--args", R"({"expr": 1})"});
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_THAT(bad.err, HasSubstr("edited arguments (--args) for calculator"));
  EXPECT_EQ(RunStatus(store, id), "awaiting_approval");
  ProcessResult no_json = RunCommand({MEDREACT_BINARY, "runs", "approve", id, "--store", store, "--args", "6*7"});
  EXPECT_EQ(no_json.exit_code, 2);

  ProcessResult edit =
      RunCommand({MEDREACT_BINARY, "runs", "approve", id, "--store", store, "--args", R"({"expression": "6*7"})"});
  ASSERT_EQ(edit.exit_code, 0) << edit.err;
  ASSERT_EQ(LastToolResults(mock).size(), 1u);
  EXPECT_THAT(LastToolResults(mock)[0], HasSubstr("42"));
  ProcessResult show = RunCommand({MEDREACT_BINARY, "runs", "show", id, "--store", store});
  EXPECT_THAT(show.out, HasSubstr("run with the reviewer's arguments"));
}

// Deciders racing on one paused call (issue 23): approve ∥ reject ∥ approve,
// three processes at once, several times over. Exactly one decides and goes
// on; the others exit 2 saying the call was already decided (by whom, when)
// or that another process holds the run; the tool ran once and the model
// received one result for it (never both a rejection and a result).
TEST(ApprovalCliTest, RacingDecidersLeaveExactlyOneDecisionAndOneToolCall) {
  MockLlmProcess mock(Script());
  ASSERT_TRUE(mock.ok());
  TempDir dir;
  const std::string store = dir.File("runs.sqlite");
  for (int round = 0; round < 4; ++round) {
    SCOPED_TRACE("round " + std::to_string(round));
    const std::string id = PausedRun(mock, store);
    ASSERT_FALSE(id.empty());
    const size_t requests_before = mock.request_lines().size();
    const std::vector<std::vector<std::string>> deciders = {
        {MEDREACT_BINARY, "runs", "approve", id, "--store", store, "--reviewer", "dr.a"},
        {MEDREACT_BINARY, "runs", "reject", id, "--store", store, "--reviewer", "dr.b", "--reason", "no"},
        {MEDREACT_BINARY, "runs", "approve", id, "--store", store, "--reviewer", "dr.c"}};
    std::vector<ProcessResult> results(deciders.size());
    std::vector<std::thread> threads;
    for (size_t i = 0; i < deciders.size(); ++i) {
      threads.emplace_back([&, i] { results[i] = RunCommand(deciders[i]); });
    }
    for (std::thread& t : threads) t.join();
    int winners = 0;
    for (const ProcessResult& r : results) {
      if (r.exit_code == 0) {
        ++winners;
        continue;
      }
      EXPECT_EQ(r.exit_code, 2) << r.err;
      const bool explained = r.err.find("already decided: call call_a ") != std::string::npos ||
                             r.err.find("is being run by") != std::string::npos;
      EXPECT_TRUE(explained) << r.err;
      if (r.err.find("already decided") != std::string::npos) {
        EXPECT_THAT(r.err, HasSubstr(" by dr."));
      }
    }
    EXPECT_EQ(winners, 1);
    EXPECT_EQ(RunStatus(store, id), "finished");
    EXPECT_EQ(mock.request_lines().size(), requests_before + 1);  // one continuation
    ASSERT_EQ(LastToolResults(mock).size(), 1u);
    ProcessResult shown = RunCommand({MEDREACT_BINARY, "runs", "show", id, "--store", store, "--json"});
    Result<Json> view = ParseJson(shown.out);
    ASSERT_TRUE(view.ok()) << shown.err;
    int results_for_call = 0;
    for (const Json& step : (*view)["steps"]) {
      for (const Json& r : step.value("tool_results", Json::array())) {
        if (StringOr(r, "tool_call_id") == "call_a") ++results_for_call;
      }
    }
    EXPECT_EQ(results_for_call, 1);
  }
}

TEST(ApprovalCliTest, DecidingOneOfTwoCallsLeavesTheRunWaitingForTheOther) {
  MockLlmProcess mock(Script(/*two_calls=*/true));
  ASSERT_TRUE(mock.ok());
  TempDir dir;
  const std::string store = dir.File("runs.sqlite");
  const std::string id = PausedRun(mock, store);
  ASSERT_FALSE(id.empty());
  ProcessResult both_args =
      RunCommand({MEDREACT_BINARY, "runs", "approve", id, "--store", store, "--args", R"({"expression": "1"})"});
  EXPECT_EQ(both_args.exit_code, 2);
  EXPECT_THAT(both_args.err, HasSubstr("name it (--call)"));
  ProcessResult unknown = RunCommand({MEDREACT_BINARY, "runs", "approve", id, "--store", store, "--call", "call_z"});
  EXPECT_EQ(unknown.exit_code, 2);
  EXPECT_THAT(unknown.err, HasSubstr("waiting: call_a, call_b"));

  ProcessResult first = RunCommand({MEDREACT_BINARY, "runs", "reject", id, "--store", store, "--call", "call_b"});
  EXPECT_EQ(first.exit_code, 3) << first.err;
  EXPECT_THAT(first.err, HasSubstr("still waits for call_a"));
  EXPECT_EQ(RunStatus(store, id), "awaiting_approval");
  ProcessResult show = RunCommand({MEDREACT_BINARY, "runs", "show", id, "--store", store, "--json"});
  Result<Json> shown = ParseJson(show.out);
  ASSERT_TRUE(shown.ok()) << show.out;
  ASSERT_EQ((*shown)["awaiting_approval"].size(), 1u);
  EXPECT_EQ(StringOr((*shown)["awaiting_approval"][0], "id"), "call_a");

  ProcessResult last = RunCommand({MEDREACT_BINARY, "runs", "approve", id, "--store", store});
  ASSERT_EQ(last.exit_code, 0) << last.err;
  const std::vector<std::string> results = LastToolResults(mock);
  ASSERT_EQ(results.size(), 2u);
  EXPECT_THAT(results[0], HasSubstr("391"));
  EXPECT_EQ(results[1], "Error: the reviewer did not approve this call, so it was not run.");
}

TEST(ApprovalCliTest, TheTerminalPromptDecidesInlineAndEndOfInputPauses) {
  MockLlmProcess mock(Script());
  ASSERT_TRUE(mock.ok());
  TempDir dir;
  const std::string store = dir.File("runs.sqlite");
  auto shell = [&](const std::string& input) {
    std::string cmd = "printf '" + input + "' | '" + std::string(MEDREACT_BINARY) + "' chat --llm-url '" +
                      mock.base_url() + "' --model mock --tools util --store '" + store +
                      "' --require-approval calculator --approval-prompt always 'What is 17*23?'";
    return RunCommand({"/bin/sh", "-c", cmd});
  };
  ProcessResult yes = shell("y\\n");
  EXPECT_EQ(yes.exit_code, 0) << yes.err;
  EXPECT_THAT(yes.err, HasSubstr("The agent wants to run calculator (call call_a)"));
  EXPECT_THAT(LastToolResults(mock).at(0), HasSubstr("391"));

  ProcessResult no = shell("maybe\\nn\\nnot now\\n");
  EXPECT_EQ(no.exit_code, 0) << no.err;
  EXPECT_THAT(no.err, HasSubstr("Please answer y, n, e or l."));
  EXPECT_EQ(LastToolResults(mock).at(0), "Error: the reviewer did not approve this call, so it was not run: not now");

  ProcessResult edit = shell("e\\n{\"expression\": \"6*7\"}\\n");
  EXPECT_EQ(edit.exit_code, 0) << edit.err;
  EXPECT_THAT(LastToolResults(mock).at(0), HasSubstr("42"));

  ProcessResult later = shell("");
  EXPECT_EQ(later.exit_code, 3) << later.err;
  EXPECT_THAT(later.err, HasSubstr("Left for later."));
}

TEST(ApprovalCliTest, RulesThatCannotBeKeptAreRefusedBeforeAnythingRuns) {
  MockLlmProcess mock(Script());
  ASSERT_TRUE(mock.ok());
  TempDir dir;
  const std::string store = dir.File("runs.sqlite");
  auto run = [&](std::vector<std::string> flags) {
    std::vector<std::string> argv = {MEDREACT_BINARY, "chat", "--llm-url", mock.base_url(),
                                     "--model",       "mock", "--tools",   "util"};
    argv.insert(argv.end(), flags.begin(), flags.end());
    argv.push_back("What is 17*23?");
    return RunCommand(argv);
  };
  ProcessResult typo = run({"--store", store, "--require-approval", "calculater"});
  EXPECT_EQ(typo.exit_code, 2);
  EXPECT_THAT(typo.err, HasSubstr("approval rule 'calculater' names no tool of this run"));
  ProcessResult pack = run({"--store", store, "--require-approval", "pack:nope"});
  EXPECT_EQ(pack.exit_code, 2);
  EXPECT_THAT(pack.err, HasSubstr("names no pack"));
  ProcessResult no_store = run({"--no-store", "--require-approval", "all", "--approval-prompt", "never"});
  EXPECT_EQ(no_store.exit_code, 2);
  EXPECT_THAT(no_store.err, HasSubstr("need a run store"));
  dir.Write("rules.json", R"({"require_approval": "all"})");
  ProcessResult file = run({"--store", store, "--approval-file", dir.File("rules.json")});
  EXPECT_EQ(file.exit_code, 2);
  EXPECT_THAT(file.err, HasSubstr("require_approval"));
  EXPECT_TRUE(mock.request_lines().empty());

  // A good file works like the flag.
  dir.Write("rules.json", R"({"require_approval": ["pack:util"]})");
  ProcessResult ok = run({"--store", store, "--approval-file", dir.File("rules.json"), "--approval-prompt", "never"});
  EXPECT_EQ(ok.exit_code, 3) << ok.err;
}

// Seed 000's clarifying question, in `chat`: the model asks, the user answers
// on stdin, and the next turn carries the whole conversation; an empty line
// ends it. Each turn is a run of its own in the store.
TEST(ChatConversationTest, TheModelsClarifyingQuestionIsAnsweredOnTheNextTurn) {
  MockLlmProcess mock(R"({"responses": [
      {"message": {"content": "Which patient do you mean: bed 3 or bed 4?"}},
      {"message": {"content": "The patient in bed 3 weighs 70 kg."}}]})");
  ASSERT_TRUE(mock.ok());
  TempDir dir;
  const std::string store = dir.File("runs.sqlite");
  std::string cmd = "printf 'bed 3\\n\\n' | '" + std::string(MEDREACT_BINARY) + "' chat --llm-url '" +
                    mock.base_url() + "' --model mock --tools util --store '" + store +
                    "' --interactive 'What does the patient weigh?'";
  ProcessResult talk = RunCommand({"/bin/sh", "-c", cmd});
  ASSERT_EQ(talk.exit_code, 0) << talk.err;
  EXPECT_EQ(talk.out, "Which patient do you mean: bed 3 or bed 4?\nThe patient in bed 3 weighs 70 kg.\n");
  const std::vector<std::string> lines = mock.request_lines();
  ASSERT_EQ(lines.size(), 2u);
  const Json second = ParseJson(lines[1]).value()["body"]["messages"];
  std::vector<std::string> said;
  for (const Json& m : second) said.push_back(StringOr(m, "role") + ": " + StringOr(m, "content"));
  ASSERT_GE(said.size(), 4u);
  EXPECT_EQ(said[said.size() - 3], "user: What does the patient weigh?");
  EXPECT_EQ(said[said.size() - 2], "assistant: Which patient do you mean: bed 3 or bed 4?");
  EXPECT_EQ(said[said.size() - 1], "user: bed 3");
  ProcessResult list = RunCommand({MEDREACT_BINARY, "runs", "list", "--json", "--store", store});
  EXPECT_EQ(ParseJson(list.out).value().size(), 2u);
}

}  // namespace
}  // namespace medreact

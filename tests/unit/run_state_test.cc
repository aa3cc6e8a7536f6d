// RunState and Agent::Resume: a run resumed from any of its checkpoints
// (after every step and after every finished tool call), through JSON and
// back, ends exactly as the uninterrupted run did, and never runs a finished
// tool call twice.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "medreact/agent.h"
#include "medreact/run_state.h"
#include "testing/fake_model.h"

namespace medreact {
namespace {

// A model whose reply depends only on the conversation it is sent (the number
// of assistant turns in it), so a resumed run meets the same replies as the
// uninterrupted one. Every reply has fixed call ids and usage.
class TurnScriptedModel : public ChatModel {
 public:
  explicit TurnScriptedModel(std::vector<ModelResponse> turns) : turns_(std::move(turns)) {}
  Result<ModelResponse> Complete(const ModelRequest& request, const ModelCallContext&) override {
    size_t turn = 0;
    for (const Message& m : request.messages) turn += m.role == Role::kAssistant ? 1 : 0;
    if (turn >= turns_.size()) return Status::Unavailable("script exhausted at turn " + std::to_string(turn));
    ModelResponse r = turns_[turn];
    if (request.tools.empty()) r.message.tool_calls.clear();  // fallback synthesis offers none
    return r;
  }
  std::string name() const override { return "turn-scripted"; }
  std::string protocol() const override { return "scripted"; }

 private:
  std::vector<ModelResponse> turns_;
};

ModelResponse Calls(std::vector<ToolCall> calls, std::string text = "") {
  ModelResponse r;
  r.message = Message::Assistant(std::move(text), std::move(calls));
  r.usage = {10, 5, 15};
  return r;
}
ModelResponse Text(std::string text) { return Calls({}, std::move(text)); }
ModelResponse Garbage() {
  ModelResponse r = Text("I think... maybe?");
  r.parse_error = "neither a TOOL_CALL nor a FINAL_ANSWER line";
  return r;
}

struct Counters {
  std::atomic<int> runs{0};
};

std::shared_ptr<ToolRegistry> Tools(std::shared_ptr<Counters> counters) {
  auto registry = std::make_shared<ToolRegistry>();
  Json params = Json::parse(R"({"type":"object","properties":{"a":{"type":"integer"},"b":{"type":"integer"}},
                              "required":["a","b"]})");
  EXPECT_TRUE(registry
                  ->Register(MakeFunctionTool({"add", "adds", params},
                                              [counters](const Json& args, const ToolContext&) {
                                                ++counters->runs;
                                                return ToolResult::OkJson(
                                                    {{"sum", args["a"].get<int>() + args["b"].get<int>()}});
                                              }))
                  .ok());
  EXPECT_TRUE(registry
                  ->Register(MakeFunctionTool({"fails", "always fails"}, [counters](const Json&, const ToolContext&) {
                    ++counters->runs;
                    return ToolResult::Error("no such record");
                  }))
                  .ok());
  EXPECT_TRUE(RegisterFinishTools(*registry).ok());
  return registry;
}

ToolCall Add(std::string id, int a, int b) {
  return {std::move(id), "add", "{\"a\":" + std::to_string(a) + ",\"b\":" + std::to_string(b) + "}"};
}

// What must be equal between the uninterrupted and the resumed run: all but timings.
Json Comparable(const RunResult& r) {
  Json steps = Json::array();
  for (const StepRecord& s : r.trace.steps) {
    Json results = Json::array();
    for (const ToolResultRecord& t : s.tool_results) {
      results.push_back({t.tool_call_id, t.name, t.ok, t.content, t.error});
    }
    steps.push_back({{"index", s.index}, {"kind", s.kind}, {"assistant", MessageToStateJson(s.assistant)},
                     {"results", results}, {"notes", s.notes}, {"usage", ToJson(s.usage)},
                     {"parse_error", s.parse_error}, {"model_error", s.model_error}});
  }
  Json messages = Json::array();
  for (const Message& m : r.messages) messages.push_back(MessageToStateJson(m));
  return Json{{"status", RunStatusName(r.status)}, {"answer", r.answer},   {"error", r.error},
              {"final_fields", r.final_fields},      {"steps", r.steps},   {"tool_calls", r.tool_calls},
              {"usage", ToJson(r.usage)},            {"trace_steps", steps}, {"messages", messages},
              {"trace_status", r.trace.status},      {"trace_input", r.trace.input}};
}

struct Scenario {
  std::string name;
  std::vector<ModelResponse> turns;
  AgentOptions options;
};

void CheckEveryResumeEqualsTheRun(const Scenario& scenario) {
  SCOPED_TRACE(scenario.name);
  auto counters = std::make_shared<Counters>();
  std::vector<RunState> checkpoints;
  AgentOptions options = scenario.options;
  options.on_checkpoint = [&](const RunState& s) { checkpoints.push_back(s); };
  Agent agent(std::make_shared<TurnScriptedModel>(scenario.turns), Tools(counters), options);
  const RunResult whole = agent.Run({.message = "add things up"});
  const Json expected = Comparable(whole);
  const int tool_runs = counters->runs.load();
  ASSERT_GE(checkpoints.size(), 3u);

  for (size_t k = 0; k < checkpoints.size(); ++k) {
    SCOPED_TRACE("checkpoint " + std::to_string(k) + " (step " + std::to_string(checkpoints[k].step) + ", " +
                 (checkpoints[k].phase == RunState::Phase::kInTurn ? "in turn" : "between steps") + ")");
    // Through JSON text and back, as a store would keep it.
    Result<Json> text = ParseJson(DumpJson(ToJson(checkpoints[k])));
    ASSERT_TRUE(text.ok());
    Result<RunState> state = RunStateFromJson(*text);
    ASSERT_TRUE(state.ok()) << state.status().ToString();
    EXPECT_EQ(ToJson(*state), ToJson(checkpoints[k]));

    auto resumed_counters = std::make_shared<Counters>();
    AgentOptions plain = scenario.options;
    Agent again(std::make_shared<TurnScriptedModel>(scenario.turns), Tools(resumed_counters), plain);
    const RunResult resumed = again.Resume(*state);
    EXPECT_EQ(Comparable(resumed), expected);

    // Only the calls that had not finished at the checkpoint ran again.
    // (final_answer counts nothing; a call refused by the budget never ran.)
    auto ran = [](const ToolResultRecord& r) {
      return r.name != "final_answer" && r.error.find("budget") == std::string::npos;
    };
    int done_before = 0;
    for (const StepRecord& s : state->trace.steps) {
      for (const ToolResultRecord& r : s.tool_results) done_before += ran(r) ? 1 : 0;
    }
    for (const auto& [index, r] : state->turn_results) done_before += ran(r) ? 1 : 0;
    EXPECT_EQ(resumed_counters->runs.load(), tool_runs - done_before);
  }
}

TEST(RunStateTest, ResumingFromEveryCheckpointEndsAsTheRunDid) {
  Scenario s{"answers after calls, a bad reply, a failing tool and a loop nudge",
             {Calls({Add("a1", 1, 2), {"a2", "fails", "{}"}, Add("a3", 5, 5)}, "two sums and a lookup"),
              Garbage(),
              Calls({Add("b1", 3, 4)}),
              Calls({Add("c1", 3, 4)}),  // the same call again: the nudge (threshold 2)
              Text("The sums are 3, 10 and 7.")},
             {}};
  s.options.stuck_threshold = 2;
  s.options.max_parallel_tools = 1;  // results arrive in call order, so checkpoints are reproducible
  CheckEveryResumeEqualsTheRun(s);
}

TEST(RunStateTest, ResumingARunThatHitsItsStepLimitSynthesisesTheSameAnswer) {
  Scenario s{"max steps, then fallback synthesis",
             {Calls({Add("a1", 1, 1)}), Calls({Add("b1", 2, 2)}), Calls({Add("c1", 3, 3)}),
              Text("Best effort: 2, 4 and 6.")},
             {}};
  s.options.max_steps = 3;
  CheckEveryResumeEqualsTheRun(s);
}

TEST(RunStateTest, ResumingARunEndedByAFinishingToolOrABudgetKeepsItsEnd) {
  Scenario finish{"final_answer",
                  {Calls({Add("a1", 1, 2)}), Calls({{"f1", "final_answer", R"({"answer":"3"})"}})},
                  {}};
  CheckEveryResumeEqualsTheRun(finish);
  Scenario budget{"tool-call budget",
                  {Calls({Add("a1", 1, 2), Add("a2", 2, 3)}), Calls({Add("b1", 4, 4), Add("b2", 5, 5)}),
                   Text("partial")},
                  {}};
  budget.options.tool_call_budget = 3;
  budget.options.max_parallel_tools = 1;
  CheckEveryResumeEqualsTheRun(budget);
}

// Accepts only answers that say "final"; says why otherwise.
AnswerCheck SaysFinal(const std::string& answer, const Json&) {
  if (answer.find("final") != std::string::npos) return {};
  return {false, "The answer must say 'final'."};
}

TEST(RunStateTest, ResumingKeepsTheAnswerChecksCount) {
  Scenario s{"answers sent back by the answer check, by text and by finishing tool",
             {Calls({Add("a1", 1, 2)}), Text("3"), Calls({{"f1", "final_answer", R"({"answer":"three"})"}}),
              Text("final: 3")},
             {}};
  s.options.check_answer = SaysFinal;
  CheckEveryResumeEqualsTheRun(s);
}

TEST(AnswerCheckTest, RejectedAnswersGoBackUntilTheRetriesAreSpentThenTheLastOneStands) {
  auto counters = std::make_shared<Counters>();
  AgentOptions options;
  options.check_answer = SaysFinal;
  options.max_answer_retries = 1;
  std::vector<ModelResponse> turns = {Text("3"), Calls({{"f1", "final_answer", R"({"answer":"three"})"}}),
                                      Text("never reached")};
  Agent agent(std::make_shared<TurnScriptedModel>(turns), Tools(counters), options);
  RunResult r = agent.Run({.message = "add"});
  EXPECT_EQ(r.status, RunStatus::kFinished);
  EXPECT_EQ(r.steps, 2);
  EXPECT_EQ(r.answer, "three");  // the retry was spent on "3": this one stands, marked
  EXPECT_EQ(r.answers_checked, 2);
  EXPECT_FALSE(r.answer_accepted);
  EXPECT_EQ(r.answer_feedback, "The answer must say 'final'.");
  // The first answer went back as a user turn right after it.
  ASSERT_GE(r.messages.size(), 4u);
  EXPECT_EQ(r.messages[2].content, "3");
  EXPECT_EQ(r.messages[3].role, Role::kUser);
  EXPECT_EQ(r.messages[3].content, "The answer must say 'final'.");
}

TEST(AnswerCheckTest, AFinishingToolsRejectedAnswerIsItsErrorResultAndTheRunGoesOn) {
  auto counters = std::make_shared<Counters>();
  AgentOptions options;
  options.check_answer = SaysFinal;
  std::vector<ModelResponse> turns = {Calls({{"f1", "final_answer", R"({"answer":"three"})"}}), Text("final: 3")};
  Agent agent(std::make_shared<TurnScriptedModel>(turns), Tools(counters), options);
  RunResult r = agent.Run({.message = "add"});
  EXPECT_EQ(r.answer, "final: 3");
  EXPECT_TRUE(r.answer_accepted);
  ASSERT_EQ(r.trace.steps.size(), 2u);
  ASSERT_EQ(r.trace.steps[0].tool_results.size(), 1u);
  EXPECT_FALSE(r.trace.steps[0].tool_results[0].ok);
  EXPECT_EQ(r.messages[3].role, Role::kTool);
  EXPECT_EQ(r.messages[3].content, "Error: The answer must say 'final'.");
}

// A tool with a side effect (`send_order`, idempotent unless said otherwise
// by the test) and a lookup (`add`), each counting its runs.
std::shared_ptr<ToolRegistry> SideEffectTools(bool send_is_idempotent, std::shared_ptr<std::atomic<int>> sends,
                                              std::shared_ptr<std::atomic<int>> adds) {
  auto registry = std::make_shared<ToolRegistry>();
  EXPECT_TRUE(registry
                  ->Register(MakeFunctionTool({.name = "send_order", .description = "sends an order",
                                               .idempotent = send_is_idempotent},
                                              [sends](const Json&, const ToolContext&) {
                                                ++*sends;
                                                return ToolResult::Ok("sent");
                                              }))
                  .ok());
  EXPECT_TRUE(registry
                  ->Register(MakeFunctionTool({.name = "add", .description = "adds"},
                                              [adds](const Json&, const ToolContext&) {
                                                ++*adds;
                                                return ToolResult::Ok("3");
                                              }))
                  .ok());
  return registry;
}

TEST(RunStateTest, ANonIdempotentCallInFlightAtTheStopIsNotRunAgainAndTheModelIsTold) {
  // The run: one turn calling send_order then add, then an answer. Its
  // checkpoints include the turn's start (no result in yet) and the turn
  // after send_order's result (add in flight).
  auto sends = std::make_shared<std::atomic<int>>(0), adds = std::make_shared<std::atomic<int>>(0);
  auto first = std::make_shared<testing::FakeModel>();
  first->PushCalls({{"send_order", "{}"}, {"add", "{}"}});
  first->PushText("Ordered.");
  std::vector<RunState> checkpoints;
  AgentOptions options;
  options.max_parallel_tools = 1;  // results in call order
  options.on_checkpoint = [&](const RunState& s) { checkpoints.push_back(s); };
  Agent agent(first, SideEffectTools(false, sends, adds), options);
  ASSERT_EQ(agent.Run({.message = "order it"}).status, RunStatus::kFinished);
  ASSERT_EQ(sends->load(), 1);
  const RunState* turn_start = nullptr;
  const RunState* after_send = nullptr;
  for (const RunState& s : checkpoints) {
    if (s.phase != RunState::Phase::kInTurn) continue;
    if (s.turn_results.empty() && !turn_start) turn_start = &s;
    if (s.turn_results.size() == 1 && !after_send) after_send = &s;
  }
  ASSERT_TRUE(turn_start && after_send);
  ASSERT_EQ(checkpoints.front().step, 0);  // one before the first model call too
  ASSERT_EQ(checkpoints.front().phase, RunState::Phase::kBetweenSteps);

  auto resume = [&](const RunState& at, bool send_is_idempotent, std::shared_ptr<testing::FakeModel> model) {
    Result<RunState> state = RunStateFromJson(*ParseJson(DumpJson(ToJson(at))));  // as a store keeps it
    EXPECT_TRUE(state.ok());
    sends->store(0);
    adds->store(0);
    model->PushText("Ordered.");
    Agent again(model, SideEffectTools(send_is_idempotent, sends, adds), {.max_parallel_tools = 1});
    return again.Resume(*state);
  };

  // Stopped with both calls in flight: send_order is not run again, add is;
  // the model reads that the order may or may not have gone out.
  auto model = std::make_shared<testing::FakeModel>();
  RunResult r = resume(*turn_start, false, model);
  EXPECT_EQ(r.status, RunStatus::kFinished);
  EXPECT_EQ(sends->load(), 0);
  EXPECT_EQ(adds->load(), 1);
  ASSERT_EQ(r.trace.steps.size(), 2u);
  const ToolResultRecord& interrupted = r.trace.steps[0].tool_results[0];
  EXPECT_FALSE(interrupted.ok);
  EXPECT_EQ(interrupted.error,
            "this call was interrupted when the run stopped; it may or may not have taken effect — check before "
            "calling it again");
  EXPECT_TRUE(r.trace.steps[0].tool_results[1].ok);
  ASSERT_FALSE(r.trace.steps[0].notes.empty());
  EXPECT_NE(r.trace.steps[0].notes[0].find("not run again"), std::string::npos);
  const std::vector<ModelRequest> requests = model->requests();
  ASSERT_EQ(requests.size(), 1u);
  const std::vector<Message>& sent = requests[0].messages;
  bool told = false;
  for (const Message& m : sent) {
    told = told || (m.role == Role::kTool && m.content.rfind("Error: this call was interrupted", 0) == 0);
  }
  EXPECT_TRUE(told);
  EXPECT_TRUE(model->history_errors().empty());

  // Stopped after send_order finished: it is not run again either way; add is.
  r = resume(*after_send, false, std::make_shared<testing::FakeModel>());
  EXPECT_EQ(sends->load(), 0);
  EXPECT_EQ(adds->load(), 1);
  EXPECT_TRUE(r.trace.steps[0].tool_results[0].ok);

  // An idempotent tool in flight is simply run again.
  r = resume(*turn_start, true, std::make_shared<testing::FakeModel>());
  EXPECT_EQ(sends->load(), 1);
  EXPECT_EQ(adds->load(), 1);
  EXPECT_TRUE(r.trace.steps[0].tool_results[0].ok);
}

// A stop (Ctrl-C, RunService::Cancel) while a turn's calls are in flight:
// the call that finished is kept, the one the stop cut short is not a result
// (no checkpoint holds its "cancelled" record, the step does not end), so a
// resume runs it and only it, and the run ends as an uninterrupted one.
TEST(RunStateTest, ACallCutShortByAStopRunsAgainOnResumeAndAFinishedOneDoesNot) {
  auto quick_runs = std::make_shared<std::atomic<int>>(0), slow_runs = std::make_shared<std::atomic<int>>(0);
  auto resumed = std::make_shared<std::atomic<bool>>(false);
  auto tools = [&] {
    auto registry = std::make_shared<ToolRegistry>();
    EXPECT_TRUE(registry->Register(MakeFunctionTool({"quick", "answers at once"}, [quick_runs](const Json&,
                                                                                            const ToolContext&) {
                  ++*quick_runs;
                  return ToolResult::Ok("1");
                })).ok());
    // Waits for the stop (the first run; under load the stop may come before
    // it even starts, and it is then not run at all) or answers at once (the
    // resume, where it is counted).
    EXPECT_TRUE(registry->Register(MakeFunctionTool({"slow", "waits"}, [slow_runs, resumed](const Json&,
                                                                                           const ToolContext& ctx) {
                  if (!*resumed) {
                    ctx.cancel.WaitFor(Millis(30000));
                  } else {
                    ++*slow_runs;
                  }
                  return ToolResult::Ok("2");
                })).ok());
    return registry;
  };
  auto first = std::make_shared<testing::FakeModel>();
  first->PushCalls({{"quick", "{}"}, {"slow", "{}"}});
  std::vector<RunState> checkpoints;
  CancellationToken stop;
  AgentOptions options;
  options.max_parallel_tools = 2;
  options.cancel = stop;
  options.on_checkpoint = [&](const RunState& s) { checkpoints.push_back(s); };
  options.on_event = [&](const Event& e) {
    if (e.type == EventType::kToolFinished && e.tool_name == "quick") stop.Cancel();
  };
  const RunResult cut = Agent(first, tools(), options).Run({.message = "both"});
  EXPECT_EQ(cut.status, RunStatus::kError);
  EXPECT_EQ(quick_runs->load(), 1);
  ASSERT_EQ(cut.trace.steps.size(), 1u);  // the cut step, shown as it was cut
  EXPECT_FALSE(cut.trace.steps[0].tool_results[1].ok);
  EXPECT_NE(cut.trace.steps[0].notes[0].find("cut short"), std::string::npos);
  ASSERT_FALSE(checkpoints.empty());
  const RunState& last = checkpoints.back();
  ASSERT_EQ(last.phase, RunState::Phase::kInTurn);  // the step did not end
  ASSERT_EQ(last.turn_results.size(), 1u);          // quick's result only
  EXPECT_EQ(last.turn_results.begin()->second.name, "quick");
  for (const RunState& s : checkpoints) {
    for (const auto& [index, r] : s.turn_results) EXPECT_TRUE(r.ok) << "a cut call was checkpointed";
  }

  Result<RunState> state = RunStateFromJson(*ParseJson(DumpJson(ToJson(last))));  // as a store keeps it
  ASSERT_TRUE(state.ok());
  auto model = std::make_shared<testing::FakeModel>();
  model->PushText("Both done.");
  *resumed = true;
  const RunResult done = Agent(model, tools(), {.max_parallel_tools = 2}).Resume(*state);
  EXPECT_EQ(done.status, RunStatus::kFinished);
  EXPECT_EQ(done.answer, "Both done.");
  EXPECT_EQ(quick_runs->load(), 1);  // not run again
  EXPECT_EQ(slow_runs->load(), 1);   // run on resume: the stop had cut it
  ASSERT_EQ(done.trace.steps.size(), 2u);
  EXPECT_TRUE(done.trace.steps[0].tool_results[0].ok);
  EXPECT_TRUE(done.trace.steps[0].tool_results[1].ok);
}

TEST(RunStateTest, ABrokenStateIsRefusedNamingTheField) {
  auto problem = [](Json j) {
    Result<RunState> s = RunStateFromJson(j);
    EXPECT_FALSE(s.ok());
    return s.ok() ? std::string() : s.status().message();
  };
  RunState good;
  good.messages = {Message::System("s"), Message::User("u")};
  Json j = ToJson(good);
  ASSERT_TRUE(RunStateFromJson(j).ok());
  Json v = j;
  v["version"] = 99;
  EXPECT_NE(problem(v).find("version 99"), std::string::npos);
  v = j;
  v["messages"][1]["role"] = "robot";
  EXPECT_NE(problem(v).find("role"), std::string::npos);
  v = j;
  v["step"] = -1;
  EXPECT_NE(problem(v).find("'step'"), std::string::npos);
  v = j;
  v["phase"] = "in_turn";
  v["turn_results"] = {{"3", {{"tool_call_id", "x"}, {"name", "add"}, {"ok", true}}}};
  EXPECT_NE(problem(v).find("turn_results.3"), std::string::npos);
  EXPECT_NE(problem(Json::array()).find("object"), std::string::npos);
}

}  // namespace
}  // namespace medreact

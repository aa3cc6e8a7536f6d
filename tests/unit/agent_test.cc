// The agent loop against an in-process FakeModel: the six invariants of
// ARCHITECTURE.md, loop detection, every limit with fallback synthesis, and
// the finishing tools. FakeModel checks on every request that the history is
// valid (each call answered once, in order), so every test also checks
// invariants 1 and 5.
#include "medreact/agent.h"

#include <gtest/gtest.h>

#include <atomic>
#include <condition_variable>
#include <thread>

#include "llm/window.h"
#include "testing/fake_model.h"

namespace medreact {
namespace {

using testing::FakeModel;

ToolSpec Spec(std::string name, Json params = Json{{"type", "object"}, {"properties", Json::object()}}) {
  return ToolSpec{std::move(name), "test tool", std::move(params)};
}

Json EchoParams() {
  return Json::parse(R"({"type":"object","properties":{"x":{"type":"integer"}},"required":["x"],
                        "additionalProperties":false})");
}

class AgentTest : public ::testing::Test {
 protected:
  void SetUp() override {
    registry_ = std::make_shared<ToolRegistry>();
    ASSERT_TRUE(registry_
                    ->Register(MakeFunctionTool(Spec("echo", EchoParams()),
                                                [](const Json& a, const ToolContext&) {
                                                  return ToolResult::OkJson(Json{{"x", a["x"]}});
                                                }))
                    .ok());
    ASSERT_TRUE(registry_
                    ->Register(MakeFunctionTool(Spec("fails"),
                                                [](const Json&, const ToolContext&) {
                                                  return ToolResult::Error("no data for this patient");
                                                }))
                    .ok());
    ASSERT_TRUE(registry_
                    ->Register(MakeFunctionTool(Spec("throws"),
                                                [](const Json&, const ToolContext&) -> ToolResult {
                                                  throw std::runtime_error("boom");
                                                }))
                    .ok());
    ASSERT_TRUE(RegisterFinishTools(*registry_).ok());
    model_ = std::make_shared<FakeModel>();
  }

  // A tool that ignores its deadline and cancellation: the worst case the
  // engine must handle. (A cooperative tool that returns in time would win
  // the race against the timeout, and its result would rightly count.)
  void AddSleepyTool(const std::string& name, Millis how_long) {
    ASSERT_TRUE(registry_
                    ->Register(MakeFunctionTool(Spec(name),
                                                [how_long](const Json&, const ToolContext&) {
                                                  std::this_thread::sleep_for(how_long);
                                                  return ToolResult::Ok("slept");
                                                }))
                    .ok());
  }

  RunResult Run(AgentOptions options = {}, std::string message = "question") {
    Agent agent(model_, registry_, std::move(options));
    RunResult r = agent.Run({.message = std::move(message)});
    EXPECT_TRUE(model_->history_errors().empty()) << model_->history_errors().front();
    EXPECT_FALSE(r.answer.empty());
    EXPECT_EQ(r.trace.status, RunStatusName(r.status));
    return r;
  }

  std::shared_ptr<ToolRegistry> registry_;
  std::shared_ptr<FakeModel> model_;
};

TEST_F(AgentTest, AnswersDirectlyWithoutTools) {
  model_->PushText("42");
  RunResult r = Run();
  EXPECT_EQ(r.status, RunStatus::kFinished);
  EXPECT_EQ(r.answer, "42");
  EXPECT_EQ(r.steps, 1);
  ASSERT_EQ(model_->requests().size(), 1u);
  EXPECT_EQ(model_->requests()[0].tools.size(), registry_->size());
  EXPECT_EQ(model_->requests()[0].tool_choice, "auto");
}

TEST_F(AgentTest, ToolResultGoesBackToTheModel) {
  model_->PushCalls({{"echo", R"({"x": 7})"}});
  model_->PushText("done");
  RunResult r = Run();
  ASSERT_EQ(r.status, RunStatus::kFinished);
  auto second = model_->requests()[1].messages;
  ASSERT_GE(second.size(), 4u);
  EXPECT_EQ(second[second.size() - 1].role, Role::kTool);
  EXPECT_EQ(second.back().content, R"({"x":7})");
  EXPECT_EQ(second.back().tool_call_id, second[second.size() - 2].tool_calls[0].id);
}

// The history only grows, so the run names it as one conversation (a client
// keeps its serialised prefix); a windowed history is not one.
TEST_F(AgentTest, RequestsNameTheRunsAppendOnlyConversation) {
  model_->PushCalls({{"echo", R"({"x": 1})"}});
  model_->PushText("done");
  (void)Run();
  std::vector<ModelRequest> requests = model_->requests();
  ASSERT_EQ(requests.size(), 2u);
  EXPECT_NE(requests[0].conversation_id, 0u);
  EXPECT_EQ(requests[0].conversation_id, requests[1].conversation_id);
  for (size_t i = 0; i < requests[0].messages.size(); ++i) {
    EXPECT_EQ(requests[1].messages[i].content, requests[0].messages[i].content) << i;
  }
  const uint64_t first_run = requests[0].conversation_id;

  model_ = std::make_shared<FakeModel>();
  model_->PushText("again");
  (void)Run();
  EXPECT_NE(model_->requests()[0].conversation_id, first_run);  // one per run

  model_ = std::make_shared<FakeModel>();
  model_->PushText("windowed");
  (void)Run({.max_history_messages = 4});
  EXPECT_EQ(model_->requests()[0].conversation_id, 0u);
}

// Invariant 1: every call gets exactly one result, in order, whatever happened.
TEST_F(AgentTest, EveryCallGetsExactlyOneResultInOrder) {
  AddSleepyTool("hangs", Millis(5000));
  model_->PushCalls({{"nope", "{}"},
                     {"echo", "{not json"},
                     {"echo", R"({"x": "seven"})"},
                     {"fails", "{}"},
                     {"throws", "{}"},
                     {"hangs", "{}"},
                     {"echo", R"({"x": 1})"}});
  model_->PushText("ok");
  AgentOptions options;
  options.tool_timeout = Millis(500);
  RunResult r = Run(options);
  ASSERT_EQ(r.status, RunStatus::kFinished);
  const auto& results = r.trace.steps[0].tool_results;
  ASSERT_EQ(results.size(), 7u);
  const auto& calls = r.trace.steps[0].assistant.tool_calls;
  for (size_t i = 0; i < results.size(); ++i) EXPECT_EQ(results[i].tool_call_id, calls[i].id);
  EXPECT_NE(results[0].error.find("Unknown tool 'nope'"), std::string::npos) << results[0].error;
  EXPECT_NE(results[0].error.find("echo"), std::string::npos);  // names the valid tools
  EXPECT_NE(results[1].error.find("not valid JSON"), std::string::npos) << results[1].error;
  EXPECT_NE(results[2].error.find("/x"), std::string::npos) << results[2].error;
  EXPECT_EQ(results[3].error, "no data for this patient");
  EXPECT_NE(results[4].error.find("boom"), std::string::npos);
  EXPECT_NE(results[5].error.find("time limit"), std::string::npos) << results[5].error;
  EXPECT_TRUE(results[6].ok);
  // The model saw each error as "Error: ..." in the tool message.
  auto msgs = model_->requests()[1].messages;
  EXPECT_EQ(msgs[msgs.size() - 7].content.rfind("Error: Unknown tool", 0), 0u);
}

// Invariant 4: calls of one turn run concurrently; results stay in call order.
TEST_F(AgentTest, CallsOfOneTurnRunConcurrently) {
  std::mutex mu;
  std::condition_variable cv;
  bool second_started = false;
  // "first" only returns once "second" has started: serial execution would
  // time out ("first" would wait for a tool that never starts).
  ASSERT_TRUE(registry_
                  ->Register(MakeFunctionTool(Spec("first"),
                                              [&](const Json&, const ToolContext&) {
                                                std::unique_lock<std::mutex> lock(mu);
                                                bool ok = cv.wait_for(lock, std::chrono::seconds(5),
                                                                      [&] { return second_started; });
                                                return ok ? ToolResult::Ok("first saw second")
                                                          : ToolResult::Error("ran alone");
                                              }))
                  .ok());
  ASSERT_TRUE(registry_
                  ->Register(MakeFunctionTool(Spec("second"),
                                              [&](const Json&, const ToolContext&) {
                                                {
                                                  std::lock_guard<std::mutex> lock(mu);
                                                  second_started = true;
                                                }
                                                cv.notify_all();
                                                return ToolResult::Ok("second");
                                              }))
                  .ok());
  model_->PushCalls({{"first", "{}"}, {"second", "{}"}});
  model_->PushText("ok");
  RunResult r = Run();
  const auto& results = r.trace.steps[0].tool_results;
  ASSERT_EQ(results.size(), 2u);
  EXPECT_EQ(results[0].name, "first");
  EXPECT_EQ(results[0].content, "first saw second");
  EXPECT_EQ(results[1].name, "second");
}

TEST_F(AgentTest, PoolOfOneStillAnswersEveryCall) {
  model_->PushCalls({{"echo", R"({"x":1})"}, {"echo", R"({"x":2})"}, {"echo", R"({"x":3})"}});
  model_->PushText("ok");
  AgentOptions options;
  options.max_parallel_tools = 1;
  RunResult r = Run(options);
  ASSERT_EQ(r.trace.steps[0].tool_results.size(), 3u);
  EXPECT_EQ(r.trace.steps[0].tool_results[2].content, R"({"x":3})");
}

// Invariant 2: bad model output is an observation, never a crash.
TEST_F(AgentTest, BadModelOutputBecomesAnErrorTurn) {
  model_->PushParseError("I think I will call the tool", "No TOOL_CALL or FINAL_ANSWER found.");
  model_->PushText("final");
  RunResult r = Run();
  ASSERT_EQ(r.status, RunStatus::kFinished);
  EXPECT_EQ(r.answer, "final");
  auto msgs = model_->requests()[1].messages;
  EXPECT_EQ(msgs[msgs.size() - 2].role, Role::kAssistant);
  EXPECT_EQ(msgs.back().role, Role::kUser);
  EXPECT_NE(msgs.back().content.find("No TOOL_CALL or FINAL_ANSWER found."), std::string::npos);
  EXPECT_EQ(r.trace.steps[0].parse_error, "No TOOL_CALL or FINAL_ANSWER found.");
}

TEST_F(AgentTest, EmptyRepliesRepeatedEndStuckWithAnAnswer) {
  model_->SetDefault([](const ModelRequest& req, const ModelCallContext&) -> Result<ModelResponse> {
    ModelResponse r;
    r.message = Message::Assistant("");
    if (!req.tools.empty()) r.parse_error = "The model returned an empty reply.";
    return r;
  });
  RunResult r = Run();
  EXPECT_EQ(r.status, RunStatus::kStuck);
  // The fallback also returned nothing: the engine writes the answer itself.
  EXPECT_NE(r.answer.find("stuck"), std::string::npos) << r.answer;
}

TEST_F(AgentTest, MissingAndDuplicateIdsAreMinted) {
  model_->Push([](const ModelRequest&, const ModelCallContext&) -> Result<ModelResponse> {
    ModelResponse r;
    r.message = Message::Assistant("", {{"", "echo", R"({"x":1})"}, {"same", "echo", R"({"x":2})"},
                                        {"same", "echo", R"({"x":3})"}});
    return r;
  });
  model_->PushText("ok");
  RunResult r = Run();
  const auto& calls = r.trace.steps[0].assistant.tool_calls;
  ASSERT_EQ(calls.size(), 3u);
  EXPECT_FALSE(calls[0].id.empty());
  EXPECT_EQ(calls[1].id, "same");
  EXPECT_NE(calls[2].id, "same");
}

// Invariant 3 and the limits: each ends with a status and an answer, after
// one tool-less fallback call.
TEST_F(AgentTest, MaxStepsEndsWithFallbackSynthesis) {
  for (int i = 0; i < 3; ++i) model_->PushCalls({{"echo", "{\"x\":" + std::to_string(i) + "}"}});
  model_->PushText("best effort answer");
  AgentOptions options;
  options.max_steps = 3;
  RunResult r = Run(options);
  EXPECT_EQ(r.status, RunStatus::kMaxSteps);
  EXPECT_EQ(r.answer, "best effort answer");
  auto reqs = model_->requests();
  ASSERT_EQ(reqs.size(), 4u);
  EXPECT_TRUE(reqs[3].tools.empty());
  EXPECT_EQ(reqs[3].tool_choice, "");
  EXPECT_NE(reqs[3].messages.back().content.find("step limit"), std::string::npos);
  EXPECT_EQ(r.trace.steps.back().kind, "fallback");
}

TEST_F(AgentTest, NoFallbackWhenDisabled) {
  model_->SetDefault([](const ModelRequest&, const ModelCallContext&) -> Result<ModelResponse> {
    ModelResponse r;
    r.message = Message::Assistant("", {{"", "echo", R"({"x":1})"}});
    return r;
  });
  AgentOptions options;
  options.max_steps = 2;
  options.stuck_threshold = 10;
  options.fallback_synthesis = false;
  RunResult r = Run(options);
  EXPECT_EQ(r.status, RunStatus::kMaxSteps);
  EXPECT_EQ(model_->requests().size(), 2u);
  EXPECT_NE(r.answer.find("echo (ok)"), std::string::npos) << r.answer;
}

TEST_F(AgentTest, LoopDetectionNudgesThenStops) {
  model_->SetDefault([](const ModelRequest& req, const ModelCallContext&) -> Result<ModelResponse> {
    ModelResponse r;
    if (req.tools.empty()) {
      r.message = Message::Assistant("synthesised");
    } else {
      // Same call, arguments in a different key order each time: still the same call.
      r.message = Message::Assistant("", {{"", "echo", req.messages.size() % 2 ? R"({"x":5})" : R"({ "x" : 5 })"}});
    }
    return r;
  });
  AgentOptions options;
  options.stuck_threshold = 3;
  RunResult r = Run(options);
  EXPECT_EQ(r.status, RunStatus::kStuck);
  EXPECT_EQ(r.answer, "synthesised");
  EXPECT_EQ(r.steps, 4);  // 3 repeats → nudge; the 4th → stuck
  bool nudged = false;
  const auto requests = model_->requests();
  for (const auto& m : requests[3].messages) {
    if (m.role == Role::kUser && m.content.find("You have repeated") != std::string::npos) nudged = true;
  }
  EXPECT_TRUE(nudged);
}

TEST_F(AgentTest, DifferentCallsAreNotALoop) {
  for (int i = 0; i < 6; ++i) model_->PushCalls({{"echo", "{\"x\":" + std::to_string(i) + "}"}});
  model_->PushText("fine");
  RunResult r = Run();
  EXPECT_EQ(r.status, RunStatus::kFinished);
}

TEST_F(AgentTest, TokenBudget) {
  model_->PushCalls({{"echo", R"({"x":1})"}}, "", Usage{60, 40, 100});
  model_->PushCalls({{"echo", R"({"x":2})"}}, "", Usage{80, 40, 120});
  model_->PushText("from budget", Usage{10, 5, 15});
  AgentOptions options;
  options.token_budget = 200;
  RunResult r = Run(options);
  EXPECT_EQ(r.status, RunStatus::kBudget);
  EXPECT_EQ(r.answer, "from budget");
  EXPECT_EQ(r.usage.total_tokens, 235);
  EXPECT_EQ(r.steps, 2);
}

TEST_F(AgentTest, ToolCallBudgetAnswersCallsBeyondIt) {
  model_->PushCalls({{"echo", R"({"x":1})"}, {"echo", R"({"x":2})"}, {"echo", R"({"x":3})"}});
  model_->PushText("summary");
  AgentOptions options;
  options.tool_call_budget = 2;
  RunResult r = Run(options);
  EXPECT_EQ(r.status, RunStatus::kBudget);
  EXPECT_EQ(r.tool_calls, 2);
  const auto& results = r.trace.steps[0].tool_results;
  ASSERT_EQ(results.size(), 3u);
  EXPECT_TRUE(results[1].ok);
  EXPECT_FALSE(results[2].ok);
  EXPECT_NE(results[2].error.find("budget"), std::string::npos);
}

TEST_F(AgentTest, TimeoutStopsTheRunAndSynthesises) {
  AddSleepyTool("slow", Millis(5000));
  model_->PushCalls({{"slow", "{}"}});
  model_->PushText("what I know");
  AgentOptions options;
  options.timeout = Millis(200);
  RunResult r = Run(options);
  EXPECT_EQ(r.status, RunStatus::kTimeout);
  EXPECT_EQ(r.answer, "what I know");
  EXPECT_FALSE(r.trace.steps[0].tool_results[0].ok);
}

TEST_F(AgentTest, ModelFailureEndsWithErrorAndNoFallback) {
  model_->PushCalls({{"echo", R"({"x":1})"}});
  model_->PushError(Status::Unavailable("connection refused after 5 attempts"));
  RunResult r = Run();
  EXPECT_EQ(r.status, RunStatus::kError);
  EXPECT_EQ(model_->requests().size(), 2u);
  EXPECT_NE(r.error.find("connection refused"), std::string::npos);
  EXPECT_NE(r.answer.find("echo (ok)"), std::string::npos);
  EXPECT_EQ(r.trace.steps.back().model_error, "Unavailable: connection refused after 5 attempts");
}

TEST_F(AgentTest, ModelCallCutAtTheRunDeadlineIsATimeout) {
  // Like a real client: the last attempt gives up just before the deadline.
  model_->Push([](const ModelRequest&, const ModelCallContext& ctx) -> Result<ModelResponse> {
    std::this_thread::sleep_for(ctx.deadline.remaining() - Millis(30));
    return Status::Timeout("request timed out");
  });
  AgentOptions options;
  options.timeout = Millis(300);
  RunResult r = Run(options);
  EXPECT_EQ(r.status, RunStatus::kTimeout);
}

TEST_F(AgentTest, CancelFromAnotherThread) {
  AddSleepyTool("slow", Millis(10000));
  model_->SetDefault([](const ModelRequest&, const ModelCallContext&) -> Result<ModelResponse> {
    ModelResponse r;
    r.message = Message::Assistant("", {{"", "slow", "{}"}});
    return r;
  });
  Agent agent(model_, registry_, {});
  std::thread canceller([&] {
    std::this_thread::sleep_for(Millis(100));
    agent.Cancel();
  });
  RunResult r = agent.Run({.message = "q"});
  canceller.join();
  EXPECT_EQ(r.status, RunStatus::kError);
  EXPECT_NE(r.trace.steps[0].tool_results[0].error.find("cancelled"), std::string::npos);
  EXPECT_EQ(agent.state(), AgentState::kError);
}

TEST_F(AgentTest, FinishToolEndsTheRunWithItsAnswer) {
  model_->PushCalls({{"echo", R"({"x":1})"}, {"final_answer", R"({"answer":"forty-two"})"}});
  RunResult r = Run();
  EXPECT_EQ(r.status, RunStatus::kFinished);
  EXPECT_EQ(r.answer, "forty-two");
  EXPECT_EQ(r.final_fields["answer"], "forty-two");
  EXPECT_EQ(model_->requests().size(), 1u);
  // Both calls still have their results in the conversation.
  ASSERT_GE(r.messages.size(), 2u);
  EXPECT_EQ(r.messages.back().role, Role::kTool);
}

TEST_F(AgentTest, SeedFourTerminateAndAnswerEndsTheRunKeepingConfidenceAndReasoning) {
  model_->PushCalls({{"terminate_and_answer", R"({"answer":"4","confidence":"high","reasoning":"Simple arithmetic"})"}});
  RunResult r = Run();
  EXPECT_EQ(r.status, RunStatus::kFinished);
  EXPECT_EQ(r.answer, "4");
  EXPECT_EQ(r.final_fields["confidence"], "high");
  EXPECT_EQ(r.final_fields["reasoning"], "Simple arithmetic");
}

TEST_F(AgentTest, InvalidFinishCallDoesNotFinish) {
  model_->PushCalls({{"final_answer", R"({"text":"wrong field"})"}});
  model_->PushText("plain answer");
  RunResult r = Run();
  EXPECT_EQ(r.answer, "plain answer");
  EXPECT_FALSE(r.trace.steps[0].tool_results[0].ok);
}

TEST_F(AgentTest, RunsOnlyOnce) {
  model_->PushText("a");
  Agent agent(model_, registry_, {});
  EXPECT_EQ(agent.Run({.message = "q"}).status, RunStatus::kFinished);
  EXPECT_EQ(agent.state(), AgentState::kFinished);
  RunResult again = agent.Run({.message = "q"});
  EXPECT_EQ(again.status, RunStatus::kError);
  EXPECT_FALSE(again.answer.empty());
}

// Invariant 6: nothing the user gave is lost.
TEST_F(AgentTest, TraceHoldsInputStepsAndResult) {
  model_->PushCalls({{"echo", R"({"x":3})"}}, "checking");
  model_->PushText("three");
  AgentOptions options;
  options.system_prompt = "You are a test.";
  Agent agent(model_, registry_, options);
  RunRequest request{.message = "what is x?",
                     .images = {{ContentPart::Kind::kImage, "", "data:image/png;base64,AAAA"}},
                     .history = {Message::User("earlier"), Message::Assistant("reply")}};
  RunResult r = agent.Run(request);
  Json t = ToJson(r.trace);
  EXPECT_EQ(t["status"], "finished");
  EXPECT_EQ(t["answer"], "three");
  EXPECT_EQ(t["input"]["message"], "what is x?");
  EXPECT_EQ(t["input"]["images"][0], "data:image/png;base64 (4 bytes)");  // the size, never the pixels
  EXPECT_EQ(t["input"]["history"].size(), 2u);
  EXPECT_EQ(t["input"]["system_prompt"], "You are a test.");
  ASSERT_EQ(t["steps"].size(), 2u);
  EXPECT_EQ(t["steps"][0]["assistant"]["content"], "checking");
  EXPECT_EQ(t["steps"][0]["assistant"]["tool_calls"][0]["name"], "echo");
  EXPECT_EQ(t["steps"][0]["assistant"]["tool_calls"][0]["arguments"], R"({"x":3})");
  EXPECT_EQ(t["steps"][0]["tool_results"][0]["tool_call_id"],
            t["steps"][0]["assistant"]["tool_calls"][0]["id"]);
  EXPECT_EQ(t["steps"][0]["tool_results"][0]["ok"], true);
  EXPECT_EQ(t["steps"][0]["tool_results"][0]["content"], R"({"x":3})");
  EXPECT_TRUE(t["steps"][0].contains("usage"));
  EXPECT_TRUE(t["steps"][0].contains("elapsed_ms"));
  for (const char* key : {"model", "protocol", "started_at", "elapsed_ms"}) EXPECT_TRUE(t.contains(key)) << key;
  // The image reached the model with the user turn.
  auto first = model_->requests()[0].messages;
  EXPECT_EQ(first.back().images.size(), 1u);
  EXPECT_EQ(first[1].content, "earlier");
}

TEST_F(AgentTest, EventsArriveInOrder) {
  model_->PushCalls({{"echo", R"({"x":3})"}});
  model_->PushText("three");
  std::vector<std::string> seen;
  AgentOptions options;
  options.on_event = [&](const Event& e) { seen.push_back(EventTypeName(e.type)); };
  Run(options);
  std::vector<std::string> want = {"run_started",   "model_request", "assistant_message",
                                   "tool_started",  "tool_finished", "step_finished",
                                   "model_request", "assistant_message", "step_finished",
                                   "run_finished"};
  EXPECT_EQ(seen, want);
}

// Invariant 5: windowing never separates a tool call from its results.
TEST(WindowTest, NeverSeparatesCallsFromResults) {
  std::vector<Message> msgs = {Message::System("s"), Message::User("task")};
  for (int i = 0; i < 5; ++i) {
    msgs.push_back(Message::Assistant("", {{"a" + std::to_string(i), "t", "{}"}, {"b" + std::to_string(i), "t", "{}"}}));
    msgs.push_back(Message::Tool("a" + std::to_string(i), "t", "r"));
    msgs.push_back(Message::Tool("b" + std::to_string(i), "t", "r"));
  }
  for (size_t keep = 1; keep <= msgs.size(); ++keep) {
    auto w = WindowMessages(msgs, keep);
    EXPECT_EQ(testing::CheckHistory(w), "") << "keep=" << keep;
    EXPECT_EQ(w[0].content, "s");
    EXPECT_EQ(w[1].content, "task");
    EXPECT_GE(w.size(), std::min(msgs.size(), keep + 2));
  }
  EXPECT_EQ(WindowMessages(msgs, 0).size(), msgs.size());
}

TEST_F(AgentTest, WindowedRunStillSendsValidHistory) {
  for (int i = 0; i < 8; ++i) {
    model_->PushCalls({{"echo", "{\"x\":" + std::to_string(i) + "}"}, {"echo", "{\"x\":" + std::to_string(100 + i) + "}"}});
  }
  model_->PushText("done");
  AgentOptions options;
  options.max_history_messages = 4;
  RunResult r = Run(options);
  EXPECT_EQ(r.status, RunStatus::kFinished);
  EXPECT_LE(model_->requests().back().messages.size(), 2u + 4u + 2u);
}

}  // namespace
}  // namespace medreact

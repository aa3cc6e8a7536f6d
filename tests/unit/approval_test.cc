// Human approval in the agent loop (AgentOptions::needs_approval, issue 14):
// a turn with a call that needs approval pauses before any of its calls runs,
// persists the waiting calls in its checkpoint, and goes on from that state
// (through JSON, as a store keeps it) once they are decided: approved, with
// edited arguments, or rejected with a reason the model reads. Decisions may
// come in parts, or at once from an inline approver; a stop after the
// decisions never runs a side effect twice.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <atomic>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "medreact/agent.h"
#include "medreact/run_state.h"
#include "testing/fake_model.h"

namespace medreact {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

struct Counts {
  std::atomic<int> orders{0};
  std::atomic<int> adds{0};
  std::mutex mu;
  std::vector<std::string> items;  // the `item` of every order sent
};

// send_order (a side effect: not idempotent) and add (a lookup), counted.
std::shared_ptr<ToolRegistry> Tools(std::shared_ptr<Counts> counts, bool orders_idempotent = false) {
  auto registry = std::make_shared<ToolRegistry>();
  Json params = *ParseJson(R"({"type":"object","properties":{"item":{"type":"string"}},"required":["item"]})");
  EXPECT_TRUE(registry
                  ->Register(MakeFunctionTool({.name = "send_order",
                                               .description = "sends an order",
                                               .parameters = params,
                                               .idempotent = orders_idempotent},
                                              [counts](const Json& args, const ToolContext&) {
                                                ++counts->orders;
                                                std::lock_guard<std::mutex> lock(counts->mu);
                                                counts->items.push_back(StringOr(args, "item"));
                                                return ToolResult::Ok("sent " + StringOr(args, "item"));
                                              }))
                  .ok());
  EXPECT_TRUE(registry
                  ->Register(MakeFunctionTool({.name = "add", .description = "adds"},
                                              [counts](const Json&, const ToolContext&) {
                                                ++counts->adds;
                                                return ToolResult::Ok("3");
                                              }))
                  .ok());
  EXPECT_TRUE(RegisterFinishTools(*registry).ok());
  return registry;
}

AgentOptions Options() {
  AgentOptions o;
  o.max_parallel_tools = 1;  // results in call order
  o.needs_approval = [](const ToolCall& call, const ToolSpec&) { return call.name == "send_order"; };
  return o;
}

// As a store keeps it: through JSON text and back.
RunState Stored(const RunState& s) {
  Result<RunState> back = RunStateFromJson(*ParseJson(DumpJson(ToJson(s))));
  EXPECT_TRUE(back.ok()) << back.status().ToString();
  return *back;
}

// A run paused on its first turn: send_order {"item": "aspirin"} and add.
struct Paused {
  std::shared_ptr<Counts> counts = std::make_shared<Counts>();
  RunResult result;
  std::vector<RunState> checkpoints;
  std::vector<Event> events;
};

Paused PauseOnFirstTurn(AgentOptions options = Options()) {
  Paused p;
  auto model = std::make_shared<testing::FakeModel>();
  model->PushCalls({{"send_order", R"({"item":"aspirin"})"}, {"add", "{}"}});
  options.on_checkpoint = [&p](const RunState& s) { p.checkpoints.push_back(s); };
  options.on_event = [&p](const Event& e) { p.events.push_back(e); };
  Agent agent(model, Tools(p.counts), options);
  p.result = agent.Run({.message = "order aspirin"});
  return p;
}

std::vector<std::string> ToolMessages(const ModelRequest& request) {
  std::vector<std::string> out;
  for (const Message& m : request.messages) {
    if (m.role == Role::kTool) out.push_back(m.content);
  }
  return out;
}

TEST(ApprovalTest, ATurnWithACallThatNeedsApprovalPausesBeforeAnyOfItsCallsAndKeepsThem) {
  Paused p = PauseOnFirstTurn();
  EXPECT_EQ(p.result.status, RunStatus::kAwaitingApproval);
  EXPECT_STREQ(RunStatusName(p.result.status), "awaiting_approval");
  EXPECT_EQ(p.counts->orders.load(), 0);
  EXPECT_EQ(p.counts->adds.load(), 0);  // not even the call that needs no approval
  ASSERT_TRUE(p.result.paused.has_value());
  const RunState& state = *p.result.paused;
  EXPECT_EQ(state.phase, RunState::Phase::kInTurn);
  ASSERT_EQ(state.turn.tool_calls.size(), 2u);
  EXPECT_THAT(state.awaiting_approval, ElementsAre(state.turn.tool_calls[0].id));
  EXPECT_TRUE(state.turn_results.empty());
  EXPECT_EQ(p.result.answer,
            "Paused: waiting for approval of 1 tool call(s): send_order (" + state.turn.tool_calls[0].id + ").");
  // The pause is the last checkpoint a store saw.
  ASSERT_FALSE(p.checkpoints.empty());
  EXPECT_EQ(ToJson(p.checkpoints.back()), ToJson(state));
  bool announced = false;
  for (const Event& e : p.events) {
    announced = announced || (e.type == EventType::kApproval && e.tool_name == "send_order" &&
                              StringOr(e.data, "decision") == "awaiting");
  }
  EXPECT_TRUE(announced);
  EXPECT_EQ(p.events.back().type, EventType::kRunFinished);
  EXPECT_EQ(StringOr(p.events.back().data, "status"), "awaiting_approval");
}

TEST(ApprovalTest, AnApprovedCallRunsOnceAndTheRunGoesOn) {
  Paused p = PauseOnFirstTurn();
  RunState state = Stored(*p.result.paused);
  state.approvals[state.awaiting_approval[0]] = {.approved = true};
  auto model = std::make_shared<testing::FakeModel>();
  model->PushText("Ordered.");
  Agent agent(model, Tools(p.counts), Options());
  RunResult r = agent.Resume(Stored(state));
  EXPECT_EQ(r.status, RunStatus::kFinished);
  EXPECT_EQ(r.answer, "Ordered.");
  EXPECT_EQ(p.counts->orders.load(), 1);
  EXPECT_EQ(p.counts->adds.load(), 1);
  ASSERT_EQ(r.trace.steps.size(), 2u);
  EXPECT_THAT(r.trace.steps[0].notes, ::testing::Contains(HasSubstr("approved by the reviewer")));
  ASSERT_EQ(model->requests().size(), 1u);
  EXPECT_THAT(ToolMessages(model->requests()[0]), ElementsAre("sent aspirin", "3"));
  EXPECT_TRUE(model->history_errors().empty());
}

TEST(ApprovalTest, ARejectedCallNeverRunsAndTheModelReadsTheReason) {
  Paused p = PauseOnFirstTurn();
  RunState state = Stored(*p.result.paused);
  state.approvals[state.awaiting_approval[0]] = {.approved = false, .reason = "the patient is allergic"};
  auto model = std::make_shared<testing::FakeModel>();
  model->PushText("Not ordered.");
  Agent agent(model, Tools(p.counts), Options());
  RunResult r = agent.Resume(Stored(state));
  EXPECT_EQ(r.status, RunStatus::kFinished);
  EXPECT_EQ(p.counts->orders.load(), 0);
  EXPECT_EQ(p.counts->adds.load(), 1);
  ASSERT_EQ(model->requests().size(), 1u);
  EXPECT_THAT(
      ToolMessages(model->requests()[0]),
      ElementsAre("Error: the reviewer did not approve this call, so it was not run: the patient is allergic", "3"));
  EXPECT_FALSE(r.trace.steps[0].tool_results[0].ok);
  EXPECT_THAT(r.trace.steps[0].notes, ::testing::Contains(HasSubstr("rejected by the reviewer")));
}

TEST(ApprovalTest, EditedArgumentsAreWhatRunsAndWhatTheConversationShows) {
  Paused p = PauseOnFirstTurn();
  RunState state = Stored(*p.result.paused);
  state.approvals[state.awaiting_approval[0]] = {.approved = true, .arguments = R"({"item":"paracetamol"})"};
  auto model = std::make_shared<testing::FakeModel>();
  model->PushText("Ordered paracetamol.");
  Agent agent(model, Tools(p.counts), Options());
  RunResult r = agent.Resume(Stored(state));
  EXPECT_EQ(r.status, RunStatus::kFinished);
  EXPECT_THAT(p.counts->items, ElementsAre("paracetamol"));
  const ModelRequest next = model->requests().at(0);
  bool shown = false;
  for (const Message& m : next.messages) {
    for (const ToolCall& c : m.tool_calls)
      shown = shown || (c.name == "send_order" && c.arguments.find("paracetamol") != std::string::npos);
  }
  EXPECT_TRUE(shown);
  EXPECT_EQ(r.trace.steps[0].assistant.tool_calls[0].arguments, R"({"item":"paracetamol"})");
  EXPECT_THAT(r.trace.steps[0].notes, ::testing::Contains(HasSubstr(R"(the model's were {"item":"aspirin"})")));
}

TEST(ApprovalTest, DecisionsMayComeInPartsAndNothingRunsUntilTheLast) {
  AgentOptions options = Options();
  options.needs_approval = [](const ToolCall&, const ToolSpec&) { return true; };  // both calls wait
  Paused p = PauseOnFirstTurn(options);
  ASSERT_EQ(p.result.paused->awaiting_approval.size(), 2u);
  RunState state = Stored(*p.result.paused);
  const std::string order = state.turn.tool_calls[0].id, add = state.turn.tool_calls[1].id;
  state.approvals[add] = {.approved = true};

  auto model = std::make_shared<testing::FakeModel>();
  Agent second(model, Tools(p.counts), options);
  RunResult r = second.Resume(Stored(state));
  EXPECT_EQ(r.status, RunStatus::kAwaitingApproval);
  EXPECT_EQ(p.counts->adds.load(), 0);
  ASSERT_TRUE(r.paused.has_value());
  EXPECT_THAT(r.paused->awaiting_approval, ElementsAre(order));
  EXPECT_TRUE(r.paused->approvals.at(add).approved);  // kept for the next resume
  EXPECT_TRUE(model->requests().empty());

  RunState last = Stored(*r.paused);
  last.approvals[order] = {.approved = false};
  model->PushText("Added, not ordered.");
  Agent third(model, Tools(p.counts), options);
  r = third.Resume(Stored(last));
  EXPECT_EQ(r.status, RunStatus::kFinished);
  EXPECT_EQ(p.counts->orders.load(), 0);
  EXPECT_EQ(p.counts->adds.load(), 1);
  EXPECT_THAT(ToolMessages(model->requests().at(0)),
              ElementsAre("Error: the reviewer did not approve this call, so it was not run.", "3"));
}

TEST(ApprovalTest, AnInlineApproverDecidesAtOnceAndNulloptOrAThrowPauses) {
  AgentOptions options = Options();
  int asked = 0;
  options.approve = [&asked](const ToolCall& call, const ToolSpec& spec) -> std::optional<ApprovalDecision> {
    ++asked;
    EXPECT_EQ(call.name, "send_order");
    EXPECT_EQ(spec.name, "send_order");
    return ApprovalDecision{.approved = true};
  };
  auto counts = std::make_shared<Counts>();
  auto model = std::make_shared<testing::FakeModel>();
  model->PushCalls({{"send_order", R"({"item":"aspirin"})"}, {"add", "{}"}});
  model->PushText("Ordered.");
  Agent agent(model, Tools(counts), options);
  RunResult r = agent.Run({.message = "order aspirin"});
  EXPECT_EQ(r.status, RunStatus::kFinished);
  EXPECT_EQ(asked, 1);
  EXPECT_EQ(counts->orders.load(), 1);
  EXPECT_FALSE(r.paused.has_value());

  options.approve = [](const ToolCall&, const ToolSpec&) -> std::optional<ApprovalDecision> { return std::nullopt; };
  EXPECT_EQ(PauseOnFirstTurn(options).result.status, RunStatus::kAwaitingApproval);
  options.approve = [](const ToolCall&, const ToolSpec&) -> std::optional<ApprovalDecision> {
    throw std::runtime_error("terminal gone");
  };
  EXPECT_EQ(PauseOnFirstTurn(options).result.status, RunStatus::kAwaitingApproval);
  // A predicate that throws counts as "needs approval".
  options.approve = nullptr;
  options.needs_approval = [](const ToolCall&, const ToolSpec&) -> bool { throw std::runtime_error("bad rule"); };
  Paused p = PauseOnFirstTurn(options);
  EXPECT_EQ(p.result.status, RunStatus::kAwaitingApproval);
  EXPECT_EQ(p.result.paused->awaiting_approval.size(), 2u);
}

TEST(ApprovalTest, AStopAfterTheDecisionsNeverRunsASideEffectTwice) {
  // Approve, and keep the checkpoints the resumed run takes: the first one
  // after the decisions marks the calls as possibly in flight.
  Paused p = PauseOnFirstTurn();
  RunState state = Stored(*p.result.paused);
  state.approvals[state.awaiting_approval[0]] = {.approved = true};
  std::vector<RunState> checkpoints;
  AgentOptions options = Options();
  options.on_checkpoint = [&](const RunState& s) { checkpoints.push_back(s); };
  auto model = std::make_shared<testing::FakeModel>();
  model->PushText("Ordered.");
  Agent agent(model, Tools(p.counts), options);
  ASSERT_EQ(agent.Resume(state).status, RunStatus::kFinished);
  ASSERT_EQ(p.counts->orders.load(), 1);
  ASSERT_FALSE(checkpoints.empty());
  const RunState& decided = checkpoints.front();
  EXPECT_EQ(decided.phase, RunState::Phase::kInTurn);
  EXPECT_TRUE(decided.awaiting_approval.empty());
  EXPECT_TRUE(decided.approvals.empty());
  EXPECT_TRUE(decided.turn_results.empty());

  // Killed right there: send_order may have gone out, so it is not run again.
  auto after = std::make_shared<Counts>();
  auto again_model = std::make_shared<testing::FakeModel>();
  again_model->PushText("Check the order.");
  Agent again(again_model, Tools(after), Options());
  RunResult r = again.Resume(Stored(decided));
  EXPECT_EQ(r.status, RunStatus::kFinished);
  EXPECT_EQ(after->orders.load(), 0);
  EXPECT_EQ(after->adds.load(), 1);
  EXPECT_THAT(r.trace.steps[0].tool_results[0].error, HasSubstr("interrupted"));
}

TEST(ApprovalTest, FinishingToolsNeverWait) {
  AgentOptions options = Options();
  options.needs_approval = [](const ToolCall&, const ToolSpec&) { return true; };
  auto model = std::make_shared<testing::FakeModel>();
  model->PushCalls({{"final_answer", R"({"answer":"42"})"}});
  Agent agent(model, Tools(std::make_shared<Counts>()), options);
  RunResult r = agent.Run({.message = "answer"});
  EXPECT_EQ(r.status, RunStatus::kFinished);
  EXPECT_EQ(r.answer, "42");
}

TEST(ApprovalTest, TheStateKeepsWaitingCallsAndDecisionsAndRefusesStrangers) {
  Paused p = PauseOnFirstTurn();
  RunState state = *p.result.paused;
  const std::string id = state.awaiting_approval[0];
  state.approvals[id] = {.approved = true, .arguments = R"({"item":"x"})", .reason = ""};
  RunState back = Stored(state);
  EXPECT_EQ(back.awaiting_approval, state.awaiting_approval);
  EXPECT_EQ(back.approvals.at(id).arguments, R"({"item":"x"})");

  Json j = ToJson(state);
  j["approvals"]["call_nobody"] = Json{{"approved", true}};
  Result<RunState> bad = RunStateFromJson(j);
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(bad.status().message(), HasSubstr("approvals.call_nobody"));
  j = ToJson(state);
  j["awaiting_approval"] = Json::array({"call_nobody"});
  bad = RunStateFromJson(j);
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(bad.status().message(), HasSubstr("awaiting_approval"));
}

}  // namespace
}  // namespace medreact

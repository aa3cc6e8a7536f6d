// One way to finish a run (AgentOptions::answer_tool): the app's finishing
// tool is validated like any call on every protocol — native tool calling, the
// text protocol's final block, a planner — and a plain-text answer is read
// as its arguments by the same reader.
#include <memory>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "medreact/agent.h"
#include "medreact/text_protocol.h"
#include "medreact/tool.h"
#include "testing/fake_model.h"

namespace medreact {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

constexpr char kAssess[] = "submit_verdict";

// A finishing tool shaped like triage's: a text, an enum, a list.
std::shared_ptr<ToolRegistry> Registry(int* echo_runs = nullptr) {
  auto registry = std::make_shared<ToolRegistry>();
  ToolSpec verdict{kAssess, "Submit the verdict and end the task.",
                   Json::parse(R"({"type": "object",
                     "properties": {
                       "final_verdict": {"type": "string", "minLength": 1},
                       "level": {"type": "string", "enum": ["HIGH", "LOW", "NONE"]},
                       "reasons": {"type": "array", "items": {"type": "string"}},
                       "note": {"type": "string"}},
                     "required": ["final_verdict", "level", "reasons"],
                     "additionalProperties": false})")};
  EXPECT_TRUE(registry
                  ->Register(MakeFunctionTool(std::move(verdict),
                                              [](const Json& args, const ToolContext&) {
                                                return ToolResult::Ok(args.at("final_verdict").get<std::string>());
                                              }))
                  .ok());
  ToolSpec echo{"echo", "Echoes x.", Json::parse(R"({"type":"object","properties":{"x":{"type":"integer"}}})")};
  EXPECT_TRUE(registry
                  ->Register(MakeFunctionTool(std::move(echo),
                                              [echo_runs](const Json& args, const ToolContext&) {
                                                if (echo_runs) ++*echo_runs;
                                                return ToolResult::Ok(DumpJson(args));
                                              }))
                  .ok());
  return registry;
}

AgentOptions Options() {
  AgentOptions options;
  options.answer_tool = kAssess;
  options.max_steps = 6;
  return options;
}

const Json kValid = {{"final_verdict", "Done."}, {"level", "HIGH"}, {"reasons", {"a"}}};

// --- native tool calling ---------------------------------------------------------

TEST(AnswerToolTest, NativeCallIsValidatedAndAnInvalidOneGoesBackAsItsError) {
  auto model = std::make_shared<testing::FakeModel>();
  model->PushCalls({{kAssess, R"({"final_verdict": "Done.", "level": "high", "reasons": []})"}});  // "high": not in the enum
  model->PushCalls({{kAssess, DumpJson(kValid)}});
  Agent agent(model, Registry(), Options());
  RunResult r = agent.Run({.message = "go"});
  ASSERT_EQ(r.status, RunStatus::kFinished) << r.error;
  EXPECT_EQ(r.answer, "Done.");
  EXPECT_EQ(r.final_fields, kValid);
  EXPECT_EQ(r.steps, 2);
  EXPECT_EQ(r.tool_calls, 0);  // finishing calls are outside the count
  ASSERT_EQ(r.trace.steps.size(), 2u);
  ASSERT_FALSE(r.trace.steps[0].tool_results[0].ok);
  EXPECT_THAT(r.trace.steps[0].tool_results[0].error, HasSubstr("level"));
  // The native request offers the tool like any other.
  const std::vector<ModelRequest> requests = model->requests();
  ASSERT_FALSE(requests.empty());
  ASSERT_TRUE(requests[0].answer_tool);
  EXPECT_EQ(requests[0].answer_tool->name, kAssess);
  EXPECT_EQ(requests[0].tools.size(), 2u);
}

TEST(AnswerToolTest, NativePlainTextWithAFinalBlockIsReadAndValidated) {
  auto model = std::make_shared<testing::FakeModel>();
  model->PushText("THOUGHT: enough.\nFINAL_VERDICT: Done.\nLEVEL: **high** (+1)\nREASONS: [\"a\"]");
  Agent agent(model, Registry(), Options());
  RunResult r = agent.Run({.message = "go"});
  ASSERT_EQ(r.status, RunStatus::kFinished) << r.error;
  EXPECT_EQ(r.final_fields, kValid);
  EXPECT_TRUE(r.answer_accepted);
  EXPECT_EQ(r.tool_calls, 0);
  EXPECT_EQ(r.steps, 1);
}

TEST(AnswerToolTest, NativeProseIsSentBackWithWhatIsMissingThenAcceptedAsReadAfterTheRetries) {
  auto model = std::make_shared<testing::FakeModel>();
  model->PushText("I think it is fine.");
  model->PushText("FINAL_VERDICT: Done.\nLEVEL: HIGH\nREASONS: a");
  Agent agent(model, Registry(), Options());
  RunResult r = agent.Run({.message = "go"});
  ASSERT_EQ(r.status, RunStatus::kFinished) << r.error;
  EXPECT_EQ(r.final_fields, kValid);
  EXPECT_TRUE(r.answer_accepted);
  const std::vector<ModelRequest> requests = model->requests();
  ASSERT_EQ(requests.size(), 2u);
  const Message& feedback = requests[1].messages.back();
  EXPECT_EQ(feedback.role, Role::kUser);
  EXPECT_THAT(feedback.content, HasSubstr(kAssess));
  EXPECT_THAT(feedback.content, HasSubstr("level"));

  // A model that never gives the block: after max_answer_retries the run ends
  // with what was read, marked not accepted.
  auto stubborn = std::make_shared<testing::FakeModel>();
  for (int i = 0; i < 3; ++i) stubborn->PushText("Still prose.");
  AgentOptions options = Options();
  options.max_answer_retries = 2;
  Agent again(stubborn, Registry(), options);
  r = again.Run({.message = "go"});
  EXPECT_EQ(r.status, RunStatus::kFinished);
  EXPECT_FALSE(r.answer_accepted);
  EXPECT_THAT(r.answer_feedback, HasSubstr("not valid"));
  EXPECT_EQ(r.final_fields, Json({{"final_verdict", "Still prose."}}));
  EXPECT_EQ(r.steps, 3);
}

// --- the text protocol -----------------------------------------------------------

TEST(AnswerToolTest, TextProtocolFinalBlockBecomesAValidatedCallOfTheTool) {
  auto inner = std::make_unique<testing::FakeModel>();
  testing::FakeModel* fake = inner.get();
  fake->PushText("THOUGHT: check.\nTOOL_CALL: {\"tool\": \"echo\", \"arguments\": {\"x\": 1}}");
  fake->PushText("THOUGHT: done.\nFINAL_VERDICT: Done.\nLEVEL: sideways\nREASONS: a");  // not in the enum
  fake->PushText("THOUGHT: fixed.\nFINAL_VERDICT: Done.\nLEVEL: `HIGH`.\nREASONS: ['a']\nNOTE: read, not taught");
  std::shared_ptr<ChatModel> model = MakeTextProtocolModel(std::move(inner));
  int echo_runs = 0;
  Agent agent(model, Registry(&echo_runs), Options());
  RunResult r = agent.Run({.message = "go"});
  ASSERT_EQ(r.status, RunStatus::kFinished) << r.error;
  EXPECT_EQ(echo_runs, 1);
  Json expected = kValid;
  expected["note"] = "read, not taught";
  EXPECT_EQ(r.final_fields, expected);
  EXPECT_EQ(r.answer, "Done.");
  EXPECT_EQ(r.tool_calls, 1);  // echo; the finishing calls are not counted
  ASSERT_EQ(r.trace.steps.size(), 3u);
  // The refused block is an observation the model read, as for any call.
  ASSERT_EQ(r.trace.steps[1].assistant.tool_calls.size(), 1u);
  EXPECT_EQ(r.trace.steps[1].assistant.tool_calls[0].name, kAssess);
  ASSERT_FALSE(r.trace.steps[1].tool_results[0].ok);
  EXPECT_THAT(r.trace.steps[1].tool_results[0].error, HasSubstr("level"));

  const std::vector<ModelRequest> sent = fake->requests();
  ASSERT_EQ(sent.size(), 3u);
  const std::string& system = sent[0].messages[0].content;
  // The block is taught from the schema; the tool is not in the catalogue.
  EXPECT_THAT(system, HasSubstr("FINAL_VERDICT: <your answer>"));
  EXPECT_THAT(system, HasSubstr("LEVEL: <HIGH, LOW or NONE>"));
  EXPECT_THAT(system, HasSubstr("REASONS: <a JSON list of short phrases, [] when none>"));
  EXPECT_THAT(system, Not(HasSubstr("NOTE:")));
  EXPECT_THAT(system, Not(HasSubstr("### " + std::string(kAssess))));
  EXPECT_THAT(system, HasSubstr("### echo"));
  // The model's own block stays in its history, followed by the refusal.
  const std::vector<Message>& third = sent[2].messages;
  ASSERT_GE(third.size(), 2u);
  EXPECT_THAT(third[third.size() - 2].content, HasSubstr("LEVEL: sideways"));
  EXPECT_THAT(third[third.size() - 2].content, Not(HasSubstr("TOOL_CALL")));
  EXPECT_THAT(third.back().content, HasSubstr("OBSERVATION (" + std::string(kAssess)));
  EXPECT_THAT(third.back().content, HasSubstr("Error"));
}

TEST(AnswerToolTest, TextProtocolFallbackSynthesisReadsTheBlockWithoutTools) {
  auto inner = std::make_unique<testing::FakeModel>();
  testing::FakeModel* fake = inner.get();
  fake->PushText("TOOL_CALL: {\"tool\": \"echo\", \"arguments\": {\"x\": 1}}");
  fake->PushText("FINAL_VERDICT: Out of steps.\nLEVEL: low\nREASONS: none");
  std::shared_ptr<ChatModel> model = MakeTextProtocolModel(std::move(inner));
  AgentOptions options = Options();
  options.max_steps = 1;
  Agent agent(model, Registry(), options);
  RunResult r = agent.Run({.message = "go"});
  EXPECT_EQ(r.status, RunStatus::kMaxSteps);
  EXPECT_EQ(r.final_fields,
            Json({{"final_verdict", "Out of steps."}, {"level", "LOW"}, {"reasons", Json::array()}}));
  EXPECT_TRUE(r.answer_accepted);
  const std::vector<ModelRequest> sent = fake->requests();
  ASSERT_EQ(sent.size(), 2u);
  EXPECT_THAT(sent[1].messages[0].content, HasSubstr("LEVEL: <HIGH, LOW or NONE>"));
}

// --- a planner ---------------------------------------------------------------------

class PlannerFake : public testing::FakeModel {
 public:
  ModelCapabilities capabilities() const override { return {.tool_calling = ToolCalling::kPlanner}; }
  std::string protocol() const override { return "rules"; }
};

TEST(AnswerToolTest, PlannerCallIsValidatedLikeAModels) {
  auto planner = std::make_shared<PlannerFake>();
  planner->PushCalls({{kAssess, R"({"final_verdict": "", "level": "HIGH", "reasons": []})"}});  // empty text
  planner->PushCalls({{kAssess, DumpJson(kValid)}});
  Agent agent(planner, Registry(), Options());
  RunResult r = agent.Run({.message = "go"});
  ASSERT_EQ(r.status, RunStatus::kFinished) << r.error;
  EXPECT_EQ(r.final_fields, kValid);
  ASSERT_FALSE(r.trace.steps[0].tool_results[0].ok);
  EXPECT_THAT(r.trace.steps[0].tool_results[0].error, HasSubstr("final_verdict"));
}

// --- budgets and setup ---------------------------------------------------------------

TEST(AnswerToolTest, TheFinishingCallRunsWhenTheToolBudgetIsSpent) {
  auto model = std::make_shared<testing::FakeModel>();
  model->PushCalls({{"echo", R"({"x": 1})"}, {kAssess, DumpJson(kValid)}});
  AgentOptions options = Options();
  options.tool_call_budget = 1;
  int echo_runs = 0;
  Agent agent(model, Registry(&echo_runs), options);
  RunResult r = agent.Run({.message = "go"});
  ASSERT_EQ(r.status, RunStatus::kFinished) << r.error;
  EXPECT_EQ(echo_runs, 1);
  EXPECT_EQ(r.tool_calls, 1);
  EXPECT_EQ(r.final_fields, kValid);
}

TEST(AnswerToolTest, AnUnregisteredAnswerToolIsAnErrorNotAHang) {
  auto model = std::make_shared<testing::FakeModel>();
  AgentOptions options = Options();
  options.answer_tool = "submit_nothing";
  Agent agent(model, Registry(), options);
  RunResult r = agent.Run({.message = "go"});
  EXPECT_EQ(r.status, RunStatus::kError);
  EXPECT_THAT(r.error, HasSubstr("submit_nothing"));
  EXPECT_FALSE(r.answer.empty());
  EXPECT_TRUE(model->requests().empty());
}

// --- the reader on its own -------------------------------------------------------------

TEST(FinalBlockTest, OptionsComeFromTheSchema) {
  auto registry = Registry();
  const ToolSpec spec = registry->Specs().front();
  const TextProtocolOptions options = FinalBlockOptions(spec);
  EXPECT_EQ(options.final_markers, std::vector<std::string>({"FINAL_VERDICT", "FINAL_ANSWER"}));
  EXPECT_EQ(options.final_argument, "final_verdict");
  ASSERT_EQ(options.final_fields.size(), 3u);
  EXPECT_EQ(options.final_fields[0].marker, "LEVEL");
  EXPECT_TRUE(options.final_fields[0].taught);
  EXPECT_EQ(options.final_fields[2].marker, "NOTE");
  EXPECT_FALSE(options.final_fields[2].taught);
  // An argument not named final_*: FINAL_ is put in front.
  const ToolSpec json_tool{"submit", "", Json::parse(R"({"type":"object","properties":{"json":{"type":"object"}},
                                                         "required":["json"]})")};
  EXPECT_EQ(FinalBlockOptions(json_tool).final_markers.front(), "FINAL_JSON");
  EXPECT_EQ(ReadFinalBlock("FINAL_JSON: ```json\n{'a': 1,}\n```", json_tool), Json({{"json", {{"a", 1}}}}));
  EXPECT_EQ(ReadFinalBlock("{\"a\": 2}", json_tool), Json({{"json", {{"a", 2}}}}));
}

TEST(FinalBlockTest, CoercionIsByTypeAndOnlyWhenUnambiguous) {
  const Json schema = Json::parse(R"({"type":"object","properties":{
      "n": {"type": "integer"}, "x": {"type": "number"}, "b": {"type": "boolean"},
      "e": {"enum": ["INCREASE", "INCREASED"]}}})");
  const Json out = CoerceToSchema(schema, {{"n", " 3 "}, {"x", "2.5"}, {"b", "Yes"}, {"e", "increased."}});
  EXPECT_EQ(out, Json({{"n", 3}, {"x", 2.5}, {"b", true}, {"e", "INCREASED"}}));
  // Not a number, not a word of the enum: left for validation to name.
  EXPECT_EQ(CoerceToSchema(schema["properties"]["n"], "three"), "three");
  EXPECT_EQ(CoerceToSchema(schema["properties"]["n"], "3.5"), 3.5);
  EXPECT_EQ(CoerceToSchema(schema["properties"]["e"], "INCREASEX"), "INCREASEX");
  EXPECT_EQ(CoerceToSchema(schema["properties"]["e"], "increase (+1)"), "INCREASE");
  EXPECT_EQ(ParseListText("- a\n- b"), Json({"a", "b"}));
  EXPECT_EQ(ParseListText("a, b"), Json({"a", "b"}));
  EXPECT_EQ(ParseListText("N/A"), Json::array());
}

}  // namespace
}  // namespace medreact

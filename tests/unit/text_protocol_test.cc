// Tests for the text protocol: a table of messy replies as small models write
// them (each with the exact calls, final answer and fields, or error expected),
// the rendered instructions, and TextProtocolModel's rewriting of requests
// and replies around a fake inner model.
#include "medreact/text_protocol.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace medreact {
namespace {

TextProtocolOptions SentinelOptions() {
  TextProtocolOptions options;
  options.final_fields = {
      {"RISK_ADJUSTMENT", "INCREASE, DECREASE or NONE", false},
      {"CRITICAL_FINDINGS", "JSON list of findings, e.g. [\"finding1\", \"finding2\"]", true}};
  return options;
}

struct Call {
  std::string name;
  std::string arguments;  // DumpJson of the arguments object
};

struct ReplyCase {
  ReplyCase(std::string n, std::string r, std::vector<Call> c, std::string answer = "",
            std::string f = "{}", std::string error = "")
      : name(std::move(n)), reply(std::move(r)), calls(std::move(c)), final_answer(std::move(answer)),
        fields(std::move(f)), error_contains(std::move(error)) {}

  std::string name;
  std::string reply;
  std::vector<Call> calls;       // expected calls (tool-call replies)
  std::string final_answer;      // expected final answer (final replies)
  std::string fields = "{}";     // expected final_fields as JSON text (final replies)
  std::string error_contains;    // expected error substring (error replies)
};

// gtest names parameters by printing them; without this it dumps raw bytes,
// padding included.
void PrintTo(const ReplyCase& c, std::ostream* os) { *os << c.name; }

std::vector<ReplyCase> Cases() {
  const std::string labs = R"({"category":"Coag"})";
  return {
      {"SeedCallOnSameLine",
       "THOUGHT: I see an acute PE. Need to check anticoagulation status.\n\n"
       "TOOL_CALL: {\"tool\": \"get_patient_manifest\", \"arguments\": {}}",
       {{"get_patient_manifest", "{}"}}},
      {"SeedFencedOnNextLines",
       "THOUGHT: I need to check medications.\n\nTOOL_CALL:\n```json\n"
       "{\"tool\": \"check_medication_status\", \"arguments\": {\"medication_name\": \"warfarin\"}}\n```\n",
       {{"check_medication_status", R"({"medication_name":"warfarin"})"}}},
      {"SeedFullPeExampleStopsAtObservation",
       "THOUGHT: I see an acute PE. Need to check anticoagulation status.\n\n"
       "TOOL_CALL: {\"tool\": \"get_patient_manifest\", \"arguments\": {}}\n\n"
       "OBSERVATION: {\"resource_counts\": {\"MedicationRequest\": 3}, \"available_lab_categories\": [\"Coag\"]}\n\n"
       "THOUGHT: Patient has medications and coag labs. Checking anticoagulation.\n\n"
       "TOOL_CALL: {\"tool\": \"check_medication_status\", \"arguments\": {\"medication_name\": \"anticoag\"}}\n\n"
       "OBSERVATION: {\"found\": true, \"medications\": [{\"name\": \"Warfarin 5mg\", \"status\": \"active\"}], "
       "\"is_currently_active\": true}\n\n"
       "THOUGHT: CRITICAL - Patient on active warfarin. Checking INR.\n\n"
       "TOOL_CALL: {\"tool\": \"get_recent_labs\", \"arguments\": {\"category\": \"Coag\"}}\n\n"
       "OBSERVATION: {\"values\": [{\"name\": \"INR\", \"value\": 2.3, \"flag\": \"normal\"}]}\n\n"
       "THOUGHT: Therapeutic INR but developed PE = anticoagulation failure.\n\n"
       "FINAL_ASSESSMENT: Acute PE despite therapeutic anticoagulation (INR 2.3).\n"
       "RISK_ADJUSTMENT: INCREASE\n"
       "CRITICAL_FINDINGS: [\"Anticoagulation failure\", \"PE on therapeutic warfarin\"]\n",
       {{"get_patient_manifest", "{}"}}},
      {"SeedFinalBlock",
       "THOUGHT: Therapeutic INR but developed PE = anticoagulation failure.\n\n"
       "FINAL_ASSESSMENT: Acute PE despite therapeutic anticoagulation (INR 2.3).\n"
       "RISK_ADJUSTMENT: INCREASE\n"
       "CRITICAL_FINDINGS: [\"Anticoagulation failure\", \"PE on therapeutic warfarin\"]\n",
       {},
       "Acute PE despite therapeutic anticoagulation (INR 2.3).",
       R"({"CRITICAL_FINDINGS":["Anticoagulation failure","PE on therapeutic warfarin"],"RISK_ADJUSTMENT":"INCREASE"})"},
      {"ProseAroundJson",
       "THOUGHT: INR next.\nTOOL_CALL: Sure, I will call it now: {\"tool\": \"get_recent_labs\", "
       "\"arguments\": {\"category\": \"Coag\"}} This returns the INR.",
       {{"get_recent_labs", labs}}},
      {"PythonLiterals",
       "TOOL_CALL: {\"tool\": \"check_medication_status\", \"arguments\": {\"medication_name\": \"warfarin\", "
       "\"active_only\": True, \"since\": None}}",
       {{"check_medication_status", R"({"active_only":true,"medication_name":"warfarin","since":null})"}}},
      {"SingleQuotes", "TOOL_CALL: {'tool': 'get_recent_labs', 'arguments': {'category': 'Coag'}}",
       {{"get_recent_labs", labs}}},
      {"TrailingCommas",
       "TOOL_CALL: {\"tool\": \"get_recent_labs\", \"arguments\": {\"category\": \"Coag\",},}",
       {{"get_recent_labs", labs}}},
      {"TruncatedBraces", "THOUGHT: labs\nTOOL_CALL: {\"tool\": \"get_recent_labs\", \"arguments\": {\"category\": \"Coag",
       {{"get_recent_labs", labs}}},
      {"BoldMarkdownMarkers",
       "**THOUGHT:** Need coag labs.\n\n**TOOL_CALL:** {\"tool\": \"get_recent_labs\", \"arguments\": {\"category\": \"Coag\"}}",
       {{"get_recent_labs", labs}}},
      {"LowercaseMarkers",
       "thought: need coag labs\ntool_call: {\"tool\": \"get_recent_labs\", \"arguments\": {\"category\": \"Coag\"}}",
       {{"get_recent_labs", labs}}},
      {"SpelledToolCallWithIndent",
       "  Thought: need coag labs\n  Tool call: {\"tool\": \"get_recent_labs\", \"arguments\": {\"category\": \"Coag\"}}",
       {{"get_recent_labs", labs}}},
      {"HeadingMarkersFencedNoLanguage",
       "### THOUGHT\nNeed coag labs.\n\n### TOOL CALL\n```\n{\"tool\": \"get_recent_labs\", "
       "\"arguments\": {\"category\": \"Coag\"}}\n```",
       {{"get_recent_labs", labs}}},
      {"TwoToolCalls",
       "THOUGHT: both\nTOOL_CALL: {\"tool\": \"get_patient_manifest\", \"arguments\": {}}\n"
       "TOOL_CALL: {\"tool\": \"get_recent_labs\", \"arguments\": {\"category\": \"Coag\"}}",
       {{"get_patient_manifest", "{}"}, {"get_recent_labs", labs}}},
      {"JsonArrayOfCalls",
       "TOOL_CALL: [{\"tool\": \"get_patient_manifest\", \"arguments\": {}}, "
       "{\"tool\": \"get_recent_labs\", \"arguments\": {\"category\": \"Coag\"}}]",
       {{"get_patient_manifest", "{}"}, {"get_recent_labs", labs}}},
      {"NameParametersSpelling",
       "TOOL_CALL: {\"name\": \"get_recent_labs\", \"parameters\": {\"category\": \"Coag\"}}",
       {{"get_recent_labs", labs}}},
      {"ToolNameArgsSpelling", "TOOL_CALL: {\"tool_name\": \"get_recent_labs\", \"args\": {\"category\": \"Coag\"}}",
       {{"get_recent_labs", labs}}},
      {"ArgumentsAsJsonString",
       "TOOL_CALL: {\"tool\": \"get_recent_labs\", \"arguments\": \"{\\\"category\\\": \\\"Coag\\\"}\"}",
       {{"get_recent_labs", labs}}},
      {"OpenAiFunctionShape",
       "TOOL_CALL: {\"type\": \"function\", \"function\": {\"name\": \"get_recent_labs\", "
       "\"arguments\": \"{\\\"category\\\": \\\"Coag\\\"}\"}}",
       {{"get_recent_labs", labs}}},
      {"MissingArgumentsIsEmptyObject", "TOOL_CALL: {\"tool\": \"get_patient_manifest\"}",
       {{"get_patient_manifest", "{}"}}},
      {"FlatArgumentsSpelling", "TOOL_CALL: {\"tool\": \"get_recent_labs\", \"category\": \"Coag\"}",
       {{"get_recent_labs", labs}}},
      {"HallucinatedObservationAfterCall",
       "THOUGHT: check meds\nTOOL_CALL: {\"tool\": \"check_medication_status\", \"arguments\": "
       "{\"medication_name\": \"warfarin\"}}\nObservation: {\"found\": true}\nTHOUGHT: on warfarin\n"
       "TOOL_CALL: {\"tool\": \"get_recent_labs\", \"arguments\": {\"category\": \"Coag\"}}\n"
       "FINAL_ASSESSMENT: failure\n",
       {{"check_medication_status", R"({"medication_name":"warfarin"})"}}},
      {"ToolCallBeforeFinalWins",
       "TOOL_CALL: {\"tool\": \"get_recent_labs\", \"arguments\": {\"category\": \"Coag\"}}\n"
       "FINAL_ANSWER: probably fine",
       {{"get_recent_labs", labs}}},
      {"InlineMarkersOnOneLine",
       "THOUGHT: need the INR. TOOL_CALL: {\"tool\": \"get_recent_labs\", \"arguments\": {\"category\": \"Coag\"}}",
       {{"get_recent_labs", labs}}},
      {"BareFencedJsonCall",
       "I will look at the labs.\n```json\n{\"tool\": \"get_recent_labs\", \"arguments\": {\"category\": \"Coag\"}}\n```",
       {{"get_recent_labs", labs}}},
      {"FinalAnswerAlias", "THOUGHT: nothing alarming\nFINAL_ANSWER: No anticoagulation failure.", {},
       "No anticoagulation failure."},
      {"FinalBeforeToolCallWins",
       "FINAL_ANSWER: Done.\nTOOL_CALL: {\"tool\": \"get_recent_labs\", \"arguments\": {}}", {}, "Done."},
      {"FinalMarkdownAndSpacedMarkers",
       "**Thought:** done\n**Final Assessment:** Acute PE on warfarin.\nMore detail here.\n"
       "**Risk adjustment:** **INCREASE**\n**Critical findings:** ['Anticoagulation failure', 'PE',]\n",
       {},
       "Acute PE on warfarin.\nMore detail here.",
       R"({"CRITICAL_FINDINGS":["Anticoagulation failure","PE"],"RISK_ADJUSTMENT":"INCREASE"})"},
      {"FinalFindingsAsBullets",
       "FINAL_ASSESSMENT: PE.\nRISK_ADJUSTMENT: NONE\nCRITICAL_FINDINGS:\n- Anticoagulation failure\n- PE on warfarin\n",
       {},
       "PE.",
       R"({"CRITICAL_FINDINGS":["Anticoagulation failure","PE on warfarin"],"RISK_ADJUSTMENT":"NONE"})"},
      {"FinalFindingsCommaSeparatedAndNone",
       "FINAL_ASSESSMENT: Stable.\nCRITICAL_FINDINGS: Anticoagulation failure, \"PE\"\n", {}, "Stable.",
       R"({"CRITICAL_FINDINGS":["Anticoagulation failure","PE"]})"},
      {"FinalFindingsNone", "FINAL_ASSESSMENT: Stable.\nCRITICAL_FINDINGS: None\nRISK_ADJUSTMENT: DECREASE",
       {}, "Stable.", R"({"CRITICAL_FINDINGS":[],"RISK_ADJUSTMENT":"DECREASE"})"},
      {"ThoughtOnlyIsError", "THOUGHT: I should probably check the labs first.", {}, "", "{}",
       "neither a TOOL_CALL line nor a FINAL_ANSWER line"},
      {"EmptyIsError", "", {}, "", "{}", "Your reply was empty"},
      {"WhitespaceIsError", " \n\t\n", {}, "", "{}", "Your reply was empty"},
      {"GarbageJsonIsError", "THOUGHT: labs\nTOOL_CALL: get_recent_labs(category=Coag)", {}, "", "{}",
       "could not be read: \"get_recent_labs(category=Coag)\""},
      {"UnrepairableJsonIsError", "TOOL_CALL: {\"tool\": get_recent_labs(category='Coag')}", {}, "", "{}",
       "could not be read"},
      {"CallWithoutToolNameIsError", "TOOL_CALL: {\"arguments\": {\"category\": \"Coag\"}}", {}, "", "{}",
       "names no tool"},
      {"ArgumentsNotAnObjectIsError", "TOOL_CALL: {\"tool\": \"get_recent_labs\", \"arguments\": [1, 2]}", {},
       "", "{}", "must be a JSON object"},
      {"EmptyToolCallIsError", "THOUGHT: x\nTOOL_CALL:\n", {}, "", "{}", "no JSON after it"},
      {"EmptyFinalIsError", "THOUGHT: x\nFINAL_ANSWER:\nRISK_ADJUSTMENT: NONE", {}, "", "{}",
       "final answer was empty"},
  };
}

class TextProtocolReplyTest : public ::testing::TestWithParam<ReplyCase> {};

TEST_P(TextProtocolReplyTest, ParsesExactly) {
  const ReplyCase& c = GetParam();
  const TextReply r = ParseTextReply(c.reply, SentinelOptions());
  if (!c.error_contains.empty()) {
    EXPECT_NE(r.error.find(c.error_contains), std::string::npos) << r.error;
    EXPECT_TRUE(r.tool_calls.empty());
    EXPECT_FALSE(r.is_final);
    // The corrective text restates both allowed formats.
    EXPECT_NE(r.error.find("TOOL_CALL: {\"tool\""), std::string::npos) << r.error;
    EXPECT_NE(r.error.find("FINAL_ANSWER: <your answer>"), std::string::npos) << r.error;
    return;
  }
  ASSERT_EQ(r.error, "");
  if (!c.calls.empty()) {
    EXPECT_FALSE(r.is_final);
    ASSERT_EQ(r.tool_calls.size(), c.calls.size());
    for (size_t i = 0; i < c.calls.size(); ++i) {
      EXPECT_EQ(r.tool_calls[i].name, c.calls[i].name) << "call " << i;
      EXPECT_EQ(r.tool_calls[i].arguments, c.calls[i].arguments) << "call " << i;
      EXPECT_EQ(r.tool_calls[i].id.rfind("call_", 0), 0u);
    }
    return;
  }
  EXPECT_TRUE(r.is_final);
  EXPECT_TRUE(r.tool_calls.empty());
  EXPECT_EQ(r.final_answer, c.final_answer);
  EXPECT_EQ(DumpJson(r.final_fields), c.fields);
}

INSTANTIATE_TEST_SUITE_P(TextProtocolMessyReplies, TextProtocolReplyTest, ::testing::ValuesIn(Cases()),
                         [](const ::testing::TestParamInfo<ReplyCase>& info) { return info.param.name; });

TEST(TextProtocolTest, CapturesThoughtAndMintsDistinctIds) {
  const TextReply r = ParseTextReply(
      "THOUGHT: first\nTOOL_CALL: {\"tool\": \"a\"}\nTHOUGHT: second\nTOOL_CALL: {\"tool\": \"b\"}",
      SentinelOptions());
  EXPECT_EQ(r.thought, "first\nsecond");
  ASSERT_EQ(r.tool_calls.size(), 2u);
  EXPECT_NE(r.tool_calls[0].id, r.tool_calls[1].id);
}

// Issue 23, item 8: a fenced block quoted inside a call's string argument is
// part of the argument, not the call; an early-closed call is read whole; two
// calls run together are refused, not cut to the first.
TEST(TextProtocolTest, ToolCallJsonIsNeverSilentlyWrong) {
  const TextReply fenced = ParseTextReply(
      "TOOL_CALL: {\"tool\": \"finish\", \"arguments\": {\"answer\": \"Range:\n```json\n[5, 10]\n```\"}}",
      SentinelOptions());
  ASSERT_EQ(fenced.error, "");
  ASSERT_EQ(fenced.tool_calls.size(), 1u);
  EXPECT_EQ(fenced.tool_calls[0].name, "finish");
  EXPECT_EQ(Json::parse(fenced.tool_calls[0].arguments)["answer"], "Range:\n```json\n[5, 10]\n```");

  const TextReply early =
      ParseTextReply("TOOL_CALL: {\"tool\": \"get_labs\"}, \"arguments\": {\"category\": \"Coag\"}}",
                     SentinelOptions());
  ASSERT_EQ(early.error, "");
  ASSERT_EQ(early.tool_calls.size(), 1u);
  EXPECT_EQ(Json::parse(early.tool_calls[0].arguments)["category"], "Coag");

  const TextReply two = ParseTextReply("TOOL_CALL: {\"tool\": \"a\"} {\"tool\": \"b\"}", SentinelOptions());
  EXPECT_TRUE(two.tool_calls.empty());
  EXPECT_NE(two.error.find("could not be read"), std::string::npos) << two.error;
}

TEST(TextProtocolTest, ErrorQuotesAPreviewAndFieldFormat) {
  const TextReply r = ParseTextReply("The patient looks fine to me.", SentinelOptions());
  EXPECT_NE(r.error.find("\"The patient looks fine to me.\""), std::string::npos) << r.error;
  EXPECT_NE(r.error.find("RISK_ADJUSTMENT: <INCREASE, DECREASE or NONE>"), std::string::npos) << r.error;
}

TEST(TextProtocolTest, CustomFinalMarkers) {
  TextProtocolOptions options;
  options.final_markers = {"ANSWER"};
  const TextReply r = ParseTextReply("Answer: 42", options);
  EXPECT_TRUE(r.is_final);
  EXPECT_EQ(r.final_answer, "42");
  EXPECT_NE(ParseTextReply("FINAL_ANSWER: 42", options).error, "");
}

TEST(TextProtocolTest, RendersCatalogueAndFormat) {
  ToolSpec labs{"get_recent_labs", "Recent labs by category.",
                Json::parse(R"({"type":"object","properties":{"category":{"type":"string"}},"required":["category"]})")};
  ToolSpec manifest{"get_patient_manifest", "Overview of the record."};
  const std::string text = RenderTextProtocolInstructions({labs, manifest}, SentinelOptions());
  EXPECT_NE(text.find("## Available tools"), std::string::npos);
  EXPECT_NE(text.find("### get_recent_labs\nRecent labs by category."), std::string::npos) << text;
  EXPECT_NE(text.find(R"("required":["category"])"), std::string::npos) << text;
  EXPECT_NE(text.find("Required arguments: category"), std::string::npos);
  EXPECT_NE(text.find("Required arguments: none"), std::string::npos);
  EXPECT_NE(text.find("## Response format"), std::string::npos);
  EXPECT_NE(text.find("TOOL_CALL: {\"tool\": \"<tool name>\", \"arguments\": {"), std::string::npos);
  EXPECT_NE(text.find("FINAL_ANSWER: <your answer>\nRISK_ADJUSTMENT: <INCREASE, DECREASE or NONE>\n"
                      "CRITICAL_FINDINGS: <"),
            std::string::npos) << text;
  EXPECT_NE(text.find("Never write OBSERVATION yourself"), std::string::npos);
  EXPECT_NE(text.find("double quotes"), std::string::npos);
}

// A scripted inner model: records the request it was sent, returns a canned reply.
struct FakeState {
  ModelRequest seen;
  int calls = 0;
  ModelResponse reply;
  Status status;
};

class FakeModel : public ChatModel {
 public:
  explicit FakeModel(std::shared_ptr<FakeState> state) : state_(std::move(state)) {}
  Result<ModelResponse> Complete(const ModelRequest& request, const ModelCallContext&) override {
    state_->seen = request;
    ++state_->calls;
    if (!state_->status.ok()) return state_->status;
    return state_->reply;
  }
  std::string name() const override { return "fake-4b"; }
  std::string protocol() const override { return "native"; }

 private:
  std::shared_ptr<FakeState> state_;
};

class TextProtocolModelTest : public ::testing::Test {
 protected:
  void SetUp() override {
    state_ = std::make_shared<FakeState>();
    model_ = MakeTextProtocolModel(std::make_unique<FakeModel>(state_), SentinelOptions());
    request_.tools = {ToolSpec{"get_recent_labs", "Recent labs."}};
    request_.tool_choice = "auto";
    request_.temperature = 0.0;
    request_.max_tokens = 512;
    request_.stream = true;
  }
  Result<ModelResponse> Reply(std::string text) {
    state_->reply.message = Message::Assistant(std::move(text));
    state_->reply.usage = Usage{10, 5, 15};
    state_->reply.finish_reason = "stop";
    state_->reply.model = "served-4b";
    state_->reply.attempts = 2;
    return model_->Complete(request_, ModelCallContext{});
  }

  std::shared_ptr<FakeState> state_;
  std::unique_ptr<ChatModel> model_;
  ModelRequest request_;
};

TEST_F(TextProtocolModelTest, SendsNoToolsAndPutsInstructionsInSystemPrompt) {
  request_.messages = {Message::System("You are Sentinel-X."), Message::User("PE on CT.")};
  request_.response_format = {{"type", "json_object"}};
  ASSERT_TRUE(Reply("FINAL_ANSWER: ok").ok());
  const ModelRequest& seen = state_->seen;
  EXPECT_TRUE(seen.tools.empty());
  EXPECT_EQ(seen.tool_choice, "");
  EXPECT_TRUE(seen.response_format.is_null());  // the protocol's markers are the reply format
  EXPECT_EQ(seen.temperature, 0.0);
  EXPECT_EQ(seen.max_tokens, 512);
  EXPECT_TRUE(seen.stream);
  ASSERT_EQ(seen.messages.size(), 2u);
  EXPECT_EQ(seen.messages[0].role, Role::kSystem);
  EXPECT_EQ(seen.messages[0].content.rfind("You are Sentinel-X.\n\n## Available tools", 0), 0u);
  EXPECT_NE(seen.messages[0].content.find("### get_recent_labs"), std::string::npos);
  EXPECT_NE(seen.messages[0].content.find("## Response format"), std::string::npos);
  EXPECT_EQ(seen.messages[1].content, "PE on CT.");
  EXPECT_EQ(model_->name(), "fake-4b");
  EXPECT_EQ(model_->protocol(), "text");
}

TEST_F(TextProtocolModelTest, InsertsSystemMessageWhenMissing) {
  request_.messages = {Message::User("PE on CT.")};
  ASSERT_TRUE(Reply("FINAL_ANSWER: ok").ok());
  ASSERT_EQ(state_->seen.messages.size(), 2u);
  EXPECT_EQ(state_->seen.messages[0].role, Role::kSystem);
  EXPECT_EQ(state_->seen.messages[0].content.rfind("## Available tools", 0), 0u);
}

TEST_F(TextProtocolModelTest, RewritesCallsAndMergesToolResultsIntoOneUserTurn) {
  std::vector<ToolCall> calls = {{"call_1", "get_patient_manifest", "{}"},
                                 {"call_2", "get_recent_labs", R"({"category":"Coag"})"}};
  request_.messages = {Message::System("sys"), Message::User("PE on CT."),
                       Message::Assistant("", calls),
                       Message::Tool("call_1", "get_patient_manifest", R"({"n":3})"),
                       Message::Tool("call_2", "", "Error: no labs"),
                       Message::User("Budget: 2 steps left.")};
  ASSERT_TRUE(Reply("FINAL_ANSWER: ok").ok());
  const std::vector<Message>& seen = state_->seen.messages;
  ASSERT_EQ(seen.size(), 4u);
  EXPECT_EQ(seen[2].role, Role::kAssistant);
  EXPECT_TRUE(seen[2].tool_calls.empty());
  EXPECT_EQ(seen[2].content,
            "TOOL_CALL: {\"tool\": \"get_patient_manifest\", \"arguments\": {}}\n"
            "TOOL_CALL: {\"tool\": \"get_recent_labs\", \"arguments\": {\"category\":\"Coag\"}}");
  EXPECT_EQ(seen[3].role, Role::kUser);
  EXPECT_EQ(seen[3].content,
            "OBSERVATION (get_patient_manifest, call call_1):\n{\"n\":3}\n\n"
            "OBSERVATION (get_recent_labs, call call_2):\nError: no labs\n\n"
            "Budget: 2 steps left.");
  for (const Message& m : seen) EXPECT_NE(m.role, Role::kTool);
}

TEST_F(TextProtocolModelTest, SendsRawAssistantTextWithoutImaginedObservation) {
  const std::string raw =
      "THOUGHT: labs\nTOOL_CALL: {\"tool\": \"get_recent_labs\", \"arguments\": {\"category\": \"Coag\"}}\n";
  request_.messages = {Message::User("PE"),
                       Message::Assistant(raw + "OBSERVATION: {\"INR\": 9}\n",
                                          {{"call_1", "get_recent_labs", R"({"category":"Coag"})"}}),
                       Message::Tool("call_1", "get_recent_labs", "INR 2.3")};
  ASSERT_TRUE(Reply("FINAL_ANSWER: ok").ok());
  ASSERT_EQ(state_->seen.messages.size(), 4u);
  EXPECT_EQ(state_->seen.messages[2].content, raw);
  EXPECT_EQ(state_->seen.messages[3].content, "OBSERVATION (get_recent_labs, call call_1):\nINR 2.3");
}

TEST_F(TextProtocolModelTest, AppendsCallLinesOnlyWhenTextHasNone) {
  const std::vector<ToolCall> calls = {{"call_1", "get_recent_labs", R"({"category":"Coag"})"}};
  const std::string spelled = "Thought: labs\nTool call: {\"tool\": \"get_recent_labs\"}";
  request_.messages = {Message::User("PE"), Message::Assistant("Let me check the labs.", calls),
                       Message::Tool("call_1", "get_recent_labs", "INR 2.3"),
                       Message::Assistant(spelled, calls),
                       Message::Tool("call_1", "get_recent_labs", "INR 2.3")};
  ASSERT_TRUE(Reply("FINAL_ANSWER: ok").ok());
  ASSERT_EQ(state_->seen.messages.size(), 6u);
  EXPECT_EQ(state_->seen.messages[2].content,
            "Let me check the labs.\n"
            "TOOL_CALL: {\"tool\": \"get_recent_labs\", \"arguments\": {\"category\":\"Coag\"}}");
  EXPECT_EQ(state_->seen.messages[4].content, spelled);
}

TEST_F(TextProtocolModelTest, ReturnsToolCallsWithRawText) {
  request_.messages = {Message::User("PE")};
  const std::string raw = "THOUGHT: labs\nTOOL_CALL: {'tool': 'get_recent_labs', 'arguments': {'category': 'Coag'}}";
  Result<ModelResponse> r = Reply(raw);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->raw_text, raw);
  EXPECT_EQ(r->message.content, raw);
  ASSERT_EQ(r->message.tool_calls.size(), 1u);
  EXPECT_EQ(r->message.tool_calls[0].name, "get_recent_labs");
  EXPECT_EQ(r->message.tool_calls[0].arguments, R"({"category":"Coag"})");
  EXPECT_EQ(r->parse_error, "");
  EXPECT_EQ(r->usage.total_tokens, 15);
  EXPECT_EQ(r->finish_reason, "stop");
  EXPECT_EQ(r->model, "served-4b");
  EXPECT_EQ(r->attempts, 2);
}

TEST_F(TextProtocolModelTest, ReturnsFinalAnswerAndFields) {
  request_.messages = {Message::User("PE")};
  Result<ModelResponse> r = Reply(
      "THOUGHT: failure\nFINAL_ASSESSMENT: Acute PE despite therapeutic anticoagulation.\n"
      "RISK_ADJUSTMENT: INCREASE\nCRITICAL_FINDINGS: [\"Anticoagulation failure\"]");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->message.content, "Acute PE despite therapeutic anticoagulation.");
  EXPECT_TRUE(r->message.tool_calls.empty());
  EXPECT_EQ(r->final_fields["RISK_ADJUSTMENT"], "INCREASE");
  EXPECT_EQ(r->final_fields["CRITICAL_FINDINGS"], Json::array({"Anticoagulation failure"}));
  EXPECT_EQ(r->parse_error, "");
}

TEST_F(TextProtocolModelTest, GarbageGivesParseErrorAndKeepsText) {
  request_.messages = {Message::User("PE")};
  Result<ModelResponse> r = Reply("I think the patient is fine.");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->message.content, "I think the patient is fine.");
  EXPECT_TRUE(r->message.tool_calls.empty());
  EXPECT_NE(r->parse_error.find("neither a TOOL_CALL line"), std::string::npos) << r->parse_error;
  EXPECT_TRUE(r->final_fields.is_null());
}

TEST_F(TextProtocolModelTest, KeepsNativeToolCalls) {
  request_.messages = {Message::User("PE")};
  state_->reply.message = Message::Assistant("", {{"", "get_recent_labs", R"({"category":"Coag"})"}});
  Result<ModelResponse> r = model_->Complete(request_, ModelCallContext{});
  ASSERT_TRUE(r.ok());
  ASSERT_EQ(r->message.tool_calls.size(), 1u);
  EXPECT_EQ(r->message.tool_calls[0].name, "get_recent_labs");
  EXPECT_FALSE(r->message.tool_calls[0].id.empty());
  EXPECT_EQ(r->parse_error, "");
}

TEST_F(TextProtocolModelTest, InnerErrorsPassThrough) {
  request_.messages = {Message::User("PE")};
  state_->status = Status::Unavailable("connection refused");
  Result<ModelResponse> r = model_->Complete(request_, ModelCallContext{});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status(), Status::Unavailable("connection refused"));
}

}  // namespace
}  // namespace medreact

// The run state's text writers (run_state_text.cc) against the tree ones
// (run_state.cc): the same JSON once parsed, for states with every field
// set and strings a writer could get wrong (escapes, control characters,
// non-ASCII text, invalid UTF-8) and doubles of every shape; an event's line
// the same bytes as DumpJson(ToJson(event)) (the store keeps the --events
// line byte for byte).
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>

#include "medreact/events.h"
#include "medreact/run_state.h"

namespace medreact {
namespace {

const std::string kOdd[] = {
    "",
    "plain",
    "quote \" backslash \\ slash /",
    "controls \b\f\n\r\t \x01 \x1f end",
    std::string("nul \0 inside", 12),
    "del \x7f",
    "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80",  // é € 😀
    "bad \xff byte",
    "overlong \xc0\x80",
    "surrogate \xed\xa0\x80",
    "cut \xe2\x82",
    "past max \xf4\x90\x80\x80",
};

const double kNumbers[] = {0.0, 1.0, -1.0, 0.1, 2.5, 1e300, -2.5e-8, 123456789.0, 1e21,
                           std::numeric_limits<double>::quiet_NaN(),
                           std::numeric_limits<double>::infinity()};

Message Assistant(const std::string& text) {
  Message m = Message::Assistant(text, {{"call_1", "add", "{\"a\": \"" + text + "\"}"}, {"call_2", "x", "{}"}});
  return m;
}

StepRecord Step(int index, const std::string& text, double number) {
  StepRecord s;
  s.index = index;
  s.kind = index % 2 ? "step" : "fallback";
  s.assistant = Assistant(text);
  s.raw_text = text;
  s.finish_reason = "tool_calls";
  s.parse_error = text;
  s.model_error = text;
  s.tool_results = {{"call_1", "add", true, text, "", number}, {"call_2", "x", false, "", text, 0.5}};
  s.notes = {text, "note"};
  s.usage = {.prompt_tokens = 12, .completion_tokens = INT64_MAX, .total_tokens = -3};
  s.attempts = 2;
  s.model_ms = number;
  s.elapsed_ms = number;
  return s;
}

RunState FullState(const std::string& text, double number) {
  RunState s;
  s.phase = RunState::Phase::kInTurn;
  s.messages = {Message::System("s"), Message::User(text)};
  s.step = 3;
  s.tool_calls = 4;
  s.usage = {.prompt_tokens = 1, .completion_tokens = 2, .total_tokens = 3};
  s.elapsed_ms = number;
  s.loop_counts = {{text, 2}, {"b", 1}};
  s.loop_nudged = {text, "z"};
  s.turn = Assistant(text);
  Message user = Message::User(text);
  user.images = {{ContentPart::Kind::kImage, "", "data:image/png;base64,AA=="}, {ContentPart::Kind::kText, text, ""}};
  s.turn.images = user.images;
  s.turn_record = Step(3, text, number);
  s.turn_results = {{0, {"call_1", "add", true, text, "", number}}, {11, {"call_2", "x", false, "", text, 1.0}}};
  s.awaiting_approval = {"call_2", text};
  s.approvals = {{"call_1", {.approved = true, .arguments = text, .reason = "", .reviewer = text, .decided_at = ""}},
                 {text, {.approved = false, .arguments = "", .reason = text, .reviewer = "", .decided_at = "now"}}};
  s.outcome = "answered";
  s.answer = text;
  s.final_fields = Json{{"answer", text}, {"n", number}, {"list", Json::array({1, "two", nullptr})}};
  s.model_error = text;
  s.limit_status = "max_steps";
  s.limit_reason = text;
  s.answers_checked = 2;
  s.answer_rejections = 1;
  s.answer_accepted = false;
  s.answer_feedback = text;
  s.trace.run_id = "run_x";
  s.trace.status = text;
  s.trace.answer = text;
  s.trace.error = text;
  s.trace.model = "m";
  s.trace.protocol = "native";
  s.trace.started_at = "2026-11-27T00:00:00Z";
  s.trace.elapsed_ms = number;
  s.trace.input = Json{{"message", text}, {"options", {{"max_steps", 5}}}};
  s.trace.steps = {Step(1, text, number)};
  s.app = Json{{"graph", {{"next", "act"}, {"steps", 2}, {"state", {{"note", text}}}}}};  // a graph app's state
  return s;
}

// What the tree's text reads back as (a NaN in the tree is written as null).
Json TreeAsRead(const Json& tree) {
  Result<Json> j = ParseJson(DumpJson(tree));
  EXPECT_TRUE(j.ok());
  return j.ok() ? *j : Json();
}

Json TextAsRead(const std::string& text) {
  Result<Json> j = ParseJson(text);
  EXPECT_TRUE(j.ok()) << text;
  return j.ok() ? *j : Json();
}

TEST(RunStateTextTest, TheHeaderStepAndMessageTextsReadAsTheTreesDo) {
  for (const std::string& text : kOdd) {
    for (double number : kNumbers) {
      SCOPED_TRACE(::testing::Message() << "text '" << text << "', number " << number);
      const RunState s = FullState(text, number);
      for (bool with_input : {true, false}) {
        EXPECT_EQ(TextAsRead(RunStateHeaderToJsonText(s, with_input)),
                  TreeAsRead(RunStateHeaderToJson(s, with_input)));
      }
      EXPECT_EQ(TextAsRead(StepRecordToStateJsonText(s.turn_record)),
                TreeAsRead(StepRecordToStateJson(s.turn_record)));
      for (const Message& m : {s.turn, s.messages[1], Message::Tool("call_1", text, text)}) {
        EXPECT_EQ(TextAsRead(MessageToStateJsonText(m)), TreeAsRead(MessageToStateJson(m)));
      }
    }
  }
}

TEST(RunStateTextTest, AnEmptyStateAndABetweenStepsStateReadBack) {
  RunState empty;
  EXPECT_EQ(TextAsRead(RunStateHeaderToJsonText(empty)), TreeAsRead(RunStateHeaderToJson(empty)));
  RunState s = FullState("text", 2.5);
  s.phase = RunState::Phase::kBetweenSteps;  // the turn's fields are read only in a turn
  s.turn = Message();
  s.turn_record = StepRecord();
  s.turn_results.clear();
  s.awaiting_approval.clear();
  s.approvals.clear();
  s.trace.steps[0].usage.total_tokens = 3;  // a reader wants no negative count
  Json j = TextAsRead(RunStateHeaderToJsonText(s));
  j["messages"] = Json::array({MessageToStateJson(s.messages[0]), MessageToStateJson(s.messages[1])});
  j["trace"]["steps"] = Json::array({TextAsRead(StepRecordToStateJsonText(s.trace.steps[0]))});
  Result<RunState> back = RunStateFromJson(j);
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ(DumpJson(ToJson(*back)), DumpJson(ToJson(s)));
}

TEST(RunStateTextTest, AnEventsLineIsTheTreesByteForByte) {
  const double elapsed[] = {0.0, -1.0, 0.001, 0.0000123, 1.5, 12.345678901234, 1e15, 1e16, 123456.0,
                            std::numeric_limits<double>::infinity()};
  for (const std::string& text : kOdd) {
    for (double ms : elapsed) {
      for (EventType type : {EventType::kRunStarted, EventType::kToolFinished, EventType::kStepFinished}) {
        for (bool ok : {true, false}) {
          Event e{.type = type, .step = 7, .text = text, .tool_name = text, .tool_call_id = text, .ok = ok,
                  .elapsed_ms = ms, .data = Json{{"usage", {{"total_tokens", 3}}}, {"text", text}, {"ms", ms}}};
          EXPECT_EQ(EventJsonLine(e), DumpJson(ToJson(e)));
          e.data = Json();
          e.text.clear();
          e.tool_call_id.clear();
          EXPECT_EQ(EventJsonLine(e), DumpJson(ToJson(e)));
        }
      }
    }
  }
}

}  // namespace
}  // namespace medreact

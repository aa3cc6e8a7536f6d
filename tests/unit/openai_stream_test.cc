// Tests for StreamAccumulator: SSE framing over arbitrary byte splits and the
// delta-accumulation quirks of real OpenAI-compatible servers.

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "medreact/openai.h"

namespace medreact {
namespace {

// "data: <event>\n\n" for each event, then "data: [DONE]\n\n" if `done`.
std::string Sse(const std::vector<std::string>& events, bool done = true) {
  std::string out;
  for (const std::string& e : events) out += "data: " + e + "\n\n";
  if (done) out += "data: [DONE]\n\n";
  return out;
}

std::string TextChunk(const std::string& text) {
  return Json{{"choices", {{{"index", 0}, {"delta", {{"content", text}}}, {"finish_reason", nullptr}}}}}.dump();
}

std::string CallChunk(Json call) {
  return Json{{"choices", {{{"index", 0}, {"delta", {{"tool_calls", Json::array({std::move(call)})}}}}}}}.dump();
}

std::string FinishChunk(const std::string& reason) {
  return Json{{"choices", {{{"index", 0}, {"delta", Json::object()}, {"finish_reason", reason}}}}}.dump();
}

// Feeds `sse` split into pieces of `step` bytes (step 0: all at once).
Result<ModelResponse> Accumulate(const std::string& sse, size_t step = 0, std::string* streamed = nullptr) {
  StreamAccumulator acc;
  if (streamed) acc.set_on_text([streamed](std::string_view t) { streamed->append(t); });
  if (step == 0) step = sse.size() + 1;
  for (size_t i = 0; i < sse.size(); i += step) {
    if (!acc.Feed(std::string_view(sse).substr(i, step))) break;
  }
  return acc.Finish();
}

Result<ModelResponse> RunRandomSplits(const std::string& sse, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<size_t> len(1, 17);
  StreamAccumulator acc;
  for (size_t i = 0; i < sse.size();) {
    size_t n = std::min(len(rng), sse.size() - i);
    EXPECT_TRUE(acc.Feed(std::string_view(sse).substr(i, n)));
    i += n;
  }
  return acc.Finish();
}

void ExpectSame(const Result<ModelResponse>& a, const Result<ModelResponse>& b, const std::string& label) {
  ASSERT_TRUE(a.ok()) << label << ": " << a.status().ToString();
  ASSERT_TRUE(b.ok()) << label << ": " << b.status().ToString();
  EXPECT_EQ(a->message.content, b->message.content) << label;
  EXPECT_EQ(a->message.tool_calls, b->message.tool_calls) << label;
  EXPECT_EQ(a->finish_reason, b->finish_reason) << label;
  EXPECT_EQ(a->usage.total_tokens, b->usage.total_tokens) << label;
}

// A reply with text, then a call whose arguments arrive in small fragments.
std::string FragmentedStream() {
  std::vector<std::string> events = {TextChunk("Checking "), TextChunk("the INR.")};
  events.push_back(CallChunk({{"index", 0}, {"id", "call_abc"}, {"type", "function"},
                              {"function", {{"name", "get_labs"}, {"arguments", ""}}}}));
  const std::string args = R"({"code": "INR", "since": "2024-01-01", "note": "naïve \"quoted\""})";
  for (size_t i = 0; i < args.size(); i += 4) {
    events.push_back(CallChunk({{"index", 0}, {"function", {{"arguments", args.substr(i, 4)}}}}));
  }
  events.push_back(FinishChunk("tool_calls"));
  events.push_back(R"({"choices":[],"usage":{"prompt_tokens":7,"completion_tokens":9,"total_tokens":16}})");
  return Sse(events);
}

TEST(StreamAccumulatorTest, FragmentedArgumentsAnySplit) {
  const std::string sse = FragmentedStream();
  Result<ModelResponse> whole = Accumulate(sse);
  ASSERT_TRUE(whole.ok()) << whole.status().ToString();
  EXPECT_EQ(whole->message.content, "Checking the INR.");
  ASSERT_EQ(whole->message.tool_calls.size(), 1u);
  EXPECT_EQ(whole->message.tool_calls[0].id, "call_abc");
  EXPECT_EQ(whole->message.tool_calls[0].name, "get_labs");
  EXPECT_EQ(whole->message.tool_calls[0].arguments,
            R"({"code": "INR", "since": "2024-01-01", "note": "naïve \"quoted\""})");
  EXPECT_EQ(whole->finish_reason, "tool_calls");
  EXPECT_EQ(whole->usage.total_tokens, 16);
  ExpectSame(whole, Accumulate(sse, 1), "1-byte");
  ExpectSame(whole, Accumulate(sse, 3), "3-byte");
  for (uint32_t seed = 1; seed <= 20; ++seed) ExpectSame(whole, RunRandomSplits(sse, seed), "random");
}

TEST(StreamAccumulatorTest, SplitAtEveryBytePosition) {
  const std::string sse = FragmentedStream();
  Result<ModelResponse> whole = Accumulate(sse);
  for (size_t cut = 1; cut < sse.size(); ++cut) {
    StreamAccumulator acc;
    ASSERT_TRUE(acc.Feed(std::string_view(sse).substr(0, cut)));
    ASSERT_TRUE(acc.Feed(std::string_view(sse).substr(cut)));
    ExpectSame(whole, acc.Finish(), "cut at " + std::to_string(cut));
  }
}

TEST(StreamAccumulatorTest, TextDeltasReachCallback) {
  std::string streamed;
  Result<ModelResponse> r = Accumulate(FragmentedStream(), 2, &streamed);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(streamed, "Checking the INR.");
}

TEST(StreamAccumulatorTest, TwoParallelCallsInterleaved) {
  std::string sse = Sse({
      CallChunk({{"index", 0}, {"id", "call_1"}, {"type", "function"}, {"function", {{"name", "get_labs"}}}}),
      CallChunk({{"index", 1}, {"id", "call_2"}, {"type", "function"}, {"function", {{"name", "get_meds"}}}}),
      CallChunk({{"index", 0}, {"function", {{"arguments", "{\"code\":"}}}}),
      CallChunk({{"index", 1}, {"function", {{"arguments", "{\"active\":"}}}}),
      CallChunk({{"index", 1}, {"function", {{"arguments", "true}"}}}}),
      CallChunk({{"index", 0}, {"function", {{"arguments", "\"INR\"}"}}}}),
      FinishChunk("tool_calls"),
  });
  for (size_t step : {0, 1, 5}) {
    Result<ModelResponse> r = Accumulate(sse, step);
    ASSERT_TRUE(r.ok());
    ASSERT_EQ(r->message.tool_calls.size(), 2u);
    EXPECT_EQ(r->message.tool_calls[0], (ToolCall{"call_1", "get_labs", R"({"code":"INR"})"}));
    EXPECT_EQ(r->message.tool_calls[1], (ToolCall{"call_2", "get_meds", R"({"active":true})"}));
  }
}

TEST(StreamAccumulatorTest, CallsInIndexOrderEvenWhenIndex1ComesFirst) {
  std::string sse = Sse({
      CallChunk({{"index", 1}, {"id", "b"}, {"function", {{"name", "second"}, {"arguments", "{}"}}}}),
      CallChunk({{"index", 0}, {"id", "a"}, {"function", {{"name", "first"}, {"arguments", "{}"}}}}),
  });
  Result<ModelResponse> r = Accumulate(sse);
  ASSERT_TRUE(r.ok());
  ASSERT_EQ(r->message.tool_calls.size(), 2u);
  EXPECT_EQ(r->message.tool_calls[0].name, "first");
  EXPECT_EQ(r->message.tool_calls[1].name, "second");
}

TEST(StreamAccumulatorTest, CallWithFinishReasonStopStillCounts) {
  std::string sse = Sse({CallChunk({{"index", 0}, {"id", "call_1"}, {"function", {{"name", "get_labs"}, {"arguments", "{}"}}}}),
                         FinishChunk("stop")});
  Result<ModelResponse> r = Accumulate(sse);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->finish_reason, "stop");
  ASSERT_EQ(r->message.tool_calls.size(), 1u);
  EXPECT_TRUE(r->parse_error.empty());
}

TEST(StreamAccumulatorTest, WholeCallInOneChunkWithObjectArguments) {
  std::string sse = Sse({CallChunk({{"index", 0}, {"id", "call_9"}, {"type", "function"},
                                    {"function", {{"name", "get_labs"}, {"arguments", {{"code", "K"}}}}}}),
                         FinishChunk("tool_calls")});
  Result<ModelResponse> r = Accumulate(sse);
  ASSERT_TRUE(r.ok());
  ASSERT_EQ(r->message.tool_calls.size(), 1u);
  EXPECT_EQ(r->message.tool_calls[0].id, "call_9");
  EXPECT_EQ(ParseJson(r->message.tool_calls[0].arguments).value_or(Json()), Json({{"code", "K"}}));
}

TEST(StreamAccumulatorTest, ObjectArgumentsWinOverFragments) {
  std::string sse = Sse({CallChunk({{"index", 0}, {"id", "c"}, {"function", {{"name", "f"}, {"arguments", "{\"a\""}}}}),
                         CallChunk({{"index", 0}, {"function", {{"arguments", {{"a", 1}}}}}}),
                         FinishChunk("tool_calls")});
  Result<ModelResponse> r = Accumulate(sse);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->message.tool_calls.at(0).arguments, R"({"a":1})");
}

TEST(StreamAccumulatorTest, LaterEmptyOrNullValuesNeverErase) {
  std::string sse = Sse({
      CallChunk({{"index", 0}, {"id", "call_1"}, {"type", "function"}, {"function", {{"name", "get_labs"}, {"arguments", "{\"a\""}}}}),
      CallChunk({{"index", 0}, {"id", ""}, {"type", ""}, {"function", {{"name", ""}, {"arguments", ":1"}}}}),
      CallChunk({{"index", 0}, {"id", nullptr}, {"function", {{"name", nullptr}, {"arguments", nullptr}}}}),
      CallChunk({{"index", 0}, {"function", {{"name", "other_name"}, {"arguments", "}"}}}}),
      FinishChunk("tool_calls"),
  });
  Result<ModelResponse> r = Accumulate(sse);
  ASSERT_TRUE(r.ok());
  ASSERT_EQ(r->message.tool_calls.size(), 1u);
  EXPECT_EQ(r->message.tool_calls[0], (ToolCall{"call_1", "get_labs", R"({"a":1})"}));
}

TEST(StreamAccumulatorTest, MissingIndexUsesIdThenPosition) {
  // Each call arrives whole, without "index" (some Gemini/Ollama front ends).
  std::string sse = Sse({
      CallChunk({{"id", "x1"}, {"function", {{"name", "get_labs"}, {"arguments", "{\"a\":"}}}}),
      CallChunk({{"function", {{"arguments", "1}"}}}}),  // continues the last call
      CallChunk({{"id", "x2"}, {"function", {{"name", "get_meds"}, {"arguments", "{}"}}}}),
      CallChunk({{"id", "x1"}, {"function", {{"name", "ignored"}}}}),
      FinishChunk("tool_calls"),
  });
  Result<ModelResponse> r = Accumulate(sse);
  ASSERT_TRUE(r.ok());
  ASSERT_EQ(r->message.tool_calls.size(), 2u);
  EXPECT_EQ(r->message.tool_calls[0], (ToolCall{"x1", "get_labs", R"({"a":1})"}));
  EXPECT_EQ(r->message.tool_calls[1], (ToolCall{"x2", "get_meds", "{}"}));

  // Two calls in one delta array without index: position in the array.
  std::string both = Sse({R"({"choices":[{"delta":{"tool_calls":[{"function":{"name":"a","arguments":"{}"}},)"
                          R"({"function":{"name":"b","arguments":"{}"}}]},"finish_reason":"tool_calls"}]})"});
  Result<ModelResponse> r2 = Accumulate(both);
  ASSERT_TRUE(r2.ok());
  ASSERT_EQ(r2->message.tool_calls.size(), 2u);
  EXPECT_EQ(r2->message.tool_calls[0].name, "a");
  EXPECT_EQ(r2->message.tool_calls[1].name, "b");
  EXPECT_TRUE(r2->message.tool_calls[0].id.starts_with("call_"));  // minted
}

TEST(StreamAccumulatorTest, ForeignIdsKeptAsIs) {
  std::string sse = Sse({CallChunk({{"index", 0}, {"id", "toolu_01A"}, {"function", {{"name", "f"}, {"arguments", "{}"}}}}),
                         CallChunk({{"index", 1}, {"id", "7"}, {"function", {{"name", "g"}, {"arguments", "{}"}}}}),
                         FinishChunk("tool_calls")});
  Result<ModelResponse> r = Accumulate(sse);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->message.tool_calls.at(0).id, "toolu_01A");
  EXPECT_EQ(r->message.tool_calls.at(1).id, "7");
}

TEST(StreamAccumulatorTest, UsageOnlyFinalChunk) {
  std::string sse = Sse({TextChunk("ok"), FinishChunk("stop"),
                         R"({"id":"x","model":"m-2","choices":[],"usage":{"prompt_tokens":3,"completion_tokens":1,"total_tokens":4}})"});
  Result<ModelResponse> r = Accumulate(sse);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->message.content, "ok");
  EXPECT_EQ(r->usage.prompt_tokens, 3);
  EXPECT_EQ(r->usage.completion_tokens, 1);
  EXPECT_EQ(r->usage.total_tokens, 4);
  EXPECT_EQ(r->model, "m-2");
}

TEST(StreamAccumulatorTest, CrlfFramingCommentsAndOtherFields) {
  std::string sse = ": keep-alive\r\n\r\nevent: message\r\nid: 1\r\ndata: " + TextChunk("Hel") +
                    "\r\n\r\nretry: 1000\r\ndata:" + TextChunk("lo") + "\r\n\r\ndata: " + FinishChunk("stop") +
                    "\r\n\r\ndata: [DONE]\r\n\r\n";
  for (size_t step : {0, 1, 2, 7}) {
    StreamAccumulator acc;
    for (size_t i = 0; i < sse.size(); i += step ? step : sse.size()) {
      ASSERT_TRUE(acc.Feed(std::string_view(sse).substr(i, step ? step : sse.size())));
    }
    EXPECT_TRUE(acc.done());
    Result<ModelResponse> r = acc.Finish();
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    EXPECT_EQ(r->message.content, "Hello");
  }
}

TEST(StreamAccumulatorTest, MultipleDataLinesJoinedWithNewline) {
  std::string sse = "data: {\"choices\":[{\"delta\":\ndata: {\"content\":\"hi\"},\"finish_reason\":\"stop\"}]}\n\n";
  Result<ModelResponse> r = Accumulate(sse);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->message.content, "hi");
}

TEST(StreamAccumulatorTest, NoDoneButFinishReasonIsOk) {
  Result<ModelResponse> r = Accumulate(Sse({TextChunk("fine"), FinishChunk("stop")}, /*done=*/false));
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->message.content, "fine");
}

TEST(StreamAccumulatorTest, BytesAfterDoneIgnored) {
  StreamAccumulator acc;
  EXPECT_TRUE(acc.Feed(Sse({TextChunk("x")}) + "data: {garbage\n\n"));
  EXPECT_TRUE(acc.done());
  Result<ModelResponse> r = acc.Finish();
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->message.content, "x");
}

TEST(StreamAccumulatorTest, LastEventWithoutBlankLineAccepted) {
  Result<ModelResponse> r = Accumulate("data: " + TextChunk("x") + "\n\ndata: " + FinishChunk("stop"));
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->message.content, "x");
}

TEST(StreamAccumulatorTest, TruncatedStreamsAreUnavailable) {
  // Neither [DONE] nor a finish_reason.
  Result<ModelResponse> r = Accumulate(Sse({TextChunk("partial")}, /*done=*/false));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kUnavailable);
  EXPECT_NE(r.status().message().find("truncated"), std::string::npos);
  // Cut in the middle of an event's JSON.
  std::string full = Sse({TextChunk("a"), FinishChunk("stop")}, false);
  std::string cut = full.substr(0, full.size() - 10);
  Result<ModelResponse> r2 = Accumulate(cut);
  ASSERT_FALSE(r2.ok());
  EXPECT_EQ(r2.status().code(), StatusCode::kUnavailable);
  EXPECT_NE(r2.status().message().find("truncated"), std::string::npos);
}

TEST(StreamAccumulatorTest, EmptyStreamIsUnavailable) {
  for (const char* sse : {"", ": ping\n\n", "\n\n\n"}) {
    Result<ModelResponse> r = Accumulate(sse);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.status().code(), StatusCode::kUnavailable);
    EXPECT_EQ(r.status().message(), "stream ended without any event");
  }
}

TEST(StreamAccumulatorTest, ErrorChunkStopsFeed) {
  StreamAccumulator acc;
  EXPECT_TRUE(acc.Feed("data: " + TextChunk("a") + "\n\n"));
  EXPECT_FALSE(acc.Feed(R"(data: {"error":{"message":"context length exceeded","code":400}})" "\n\n"));
  EXPECT_NE(acc.error().find("context length exceeded"), std::string::npos);
  EXPECT_FALSE(acc.Feed("data: " + TextChunk("b") + "\n\n"));
  Result<ModelResponse> r = acc.Finish();
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("context length exceeded"), std::string::npos);
}

TEST(StreamAccumulatorTest, InvalidJsonEventStopsFeed) {
  StreamAccumulator acc;
  EXPECT_FALSE(acc.Feed("data: {not json}\n\n"));
  EXPECT_FALSE(acc.error().empty());
  EXPECT_EQ(acc.Finish().status().code(), StatusCode::kParseError);
}

TEST(StreamAccumulatorTest, EmptyReplyGetsParseError) {
  Result<ModelResponse> r = Accumulate(Sse({FinishChunk("stop")}));
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->parse_error, "The model returned an empty reply (no text and no tool calls).");
}

TEST(StreamAccumulatorTest, MatchesNonStreamedParse) {
  Result<ModelResponse> streamed = Accumulate(Sse({TextChunk("Dose "), TextChunk("ok."),
      CallChunk({{"index", 0}, {"id", "c1"}, {"function", {{"name", "f"}, {"arguments", "{\"x\":1}"}}}}),
      FinishChunk("tool_calls")}));
  Result<ModelResponse> whole = ParseChatCompletion(Json::parse(R"({"choices":[{"message":{"content":"Dose ok.",
      "tool_calls":[{"id":"c1","type":"function","function":{"name":"f","arguments":"{\"x\":1}"}}]},
      "finish_reason":"tool_calls"}]})"));
  ExpectSame(streamed, whole, "stream vs whole");
}

}  // namespace
}  // namespace medreact

// The Anthropic Messages wire mapping (llm/anthropic_wire.h), without sockets:
// request bodies, response objects and streamed events.
#include <gtest/gtest.h>

#include "llm/anthropic_wire.h"

namespace medreact {
namespace {

ToolSpec Spec(const std::string& name, const std::string& description) {
  return ToolSpec{.name = name, .description = description,
                  .parameters = Json{{"type", "object"}, {"properties", {{"x", {{"type", "string"}}}}}}};
}

ModelRequest ToolTurn() {
  ModelRequest r;
  r.messages = {Message::System("You are careful."), Message::User("Look up both."),
                Message::Assistant("Checking.", {ToolCall{"toolu_1", "lookup", R"({"x": "a"})"},
                                                 ToolCall{"toolu_2", "lookup", "not json"}}),
                Message::Tool("toolu_1", "lookup", "A"), Message::Tool("toolu_2", "lookup", "B"),
                Message::User("And now?")};
  r.tools = {Spec("lookup", "Looks a thing up.")};
  r.tool_choice = "required";
  return r;
}

TEST(AnthropicWire, BodyMapsSystemToolsCallsAndMergesResultsIntoOneUserMessage) {
  const Json body = BuildAnthropicMessagesBody(ToolTurn(), {.model = "claude-x"});
  EXPECT_EQ(body["model"], "claude-x");
  EXPECT_EQ(body["max_tokens"], 4096);  // required by the API
  EXPECT_FALSE(body.contains("stream"));
  EXPECT_EQ(body["system"], Json::array({Json{{"type", "text"}, {"text", "You are careful."}}}));
  EXPECT_EQ(body["tools"][0]["name"], "lookup");
  EXPECT_EQ(body["tools"][0]["description"], "Looks a thing up.");
  EXPECT_EQ(body["tools"][0]["input_schema"]["type"], "object");
  EXPECT_EQ(body["tool_choice"], Json({{"type", "any"}}));
  const Json& messages = body["messages"];
  ASSERT_EQ(messages.size(), 3u) << messages.dump();
  EXPECT_EQ(messages[0]["role"], "user");
  EXPECT_EQ(messages[1]["role"], "assistant");
  const Json& blocks = messages[1]["content"];
  ASSERT_EQ(blocks.size(), 3u);
  EXPECT_EQ(blocks[0], Json({{"type", "text"}, {"text", "Checking."}}));
  EXPECT_EQ(blocks[1], Json({{"type", "tool_use"}, {"id", "toolu_1"}, {"name", "lookup"}, {"input", {{"x", "a"}}}}));
  EXPECT_EQ(blocks[2]["input"], Json::object());  // invalid arguments re-sent as {}
  // Both results and the next user text in ONE user message, in order.
  const Json& results = messages[2];
  EXPECT_EQ(results["role"], "user");
  ASSERT_EQ(results["content"].size(), 3u) << results.dump();
  EXPECT_EQ(results["content"][0],
            Json({{"type", "tool_result"}, {"tool_use_id", "toolu_1"}, {"content", "A"}}));
  EXPECT_EQ(results["content"][1]["tool_use_id"], "toolu_2");
  EXPECT_EQ(results["content"][2], Json({{"type", "text"}, {"text", "And now?"}}));
}

TEST(AnthropicWire, CacheMarkersOnlyWhenThePrefixIsLongEnough) {
  ModelRequest short_request = ToolTurn();
  const Json small = BuildAnthropicMessagesBody(short_request, {.model = "m"});
  EXPECT_FALSE(small["tools"].back().contains("cache_control"));
  EXPECT_FALSE(small["system"].back().contains("cache_control"));

  ModelRequest long_request = ToolTurn();
  long_request.messages[0] = Message::System(std::string(6000, 's'));  // ~1500 tokens
  const Json big = BuildAnthropicMessagesBody(long_request, {.model = "m"});
  EXPECT_EQ(big["system"].back()["cache_control"], Json({{"type", "ephemeral"}}));
  EXPECT_FALSE(big["tools"].back().contains("cache_control"));  // the tools alone are short

  std::vector<ToolSpec> many;
  for (int i = 0; i < 40; ++i) many.push_back(Spec("tool_" + std::to_string(i), std::string(200, 'd')));
  long_request.tools = many;
  const Json both = BuildAnthropicMessagesBody(long_request, {.model = "m"});
  EXPECT_EQ(both["tools"].back()["cache_control"], Json({{"type", "ephemeral"}}));
  EXPECT_FALSE(both["tools"].front().contains("cache_control"));
  EXPECT_EQ(both["system"].back()["cache_control"], Json({{"type", "ephemeral"}}));
}

TEST(AnthropicWire, ImagesAreBase64Blocks) {
  ModelRequest r;
  Message user = Message::User("What does it show?");
  user.images.push_back({.kind = ContentPart::Kind::kImage, .image_url = "data:image/png;base64,iVBORw0K"});
  user.images.push_back({.kind = ContentPart::Kind::kImage, .image_url = "https://example.org/x.jpg"});
  r.messages = {user};
  r.stream = true;
  r.max_tokens = 100;
  const Json body = BuildAnthropicMessagesBody(r, {.model = "m"});
  EXPECT_EQ(body["stream"], true);
  EXPECT_EQ(body["max_tokens"], 100);
  const Json& content = body["messages"][0]["content"];
  ASSERT_EQ(content.size(), 3u);
  EXPECT_EQ(content[0], Json({{"type", "image"},
                              {"source", {{"type", "base64"}, {"media_type", "image/png"}, {"data", "iVBORw0K"}}}}));
  EXPECT_EQ(content[1]["source"], Json({{"type", "url"}, {"url", "https://example.org/x.jpg"}}));
  EXPECT_EQ(content[2]["text"], "What does it show?");
}

TEST(AnthropicWire, ParsesToolUseResponseWithCacheUsage) {
  const Json body = Json::parse(R"({"id": "msg_1", "type": "message", "role": "assistant", "model": "claude-x",
    "content": [{"type": "text", "text": "Let me check."},
                {"type": "tool_use", "id": "toolu_a", "name": "lookup", "input": {"x": "a"}},
                {"type": "tool_use", "id": "toolu_b", "name": "lookup", "input": {"x": "b"}}],
    "stop_reason": "tool_use",
    "usage": {"input_tokens": 10, "output_tokens": 7, "cache_creation_input_tokens": 1200,
              "cache_read_input_tokens": 0}})");
  Result<AnthropicReply> reply = ParseAnthropicMessage(body);
  ASSERT_TRUE(reply.ok()) << reply.status().ToString();
  EXPECT_EQ(reply->cache_creation_tokens, 1200);
  const ModelResponse* r = &reply->response;
  EXPECT_EQ(r->message.content, "Let me check.");
  ASSERT_EQ(r->message.tool_calls.size(), 2u);
  EXPECT_EQ(r->message.tool_calls[1].id, "toolu_b");
  EXPECT_EQ(*ParseJson(r->message.tool_calls[1].arguments), Json({{"x", "b"}}));
  EXPECT_EQ(r->finish_reason, "tool_calls");
  EXPECT_EQ(r->model, "claude-x");
  EXPECT_EQ(r->usage.prompt_tokens, 1210);
  EXPECT_EQ(r->usage.completion_tokens, 7);
  EXPECT_EQ(r->usage.total_tokens, 1217);
  EXPECT_EQ(MapAnthropicStopReason("end_turn"), "stop");
  EXPECT_EQ(MapAnthropicStopReason("max_tokens"), "length");
}

TEST(AnthropicWire, ErrorBodiesAreNamedByType) {
  Result<AnthropicReply> busy = ParseAnthropicMessage(
      Json::parse(R"({"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}})"));
  ASSERT_FALSE(busy.ok());
  EXPECT_EQ(busy.status().code(), StatusCode::kUnavailable);
  EXPECT_NE(busy.status().message().find("overloaded_error"), std::string::npos);
  EXPECT_NE(busy.status().message().find("Overloaded"), std::string::npos);
  Result<AnthropicReply> bad = ParseAnthropicMessage(
      Json::parse(R"({"type": "error", "error": {"type": "invalid_request_error", "message": "max_tokens: required"}})"));
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), StatusCode::kInvalidArgument);
  EXPECT_FALSE(ParseAnthropicMessage(Json::parse(R"({"type": "completion"})")).ok());
}

const char kToolStream[] =
    "event: message_start\n"
    "data: {\"type\":\"message_start\",\"message\":{\"id\":\"msg_1\",\"type\":\"message\",\"role\":\"assistant\","
    "\"model\":\"claude-x\",\"content\":[],\"usage\":{\"input_tokens\":25,\"output_tokens\":1,"
    "\"cache_read_input_tokens\":1100}}}\n\n"
    "event: ping\ndata: {\"type\": \"ping\"}\n\n"
    "event: content_block_start\n"
    "data: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n"
    "event: content_block_delta\n"
    "data: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"Hel\"}}\n\n"
    "event: content_block_delta\n"
    "data: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"lo\"}}\n\n"
    "event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":0}\n\n"
    "event: content_block_start\n"
    "data: {\"type\":\"content_block_start\",\"index\":1,\"content_block\":{\"type\":\"tool_use\",\"id\":\"toolu_9\","
    "\"name\":\"calculator\",\"input\":{}}}\n\n"
    "event: content_block_delta\n"
    "data: {\"type\":\"content_block_delta\",\"index\":1,\"delta\":{\"type\":\"input_json_delta\","
    "\"partial_json\":\"{\\\"expres\"}}\n\n"
    "event: content_block_delta\n"
    "data: {\"type\":\"content_block_delta\",\"index\":1,\"delta\":{\"type\":\"input_json_delta\","
    "\"partial_json\":\"sion\\\": \\\"2+2\\\"}\"}}\n\n"
    "event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":1}\n\n"
    "event: message_delta\n"
    "data: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"tool_use\",\"stop_sequence\":null},"
    "\"usage\":{\"output_tokens\":15}}\n\n"
    "event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n";

TEST(AnthropicWire, StreamJoinsTextAndInputJsonDeltasSplitAnywhere) {
  const std::string all = kToolStream;
  for (size_t step : {size_t{1}, size_t{7}, all.size()}) {
    AnthropicStreamAccumulator acc;
    std::string streamed;
    acc.set_on_text([&](std::string_view t) { streamed += t; });
    for (size_t i = 0; i < all.size(); i += step) ASSERT_TRUE(acc.Feed(all.substr(i, step))) << acc.error();
    Result<AnthropicReply> reply = acc.Finish();
    ASSERT_TRUE(reply.ok()) << reply.status().ToString();
    EXPECT_EQ(reply->cache_read_tokens, 1100);
    const ModelResponse* r = &reply->response;
    EXPECT_EQ(streamed, "Hello");
    EXPECT_EQ(r->message.content, "Hello");
    ASSERT_EQ(r->message.tool_calls.size(), 1u);
    EXPECT_EQ(r->message.tool_calls[0].id, "toolu_9");
    EXPECT_EQ(r->message.tool_calls[0].name, "calculator");
    EXPECT_EQ(r->message.tool_calls[0].arguments, R"({"expression": "2+2"})");
    EXPECT_EQ(r->finish_reason, "tool_calls");
    EXPECT_EQ(r->usage.prompt_tokens, 1125);
    EXPECT_EQ(r->usage.completion_tokens, 15);
  }
}

TEST(AnthropicWire, ErrorEventMidStreamStopsWithItsType) {
  const std::string head = std::string(kToolStream).substr(0, std::string(kToolStream).find("event: content_block_stop"));
  AnthropicStreamAccumulator acc;
  ASSERT_TRUE(acc.Feed(head));
  EXPECT_FALSE(acc.Feed("event: error\ndata: {\"type\": \"error\", \"error\": {\"type\": \"overloaded_error\", "
                        "\"message\": \"Overloaded\"}}\n\n"));
  EXPECT_NE(acc.error().find("overloaded_error"), std::string::npos) << acc.error();
  EXPECT_TRUE(acc.error_retryable());
  Result<AnthropicReply> r = acc.Finish();
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kUnavailable);

  AnthropicStreamAccumulator bad;
  ASSERT_TRUE(bad.Feed(head));
  EXPECT_FALSE(bad.Feed("event: error\ndata: {\"type\": \"error\", \"error\": {\"type\": \"invalid_request_error\", "
                        "\"message\": \"prompt is too long\"}}\n\n"));
  EXPECT_FALSE(bad.error_retryable());
  EXPECT_NE(bad.error().find("prompt is too long"), std::string::npos);
}

TEST(AnthropicWire, StreamCutBeforeMessageStopIsRetryableUnavailable) {
  const std::string all = kToolStream;
  AnthropicStreamAccumulator acc;
  ASSERT_TRUE(acc.Feed(all.substr(0, all.find("event: message_delta"))));
  Result<AnthropicReply> r = acc.Finish();
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kUnavailable);
  EXPECT_NE(r.status().message().find("message_stop"), std::string::npos);
}

}  // namespace
}  // namespace medreact

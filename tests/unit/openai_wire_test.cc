// Tests for the Chat Completions wire mapping: request bodies as a strict
// server expects them, and non-streamed replies in every shape servers send.

#include <gtest/gtest.h>

#include "llm/openai_wire.h"
#include "medreact/openai.h"

namespace medreact {
namespace {

Json MustParse(const std::string& text) {
  Result<Json> j = ParseJson(text);
  EXPECT_TRUE(j.ok()) << j.status().ToString();
  return j.ok() ? *j : Json();
}

ModelResponse MustComplete(const std::string& body_text) {
  Result<ModelResponse> r = ParseChatCompletion(MustParse(body_text));
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  return r.ok() ? *r : ModelResponse();
}

TEST(OpenAIWireTest, BuildsRolesAndOptionalFields) {
  ModelRequest request;
  request.messages = {Message::System("You are careful."), Message::User("Check the INR.")};
  Json body = BuildChatCompletionsBody(request, "gpt-test");
  EXPECT_EQ(body["model"], "gpt-test");
  ASSERT_EQ(body["messages"].size(), 2u);
  EXPECT_EQ(body["messages"][0], Json({{"role", "system"}, {"content", "You are careful."}}));
  EXPECT_EQ(body["messages"][1], Json({{"role", "user"}, {"content", "Check the INR."}}));
  EXPECT_FALSE(body.contains("tools"));
  EXPECT_FALSE(body.contains("tool_choice"));
  EXPECT_FALSE(body.contains("temperature"));
  EXPECT_FALSE(body.contains("max_tokens"));
  EXPECT_FALSE(body.contains("stream"));
  EXPECT_FALSE(body.contains("stream_options"));
}

TEST(OpenAIWireTest, OmitsEmptyModel) {
  ModelRequest request;
  request.messages = {Message::User("hi")};
  EXPECT_FALSE(BuildChatCompletionsBody(request, "").contains("model"));
}

TEST(OpenAIWireTest, ToolsChoiceSamplingAndStreamOptions) {
  ModelRequest request;
  request.messages = {Message::User("hi")};
  ToolSpec spec;
  spec.name = "get_labs";
  spec.description = "Latest labs.";
  spec.parameters = Json{{"type", "object"}, {"properties", {{"code", {{"type", "string"}}}}}};
  request.tools = {spec};
  request.tool_choice = "auto";
  request.temperature = 0.2;
  request.max_tokens = 512;
  request.stream = true;
  Json body = BuildChatCompletionsBody(request, "m");
  ASSERT_EQ(body["tools"].size(), 1u);
  EXPECT_EQ(body["tools"][0]["type"], "function");
  EXPECT_EQ(body["tools"][0]["function"]["name"], "get_labs");
  EXPECT_EQ(body["tools"][0]["function"]["description"], "Latest labs.");
  EXPECT_EQ(body["tools"][0]["function"]["parameters"], spec.parameters);
  EXPECT_EQ(body["tool_choice"], "auto");
  EXPECT_DOUBLE_EQ(body["temperature"].get<double>(), 0.2);
  EXPECT_EQ(body["max_tokens"], 512);
  EXPECT_EQ(body["stream"], true);
  EXPECT_EQ(body["stream_options"], Json({{"include_usage", true}}));
}

// Structured output: the caller's response_format goes out as is, in both
// body writers, streamed or not; it is absent when null.
TEST(OpenAIWireTest, ResponseFormatIsSentAsIsStreamingAndNot) {
  ModelRequest request;
  request.messages = {Message::User("Describe the film.")};
  EXPECT_FALSE(BuildChatCompletionsBody(request, "m").contains("response_format"));
  request.response_format = {
      {"type", "json_schema"},
      {"json_schema",
       {{"name", "report"},
        {"schema", {{"type", "object"}, {"required", {"findings"}}, {"properties", {{"findings", {{"type", "string"}}}}}}},
        {"strict", true}}}};
  ChatBodyCache cache;
  for (bool stream : {false, true}) {
    request.stream = stream;
    request.temperature = 0.0;
    request.max_tokens = 1024;
    const Json body = BuildChatCompletionsBody(request, "m");
    EXPECT_EQ(body["response_format"], request.response_format) << stream;
    EXPECT_EQ(body.contains("stream"), stream);
    for (int round = 0; round < 2; ++round) {  // from scratch, then with cached messages
      const std::string text = ChatCompletionsBodyText(request, "m", cache);
      EXPECT_EQ(text, DumpJson(body)) << stream;
      EXPECT_EQ(MustParse(text)["response_format"], request.response_format) << stream;
    }
  }
  // The same messages with another format, then none: the tail is never taken from the cache.
  request.response_format = {{"type", "json_object"}};
  EXPECT_EQ(MustParse(ChatCompletionsBodyText(request, "m", cache))["response_format"],
            Json({{"type", "json_object"}}));
  request.response_format = nullptr;
  EXPECT_FALSE(MustParse(ChatCompletionsBodyText(request, "m", cache)).contains("response_format"));
}

TEST(OpenAIWireTest, UserImagesBecomeContentParts) {
  Message user = Message::User("What does this ECG show?");
  ContentPart image;
  image.kind = ContentPart::Kind::kImage;
  image.image_url = "data:image/png;base64,AAAA";
  user.images = {image};
  ModelRequest request;
  request.messages = {user};
  Json content = BuildChatCompletionsBody(request, "")["messages"][0]["content"];
  ASSERT_TRUE(content.is_array());
  ASSERT_EQ(content.size(), 2u);
  EXPECT_EQ(content[0], Json({{"type", "text"}, {"text", "What does this ECG show?"}}));
  EXPECT_EQ(content[1], Json({{"type", "image_url"}, {"image_url", {{"url", "data:image/png;base64,AAAA"}}}}));
}

TEST(OpenAIWireTest, AssistantCallsHaveNullContentAndStringArguments) {
  ModelRequest request;
  request.messages = {
      Message::User("go"),
      Message::Assistant("", {ToolCall{"call_1", "get_labs", R"({ "since" : "2024",  "code": "INR" })"},
                              ToolCall{"call_2", "get_meds", "{not json"},
                              ToolCall{"call_3", "get_vitals", "[1,2]"},
                              ToolCall{"call_4", "get_notes", ""}}),
      Message::Tool("call_1", "get_labs", R"({"inr":2.1})"),
  };
  Json messages = BuildChatCompletionsBody(request, "")["messages"];
  const Json& assistant = messages[1];
  EXPECT_EQ(assistant["role"], "assistant");
  ASSERT_TRUE(assistant.contains("content"));
  EXPECT_TRUE(assistant["content"].is_null());
  ASSERT_EQ(assistant["tool_calls"].size(), 4u);
  const Json& first = assistant["tool_calls"][0];
  EXPECT_EQ(first["id"], "call_1");
  EXPECT_EQ(first["type"], "function");
  EXPECT_EQ(first["function"]["name"], "get_labs");
  ASSERT_TRUE(first["function"]["arguments"].is_string());
  EXPECT_EQ(first["function"]["arguments"], R"({"since":"2024","code":"INR"})");  // compact, order kept
  EXPECT_EQ(assistant["tool_calls"][1]["function"]["arguments"], "{}");  // invalid JSON
  EXPECT_EQ(assistant["tool_calls"][2]["function"]["arguments"], "{}");  // not an object
  EXPECT_EQ(assistant["tool_calls"][3]["function"]["arguments"], "{}");  // empty
  EXPECT_EQ(messages[2], Json({{"role", "tool"}, {"tool_call_id", "call_1"}, {"content", R"({"inr":2.1})"}}));
}

TEST(OpenAIWireTest, AssistantTextWithCallsKeepsText) {
  ModelRequest request;
  request.messages = {Message::Assistant("Looking up labs.", {ToolCall{"c", "get_labs", "{}"}}),
                      Message::Assistant("Done.")};
  Json messages = BuildChatCompletionsBody(request, "")["messages"];
  EXPECT_EQ(messages[0]["content"], "Looking up labs.");
  EXPECT_EQ(messages[1]["content"], "Done.");
  EXPECT_FALSE(messages[1].contains("tool_calls"));
}

TEST(OpenAIWireTest, ParsesPlainTextReplyWithUsage) {
  ModelResponse r = MustComplete(R"({"model":"m-1","choices":[{"index":0,"message":{"role":"assistant",
      "content":"INR is 2.1."},"finish_reason":"stop"}],
      "usage":{"prompt_tokens":10,"completion_tokens":5,"total_tokens":15}})");
  EXPECT_EQ(r.message.role, Role::kAssistant);
  EXPECT_EQ(r.message.content, "INR is 2.1.");
  EXPECT_TRUE(r.message.tool_calls.empty());
  EXPECT_EQ(r.finish_reason, "stop");
  EXPECT_EQ(r.model, "m-1");
  EXPECT_EQ(r.usage.prompt_tokens, 10);
  EXPECT_EQ(r.usage.completion_tokens, 5);
  EXPECT_EQ(r.usage.total_tokens, 15);
  EXPECT_TRUE(r.parse_error.empty());
}

TEST(OpenAIWireTest, ParsesCallsWithNullEmptyOrAbsentContent) {
  for (const char* content : {R"("content":null,)", R"("content":"",)", ""}) {
    std::string body = std::string(R"({"choices":[{"message":{"role":"assistant",)") + content +
                       R"("tool_calls":[{"id":"call_a","type":"function","function":{"name":"get_labs",
                       "arguments":"{\"code\":\"INR\"}"}}]},"finish_reason":"tool_calls"}]})";
    ModelResponse r = MustComplete(body);
    EXPECT_EQ(r.message.content, "") << content;
    ASSERT_EQ(r.message.tool_calls.size(), 1u) << content;
    EXPECT_EQ(r.message.tool_calls[0], (ToolCall{"call_a", "get_labs", R"({"code":"INR"})"}));
    EXPECT_TRUE(r.parse_error.empty());
  }
}

TEST(OpenAIWireTest, JoinsContentPartsArray) {
  ModelResponse r = MustComplete(R"({"choices":[{"message":{"content":[{"type":"text","text":"Hello, "},
      {"type":"image_url","image_url":{"url":"x"}},{"type":"text","text":"world."}]}}]})");
  EXPECT_EQ(r.message.content, "Hello, world.");
}

TEST(OpenAIWireTest, ArgumentsObjectIsDumped) {
  ModelResponse r = MustComplete(R"({"choices":[{"message":{"tool_calls":[{"id":"x1","function":
      {"name":"get_labs","arguments":{"code":"INR","n":3}}}]}}]})");
  ASSERT_EQ(r.message.tool_calls.size(), 1u);
  EXPECT_EQ(MustParse(r.message.tool_calls[0].arguments), Json({{"code", "INR"}, {"n", 3}}));
}

TEST(OpenAIWireTest, InvalidArgumentsKeptVerbatim) {
  ModelResponse r = MustComplete(R"({"choices":[{"message":{"tool_calls":[{"id":"x1","function":
      {"name":"get_labs","arguments":"{\"code\": INR"}}]}}]})");
  ASSERT_EQ(r.message.tool_calls.size(), 1u);
  EXPECT_EQ(r.message.tool_calls[0].arguments, R"({"code": INR)");
}

TEST(OpenAIWireTest, MissingOrEmptyIdIsMinted) {
  ModelResponse r = MustComplete(R"({"choices":[{"message":{"tool_calls":[
      {"function":{"name":"a","arguments":"{}"}},{"id":"","function":{"name":"b","arguments":"{}"}},
      {"id":"toolu_7","function":{"name":"c","arguments":"{}"}}]}}]})");
  ASSERT_EQ(r.message.tool_calls.size(), 3u);
  EXPECT_TRUE(r.message.tool_calls[0].id.starts_with("call_"));
  EXPECT_TRUE(r.message.tool_calls[1].id.starts_with("call_"));
  EXPECT_NE(r.message.tool_calls[0].id, r.message.tool_calls[1].id);
  EXPECT_EQ(r.message.tool_calls[2].id, "toolu_7");  // foreign ids kept as they are
}

TEST(OpenAIWireTest, LegacyFunctionCall) {
  ModelResponse r = MustComplete(R"({"choices":[{"message":{"content":null,
      "function_call":{"name":"get_meds","arguments":"{\"active\":true}"}},"finish_reason":"function_call"}]})");
  ASSERT_EQ(r.message.tool_calls.size(), 1u);
  EXPECT_EQ(r.message.tool_calls[0].name, "get_meds");
  EXPECT_EQ(r.message.tool_calls[0].arguments, R"({"active":true})");
  EXPECT_TRUE(r.message.tool_calls[0].id.starts_with("call_"));
}

TEST(OpenAIWireTest, ToolCallsDetectedRegardlessOfFinishReason) {
  ModelResponse r = MustComplete(R"({"choices":[{"message":{"content":"Let me check.",
      "tool_calls":[{"id":"c1","function":{"name":"get_labs","arguments":"{}"}}]},"finish_reason":"stop"}]})");
  EXPECT_EQ(r.message.content, "Let me check.");
  EXPECT_EQ(r.message.tool_calls.size(), 1u);
}

TEST(OpenAIWireTest, EmptyReplySetsParseError) {
  for (const char* body : {R"({"choices":[{"message":{"content":""}}]})",
                           R"({"choices":[{"message":{"content":null}}]})",
                           R"({"choices":[{"message":{"role":"assistant"}}]})",
                           R"({"choices":[{"message":{"content":"  \n"}}]})"}) {
    ModelResponse r = MustComplete(body);
    EXPECT_EQ(r.parse_error, "The model returned an empty reply (no text and no tool calls).") << body;
  }
}

TEST(OpenAIWireTest, ErrorBodyIsUnavailable) {
  Result<ModelResponse> r =
      ParseChatCompletion(MustParse(R"({"error":{"message":"model overloaded","type":"server_error"}})"));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kUnavailable);
  EXPECT_NE(r.status().message().find("model overloaded"), std::string::npos);
}

TEST(OpenAIWireTest, NoChoicesIsParseError) {
  for (const char* body : {R"({"choices":[]})", R"({"id":"x"})", R"([1,2])", R"({"choices":[null]})"}) {
    Result<ModelResponse> r = ParseChatCompletion(MustParse(body));
    ASSERT_FALSE(r.ok()) << body;
    EXPECT_EQ(r.status().code(), StatusCode::kParseError) << body;
  }
}

TEST(OpenAIWireTest, OddShapesDoNotThrow) {
  for (const char* body : {R"({"choices":[{"message":{"content":42,"tool_calls":{"a":1}}}]})",
                           R"({"choices":[{"message":{"tool_calls":[null,1,{"function":7}]}}],"usage":[]})",
                           R"({"choices":[{"message":{"tool_calls":[{"function":{"name":5}}]}}],
                              "usage":{"prompt_tokens":"x"}})"}) {
    Result<ModelResponse> r = ParseChatCompletion(MustParse(body));
    ASSERT_TRUE(r.ok()) << body << " " << r.status().ToString();
    EXPECT_FALSE(r->parse_error.empty()) << body;
  }
}

// The body text the client sends comes from cached pieces; it must be the
// mapping's body byte for byte, and a cached piece must never stand in for a
// message or tool list that differs.
TEST(ChatBodyCacheTest, TextIsTheMappingsBodyByteForByte) {
  ChatBodyCache cache;
  ModelRequest request;
  request.messages = {Message::System("You are careful."), Message::User("Check the INR \"now\".\n\u00e9"),
                      Message::Assistant("", {{"call_1", "get_recent_labs", R"({"category": "Coag", "x": 1})"},
                                              {"call_2", "bad", "not json"}}),
                      Message::Tool("call_1", "get_recent_labs", "INR 2.3"), Message::Tool("call_2", "bad", "Error")};
  Message with_image = Message::User("What is this?");
  with_image.images = {{.kind = ContentPart::Kind::kImage, .image_url = "data:image/png;base64,AAAA"}};
  request.messages.push_back(with_image);
  request.tools = {ToolSpec{"get_recent_labs", "Recent labs.",
                            Json::parse(R"({"type":"object","properties":{"category":{"type":"string"}}})")}};
  request.tool_choice = "auto";
  for (int round = 0; round < 2; ++round) {  // first from scratch, then from the cache
    EXPECT_EQ(ChatCompletionsBodyText(request, "m", cache), DumpJson(BuildChatCompletionsBody(request, "m")));
  }
  request.temperature = 0.2;
  request.max_tokens = 512;
  request.stream = true;
  EXPECT_EQ(ChatCompletionsBodyText(request, "", cache), DumpJson(BuildChatCompletionsBody(request, "")));
  request.tools = {};
  request.tool_choice.clear();
  EXPECT_EQ(ChatCompletionsBodyText(request, "m", cache), DumpJson(BuildChatCompletionsBody(request, "m")));
}

TEST(ChatBodyCacheTest, AChangedMessageOrToolListIsSerialisedAgain) {
  ChatBodyCache cache;
  ModelRequest request;
  request.messages = {Message::User("first"), Message::Tool("call_1", "t", "result one")};
  request.tools = {ToolSpec{"t", "a tool"}};
  (void)ChatCompletionsBodyText(request, "m", cache);
  request.messages[1].content = "result two";  // same place, new content
  request.tools = {ToolSpec{"t", "another description"}};  // a new list
  EXPECT_EQ(ChatCompletionsBodyText(request, "m", cache), DumpJson(BuildChatCompletionsBody(request, "m")));
  // A list equal to a cached one but built apart is serialised on its own.
  request.tools = {ToolSpec{"t", "another description"}};
  EXPECT_EQ(ChatCompletionsBodyText(request, "m", cache), DumpJson(BuildChatCompletionsBody(request, "m")));
}

// A conversation named by id: its kept text grows with the new messages and
// is used only while the request really extends it.
TEST(ChatBodyCacheTest, AConversationIsExtendedAndNeverTrustedWhenItDoesNotFit) {
  ChatBodyCache cache;
  ModelRequest request;
  request.conversation_id = NextConversationId();
  request.messages = {Message::System("s"), Message::User("task")};
  auto same = [&] {  // as the client does: the body is given back after sending
    std::string body = ChatCompletionsBodyText(request, "m", cache);
    const bool equal = body == DumpJson(BuildChatCompletionsBody(request, "m"));
    cache.ReturnBody(request.conversation_id, std::move(body));
    return equal;
  };
  EXPECT_TRUE(same());
  for (int i = 0; i < 5; ++i) {  // the agent's way: append only
    request.messages.push_back(Message::Assistant("", {{"call_" + std::to_string(i), "t", R"({"i": 1})"}}));
    request.messages.push_back(Message::Tool("call_" + std::to_string(i), "t", "result " + std::to_string(i)));
    EXPECT_TRUE(same()) << i;
    EXPECT_TRUE(same()) << i;  // the same request twice: nothing new to add
  }
  // A request that broke the promise: the last kept message changed ...
  request.messages.back().content = "a different result";
  EXPECT_TRUE(same());
  // ... or the history is shorter than what was kept: looked at message by message.
  request.messages.resize(3);
  EXPECT_TRUE(same());
  request.messages.push_back(Message::User("more"));
  EXPECT_TRUE(same());
  // A changed head (max_tokens) is not the kept body's.
  request.max_tokens = 64;
  EXPECT_TRUE(same());
  request.messages.push_back(Message::User("again"));
  EXPECT_TRUE(same());
  // A body not given back (a concurrent call of the same conversation) is built afresh.
  const std::string lent = ChatCompletionsBodyText(request, "m", cache);
  EXPECT_TRUE(same());
  cache.ReturnBody(request.conversation_id, lent);
  EXPECT_TRUE(same());
  // Two conversations side by side do not mix.
  ModelRequest other = request;
  other.conversation_id = NextConversationId();
  other.messages = {Message::System("s2"), Message::User("other task")};
  EXPECT_EQ(ChatCompletionsBodyText(other, "m", cache), DumpJson(BuildChatCompletionsBody(other, "m")));
  EXPECT_TRUE(same());
  EXPECT_NE(NextConversationId(), 0u);
}

TEST(ToolSpecListTest, CopiesShareOneListAndSeparateListsDoNot) {
  const ToolSpecList a = std::vector<ToolSpec>{ToolSpec{"t", "d"}};
  const ToolSpecList copy = a;
  const ToolSpecList equal = std::vector<ToolSpec>{ToolSpec{"t", "d"}};
  EXPECT_TRUE(copy.SameAs(a));
  EXPECT_FALSE(equal.SameAs(a));
  EXPECT_EQ(copy.size(), 1u);
  EXPECT_EQ(copy[0].name, "t");
  EXPECT_TRUE(ToolSpecList().empty());
}

}  // namespace
}  // namespace medreact

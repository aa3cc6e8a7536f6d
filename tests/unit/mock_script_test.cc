// Tests of the mock server's script parser and its pure rendering helpers:
// every entry kind with its defaults, error messages that name the entry
// index and the field, and UTF-8-safe fragmenting. No sockets here; the
// server itself is tested in mock_server_test.cc.
#include "mockllm/mock_script.h"

#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "mockllm/mock_response.h"
#include "mockllm/mock_server.h"

namespace medreact::mockllm {
namespace {

TEST(MockLlmScriptTest, ParsesKindsAndDefaults) {
  Result<MockScript> script = MockLlmServer::ParseScript(Json::parse(R"({
    "comment": "one of each",
    "responses": [
      {"message": {"content": "hi"}},
      {"message": {"tool_calls": [{"name": "calc"}]}, "fragment_chars": 3},
      {"message": {"content": null, "tool_calls": [{"id": "c", "name": "x", "arguments": {}}]},
       "finish_reason": "stop"},
      {"status": 429, "headers": {"Retry-After": 1}},
      {"status": 500, "body": "boom"},
      {"raw_body": "<html>", "headers": {"content-type": "text/html"}},
      {"chunks": ["[DONE]"], "truncate_after": 0, "crlf": true},
      {"hang_ms": 10}
    ],
    "on_exhausted": "repeat_last", "select": "by_turn"})"));
  ASSERT_TRUE(script.ok()) << script.status().ToString();
  EXPECT_EQ(script->select, MockScript::Select::kByTurn);
  const auto& r = script->responses;
  ASSERT_EQ(r.size(), 8u);
  EXPECT_EQ(script->on_exhausted, MockScript::OnExhausted::kRepeatLast);
  EXPECT_EQ(r[0].kind, MockEntry::Kind::kMessage);
  EXPECT_EQ(r[0].finish_reason, "stop");
  EXPECT_EQ(r[1].finish_reason, "tool_calls");
  EXPECT_FALSE(r[1].tool_calls[0].id.has_value());
  EXPECT_EQ(r[1].tool_calls[0].arguments, "{}");
  EXPECT_EQ(r[1].fragment_chars, 3);
  EXPECT_EQ(r[2].finish_reason, "stop");
  EXPECT_TRUE(r[2].tool_calls[0].arguments.is_object());
  EXPECT_EQ(r[3].kind, MockEntry::Kind::kPlain);
  EXPECT_EQ(r[3].headers[0], (std::pair<std::string, std::string>("Retry-After", "1")));
  EXPECT_NE(r[3].body.find("429"), std::string::npos);
  EXPECT_EQ(r[4].content_type, "text/plain");
  EXPECT_EQ(r[5].status, 200);
  EXPECT_EQ(r[5].content_type, "text/html");
  EXPECT_TRUE(r[5].headers.empty());
  EXPECT_EQ(r[6].kind, MockEntry::Kind::kChunks);
  EXPECT_EQ(r[6].truncate_after, 0u);
  EXPECT_EQ(r[7].kind, MockEntry::Kind::kHangOnly);
}

TEST(MockLlmScriptTest, BadScriptsNameTheEntryAndField) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {R"([])", "script: expected an object, got array"},
      {R"({"responses": {}})", "responses: expected an array, got object"},
      {R"({"responses": [], "extra": 1})", "script.extra: unknown field"},
      {R"({"responses": [{"message": {}}, {"status": "429"}]})",
       "responses[1].status: expected an integer, got string"},
      {R"({"responses": [{"message": {"tool_calls": [{"id": "a"}]}}]})",
       "responses[0].message.tool_calls[0].name: required"},
      {R"({"responses": [{"message": {"tool_calls": [{"name": "a", "arguments": [1]}]}}]})",
       "responses[0].message.tool_calls[0].arguments: expected a string or an object, got array"},
      {R"({"responses": [{"chunks": [], "fragment_chars": 2}]})",
       "responses[0].fragment_chars: unknown field in a chunks entry"},
      {R"({"responses": [{"message": {}, "chunks": []}]})",
       "responses[0]: 'message' and 'chunks' cannot be combined: an entry is one response"},
      {R"({"responses": [{"status": 99}]})", "responses[0].status: must be between 200 and 599, got 99"},
      {R"({"responses": [{"message": {}, "hang_ms": -1}]})",
       "responses[0].hang_ms: must be between 0 and 3600000, got -1"},
      {R"({"responses": [{}]})",
       "responses[0]: needs one of message, chunks, status, raw_body or hang_ms"},
      {R"({"responses": [], "on_exhausted": "repeat_last"})",
       "on_exhausted: \"repeat_last\" needs at least one response"},
      {R"({"responses": [], "select": "random"})", "select: must be \"in_order\" or \"by_turn\", got \"random\""},
  };
  for (const auto& [text, message] : cases) {
    Result<MockScript> script = MockLlmServer::ParseScript(Json::parse(text));
    ASSERT_FALSE(script.ok()) << text;
    EXPECT_EQ(script.status().code(), StatusCode::kInvalidArgument);
    EXPECT_EQ(script.status().message(), message) << text;
  }
}

TEST(MockLlmScriptTest, ParsesRoutesWithJsonFaultAndHangEntries) {
  Result<MockScript> script = MockLlmServer::ParseScript(Json::parse(R"({
    "routes": {
      "/classify": {"responses": [
          {"json": {"model": "m", "labels": []}},
          {"status": 201, "json": [1], "headers": {"X-A": "1"}, "delay_ms": 5},
          {"status": 500, "body": "model crashed"},
          {"status": 503, "body": "x", "content_type": "text/html"},
          {"raw_body": "{not json"},
          {"hang_ms": 100}],
        "on_exhausted": "repeat_last"},
      "/segment": {"responses": []}
    }
  })"));
  ASSERT_TRUE(script.ok()) << script.status().ToString();
  EXPECT_TRUE(script->responses.empty());  // a script of routes alone needs no chat responses
  ASSERT_EQ(script->routes.size(), 2u);
  const MockRoute& classify = script->routes.at("/classify");
  EXPECT_EQ(classify.on_exhausted, MockOnExhausted::kRepeatLast);
  const auto& r = classify.responses;
  ASSERT_EQ(r.size(), 6u);
  EXPECT_EQ(r[0].kind, MockEntry::Kind::kPlain);
  EXPECT_EQ(r[0].status, 200);
  EXPECT_EQ(r[0].content_type, "application/json");
  EXPECT_EQ(Json::parse(r[0].body), Json::parse(R"({"model": "m", "labels": []})"));
  EXPECT_EQ(r[1].status, 201);
  EXPECT_EQ(r[1].body, "[1]");
  EXPECT_EQ(r[1].delay_ms, 5);
  EXPECT_EQ(r[1].headers.size(), 1u);
  EXPECT_EQ(r[2].status, 500);
  EXPECT_EQ(r[2].body, "model crashed");
  EXPECT_EQ(r[2].content_type, "text/plain");
  EXPECT_EQ(r[3].content_type, "text/html");
  EXPECT_EQ(r[4].body, "{not json");
  EXPECT_EQ(r[5].kind, MockEntry::Kind::kHangOnly);
  EXPECT_EQ(script->routes.at("/segment").on_exhausted, MockOnExhausted::kError);
}

TEST(MockLlmScriptTest, BadRoutesNameTheRouteEntryAndField) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {R"({})", "responses: required"},
      {R"({"routes": []})", "routes: expected an object, got array"},
      {R"({"routes": {"/classify": {"responses": [{"status": 200, "jsn": {}}]}}})",
       "routes./classify.responses[0].jsn: unknown field in a fault entry"},
      {R"({"routes": {"/classify": {"responses": [{"json": {}, "jsn": {}}]}}})",
       "routes./classify.responses[0].jsn: unknown field in a json entry"},
      {R"({"routes": {"/classify": {"responses": [{"json": {}, "body": "x"}]}}})",
       "routes./classify.responses[0].body: give either json or body, not both"},
      {R"({"routes": {"/classify": {"responses": [{"json": {}, "raw_body": "x"}]}}})",
       "routes./classify.responses[0]: 'json' and 'raw_body' cannot be combined: an entry is one response"},
      {R"({"routes": {"/classify": {"responses": [{"json": {}, "status": 99}]}}})",
       "routes./classify.responses[0].status: must be between 200 and 599, got 99"},
      {R"({"routes": {"/classify": {"responses": [{"message": {"content": "hi"}}]}}})",
       "routes./classify.responses[0].message: a route answers with a plain HTTP response: json, status with body, "
       "raw_body, or hang_ms"},
      {R"({"routes": {"/classify": {"responses": [{"status": 200}], "on_exhausted": "again"}}})",
       "routes./classify.on_exhausted: must be \"error\" or \"repeat_last\", got \"again\""},
      {R"({"routes": {"/classify": {"responses": [], "on_exhausted": "repeat_last"}}})",
       "routes./classify.on_exhausted: \"repeat_last\" needs at least one response"},
      {R"({"routes": {"/classify": {"response": []}}})", "routes./classify.response: unknown field in a route"},
      {R"({"routes": {"/classify": {}}})", "routes./classify.responses: required"},
      {R"({"routes": {"/classify": []}})", "routes./classify: expected an object, got array"},
      {R"({"routes": {"classify": {"responses": []}}})", "routes.classify: a route's path must start with \"/\""},
      {R"({"routes": {"/a b": {"responses": []}}})",
       "routes./a b: a route's path has no spaces, control characters, query (?) or fragment (#)"},
      {R"({"routes": {"/x?y=1": {"responses": []}}})",
       "routes./x?y=1: a route's path has no spaces, control characters, query (?) or fragment (#)"},
  };
  for (const auto& [text, message] : cases) {
    Result<MockScript> script = MockLlmServer::ParseScript(Json::parse(text));
    ASSERT_FALSE(script.ok()) << text;
    EXPECT_EQ(script.status().code(), StatusCode::kInvalidArgument);
    EXPECT_EQ(script.status().message(), message) << text;
  }
  for (const char* own : {"/v1/chat/completions", "/chat/completions", "/v1/models", "/models", "/props",
                          "/_mock/requests"}) {
    Result<MockScript> parsed =
        MockLlmServer::ParseScript(Json::parse(R"({"routes": {")" + std::string(own) + R"(": {"responses": []}}})"));
    ASSERT_FALSE(parsed.ok()) << own;
    EXPECT_EQ(parsed.status().message(),
              "routes." + std::string(own) + ": is the server's own path; a route cannot replace it");
  }
}

TEST(MockLlmScriptTest, SplitsUtf8WithoutBreakingCharacters) {
  EXPECT_EQ(SplitUtf8("héllo wörld", 4), (std::vector<std::string>{"héll", "o wö", "rld"}));
  EXPECT_TRUE(SplitUtf8("", 8).empty());
}

}  // namespace
}  // namespace medreact::mockllm

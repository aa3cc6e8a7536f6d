// Context-window awareness (llm/context_fit.h): the window learned from a
// llama.cpp server's /props (here the scripted server's) or given, requests
// fitted into it (shorter tool descriptions, older history left out, a tool
// call never cut from its results), and a request that cannot fit refused
// with the numbers instead of reaching the server.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "llm/context_fit.h"
#include "medreact/model_factory.h"
#include "mockllm/mock_server.h"
#include "testing/scripted_server.h"

namespace medreact {
namespace {

using ::testing::HasSubstr;

ToolSpec Wordy(const std::string& name) {
  return {name, "Looks things up in the record. " + std::string(600, 'x'),
          Json{{"type", "object"},
               {"properties", {{"query", {{"type", "string"}, {"description", std::string(300, 'd')}}}}}}};
}

ModelRequest LongConversation(int turns) {
  ModelRequest r;
  r.messages = {Message::System("You are careful."), Message::User("The task.")};
  for (int i = 0; i < turns; ++i) {
    r.messages.push_back(Message::Assistant("", {{"c" + std::to_string(i), "lookup", "{}"}}));
    r.messages.push_back(Message::Tool("c" + std::to_string(i), "lookup", std::string(600, 'r')));
  }
  r.tools = {Wordy("lookup"), Wordy("search")};
  return r;
}

TEST(ContextFitTest, ShortensToolsThenWindowsHistoryKeepingTheTaskAndWholeGroups) {
  const ModelRequest original = LongConversation(20);
  const int64_t before = EstimateTokens(original);
  std::vector<std::string> changes;
  Result<std::optional<ModelRequest>> fit = FitToContext(original, 2048, &changes);
  ASSERT_TRUE(fit.ok());
  ASSERT_TRUE(fit->has_value());
  const ModelRequest& r = **fit;
  EXPECT_LE(EstimateTokens(r), 2048 - 512);
  EXPECT_LT(EstimateTokens(r), before);
  EXPECT_EQ(r.tools[0].description, "Looks things up in the record.");
  EXPECT_FALSE(r.tools[0].parameters["properties"]["query"].contains("description"));
  ASSERT_EQ(changes.size(), 2u);
  EXPECT_THAT(changes[1], HasSubstr("history windowed"));
  EXPECT_EQ(r.messages[0].content, "You are careful.");
  EXPECT_EQ(r.messages[1].content, "The task.");
  EXPECT_EQ(r.messages[2].role, Role::kAssistant);  // never a tool result without its call
  EXPECT_EQ(r.messages.back().tool_call_id, "c19");  // the newest turn kept
}

TEST(ContextFitTest, ARequestThatFitsIsLeftAlone) {
  Result<std::optional<ModelRequest>> fit = FitToContext(LongConversation(1), 32768, nullptr);
  ASSERT_TRUE(fit.ok());
  EXPECT_FALSE(fit->has_value());  // nothing to change, nothing copied
}

TEST(ContextFitTest, WhatCannotFitIsRefusedWithTheNumbers) {
  ModelRequest r = LongConversation(2);
  r.messages[0].content = std::string(9000, 's');  // a system prompt of ~3,000 tokens
  Status s = FitToContext(r, 2048, nullptr).status();
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(s.message(), HasSubstr("does not fit the model's context window"));
  EXPECT_THAT(s.message(), HasSubstr("the window is 2048 tokens"));
  EXPECT_THAT(s.message(), HasSubstr("--ctx-size"));
}

using Server = testing::ScriptedServer;

Json OneReply() { return Json::array({{{"message", {{"content", "ok"}}}}}); }

TEST(ContextWindowTest, TheWindowIsLearnedFromPropsAndTheRequestFitted) {
  Server s(Json{{"responses", OneReply()}, {"props", {{"default_generation_settings", {{"n_ctx", 2048}}}}}});
  Result<std::shared_ptr<ChatModel>> model =
      BuildModel({.provider = "native", .base_url = s.server->base_url(), .max_retries = 0});
  ASSERT_TRUE(model.ok());
  Result<ModelResponse> reply = (*model)->Complete(LongConversation(20), {});
  ASSERT_TRUE(reply.ok()) << reply.status().ToString();
  EXPECT_EQ((*model)->capabilities().context_tokens, 2048);
  const std::vector<Json> sent = s.server->requests();
  ASSERT_EQ(sent.size(), 1u);  // /props is not a chat request
  EXPECT_LT(sent[0]["body"]["messages"].size(), 42u);
  EXPECT_EQ(sent[0]["body"]["tools"][0]["function"]["description"], "Looks things up in the record.");
}

TEST(ContextWindowTest, AGivenWindowThatCannotHoldTheRequestStopsItBeforeTheServer) {
  Server s(Json{{"responses", OneReply()}});
  Result<std::shared_ptr<ChatModel>> model = BuildModel(
      {.provider = "native", .base_url = s.server->base_url(), .max_retries = 0, .context_tokens = 256});
  ASSERT_TRUE(model.ok());
  ModelRequest r = LongConversation(1);
  r.messages[1].content = std::string(3000, 't');
  Result<ModelResponse> reply = (*model)->Complete(r, {});
  ASSERT_FALSE(reply.ok());
  EXPECT_THAT(reply.status().message(), HasSubstr("the window is 256 tokens"));
  EXPECT_TRUE(s.server->requests().empty());
}

TEST(ContextWindowTest, AServerThatRefusesForContextSaysSoNotUnreachable) {
  const Json error = Json::parse(R"({"error": {"code": 400, "type": "exceed_context_size_error",
      "message": "the request exceeds the available context size, try increasing it"}})");
  Json entry{{"status", 400}, {"body", error}};
  Server s(Json{{"responses", std::vector<Json>{entry}}});
  Result<std::shared_ptr<ChatModel>> model =
      BuildModel({.provider = "native", .base_url = s.server->base_url(), .max_retries = 0});
  ASSERT_TRUE(model.ok());
  Result<ModelResponse> reply = (*model)->Complete(LongConversation(1), {});
  ASSERT_FALSE(reply.ok());
  EXPECT_EQ(reply.status().code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(reply.status().message(), HasSubstr("does not fit the model's context window"));
  EXPECT_THAT(reply.status().message(), HasSubstr("exceeds the available context size"));
}

// A llama-server router (--models-dir) answers /props for itself with n_ctx
// 0; the model's own settings are at /props?model=NAME (llama.cpp de3ff81).
class RouterTransport : public HttpTransport {
 public:
  explicit RouterTransport(int model_props_status) : model_props_status_(model_props_status) {}
  Result<HttpResponse> Send(const HttpRequest& request, const HttpChunkHandler&, const CancellationToken&) override {
    urls.push_back(request.url);
    HttpResponse r;
    r.status = 200;
    if (request.url.ends_with("/props")) {
      r.body = R"({"role":"router","default_generation_settings":{"params":null,"n_ctx":0}})";
    } else if (request.url.find("/props?model=") != std::string::npos) {
      r.status = model_props_status_;
      r.body = R"({"default_generation_settings":{"n_ctx":2048}})";
    } else {
      r.body = R"({"choices":[{"message":{"role":"assistant","content":"ok"},"finish_reason":"stop"}]})";
    }
    return r;
  }
  std::vector<std::string> urls;

 private:
  int model_props_status_;
};

TEST(ContextWindowTest, ARouterIsAskedForTheModelsOwnWindow) {
  auto transport = std::make_shared<RouterTransport>(200);
  Result<std::shared_ptr<ChatModel>> model = BuildModel({.provider = "native", .base_url = "http://router.invalid/v1",
                                                         .model = "tiny words", .max_retries = 0,
                                                         .transport = transport});
  ASSERT_TRUE(model.ok());
  ASSERT_TRUE((*model)->Complete(LongConversation(1), {}).ok());
  EXPECT_EQ((*model)->capabilities().context_tokens, 2048);
  ASSERT_GE(transport->urls.size(), 2u);
  EXPECT_EQ(transport->urls[1], "http://router.invalid/props?model=tiny%20words");

  // A router that cannot say (404 for the model): the window stays unknown, the call goes through.
  auto silent = std::make_shared<RouterTransport>(404);
  model = BuildModel({.provider = "native", .base_url = "http://router.invalid/v1", .model = "m", .max_retries = 0,
                      .transport = silent});
  ASSERT_TRUE(model.ok());
  ASSERT_TRUE((*model)->Complete(LongConversation(1), {}).ok());
  EXPECT_EQ((*model)->capabilities().context_tokens, 0);
}

}  // namespace
}  // namespace medreact

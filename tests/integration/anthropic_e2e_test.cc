// The Anthropic provider end to end through real sockets: Agent + the
// Anthropic client (libcurl) + the scripted server's POST /v1/messages on
// 127.0.0.1, replaying recorded-style transcripts: a tool-use turn, parallel
// tool use, streamed input_json_delta, an error event mid-stream, 529 and 429
// with retry-after. Each case checks the run and the exact requests sent.
#include <gtest/gtest.h>

#include <mutex>

#include "llm/anthropic_client.h"
#include "medreact/agent.h"
#include "medreact/model_factory.h"
#include "mockllm/mock_server.h"
#include "service/run_service.h"
#include "testing/build_paths.h"
#include "testing/subprocess.h"
#include "tools/util/util_pack.h"

namespace medreact {
namespace {

using mockllm::MockLlmServer;

constexpr char kKey[] = "sk-ant-test-secret-123";

struct E2E {
  RunResult result;
  std::vector<Json> requests;
  std::vector<int64_t> sleeps_ms;
  std::string streamed;
};

E2E RunAgainstScript(const Json& script, bool stream = false, int max_retries = 4) {
  auto parsed = MockLlmServer::ParseScript(script);
  EXPECT_TRUE(parsed.ok()) << parsed.status().ToString();
  MockLlmServer server(*parsed);
  EXPECT_TRUE(server.Start().ok());
  E2E out;
  auto sleeps = std::make_shared<std::vector<int64_t>>();
  auto mu = std::make_shared<std::mutex>();
  AnthropicOptions client;
  client.base_url = "http://127.0.0.1:" + std::to_string(server.port());
  client.model = "claude-test";
  client.api_key = kKey;
  client.max_retries = max_retries;
  client.initial_backoff = Millis(1);
  client.request_timeout = Millis(10'000);
  client.sleep = [sleeps, mu](Millis d) {
    std::lock_guard<std::mutex> lock(*mu);
    sleeps->push_back(d.count());
  };
  std::shared_ptr<ChatModel> model = MakeAnthropicModel(client);
  auto registry = std::make_shared<ToolRegistry>();
  EXPECT_TRUE(RegisterUtilPack(*registry).ok());
  AgentOptions options;
  options.stream = stream;
  options.on_event = [&out](const Event& e) {
    if (e.type == EventType::kModelDelta) out.streamed += e.text;
  };
  Agent agent(model, registry, options);
  out.result = agent.Run({.message = "What is 17*23?"});
  out.requests = server.requests();
  out.sleeps_ms = *sleeps;
  server.Stop();
  return out;
}

Json Call(const std::string& id, const std::string& expression) {
  return Json{{"id", id}, {"name", "calculator"}, {"arguments", Json{{"expression", expression}}}};
}

Json Reply(std::vector<Json> calls, Json content = nullptr) {
  Json message{{"content", std::move(content)}, {"tool_calls", Json::array()}};
  for (Json& c : calls) message["tool_calls"].push_back(std::move(c));
  return Json{{"message", std::move(message)}};
}

Json TextReply(const std::string& text) { return Json{{"message", {{"content", text}}}}; }

const Json& Messages(const E2E& e, size_t i) { return e.requests.at(i).at("body").at("messages"); }

TEST(AnthropicEndToEnd, ToolUseTurnThenAnswer) {
  E2E e = RunAgainstScript({{"responses", {Reply({Call("toolu_1", "17*23")}, "Let me compute."),
                                           TextReply("17*23 = 391")}}});
  ASSERT_EQ(e.result.status, RunStatus::kFinished) << e.result.error;
  EXPECT_EQ(e.result.answer, "17*23 = 391");
  ASSERT_EQ(e.requests.size(), 2u);
  const Json& first = e.requests[0];
  EXPECT_EQ(first["path"], "/v1/messages");
  EXPECT_EQ(first["headers"]["x-api-key"], kKey);
  EXPECT_EQ(first["headers"]["anthropic-version"], "2023-06-01");
  EXPECT_FALSE(first["headers"].contains("authorization"));
  EXPECT_EQ(first["body"]["model"], "claude-test");
  EXPECT_TRUE(first["body"]["max_tokens"].is_number_integer());
  EXPECT_TRUE(first["body"]["system"].is_array());
  EXPECT_EQ(first["body"]["tools"][0]["input_schema"]["type"], "object");
  const Json& follow = Messages(e, 1);
  ASSERT_EQ(follow.size(), 3u) << follow.dump();
  EXPECT_EQ(follow[1]["role"], "assistant");
  EXPECT_EQ(follow[1]["content"][1]["type"], "tool_use");
  EXPECT_EQ(follow[1]["content"][1]["input"], Json({{"expression", "17*23"}}));
  EXPECT_EQ(follow[2]["role"], "user");
  EXPECT_EQ(follow[2]["content"][0]["type"], "tool_result");
  EXPECT_EQ(follow[2]["content"][0]["tool_use_id"], "toolu_1");
  EXPECT_NE(follow[2]["content"][0]["content"].get<std::string>().find("391"), std::string::npos);
  EXPECT_GT(e.result.usage.prompt_tokens, 0);
}

TEST(AnthropicEndToEnd, ParallelToolUseResultsGoBackInOneUserMessage) {
  E2E e = RunAgainstScript(
      {{"responses", {Reply({Call("toolu_a", "17*23"), Call("toolu_b", "2+2")}), TextReply("391 and 4")}}});
  ASSERT_EQ(e.result.status, RunStatus::kFinished) << e.result.error;
  EXPECT_EQ(e.result.tool_calls, 2);
  const Json& follow = Messages(e, 1);
  ASSERT_EQ(follow.size(), 3u) << follow.dump();
  const Json& results = follow[2];
  EXPECT_EQ(results["role"], "user");
  ASSERT_EQ(results["content"].size(), 2u);
  EXPECT_EQ(results["content"][0]["tool_use_id"], "toolu_a");
  EXPECT_EQ(results["content"][1]["tool_use_id"], "toolu_b");
  EXPECT_NE(results["content"][1]["content"].get<std::string>().find('4'), std::string::npos);
}

TEST(AnthropicEndToEnd, StreamedTextAndInputJsonDelta) {
  Json first = Reply({Call("toolu_s", "17*23")}, "Computing");
  first["fragment_chars"] = 3;  // the input arrives as several input_json_delta fragments
  E2E e = RunAgainstScript({{"responses", {first, TextReply("It is 391.")}}}, /*stream=*/true);
  ASSERT_EQ(e.result.status, RunStatus::kFinished) << e.result.error;
  EXPECT_EQ(e.result.answer, "It is 391.");
  EXPECT_EQ(e.requests[0]["body"]["stream"], true);
  EXPECT_EQ(e.requests[0]["headers"]["accept"], "text/event-stream");
  EXPECT_NE(e.streamed.find("It is 391."), std::string::npos) << e.streamed;
  const Json& follow = Messages(e, 1);
  EXPECT_EQ(follow[1]["content"][1]["input"], Json({{"expression", "17*23"}}));
  EXPECT_EQ(follow[2]["content"][0]["tool_use_id"], "toolu_s");
}

Json ErrorEventScript(const std::string& type) {
  return Json{
      {"chunks",
       {Json{{"type", "message_start"},
             {"message", {{"id", "msg_e"}, {"type", "message"}, {"role", "assistant"}, {"model", "claude-test"},
                          {"content", Json::array()}, {"usage", {{"input_tokens", 5}, {"output_tokens", 1}}}}}},
        Json{{"type", "ping"}},
        Json{{"type", "content_block_start"}, {"index", 0}, {"content_block", {{"type", "text"}, {"text", ""}}}},
        Json{{"type", "content_block_delta"}, {"index", 0}, {"delta", {{"type", "text_delta"}, {"text", "Par"}}}},
        Json{{"type", "error"}, {"error", {{"type", type}, {"message", "Overloaded"}}}}}}};
}

TEST(AnthropicEndToEnd, OverloadedErrorEventMidStreamIsRetried) {
  E2E e = RunAgainstScript({{"responses", {ErrorEventScript("overloaded_error"), TextReply("391")}}}, true);
  ASSERT_EQ(e.result.status, RunStatus::kFinished) << e.result.error;
  EXPECT_EQ(e.result.answer, "391");
  EXPECT_EQ(e.requests.size(), 2u);
  EXPECT_EQ(e.sleeps_ms.size(), 1u);
}

TEST(AnthropicEndToEnd, InvalidRequestErrorEventMidStreamIsSurfaced) {
  E2E e = RunAgainstScript({{"responses", {ErrorEventScript("invalid_request_error")}}}, true);
  EXPECT_EQ(e.result.status, RunStatus::kError);
  EXPECT_NE(e.result.error.find("invalid_request_error"), std::string::npos) << e.result.error;
  EXPECT_EQ(e.requests.size(), 1u);  // not retried
  EXPECT_TRUE(e.sleeps_ms.empty());
}

TEST(AnthropicEndToEnd, Overloaded529HonoursRetryAfter) {
  Json overloaded{{"status", 529},
                  {"headers", {{"retry-after", "3"}}},
                  {"body", {{"type", "error"}, {"error", {{"type", "overloaded_error"}, {"message", "Overloaded"}}}}}};
  E2E e = RunAgainstScript({{"responses", {overloaded, TextReply("391")}}});
  ASSERT_EQ(e.result.status, RunStatus::kFinished) << e.result.error;
  EXPECT_EQ(e.sleeps_ms, std::vector<int64_t>{3000});  // the server's retry-after, not the 1 ms backoff
  EXPECT_EQ(e.requests.size(), 2u);
}

TEST(AnthropicEndToEnd, RateLimited429RetriedThenGivesUpNamingTheError) {
  Json limited{{"status", 429},
               {"headers", {{"retry-after", "1"}}},
               {"body", {{"type", "error"}, {"error", {{"type", "rate_limit_error"}, {"message", "slow down"}}}}}};
  E2E e = RunAgainstScript({{"responses", {limited, limited}}}, false, /*max_retries=*/1);
  EXPECT_EQ(e.result.status, RunStatus::kError);
  EXPECT_EQ(e.sleeps_ms, std::vector<int64_t>{1000});
  EXPECT_NE(e.result.error.find("429"), std::string::npos) << e.result.error;
  EXPECT_NE(e.result.error.find("slow down"), std::string::npos) << e.result.error;
  EXPECT_EQ(e.result.error.find(kKey), std::string::npos);
}

TEST(AnthropicEndToEnd, ImagesAndCacheMarkersReachTheServer) {
  auto parsed = MockLlmServer::ParseScript(
      Json{{"responses", {Json{{"message", {{"content", "A chest film."}}},
                               {"usage", {{"input_tokens", 12}, {"output_tokens", 4},
                                          {"cache_creation_input_tokens", 1500}}}}}}});
  ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
  MockLlmServer server(*parsed);
  ASSERT_TRUE(server.Start().ok());
  std::unique_ptr<ChatModel> model = MakeAnthropicModel(
      {.base_url = "http://127.0.0.1:" + std::to_string(server.port()), .model = "claude-test", .api_key = kKey});
  ModelRequest request;
  request.messages = {Message::System(std::string(6000, 'g')), Message::User("What does it show?")};
  request.messages[1].images.push_back({.kind = ContentPart::Kind::kImage, .image_url = "data:image/jpeg;base64,/9j/4A"});
  Result<ModelResponse> reply = model->Complete(request, {});
  ASSERT_TRUE(reply.ok()) << reply.status().ToString();
  EXPECT_EQ(reply->message.content, "A chest film.");
  EXPECT_EQ(reply->finish_reason, "stop");
  EXPECT_EQ(reply->usage.prompt_tokens, 1512);  // cached tokens counted as prompt tokens
  const Json body = server.requests().at(0).at("body");
  server.Stop();
  EXPECT_EQ(body["system"][0]["cache_control"], Json({{"type", "ephemeral"}}));
  EXPECT_EQ(body["messages"][0]["content"][0],
            Json({{"type", "image"}, {"source", {{"type", "base64"}, {"media_type", "image/jpeg"}, {"data", "/9j/4A"}}}}));
}

TEST(AnthropicEndToEnd, FactoryBuildsTheProviderAndNamesBadOnes) {
  EXPECT_EQ(*ProviderFor("anthropic", "native"), "anthropic");
  EXPECT_EQ(*ProviderFor("openai", "text"), "text");
  Result<std::string> bad = ProviderFor("gemini", "native");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("known: openai, anthropic"), std::string::npos);
  EXPECT_NE(bad.status().message().find("(provider)"), std::string::npos);
  EXPECT_FALSE(ProviderFor("anthropic", "text").ok());
  EXPECT_EQ(DefaultModelUrl("anthropic"), "https://api.anthropic.com");
  Result<std::shared_ptr<ChatModel>> model =
      BuildModel({.provider = "anthropic", .base_url = "http://127.0.0.1:1", .model = "claude-test"});
  ASSERT_TRUE(model.ok()) << model.status().ToString();
  EXPECT_EQ((*model)->protocol(), "anthropic");
  EXPECT_EQ((*model)->capabilities().context_tokens, 200'000);
}

TEST(AnthropicEndToEnd, RunSettingsKeepTheProviderForResumeAndTheServer) {
  const service::ModelSettings settings{.provider = "anthropic", .name = "claude-test", .api_key = kKey};
  const Json stored = service::StoredModel(settings);
  EXPECT_EQ(stored["provider"], "anthropic");
  EXPECT_EQ(DumpJson(stored).find(kKey), std::string::npos);
  const service::ModelSettings back = service::ModelFromStored(stored, kKey);
  EXPECT_EQ(back.provider, "anthropic");
  EXPECT_EQ(service::ModelFromStored(Json{{"url", "http://127.0.0.1:1/v1"}}, "").provider, "openai");
  service::RunService runs(nullptr);
  Result<std::shared_ptr<ChatModel>> model = runs.BuildModel(back);  // no URL: Anthropic's default
  ASSERT_TRUE(model.ok()) << model.status().ToString();
  EXPECT_EQ((*model)->protocol(), "anthropic");
  Result<std::shared_ptr<ChatModel>> bad = runs.BuildModel({.provider = "gemini", .url = "http://127.0.0.1:1"});
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("known: openai, anthropic"), std::string::npos);
}

TEST(AnthropicEndToEnd, ChatCommandWithProviderAnthropic) {
  testing::MockLlmProcess mock(R"({"responses": [
    {"message": {"content": null, "tool_calls": [{"id": "toolu_1", "name": "calculator",
                                                  "arguments": {"expression": "17*23"}}]}},
    {"message": {"content": "17 * 23 = 391"}}]})");
  ASSERT_TRUE(mock.ok());
  auto r = testing::RunCommand({MEDREACT_BINARY, "chat", "--provider", "anthropic", "--model", "claude-test",
                                "--llm-url", mock.base_url(), "--stream", "What is 17*23?"},
                               {{"MEDREACT_LLM_API_KEY", kKey}});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "17 * 23 = 391\n");
  EXPECT_EQ(r.err.find(kKey), std::string::npos);
  const std::vector<std::string> lines = mock.request_lines();
  ASSERT_EQ(lines.size(), 2u);
  Result<Json> second = ParseJson(lines[1]);
  ASSERT_TRUE(second.ok());
  EXPECT_EQ((*second)["path"], "/v1/messages");
  EXPECT_EQ((*second)["headers"]["x-api-key"], kKey);
  EXPECT_EQ((*second)["body"]["messages"][2]["content"][0]["type"], "tool_result");

  // The provider from the environment; a bad name is a usage error listing the valid ones.
  auto bad = testing::RunCommand({MEDREACT_BINARY, "chat", "--llm-url", mock.base_url(), "q"},
                                 {{"MEDREACT_LLM_PROVIDER", "gemini"}});
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("openai"), std::string::npos) << bad.err;
  EXPECT_NE(bad.err.find("anthropic"), std::string::npos) << bad.err;
}

}  // namespace
}  // namespace medreact
